/* Exercise 1 of chapter 04, worked solution: count the elements above a threshold with a kernel in
 * the shape of reduce6's first pass plus a predicate (count_above.cl): GROUPS groups leave one
 * count each, the host adds them. The counts are ints, so the check against the CPU is exact, and
 * a lost group changes the count by about n / GROUPS * 3/4; a lost first or last element of a
 * work-item by 1, since those are all above the threshold. */
#include "solution.h"

#include <stdint.h>
#include <stdlib.h>

#define LOCAL  64
#define GROUPS 32

static const char name[] = "04_solution_count_above",
                  summary[] = "exercise 1 of chapter 04: count above a threshold";

int main(int argc, char **argv) {
    solution s;
    const solution_plan plan = {.name = name,
                                .summary = summary,
                                .default_size = 1000003,
                                .inputs = 1,
                                .file = "count_above.cl",
                                .local = LOCAL};
    int rc = solution_setup(&s, argc, argv, &plan);
    if (rc != OCLT_CONTINUE) return rc;
    const cl_int threshold = 250;
    const size_t n = s.opt.size[0];
    int32_t *host = malloc(n * sizeof *host), partials[GROUPS], expected = 0, total = 0;
    oclt_rng rng;
    oclt_rng_seed(&rng, s.opt.seed);
    if (host) oclt_fill_int(&rng, host, n, 0, 1000);
    /* Each work-item's first and last element above the threshold (the grid strides by
     * GROUPS * LOCAL): an element at or below it adds 0, so a loop bound off by one at either
     * end would pass 1 time in 4 on random data. */
    for (size_t k = 0; host && k < (size_t)GROUPS * LOCAL && k < n; ++k) {
        host[k] = oclt_rng_int(&rng, threshold + 1, 1000);         /* item k's first */
        host[n - 1 - k] = oclt_rng_int(&rng, threshold + 1, 1000); /* some item's last */
    }
    for (size_t i = 0; host && i < n; ++i) expected += host[i] > threshold;
    oclt_poison_host(partials, sizeof partials);
    cl_mem in = host ? solution_buffer(&s, n * sizeof *host, host) : NULL;
    cl_mem counts = solution_buffer(&s, sizeof partials, partials);
    cl_kernel kernel = oclt_create_kernel(s.program, "count_above");
    free(host);
    cl_int err = !in || !counts || !kernel;
    const size_t local = LOCAL, global = GROUPS * LOCAL;
    cl_uint count = (cl_uint)n;
    if (!err)
        err = OCLT_ARG(kernel, 0, in) || OCLT_ARG(kernel, 1, counts) ||
              OCLT_ARG(kernel, 2, count) || OCLT_ARG(kernel, 3, threshold);
    if (!err)
        err = oclt_enqueue_kernel(s.dev.queue, kernel, 1, &global, &local, 0, NULL, NULL,
                                  "count_above");
    /* The GROUPS partial counts are added on the host: a second pass would be reduce6's plain
     * sum, which this exercise does not change. */
    if (!err)
        err = OCLT_CHECK(clEnqueueReadBuffer(s.dev.queue, counts, CL_TRUE, 0, sizeof partials,
                                             partials, 0, NULL, NULL));
    for (int g = 0; g < GROUPS; ++g) total += partials[g];
    oclt_status status =
        !err && !oclt_compare_int("count", &total, &expected, 1) ? OCLT_PASS : OCLT_FAIL;
    if (kernel) clReleaseKernel(kernel);
    if (in) clReleaseMemObject(in);
    if (counts) clReleaseMemObject(counts);
    return solution_finish(&s, "count_above/int", status);
}
