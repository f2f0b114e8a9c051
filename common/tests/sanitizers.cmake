# Part of -DOCLT_SANITIZE=ON (included by the top-level CMakeLists.txt): every executable gets
# sanitizer_options.c, the sanitizers' default options and the LeakSanitizer suppressions of
# lsan.supp compiled in, so that ctest and a plain run of a program behave the same.
set(supp_file ${CMAKE_CURRENT_LIST_DIR}/lsan.supp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${supp_file})
file(STRINGS ${supp_file} supp_lines REGEX "^[a-z_]+:[^\"\\\\]+$")
set(supp_text "#define OCLT_LSAN_SUPPRESSIONS \\\n")
foreach(line IN LISTS supp_lines)
  string(APPEND supp_text "    \"${line}\\n\" \\\n")
endforeach()
string(APPEND supp_text "    \"\"\n")
set(supp_dir ${CMAKE_BINARY_DIR}/generated)
file(WRITE ${supp_dir}/oclt_lsan_suppressions.h.tmp "${supp_text}")
file(COPY_FILE ${supp_dir}/oclt_lsan_suppressions.h.tmp ${supp_dir}/oclt_lsan_suppressions.h
     ONLY_IF_DIFFERENT)

add_library(oclt_sanitizer_options OBJECT ${CMAKE_CURRENT_LIST_DIR}/sanitizer_options.c)
target_include_directories(oclt_sanitizer_options PRIVATE ${supp_dir})
# Executables only: a library that defined these would hand its defaults to every program.
link_libraries("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:$<TARGET_OBJECTS:oclt_sanitizer_options>>")

# The test of the suppressions: the driver's leaks hidden, the program's own 77 bytes reported.
add_executable(lsan_selftest ${CMAKE_CURRENT_LIST_DIR}/lsan_selftest.c)
target_link_libraries(lsan_selftest PRIVATE OpenCL::OpenCL)
set_target_properties(lsan_selftest PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME common.lsan_reports_own_leaks_only
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/expect.sh 1
                 "SUMMARY: AddressSanitizer: 77 byte\\(s\\) leaked in 1 allocation"
                 env POCL_KERNEL_CACHE=0 $<TARGET_FILE:lsan_selftest>
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(common.lsan_reports_own_leaks_only PROPERTIES LABELS "foundation" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
