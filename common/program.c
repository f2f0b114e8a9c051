/* Kernel sources, program builds with their logs, and kernel launches with diagnostics. */
#include "program.h"
#include "device.h"
#include "errors.h"
#include "os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DIR/NAME into path; 0 when it does not fit or names no regular file (a directory opens like
 * a file and its size reads as 2^63; opening a pipe would block). */
static int kernel_file_path(char *path, size_t size, const char *dir, const char *name) {
    const int length = snprintf(path, size, "%s/%s", dir, name);
    return length >= 0 && (size_t)length < size && oclt_os_path_kind(path) == OCLT_PATH_FILE;
}

/* A kernel file of at most 64 MiB, NUL-terminated; NULL otherwise. */
static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    char *text = NULL;
    long size = -1;
    if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
    if (size >= 0 && size <= (1L << 26) && fseek(file, 0, SEEK_SET) == 0)
        text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, file) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (text) text[size] = '\0';
    fclose(file);
    return text;
}

char *oclt_kernel_source(const char *name) {
    const char *dir = getenv("OCLT_KERNEL_DIR");
    if (dir && *dir) {
        char path[4096];
        char *text = kernel_file_path(path, sizeof path, dir, name) ? read_file(path) : NULL;
        if (!text) fprintf(stderr, "cannot read kernel file %s (OCLT_KERNEL_DIR is set)\n", path);
        return text;
    }
    for (size_t i = 0; i < oclt_embedded_kernel_count; ++i) {
        if (strcmp(oclt_embedded_kernels[i].name, name) == 0) {
            char *text = malloc(oclt_embedded_kernels[i].length + 1);
            if (!text) return NULL;
            memcpy(text, oclt_embedded_kernels[i].text, oclt_embedded_kernels[i].length);
            text[oclt_embedded_kernels[i].length] = '\0';
            return text;
        }
    }
    fprintf(stderr, "no kernel file named %s is built into this program\n", name);
    return NULL;
}

const char *oclt_kernel_dir_missing(void) {
    const char *dir = getenv("OCLT_KERNEL_DIR");
    if (!dir || !*dir) return NULL;
    for (size_t i = 0; i < oclt_embedded_kernel_count; ++i) {
        char path[4096];
        if (!kernel_file_path(path, sizeof path, dir, oclt_embedded_kernels[i].name))
            return oclt_embedded_kernels[i].name;
        FILE *file = fopen(path, "rb");
        if (!file) return oclt_embedded_kernels[i].name;
        fclose(file);
    }
    return NULL;
}

void oclt_print_build_logs(cl_program program, const char *options) {
    cl_uint device_count = 0;
    if (OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof device_count,
                                    &device_count, NULL)))
        return;
    cl_device_id *devices = calloc(device_count, sizeof *devices);
    if (!devices) return;
    if (OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_DEVICES, device_count * sizeof *devices,
                                    devices, NULL))) {
        free(devices);
        return;
    }
    fprintf(stderr, "build options: \"%s\"\n", options ? options : "");
    for (cl_uint d = 0; d < device_count; ++d) {
        char *name = oclt_device_string(devices[d], CL_DEVICE_NAME);
        size_t size = 0;
        char *log = NULL;
        if (!OCLT_CHECK(
                clGetProgramBuildInfo(program, devices[d], CL_PROGRAM_BUILD_LOG, 0, NULL, &size)) &&
            (log = malloc(size + 1)) != NULL &&
            !OCLT_CHECK(clGetProgramBuildInfo(program, devices[d], CL_PROGRAM_BUILD_LOG, size, log,
                                              NULL))) {
            log[size] = '\0';
            fprintf(stderr, "build log for %s (%zu bytes):\n%s\n", name ? name : "?", size, log);
        }
        free(log);
        free(name);
    }
    free(devices);
}

cl_program oclt_build_source(cl_context context, cl_device_id device, const char *source,
                             const char *label, const char *options) {
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithSource")) return NULL;
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "building %s failed: %s (%d)\n", label, oclt_error_name(err), (int)err);
        oclt_print_build_logs(program, options);
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

cl_program oclt_build_file(cl_context context, cl_device_id device, const char *name,
                           const char *options) {
    char *source = oclt_kernel_source(name);
    if (!source) return NULL;
    cl_program program = oclt_build_source(context, device, source, name, options);
    free(source);
    return program;
}

cl_kernel oclt_create_kernel(cl_program program, const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        char call[160];
        snprintf(call, sizeof call, "clCreateKernel(\"%s\")", name);
        OCLT_CHECK_ERR(err, call);
        return NULL;
    }
    return kernel;
}

/* Says which work-group limit a launch broke. */
static void explain_work_group_size(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                    const size_t *global, const size_t *local) {
    cl_device_id device = NULL;
    clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL);
    if (!local) {
        fprintf(stderr, "  local size was left to the implementation, which found none that "
                        "divides the global size\n");
        return;
    }
    size_t device_max = oclt_device_size(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    size_t kernel_max = 0, item_max[3] = {0, 0, 0}, required[3] = {0, 0, 0};
    clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                             &kernel_max, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max, item_max, NULL);
    clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof required,
                             required, NULL);
    size_t total = 1;
    for (cl_uint i = 0; i < dims; ++i) total *= local[i];
    if (total > device_max)
        fprintf(stderr,
                "  limit: %zu work-items per group > device max %zu "
                "(CL_DEVICE_MAX_WORK_GROUP_SIZE)\n",
                total, device_max);
    if (kernel_max && total > kernel_max)
        fprintf(stderr,
                "  limit: %zu work-items per group > this kernel's max %zu "
                "(CL_KERNEL_WORK_GROUP_SIZE: registers/local memory)\n",
                total, kernel_max);
    for (cl_uint i = 0; i < dims; ++i) {
        if (local[i] > item_max[i])
            fprintf(stderr, "  limit: local[%u] = %zu > CL_DEVICE_MAX_WORK_ITEM_SIZES[%u] = %zu\n",
                    i, local[i], i, item_max[i]);
        if (local[i] && global[i] % local[i])
            fprintf(stderr,
                    "  limit: global[%u] = %zu is not a multiple of local[%u] = %zu "
                    "(required unless the device supports non-uniform groups and the program "
                    "was built with -cl-std=CL2.0 or later)\n",
                    i, global[i], i, local[i]);
        if (required[i] && required[i] != local[i])
            fprintf(stderr, "  limit: the kernel's reqd_work_group_size[%u] is %zu, not %zu\n", i,
                    required[i], local[i]);
    }
}

cl_int oclt_enqueue_kernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                           const size_t *global, const size_t *local, cl_uint wait_count,
                           const cl_event *wait_list, cl_event *event, const char *label) {
    return oclt_enqueue_kernel_at(queue, kernel, dims, NULL, global, local, wait_count, wait_list,
                                  event, label);
}

cl_int oclt_enqueue_kernel_at(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                              const size_t *offset, const size_t *global, const size_t *local,
                              cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                              const char *label) {
    cl_int err = clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, wait_count,
                                        wait_list, event);
    if (err != CL_SUCCESS) {
        char call[160];
        snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s)", label);
        OCLT_CHECK_ERR(err, call);
        if (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_INVALID_WORK_ITEM_SIZE)
            explain_work_group_size(queue, kernel, dims, global, local);
    }
    return err;
}
