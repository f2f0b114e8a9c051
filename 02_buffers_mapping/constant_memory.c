/* Chapter 02, step 9: __constant memory (constant.cl). The same polynomial evaluated with its
 * coefficients read through __global, through a __constant argument, and from a table at
 * program scope; each result checked against a double CPU reference, and the kernels timed in
 * interleaved rounds (best of --reps) so that a ratio between them means what it says. */
#include "ch02.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TERMS         64 /* coefficients of the argument kernels: 256 bytes of __constant */
#define PROGRAM_TERMS 16 /* constant.cl's program_table */

/* The same numbers as constant.cl's program_table. */
static const float program_table[PROGRAM_TERMS] = {
    0.5f,    -0.25f, 0.125f,   -1.0f,  0.75f,   0.0625f, -0.5f,  0.375f,
    -0.125f, 0.25f,  -0.0625f, 0.875f, -0.375f, 0.1875f, 0.625f, -0.8125f};

/* One kernel to run: its name, how many coefficients, and the buffer holding them (NULL for
 * the program-scope table, which has no argument). */
typedef struct {
    const char *variant, *kernel_name;
    int build; /* 0: constant.cl built with -DCOEF_SPACE=__global, 1: with __constant */
    cl_uint terms;
    cl_mem coef; /* argument 1, or NULL */
    const float *host_coef;
    cl_kernel kernel;
    double best_ms;
    oclt_status status;
} poly_case;

/* Horner in double; the bound is Higham's for Horner's rule in float (two roundings a step,
 * fused or not), gamma(2 * (terms - 1)) * sum_k |c_k| |x|^k for terms - 1 steps, rounded up
 * to gamma(2 * terms): poly_program_scope takes one more step, an exact one. */
static void poly_on_host(const float *x, size_t n, const float *coef, cl_uint terms,
                         double *expected, double *tolerance) {
    for (size_t i = 0; i < n; ++i) {
        double acc = coef[terms - 1], acc_abs = fabs(coef[terms - 1]);
        for (int k = (int)terms - 2; k >= 0; --k) {
            acc = acc * x[i] + coef[k];
            acc_abs = acc_abs * fabs(x[i]) + fabs(coef[k]);
        }
        expected[i] = acc;
        tolerance[i] = oclt_sum_error_bound(FLT_EPSILON / 2, 2 * (size_t)terms, acc_abs) +
                       4 * DBL_EPSILON * terms * acc_abs;
    }
}

/* Arguments, one launch (timed by its event), then the result read back and checked. */
static cl_int run_case(ch02 *c, poly_case *p, cl_mem x_buf, cl_mem out_buf, const float *x,
                       size_t n, float *got, double *expected, double *tolerance, int check,
                       int timed) {
    const cl_uint n32 = (cl_uint)n;
    cl_int err = p->coef ? (OCLT_ARG(p->kernel, 0, x_buf) || OCLT_ARG(p->kernel, 1, p->coef) ||
                            OCLT_ARG(p->kernel, 2, out_buf) || OCLT_ARG(p->kernel, 3, p->terms) ||
                            OCLT_ARG(p->kernel, 4, n32))
                         : (OCLT_ARG(p->kernel, 0, x_buf) || OCLT_ARG(p->kernel, 1, out_buf) ||
                            OCLT_ARG(p->kernel, 2, n32));
    if (err) return CL_INVALID_KERNEL_ARGS;
    if ((err = oclt_poison_buffer(c->dev->queue, out_buf, n * sizeof *got))) return err;
    const double ms = kernel_event_ms(c, p->kernel, n, p->kernel_name);
    if (ms < 0) return CL_INVALID_OPERATION;
    if (timed && (p->best_ms < 0 || ms < p->best_ms)) p->best_ms = ms;
    if (!check) return CL_SUCCESS;
    if ((err = OCLT_CHECK(clEnqueueReadBuffer(c->dev->queue, out_buf, CL_TRUE, 0, n * sizeof *got,
                                              got, 0, NULL, NULL))))
        return err;
    poly_on_host(x, n, p->host_coef, p->terms, expected, tolerance);
    if (oclt_compare_float(p->variant, got, expected, tolerance, 0.0, n)) p->status = OCLT_FAIL;
    return CL_SUCCESS;
}

