/* Exercise 2 of chapter 04, worked solution: a dot product in one launch (dot_product.cl,
 * reduce7's pattern with the multiply fused into the loads), run twice in a row (the ticket
 * counter must be reset). Inputs are whole numbers in [1, 8], so every product and, while the
 * total stays below 2^24, every partial sum is exact: the check is equality. */
#include "solution.h"

#include <stdlib.h>

#define LOCAL  64
#define GROUPS 32

static const char name[] = "04_solution_dot_product",
                  summary[] = "exercise 2 of chapter 04: a dot product in one launch";

/* Runs the kernel twice, each time into a poisoned result and poisoned partials (so the second
 * run cannot pass on the first one's), and checks both results. */
static oclt_status run_twice(const solution *s, cl_kernel kernel, cl_mem out, cl_mem partials,
                             double expected) {
    const size_t local = LOCAL, global = GROUPS * LOCAL;
    for (int run = 0; run < 2; ++run) {
        float result[1];
        oclt_poison_host(result, sizeof result);
        cl_int err = OCLT_CHECK(clEnqueueWriteBuffer(s->dev.queue, out, CL_TRUE, 0, sizeof result,
                                                     result, 0, NULL, NULL));
        if (!err) err = oclt_poison_buffer(s->dev.queue, partials, GROUPS * sizeof(cl_uint));
        if (!err)
            err = oclt_enqueue_kernel(s->dev.queue, kernel, 1, &global, &local, 0, NULL, NULL,
                                      "dot_product");
        if (!err)
            err = OCLT_CHECK(clEnqueueReadBuffer(s->dev.queue, out, CL_TRUE, 0, sizeof result,
                                                 result, 0, NULL, NULL));
        if (err || oclt_compare_float("dot", result, &expected, NULL, 0.0, 1)) return OCLT_FAIL;
    }
    return OCLT_PASS;
}

int main(int argc, char **argv) {
    solution s;
    const solution_plan plan = {
        .name = name,
        .summary = summary,
        .default_size = 100003,
        /* Products up to 64 each: n * 64 < 2^24 keeps every partial sum exact in float. */
        .max_size = (1u << 24) / 64 - 1,
        .max_reason = "so that the sum stays exact",
        .inputs = 2,
        .file = "dot_product.cl",
        .local = LOCAL,
        .group_order = 1};
    int rc = solution_setup(&s, argc, argv, &plan);
    if (rc != OCLT_CONTINUE) return rc;
    const size_t n = s.opt.size[0];
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    cl_uint partials[GROUPS], zero = 0;
    oclt_rng rng;
    oclt_rng_seed(&rng, s.opt.seed);
    double expected = 0.0;
    if (a && b) {
        oclt_fill_float_whole(&rng, a, n, 1, 8);
        oclt_fill_float_whole(&rng, b, n, 1, 8);
        for (size_t i = 0; i < n; ++i) expected += (double)a[i] * b[i];
    }
    oclt_poison_host(partials, sizeof partials);
    cl_mem da = a ? solution_buffer(&s, n * sizeof *a, a) : NULL;
    cl_mem db = b ? solution_buffer(&s, n * sizeof *b, b) : NULL;
    cl_mem out = solution_buffer(&s, sizeof(float), &zero);
    cl_mem mid = solution_buffer(&s, sizeof partials, partials);
    cl_mem tickets = solution_buffer(&s, sizeof zero, &zero);
    cl_kernel kernel = oclt_create_kernel(s.program, "dot_product");
    free(a);
    free(b);
    cl_uint count = (cl_uint)n;
    oclt_status status = OCLT_FAIL;
    if (da && db && out && mid && tickets && kernel &&
        !(OCLT_ARG(kernel, 0, da) || OCLT_ARG(kernel, 1, db) || OCLT_ARG(kernel, 2, out) ||
          OCLT_ARG(kernel, 3, count) || OCLT_ARG(kernel, 4, mid) || OCLT_ARG(kernel, 5, tickets)))
        status = run_twice(&s, kernel, out, mid, expected);
    if (kernel) clReleaseKernel(kernel);
    cl_mem all[] = {da, db, out, mid, tickets};
    for (int k = 0; k < 5; ++k)
        if (all[k]) clReleaseMemObject(all[k]);
    return solution_finish(&s, "dot_product/float", status);
}
