# The OpenCL object leak checker: an LD_PRELOAD library (cl_leakcheck.c) and the tests of the
# checker itself. Included by common/cmake/Oclt.cmake; chapters use oclt_add_leak_test().
# It needs ELF dynamic linking (LD_PRELOAD, dlsym(RTLD_NEXT)) and a shared libOpenCL.
if(NOT UNIX OR APPLE OR NOT OpenCL_LIBRARY MATCHES "\\.so")
  message(STATUS "OpenCL leak checker: not available here (needs LD_PRELOAD and a shared "
                 "libOpenCL); the leaks label will be empty")
  return()
endif()

find_package(Threads REQUIRED)
oclt_add_preload_library(cl_leakcheck ${CMAKE_CURRENT_LIST_DIR}/cl_leakcheck.c Threads::Threads)

# The checker's own tests: every object kind made and released must give 0 leaks with the
# counts the program expects, and four objects left behind on purpose must be found.
add_executable(leak_selftest ${CMAKE_CURRENT_LIST_DIR}/leak_selftest.c)
target_link_libraries(leak_selftest PRIVATE OpenCL::OpenCL ${CMAKE_DL_LIBS})
set_target_properties(leak_selftest PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
set(leakcheck_sh ${CMAKE_CURRENT_LIST_DIR}/leakcheck.sh)
add_test(NAME common.leakcheck_counts
         COMMAND sh ${leakcheck_sh} $<TARGET_FILE:cl_leakcheck> $<TARGET_FILE:leak_selftest> clean
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME common.leakcheck_finds_leaks
         COMMAND sh ${leakcheck_sh} $<TARGET_FILE:cl_leakcheck> --expect-leaks 4
                 "cl_mem 0x[0-9a-f]+ from clCreateBuffer, 1 reference held"
                 "cl_program 0x[0-9a-f]+ from clCreateProgramWithSource, 1 reference held"
                 "cl_kernel 0x[0-9a-f]+ from clCreateKernel, 1 reference held"
                 "cl_event 0x[0-9a-f]+ from clEnqueueMarkerWithWaitList, 1 reference held"
                 "called from .*leak_selftest\\+0x"
                 "exit status 0 -> 3" --
                 $<TARGET_FILE:leak_selftest> leak
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(common.leakcheck_counts common.leakcheck_finds_leaks
                     PROPERTIES LABELS "leaks;foundation" SKIP_RETURN_CODE 77 TIMEOUT 120)
