/* Exercise 1, solution: chapter 01's group_sum needs a power-of-two work-group size. This
 * version (group_sum_any_size.cl) takes any size; it runs here with local sizes 1, 3, 96, 100
 * and the kernel's own limit minus one, each on fresh random inputs in [1, 1000] (never zero,
 * so a lost element shows), and every partial sum is compared exactly with the CPU's.
 * The set-up goes through common/, as in every chapter after first_program.c. */
#include "oclt.h"

#include <stdio.h>
#include <stdlib.h>

static const oclt_cli_spec spec = {
    .chapter = "01_solution_group_sum_any_size",
    .summary = "exercise 1: a work-group sum for any local size, checked exactly",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {100003},
    .default_reps = 1,
    .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK,
};

/* Sums in[0..n) per group of `local` on the device and compares with the CPU. */
static oclt_status sum_with_local_size(const oclt_device *dev, cl_kernel kernel, oclt_rng *rng,
                                       size_t n, size_t local) {
    const size_t groups = (n + local - 1) / local, global = groups * local;
    const cl_uint n32 = (cl_uint)n;
    int32_t *in = malloc(n * sizeof *in), *got = malloc(groups * sizeof *got);
    int32_t *want = calloc(groups, sizeof *want);
    cl_mem in_buf = NULL, out_buf = NULL;
    cl_int err = CL_SUCCESS;
    oclt_status status = OCLT_FAIL;
    if (!in || !got || !want) {
        fprintf(stderr, "out of host memory\n");
        goto release;
    }
    oclt_fill_int(rng, in, n, 1, 1000);
    for (size_t i = 0; i < n; ++i) want[i / local] += in[i];
    in_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                            in, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(in)")) goto release;
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, groups * sizeof *got, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(partial)") || OCLT_ARG(kernel, 0, in_buf) ||
        OCLT_ARG(kernel, 1, out_buf) ||
        OCLT_CHECK(clSetKernelArg(kernel, 2, local * sizeof(cl_int), NULL)) ||
        OCLT_ARG(kernel, 3, n32) || oclt_poison_buffer(dev->queue, out_buf, groups * sizeof *got) ||
        oclt_enqueue_kernel(dev->queue, kernel, 1, &global, &local, 0, NULL, NULL,
                            "group_sum_any_size") ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, groups * sizeof *got, got,
                                       0, NULL, NULL)))
        goto release;
    status = oclt_compare_int("partial", got, want, groups) ? OCLT_FAIL : OCLT_PASS;
release:
    if (out_buf) clReleaseMemObject(out_buf);
    if (in_buf) clReleaseMemObject(in_buf);
    free(in);
    free(got);
    free(want);
    return status;
}

/* Every local size in turn, each on fresh random inputs: the chapter's exit code. */
static int sum_with_each_local_size(const oclt_device *dev, const oclt_options *opt,
                                    cl_kernel kernel) {
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        return OCLT_EXIT_FAIL;
    oclt_report report;
    oclt_report_begin(&report, &spec, opt, dev);
    oclt_rng rng;
    oclt_rng_seed(&rng, opt->seed);
    const size_t locals[] = {1, 3, 96, 100, kernel_max > 2 ? kernel_max - 1 : 1};
    for (size_t k = 0; k < sizeof locals / sizeof locals[0]; ++k) {
        char label[48];
        snprintf(label, sizeof label, "local size %zu", locals[k]);
        if (locals[k] > kernel_max) { /* a tiny device: what does not fit is a SKIP */
            oclt_report_result(&report, label, "", -1, -1, NULL, OCLT_SKIP,
                               "more than this kernel's CL_KERNEL_WORK_GROUP_SIZE");
            continue;
        }
        oclt_status status = sum_with_local_size(dev, kernel, &rng, opt->size[0], locals[k]);
        oclt_report_result(&report, label, "", -1, -1, NULL, status, NULL);
    }
    return oclt_report_exit_code(&report);
}

int main(int argc, char **argv) {
    oclt_options opt;
    oclt_device dev;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.size[0] > 0xFFFFFFFFu) /* before any work: the kernel's count is a uint */
        return oclt_usage_error(&spec, "--size %zu does not fit the kernel's uint count",
                                opt.size[0]);
    if ((rc = oclt_open_device(&spec, &opt, &dev)) != OCLT_CONTINUE) return rc;
    /* The input, and at most one partial per element (local size 1); the host holds the input
     * and two arrays of partials (got, want). */
    const cl_ulong bytes = (cl_ulong)opt.size[0] * sizeof(int32_t);
    if ((rc = oclt_require_memory(&spec, &dev, bytes, 2 * bytes, "--size")) != 0 ||
        (rc = oclt_require_host_memory(&spec, &dev, 3 * bytes, 2 * bytes, "--size")) != 0) {
        oclt_close_device(&dev);
        return rc;
    }
    cl_program program = oclt_build_file(dev.context, dev.device, "group_sum_any_size.cl", "");
    cl_kernel kernel = program ? oclt_create_kernel(program, "group_sum_any_size") : NULL;
    rc = kernel ? sum_with_each_local_size(&dev, &opt, kernel) : OCLT_EXIT_FAIL;
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    oclt_close_device(&dev);
    return rc;
}
