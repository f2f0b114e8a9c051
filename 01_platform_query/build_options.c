/* Chapter 01: what build options change. build_options.cl is built once per line of `builds`
 * below; each build runs on the same inputs and is compared with the default build (how many
 * results differ in any bit) and with a CPU reference in double (the error, as a fraction of
 * the bound derived below). The builds are timed in interleaved rounds, so that a machine
 * whose speed drifts does not favour the build measured first.
 *
 * The bound. Every term of the polynomial passes through at most 15 roundings (v*v, the
 * constant, two per Horner step, the last three operations, and the constants rounded to
 * float). With u = 2^-23, twice float's unit roundoff, so that a mad that truncates its
 * product (OpenCL 1.2's example for -cl-mad-enable; OpenCL 3.0's full profile allows only an
 * fma or a correctly rounded multiply and add) is covered:
 *   |y - p(v)| <= gamma(16) * (|v| + |v|^3 * (1/6 + v^2 * (1/120 + ...))) + 4 * 2^-126,
 * the last term for subnormal values that -cl-denorms-are-zero, or a device without
 * denormals, may flush to zero. Every 16th input is subnormal. */
#include "platform_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *options;
    size_t items_per_work_item; /* must match -D ITEMS_PER_WORK_ITEM */
} builds[] = {
    {"", 1},
    {"-cl-mad-enable", 1},
    {"-cl-single-precision-constant", 1},
    {"-cl-denorms-are-zero", 1},
    {"-cl-opt-disable", 1},
    {"-D ITEMS_PER_WORK_ITEM=4", 4},
};
enum { build_count = sizeof builds / sizeof builds[0] };

/* The polynomial in double, and the sum of its terms' magnitudes for the bound. */
static double sine_taylor(double v, double *magnitude) {
    const double v2 = v * v, tail = 1.0 / 6 + v2 * (1.0 / 120 + v2 * (1.0 / 5040 + v2 / 362880));
    *magnitude = fabs(v) + fabs(v) * v2 * tail;
    return v + v * v2 * (-1.0 / 6 + v2 * (1.0 / 120 + v2 * (-1.0 / 5040 + v2 / 362880)));
}

static void fill_inputs(oclt_rng *rng, float *x, size_t n) {
    oclt_fill_float(rng, x, n, -1.0f, 1.0f);
    for (size_t i = 15; i < n; i += 16) /* subnormal: k * 2^-149, 0 < k < 2^23 */
        x[i] = ldexpf((float)oclt_rng_int(rng, 1, (1 << 23) - 1), -149) * (i % 32 ? 1 : -1);
}

oclt_status run_build_options(const oclt_device *dev, const oclt_options *opt, oclt_rng *rng,
                              double *ms) {
    const size_t n = opt->size[0];
    const cl_uint n32 = (cl_uint)n;
    const int rounds = opt->reps;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_program programs[build_count] = {0};
    cl_kernel kernels[build_count] = {0};
    launch launches[build_count];
    char labels[build_count][64];
    cl_mem x_buf = NULL, y_buf = NULL;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y0 = malloc(n * sizeof *y0);
    double *times = calloc((size_t)build_count * rounds, sizeof *times);
    if (!x || !y || !y0 || !times) {
        fprintf(stderr, "  build_options: out of host memory for %zu elements\n", n);
        goto release;
    }
    fill_inputs(rng, x, n);
    x_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                           &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release;
    y_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n * sizeof *y, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release;
    for (int b = 0; b < build_count; ++b) {
        programs[b] =
            oclt_build_file(dev->context, dev->device, "build_options.cl", builds[b].options);
        if (!programs[b] || !(kernels[b] = oclt_create_kernel(programs[b], "sine_taylor")))
            goto release;
        if (OCLT_ARG(kernels[b], 0, x_buf) || OCLT_ARG(kernels[b], 1, y_buf) ||
            OCLT_ARG(kernels[b], 2, n32))
            goto release;
        /* One work-item per ITEMS_PER_WORK_ITEM elements; the driver chooses the local size. */
        const size_t per_item = builds[b].items_per_work_item;
        snprintf(labels[b], sizeof labels[b], "sine_taylor built with '%s'", builds[b].options);
        launches[b] =
            (launch){dev,   kernels[b],    1,        {(n + per_item - 1) / per_item}, {0}, NULL,
                     y_buf, n * sizeof *y, labels[b]};
        double warm_up = 0;
        if (run_once(&launches[b], &warm_up)) goto release;
    }
    for (int r = 0; r < rounds; ++r)
        for (int b = 0; b < build_count; ++b)
            if (run_once(&launches[b], &times[b * rounds + r])) goto release;

    printf("  build options of sine_taylor (%zu elements; median of %d interleaved rounds)\n"
           "    %-30s %14s %16s %11s %11s\n",
           n, rounds, "options", "bits differ", "max err/bound", "time ms", "vs default");
    int all_within = 1;
    double default_ms = 0;
    for (int b = 0; b < build_count; ++b) {
        const double median = oclt_median(&times[b * rounds], (size_t)rounds);
        if (b == 0) default_ms = median;
        double unused = 0;
        float *out = b == 0 ? y0 : y;
        if (run_once(&launches[b], &unused) ||
            OCLT_CHECK(clEnqueueReadBuffer(dev->queue, y_buf, CL_TRUE, 0, n * sizeof *y, out, 0,
                                           NULL, NULL)))
            goto release;
        size_t differ = 0;
        double worst = 0;
        for (size_t i = 0; i < n; ++i) {
            differ += memcmp(&out[i], &y0[i], sizeof *out) != 0;
            double magnitude = 0;
            const double error = fabs(out[i] - sine_taylor(x[i], &magnitude));
            const double ratio =
                error / (oclt_sum_error_bound(0x1p-23, 16, magnitude) + 4 * 0x1p-126);
            if (!isnan(worst) && !(ratio <= worst)) worst = ratio; /* a NaN stays, fails below */
        }
        char differ_text[32] = "-";
        if (b > 0) snprintf(differ_text, sizeof differ_text, "%zu", differ);
        printf("    %-30s %14s %16.3f %11.4f %9.2f x\n",
               builds[b].options[0] ? builds[b].options : "(default)", differ_text, worst, median,
               median / default_ms);
        if (!(worst <= 1.0)) all_within = 0;
    }
    *ms = default_ms;
    status = !opt->check ? OCLT_UNCHECKED : all_within ? OCLT_PASS : OCLT_FAIL;
    if (status == OCLT_FAIL) printf("    a build is outside the bound\n");
release:
    for (int b = 0; b < build_count; ++b) {
        if (kernels[b]) clReleaseKernel(kernels[b]);
        if (programs[b]) clReleaseProgram(programs[b]);
    }
    if (y_buf) clReleaseMemObject(y_buf);
    if (x_buf) clReleaseMemObject(x_buf);
    free(x);
    free(y);
    free(y0);
    free(times);
    return status;
}
