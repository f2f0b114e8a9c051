/* Chapter 01, first program: the whole OpenCL host pipeline, one call at a time.
 *
 * It adds two vectors on the device (first_program.cl) and checks every element on the CPU.
 * Nothing comes from common/ but OCLT_CHECK and OCLT_CHECK_ERR, which print the failed call, the
 * error's name and a hint, and oclt_error_name. Later chapters make these same calls through
 * common/ (device.c, program.c).
 *
 *   01_first_program [--size N] [--seed S] [--help]
 */
#include "errors.h"           /* OCLT_CHECK(call), OCLT_CHECK_ERR(err, what): non-zero on failure */
#include "first_program_cl.h" /* first_program_cl[]: first_program.cl, embedded by CMake */

#include <CL/cl.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* With OCLT_KERNEL_DIR=DIR the kernel is read from DIR/first_program.cl instead (edit and rerun
 * without rebuilding). Returns a malloc'ed string, or NULL after one line on stderr. */
static char *read_kernel(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/first_program.cl", dir);
    FILE *file = fopen(path, "rb");
    char *text = file ? calloc(1, 1 << 20) : NULL;
    if (text && fread(text, 1, (1 << 20) - 1, file) == 0) text = (free(text), NULL);
    if (file) fclose(file);
    if (!text)
        fprintf(stderr, "01_first_program: OCLT_KERNEL_DIR=%s holds no readable first_program.cl\n",
                dir);
    return text;
}

