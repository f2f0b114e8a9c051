# Kernels that allow fewer work-items per group than the device (CL_KERNEL_WORK_GROUP_SIZE below
# CL_DEVICE_MAX_WORK_GROUP_SIZE), as on NVIDIA's driver 580, made on any implementation by an
# LD_PRELOAD library (cl_kernel_limit.c). Included by common/cmake/Oclt.cmake; chapters use
# oclt_add_kernel_limit_test(). Needs what the leak checker needs (leakcheck.cmake).

if(NOT UNIX OR APPLE OR NOT OpenCL_LIBRARY MATCHES "\\.so")
  message(STATUS "Kernel-limit tests: not available here (needs LD_PRELOAD and a shared "
                 "libOpenCL); the kernel_limit label will be empty")
  return()
endif()

add_library(cl_kernel_limit SHARED ${CMAKE_CURRENT_LIST_DIR}/cl_kernel_limit.c)
target_include_directories(cl_kernel_limit PRIVATE ${OpenCL_INCLUDE_DIRS})
target_link_libraries(cl_kernel_limit PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(cl_kernel_limit PROPERTIES C_VISIBILITY_PRESET hidden
                                                 LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# Never sanitized, for the reason leakcheck.cmake gives.
foreach(property COMPILE_OPTIONS LINK_OPTIONS)
  get_target_property(options cl_kernel_limit ${property})
  if(options)
    list(FILTER options EXCLUDE REGEX "^-fsanitize|^-fno-sanitize")
    set_property(TARGET cl_kernel_limit PROPERTY ${property} ${options})
  endif()
endforeach()

# oclt_add_kernel_limit_test(<test name> LIMIT <n> REGEX <re> COMMAND <program> [args...])
# Label "kernel_limit": runs the program with every kernel limited to n work-items per group and
# passes when it exits 0 and its stdout has a line matching re (which shows that it met the
# limit: a group it shrank, or a step it skipped with the reason). Not added where the library
# cannot be built.
function(oclt_add_kernel_limit_test name)
  cmake_parse_arguments(ARG "" "LIMIT;REGEX" "COMMAND" ${ARGN})
  if(NOT TARGET cl_kernel_limit)
    return()
  endif()
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/expect.sh --stdout 0 "${ARG_REGEX}"
                   sh ${PROJECT_SOURCE_DIR}/common/tests/kernel_limit.sh
                   $<TARGET_FILE:cl_kernel_limit> ${ARG_LIMIT} ${ARG_COMMAND}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS kernel_limit SKIP_RETURN_CODE 77 TIMEOUT 300)
  oclt_label_chapter(${name})
endfunction()

if(NOT UNIX OR APPLE OR NOT OpenCL_LIBRARY MATCHES "\\.so")
  message(STATUS "Kernel-limit tests: not available here (needs LD_PRELOAD and a shared "
                 "libOpenCL); the kernel_limit label will be empty")
  return()
endif()


