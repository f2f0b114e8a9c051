/* Chapter 06, exercise 2 (worked solution): a sum of doubles. local_tree takes any T as it
 * is; single_pass and the warp variants do not, because they move 32-bit words (atomic_xchg
 * and atomic_or on uint, as_uint, shfl.sync.b32): a double needs 64-bit atomics
 * (cl_khr_int64_base_atomics) or two shuffles. The inputs are whole numbers in [1, 1000]:
 * their sum passes 2^24, where float can no longer hold every partial sum exactly, but stays
 * below 2^53, where double can, so the double result must be exact in any order. One
 * work-group covers the whole input (fold_input's grid-stride loop), so one launch leaves the
 * result in partial[0]. */
#include "solution.h"

#include <stdio.h>
#include <stdlib.h>

static const oclt_cli_spec spec = {
    .chapter = "06_solution_double_sum",
    .summary = "exercise 2: a sum of doubles through the chapter's local_tree",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 22},
    .default_reps = 1,
    .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK,
};

static const char double_header[] = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                                    "#define T double\n#define TV double4\n#define AS_T as_double\n"
                                    "#define OP(a, b) ((a) + (b))\n#define IDENTITY 0.0\n";

int main(int argc, char **argv) {
    oclt_options opt;
    oclt_device dev;
    int rc = solution_open(&spec, argc, argv, (size_t)1 << 26, sizeof(double), &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    const size_t n = opt.size[0];
    if (oclt_device_ulong(dev.device, CL_DEVICE_DOUBLE_FP_CONFIG) == 0) {
        printf("SKIP: %s has no double precision (cl_khr_fp64)\n", dev.device_name);
        oclt_close_device(&dev);
        return OCLT_EXIT_SKIP;
    }
    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    double *x = malloc(n * sizeof *x), expected = 0.0, got = 0.0;
    float float_sum = 0.0f; /* the same sum in float, one accumulator, for comparison */
    char *source = solution_source(double_header);
    const size_t local = solution_local_size(&dev, NULL);
    char options[128];
    snprintf(options, sizeof options,
             "-D VARIANT_LOCAL_TREE -D LOCAL_SIZE=%zu -D VEC=4 -D UNROLL=1 -D BLOCKED=0", local);
    cl_program program = NULL;
    cl_kernel kernel =
        source ? solution_kernel(&dev, source, options, "reduce_local_tree", &program) : NULL;
    cl_mem in = NULL, sum = NULL;
    cl_int err = x && kernel ? CL_SUCCESS : CL_INVALID_KERNEL;
    if (!err) {
        oclt_fill_double_whole(&rng, x, n, 1, 1000);
        for (size_t i = 0; i < n; ++i) expected += x[i], float_sum += (float)x[i];
        in = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                            &err);
        if (!err) sum = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, sizeof got, NULL, &err);
        const cl_uint count = (cl_uint)n;
        err = err || oclt_poison_buffer(dev.queue, sum, sizeof got) || OCLT_ARG(kernel, 0, in) ||
                      OCLT_ARG(kernel, 1, sum) || OCLT_ARG(kernel, 2, count) ||
                      solution_launch(&dev, kernel, 1, local) ||
                      OCLT_CHECK(clEnqueueReadBuffer(dev.queue, sum, CL_TRUE, 0, sizeof got, &got,
                                                     0, NULL, NULL))
                  ? CL_INVALID_OPERATION
                  : CL_SUCCESS;
    }
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    char size_text[32], note[160];
    snprintf(size_text, sizeof size_text, "%zu", n);
    /* Below 2^53 every partial sum of whole doubles is exact: the tolerance is 0. */
    const double tolerance = oclt_whole_sum_tolerance(53, n, expected);
    snprintf(note, sizeof note, "sum %.0f, tolerance %g; the same sum in float is off by %.0f",
             expected, tolerance, (double)float_sum - expected);
    const int wrong =
        err || oclt_compare_double("local_tree/sum/double", &got, &expected, NULL, tolerance, 1);
    oclt_report_result(&report, "local_tree/sum/double", size_text, -1, -1, NULL,
                       wrong ? OCLT_FAIL : OCLT_PASS, note);
    rc = oclt_report_exit_code(&report);
    if (in) clReleaseMemObject(in);
    if (sum) clReleaseMemObject(sum);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    free(x);
    free(source);
    oclt_close_device(&dev);
    return rc;
}
