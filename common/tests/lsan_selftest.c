/* lsan_selftest: the test of the sanitizer build's leak reports (-DOCLT_SANITIZE=ON).
 * It builds a kernel and leaves the context and program unreleased, so that the driver's memory
 * for them (PoCL: its own structures and LLVM's, hundreds of allocations) is still held at exit,
 * then loses 77 bytes of its own. The test passes when LeakSanitizer reports exactly those 77
 * bytes: the suppressions (lsan.supp) hide the driver's memory and nothing else. (Unreleased
 * OpenCL objects are the leak checker's job, label "leaks".) */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void use_the_driver(void) {
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = CL_SUCCESS;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return; /* no device: the project's own leak must still be found */
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!context) return;
    const char *source = "__kernel void one(__global int *p) { p[0] = 1; }";
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (program && clBuildProgram(program, 1, &device, "", NULL, NULL) == CL_SUCCESS)
        printf("lsan_selftest: built a kernel; the context and program stay unreleased\n");
}

int main(void) {
    use_the_driver();
    char *lost = malloc(77);
    if (!lost) return 1;
    memset(lost, 1, 77);
    printf("lsan_selftest: lost 77 bytes at %p\n", (void *)lost);
    lost = NULL; /* the only pointer is gone: a direct leak */
    return 0;
}
