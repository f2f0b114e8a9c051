# Helpers shared by every chapter's CMakeLists.txt.

set(OCLT_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels.cmake)

# oclt_add_chapter(<folder name> SOURCES main.c ... KERNELS a.cl ...)
# One executable named after the chapter folder, in build/bin/, with its .cl files embedded.
function(oclt_add_chapter name)
  cmake_parse_arguments(ARG "" "" "SOURCES;KERNELS" ${ARGN})
  set(inputs "")
  foreach(kernel IN LISTS ARG_KERNELS)
    list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/${kernel})
  endforeach()
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${name}_kernels.c)
  add_custom_command(
    OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${generated} "-DINPUTS=${inputs}" -P ${OCLT_EMBED_SCRIPT}
    DEPENDS ${inputs} ${OCLT_EMBED_SCRIPT}
    COMMENT "Embedding kernels of ${name}"
    VERBATIM)
  add_executable(${name} ${ARG_SOURCES} ${generated})
  target_link_libraries(${name} PRIVATE oclt_common)
endfunction()

# The label chNN for a test whose name begins with a chapter number (01_ .. 06_), beside its own
# labels (usage, oclgrind, mutation, leaks, solutions), so that `ctest -L ch04` runs all of
# chapter 04.
function(oclt_label_chapter test)
  if(test MATCHES "^(0[1-6])_")
    set_property(TEST ${test} APPEND PROPERTY LABELS ch${CMAKE_MATCH_1})
  endif()
endfunction()

# oclt_add_test(<test name> COMMAND <program> [args...] [LABELS l...] [TIMEOUT s]
#               [PASS_REGULAR_EXPRESSION re] [WORKING_DIRECTORY dir])
# Exit code 77 marks the test skipped (no device, or a feature the device lacks).
function(oclt_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;WORKING_DIRECTORY;PASS_REGULAR_EXPRESSION"
                        "COMMAND;LABELS;ENVIRONMENT" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endif()
  add_test(NAME ${name} COMMAND ${ARG_COMMAND} WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${ARG_TIMEOUT})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  if(ARG_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
  if(ARG_PASS_REGULAR_EXPRESSION)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION
                                            "${ARG_PASS_REGULAR_EXPRESSION}")
  endif()
  oclt_label_chapter(${name})
endfunction()

# oclt_add_usage_test(<test name> <expected exit code> <expected stderr regex> <program> args...)
# Runs the program through common/tests/expect.sh: the exit code must match and stderr must
# hold the regex (one clear line naming the bad value).
function(oclt_add_usage_test name code regex)
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/expect.sh ${code} "${regex}" ${ARGN}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "usage" TIMEOUT 120 SKIP_RETURN_CODE 77)
  oclt_label_chapter(${name})
endfunction()

# oclt_add_oclgrind_test(<test name> [EXPECT_RACE] [NO_UNINITIALIZED] [ALLOW_API call:error...]
#                        COMMAND <program> [args...])
# Label "oclgrind": runs the program under oclgrind --data-races --uninitialized --check-api and
# fails on any report (EXPECT_RACE: passes only if a data race is reported; NO_UNINITIALIZED:
# without the --uninitialized plugin, where it reports falsely; ALLOW_API: API calls the program
# makes on purpose to show they are refused, e.g. clCreateProgramWithBinary:CL_INVALID_BINARY).
# Skipped without oclgrind. Keep sizes small: Oclgrind simulates every work-item.
function(oclt_add_oclgrind_test name)
  cmake_parse_arguments(ARG "EXPECT_RACE;NO_UNINITIALIZED" "TIMEOUT" "COMMAND;ALLOW_API" ${ARGN})
  set(flag "")
  foreach(call IN LISTS ARG_ALLOW_API)
    list(APPEND flag --allow-api ${call})
  endforeach()
  if(ARG_EXPECT_RACE)
    list(APPEND flag "--expect-race")
  endif()
  if(ARG_NO_UNINITIALIZED)
    list(APPEND flag "--no-uninitialized")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  add_test(NAME ${name} COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/oclgrind.sh ${flag}
                                ${ARG_COMMAND}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS oclgrind SKIP_RETURN_CODE 77
                                          TIMEOUT ${ARG_TIMEOUT})
  oclt_label_chapter(${name})
endfunction()

