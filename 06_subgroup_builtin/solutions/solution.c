/* Chapter 06 solutions: the shared set-up (see solution.h). */
#include "solution.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solution_open(const oclt_cli_spec *spec, int argc, char **argv, size_t max_n,
                  size_t element_bytes, oclt_options *opt, oclt_device *dev) {
    int rc = oclt_parse_command_line(argc, argv, spec, opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt->size[0] > max_n)
        return oclt_usage_error(spec, "--size %zu exceeds %zu", opt->size[0], max_n);
    if ((rc = oclt_open_device(spec, opt, dev)) != OCLT_CONTINUE) return rc;
    /* The input buffer must fit the device (the other buffers are a few words). */
    const cl_ulong bytes = oclt_mul_size(opt->size[0], element_bytes);
    if ((rc = oclt_require_memory(spec, dev, bytes, bytes, "--size")) != 0) {
        oclt_close_device(dev);
        return rc;
    }
    return OCLT_CONTINUE;
}

char *solution_source(const char *header) {
    char *file_text = oclt_kernel_source("subgroup_reduce.cl");
    if (!file_text) return NULL;
    const size_t total = strlen(header) + strlen("#line 1\n") + strlen(file_text) + 1;
    char *source = malloc(total);
    if (source) snprintf(source, total, "%s#line 1\n%s", header, file_text);
    free(file_text);
    return source;
}

cl_kernel solution_kernel(const oclt_device *dev, const char *source, const char *options,
                          const char *name, cl_program *program) {
    *program = oclt_build_source(dev->context, dev->device, source, "subgroup_reduce.cl", options);
    return *program ? oclt_create_kernel(*program, name) : NULL;
}

size_t solution_local_size(const oclt_device *dev, cl_kernel kernel) {
    size_t limit = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE), kernel_max = 0;
    if (kernel &&
        !OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof kernel_max, &kernel_max, NULL)) &&
        kernel_max < limit)
        limit = kernel_max;
    size_t local = 1;
    while (local * 2 <= limit && local * 2 <= 64) local *= 2;
    return local;
}

cl_int solution_launch(const oclt_device *dev, cl_kernel kernel, size_t groups, size_t local) {
    const size_t global = groups * local;
    cl_int err =
        oclt_enqueue_kernel(dev->queue, kernel, 1, &global, &local, 0, NULL, NULL, "solution");
    return err ? err : OCLT_CHECK(clFinish(dev->queue));
}