int main(int argc, char **argv) {
    size_t n = 1000003; /* not a multiple of the work-group size, on purpose */
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i += 2) { /* --size N (1 to 2^26), --seed S; else exit 2 */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return printf("usage: 01_first_program [--size N (1 to 2^26)] [--seed S]\n"), 0;
        const int is_size = !strcmp(argv[i], "--size");
        if (!is_size && strcmp(argv[i], "--seed"))
            return fprintf(stderr, "01_first_program: unknown option '%s'\n", argv[i]), 2;
        const char *text = i + 1 < argc ? argv[i + 1] : "";
        char *end = NULL;
        errno = 0; /* digits only: strtoull would accept a sign or spaces, and wraps negatives */
        unsigned long long value = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
        if (!end || *end || errno == ERANGE || (is_size && (value < 1 || value > 1u << 26)))
            return fprintf(stderr, "01_first_program: %s '%s' must be a whole number in digits%s\n",
                           argv[i], text, is_size ? " from 1 to 67108864 (2^26)" : ""),
                   2;
        if (is_size)
            n = (size_t)value;
        else
            seed = value;
    }
    const char *kernel_dir = getenv("OCLT_KERNEL_DIR");
    const int from_dir = kernel_dir && *kernel_dir; /* empty: unset */
    char *source = from_dir ? read_kernel(kernel_dir) : NULL;
    if (from_dir && !source) return 2; /* a usage error, before any work */
    /* Inputs: multiples of 2^-23 in [-1, 1), so every a + b is exact in float and the check
     * below can ask for equality: any difference is a bug, not rounding. */
    printf("01_first_program: c = a + b, %zu elements, seed %llu (repeat with --seed %llu)\n", n,
           (unsigned long long)seed, (unsigned long long)seed);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (size_t i = 0; a && b && i < n; ++i) {
        seed = seed * 6364136223846793005u + 1442695040888963407u; /* a 64-bit LCG */
        a[i] = (float)((int32_t)(seed >> 40) - (1 << 23)) / (1 << 23);
        b[i] = (float)((int32_t)(seed >> 16 & 0xFFFFFF) - (1 << 23)) / (1 << 23);
    }
    int rc = 1;
    cl_int err = CL_SUCCESS;
    cl_context context = NULL;
    cl_command_queue queue = NULL;
    cl_mem a_buf = NULL, b_buf = NULL, c_buf = NULL;
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    const char *text = source ? source : first_program_cl;
    if (!a || !b || !c) {
        fprintf(stderr, "01_first_program: out of host memory for %zu elements\n", n);
        goto release;
    }

    /* Platform: an installed driver. -1001 (CL_PLATFORM_NOT_FOUND_KHR): no driver installed. */
    cl_platform_id platforms[8], platform = NULL;
    cl_uint platform_count = 0;
    err = clGetPlatformIDs(8, platforms, &platform_count);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (!err && !platform_count)) {
        printf("no OpenCL platform is installed: SKIP\n");
        fprintf(stderr, "01_first_program: install a driver (Debian/Ubuntu: sudo apt-get install "
                        "pocl-opencl-icd) and check /etc/OpenCL/vendors for its .icd file (or "
                        "OCL_ICD_VENDORS)\n");
        rc = 77; /* CTest's code for "skipped" */
        goto release;
    }
    if (OCLT_CHECK_ERR(err, "clGetPlatformIDs")) goto release;
    /* Device: the first GPU of any platform, else the first device of any platform.
     * CL_DEVICE_NOT_FOUND just means this platform has no device of that type. */
    cl_device_id device = NULL;
    for (cl_uint p = 0; p < platform_count && p < 8 && !device; ++p)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, NULL) == CL_SUCCESS)
            platform = platforms[p];
    for (cl_uint p = 0; p < platform_count && p < 8 && !device; ++p)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS)
            platform = platforms[p];
    if (!device) {
        printf("no OpenCL device on any platform (CL_DEVICE_NOT_FOUND): SKIP\n");
        rc = 77;
        goto release;
    }
    char name[256] = "?";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL); /* just for the report */
    printf("device: %s\n", name);
    /* Context: the devices, buffers and programs that work together. Fails on a bad property
     * list or a device that is out of resources. */
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    context = clCreateContext(properties, 1, &device, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext")) goto release;
    /* Queue: commands for one device, run in order. The 1.2 call, which every device has;
     * 2.0 added clCreateCommandQueueWithProperties. */
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (OCLT_CHECK_ERR(err, "clCreateCommandQueue")) goto release;
    /* Buffers: device memory. COPY_HOST_PTR copies a and b in now. Fails with
     * CL_INVALID_BUFFER_SIZE beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
    const size_t bytes = n * sizeof(float);
    a_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(a)")) goto release;
    b_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(b)")) goto release;
    c_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(c)")) goto release;
    /* Program from source: only stores the text; nothing is compiled yet. */
    program = clCreateProgramWithSource(context, 1, &text, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithSource")) goto release;
    /* Build: compile for this device, now, with these options. A syntax error gives
     * CL_BUILD_PROGRAM_FAILURE, and only the build log says which line. */
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t size = 0; /* the log's length first, then the log */
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        char *log = calloc(size + 1, 1);
        if (log) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
        fprintf(stderr, "building first_program.cl failed: %s\n%s\n", oclt_error_name(err),
                log ? log : "");
        free(log);
        goto release;
    }
    /* Kernel: one __kernel function of the program. CL_INVALID_KERNEL_NAME on a typo. */
    kernel = clCreateKernel(program, "vector_add", &err);
    if (OCLT_CHECK_ERR(err, "clCreateKernel")) goto release;
    /* Arguments, by index: the size must match the parameter's type (CL_INVALID_ARG_SIZE). */
    const cl_uint count = (cl_uint)n;
    if (OCLT_CHECK(clSetKernelArg(kernel, 0, sizeof a_buf, &a_buf)) ||
        OCLT_CHECK(clSetKernelArg(kernel, 1, sizeof b_buf, &b_buf)) ||
        OCLT_CHECK(clSetKernelArg(kernel, 2, sizeof c_buf, &c_buf)) ||
        OCLT_CHECK(clSetKernelArg(kernel, 3, sizeof count, &count)))
        goto release;
    /* Poison c first (all bits set: a NaN), so an element the kernel skips cannot look right. */
    const cl_uint poison = 0xFFFFFFFFu;
    if (OCLT_CHECK(
            clEnqueueFillBuffer(queue, c_buf, &poison, sizeof poison, 0, bytes, 0, NULL, NULL)))
        goto release;
    /* Launch over an NDRange: 64 work-items per group (fewer if the kernel allows fewer), the
     * global size rounded up to whole groups. More work-items per group than the kernel allows
     * is CL_INVALID_WORK_GROUP_SIZE; a failure while the kernel runs is reported by its event
     * (not kept here), not by this call. */
    size_t local = 64, kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        goto release;
    if (kernel_max < local) local = kernel_max;
    const size_t global = (n + local - 1) / local * local;
    if (OCLT_CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL)))
        goto release;
    /* Read back, blocking: returns when c is on the host, so after the kernel has finished
     * (the queue is in order). A kernel that failed while running is certain to show here only
     * when its event is in the read's wait list; the check below catches a wrong c either way. */
    if (OCLT_CHECK(clEnqueueReadBuffer(queue, c_buf, CL_TRUE, 0, bytes, c, 0, NULL, NULL)))
        goto release;
    /* Check against the CPU, exactly. */
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
        if (!(c[i] == a[i] + b[i]) && wrong++ < 5)
            printf("  c[%zu] = %.9g, expected %.9g\n", i, c[i], a[i] + b[i]);
    printf("vector_add %zu elements: %s (%zu wrong)\n", n, wrong ? "FAIL" : "PASS", wrong);
    rc = wrong ? 1 : 0;
release: /* Release everything, in reverse order; a NULL handle was never made. */
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    if (c_buf) clReleaseMemObject(c_buf);
    if (b_buf) clReleaseMemObject(b_buf);
    if (a_buf) clReleaseMemObject(a_buf);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    free(source);
    free(a);
    free(b);
    free(c);
    return rc;
}
