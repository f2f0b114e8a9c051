# A device more limited than the one here, made on any implementation by an LD_PRELOAD library
# (cl_fake_device.c): kernels that allow fewer work-items per group than the device
# (CL_KERNEL_WORK_GROUP_SIZE below CL_DEVICE_MAX_WORK_GROUP_SIZE, as on NVIDIA's driver 580), or
# an embedded-profile device without a hardware fma. Included by common/cmake/Oclt.cmake;
# chapters use oclt_add_fake_device_test(). Needs what the leak checker needs (leakcheck.cmake).

# oclt_add_fake_device_test(<test name> ENV <VAR=value>... REGEX <re> COMMAND <program> [args...])
# Label "fake_device": runs the program with the library preloaded and the OCLT_FAKE_* settings
# of ENV, and passes when it exits 0 and its stdout has a line matching re (which shows that it
# met the limit: a group it shrank, a step it skipped with the reason, the build it chose). Not
# added where the library cannot be built.
function(oclt_add_fake_device_test name)
  cmake_parse_arguments(ARG "" "REGEX" "ENV;COMMAND" ${ARGN})
  if(NOT TARGET cl_fake_device)
    return()
  endif()
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/expect.sh --stdout 0 "${ARG_REGEX}"
                   env ${ARG_ENV} sh ${PROJECT_SOURCE_DIR}/common/tests/fake_device.sh
                   $<TARGET_FILE:cl_fake_device> ${ARG_COMMAND}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS fake_device SKIP_RETURN_CODE 77 TIMEOUT 300)
  oclt_label_chapter(${name})
endfunction()

if(NOT UNIX OR APPLE OR NOT OpenCL_LIBRARY MATCHES "\\.so")
  message(STATUS "Fake-device tests: not available here (needs LD_PRELOAD and a shared "
                 "libOpenCL); the fake_device label will be empty")
  return()
endif()

oclt_add_preload_library(cl_fake_device ${CMAKE_CURRENT_LIST_DIR}/cl_fake_device.c)