# oclt_add_leak_test(<test name> COMMAND <program> [args...] [LABELS l...] [TIMEOUT s])
# Label "leaks" (plus LABELS): runs the program with the OpenCL object leak checker preloaded
# (common/tests/cl_leakcheck.c through leakcheck.sh). Passes when the program exits 0, made at
# least one OpenCL object, and released every one it made or retained. COMMAND must be the
# chapter's program itself (not a script). Not added where the checker cannot be built.
function(oclt_add_leak_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT TARGET cl_leakcheck)
    return()
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/leakcheck.sh $<TARGET_FILE:cl_leakcheck>
                   ${ARG_COMMAND}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "leaks;${ARG_LABELS}" SKIP_RETURN_CODE 77
                                          TIMEOUT ${ARG_TIMEOUT})
  oclt_label_chapter(${name})
endfunction()

# oclt_add_preload_library(<target> <source.c> [libraries...])
# A library for LD_PRELOAD in front of libOpenCL (the leak checker, the fake device), in
# build/lib. Not linked to libOpenCL: dlsym(RTLD_NEXT) finds the one the program loads. Never
# built with the sanitizers: LD_PRELOAD passes to every process the program starts (PoCL runs a
# linker), and a preloaded sanitizer runtime would report that linker's leaks and fail it.
function(oclt_add_preload_library target source)
  add_library(${target} SHARED ${source})
  target_include_directories(${target} PRIVATE ${OpenCL_INCLUDE_DIRS})
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS} ${ARGN})
  set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden
                                             LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  foreach(property COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(options ${target} ${property})
    if(options)
      list(FILTER options EXCLUDE REGEX "^-fsanitize|^-fno-sanitize")
      set_property(TARGET ${target} PROPERTY ${property} ${options})
    endif()
  endforeach()
endfunction()

# The leak checker library and its own tests (common.leakcheck_*).
include(${CMAKE_CURRENT_LIST_DIR}/../tests/leakcheck.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../tests/fake_device.cmake)

# oclt_add_mutation_test(<test name> FILE <kernel.cl> FIND <text> REPLACE <text>
#                        [OCCURRENCE n] [ORACLE check|oclgrind] [TIMEOUT s]
#                        [KERNELS_ALSO <dir>...] COMMAND <program> [args...])
# Label "mutation": runs the program on a copy of this chapter's kernels in which one piece of
# text is replaced (common/tests/mutate.py), and passes only when the break is caught: the
# program's check FAILs (exit 1), or with ORACLE oclgrind, Oclgrind reports it. The copy holds the
# .cl files of this folder (and of the chapter, for a solutions folder) and of KERNELS_ALSO: every
# kernel file the program embeds, since OCLT_KERNEL_DIR must hold them all. A mutant that
# does not build, or text that is not found exactly where stated, fails the test: every mutant
# must be a real, compiling bug. docs/correctness_tooling.md lists what the mutants cover.
find_program(OCLT_PYTHON3_MUTATE python3)
function(oclt_add_mutation_test name)
  # PARSE_ARGV keeps a ';' inside FIND or REPLACE as text instead of splitting the value there.
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FILE;FIND;REPLACE;OCCURRENCE;ORACLE;TIMEOUT"
                        "COMMAND;KERNELS_ALSO")
  if(NOT OCLT_PYTHON3_MUTATE)
    return()
  endif()
  if(NOT ARG_OCCURRENCE)
    set(ARG_OCCURRENCE 0)
  endif()
  if(NOT ARG_ORACLE)
    set(ARG_ORACLE check)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # A chapter's solutions embed the chapter's kernel files as well as their own.
  set(kernels --kernels ${CMAKE_CURRENT_SOURCE_DIR})
  if(CMAKE_CURRENT_SOURCE_DIR MATCHES "/solutions$")
    get_filename_component(chapter_dir ${CMAKE_CURRENT_SOURCE_DIR} DIRECTORY)
    list(APPEND kernels --kernels ${chapter_dir})
  endif()
  foreach(dir IN LISTS ARG_KERNELS_ALSO)
    list(APPEND kernels --kernels ${dir})
  endforeach()
  add_test(NAME ${name}
           COMMAND ${OCLT_PYTHON3_MUTATE} ${PROJECT_SOURCE_DIR}/common/tests/mutate.py
                   --oracle ${ARG_ORACLE} ${kernels} --file ${ARG_FILE}
                   --find "${ARG_FIND}" --replace "${ARG_REPLACE}" --occurrence ${ARG_OCCURRENCE}
                   -- ${ARG_COMMAND}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS mutation SKIP_RETURN_CODE 77
                                          TIMEOUT ${ARG_TIMEOUT})
  oclt_label_chapter(${name})
endfunction()