oclt_status demo_constant_memory(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words;
    const int rounds = c->opt->reps > 0 ? c->opt->reps : 1;
    oclt_status status = OCLT_FAIL;
    int finished = 0;
    cl_int err = CL_SUCCESS;
    cl_program programs[2] = {NULL, NULL};
    cl_mem x_buf = NULL, out_buf = NULL, coef_buf = NULL, table_buf = NULL;
    float coef[TERMS];
    float *x = malloc(n * sizeof *x), *got = malloc(n * sizeof *got);
    double *expected = malloc(n * sizeof *expected), *tolerance = malloc(n * sizeof *tolerance);
    poly_case cases[4] = {
        {"constant_memory/global", "poly", 0, TERMS, NULL, coef, NULL, -1, OCLT_PASS},
        {"constant_memory/constant", "poly", 1, TERMS, NULL, coef, NULL, -1, OCLT_PASS},
        {"constant_memory/global_16", "poly", 0, PROGRAM_TERMS, NULL, program_table, NULL, -1,
         OCLT_PASS},
        {"constant_memory/program_scope", "poly_program_scope", 0, PROGRAM_TERMS, NULL,
         program_table, NULL, -1, OCLT_PASS}};
    if (!x || !got || !expected || !tolerance) goto release;

    printf("\n  constant_memory: out[i] = sum_k c[k] x[i]^k (Horner), %zu points\n", n);
    printf("    CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE %llu bytes, CL_DEVICE_MAX_CONSTANT_ARGS %u\n",
           (unsigned long long)oclt_device_ulong(dev->device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE),
           oclt_device_uint(dev->device, CL_DEVICE_MAX_CONSTANT_ARGS));
    oclt_fill_float(&c->rng, x, n, -1.0f, 1.0f);
    oclt_fill_float(&c->rng, coef, TERMS, -1.0f, 1.0f);
    /* One source, two builds: the address space of the coefficients is a build option. */
    if (!(programs[0] =
              oclt_build_file(dev->context, dev->device, "constant.cl", "-DCOEF_SPACE=__global")) ||
        !(programs[1] =
              oclt_build_file(dev->context, dev->device, "constant.cl", "-DCOEF_SPACE=__constant")))
        goto release;
    x_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                           &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release;
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n * sizeof *got, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(out)")) goto release;
    /* One READ_ONLY buffer serves both a __global and a __constant argument: the address space
     * is the kernel's view of it, not a property of the buffer. */
    coef_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof coef,
                              coef, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(coefficients)")) goto release;
    table_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof program_table, (void *)program_table, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(program_table copy)")) goto release;
    cases[0].coef = cases[1].coef = coef_buf;
    cases[2].coef = table_buf;
    for (int k = 0; k < 4; ++k)
        if (!(cases[k].kernel = oclt_create_kernel(programs[cases[k].build], cases[k].kernel_name)))
            goto release;

    /* Rounds of all four, the best time of each kept: drift hits every kernel alike. Round -1
     * is the warm-up (a CPU driver may compile a kernel at its first launch) and the check. */
    for (int r = -1; r < rounds; ++r)
        for (int k = 0; k < 4; ++k)
            if (run_case(c, &cases[k], x_buf, out_buf, x, n, got, expected, tolerance,
                         r < 0 && c->opt->check, r >= 0))
                goto release;
    status = OCLT_PASS;
    for (int k = 0; k < 4; ++k) {
        const poly_case *p = &cases[k];
        char size_text[32], note[96];
        snprintf(size_text, sizeof size_text, "%zu", n);
        snprintf(note, sizeof note, "%u terms; %.2fx the __global time", p->terms,
                 p->best_ms / cases[k & 2].best_ms);
        const oclt_status s = c->opt->check ? p->status : OCLT_UNCHECKED;
        if (s == OCLT_FAIL) status = OCLT_FAIL;
        oclt_report_result(c->report, p->variant, size_text, p->best_ms,
                           2.0 * p->terms * (double)n / (p->best_ms * 1e6), "GFLOP/s", s, note);
    }
    if (c->opt->check)
        printf("    checked against Horner in double within gamma(2*terms) * sum|c_k||x|^k; "
               "times: best of %d interleaved rounds\n",
               rounds);
    else
        printf("    not checked (--no-check); times: best of %d interleaved rounds\n", rounds);
    finished = 1;
release:
    if (!finished) report_demo_n(c, "constant_memory", n, OCLT_FAIL, "OpenCL or memory error");
    for (int k = 0; k < 4; ++k)
        if (cases[k].kernel) clReleaseKernel(cases[k].kernel);
    if (table_buf) clReleaseMemObject(table_buf);
    if (coef_buf) clReleaseMemObject(coef_buf);
    if (out_buf) clReleaseMemObject(out_buf);
    if (x_buf) clReleaseMemObject(x_buf);
    for (int b = 0; b < 2; ++b)
        if (programs[b]) clReleaseProgram(programs[b]);
    free_all(x, got, expected, tolerance);
    return status;
}
