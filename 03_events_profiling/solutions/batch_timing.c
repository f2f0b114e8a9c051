/* Chapter 03, exercise 1 (worked solution): launch y = 3x - 7 as 8 launches, one per chunk,
 * each placed with a global work offset; enqueue all of them before waiting once; then read
 * every launch's timestamps and split the batch's span (first START to last END) into kernel
 * time and the gaps between launches. Checks y, the timestamps' order, and that launches of
 * the in-order queue did not overlap. */
#include "setup.h"

#include <stdio.h>

#define LAUNCHES 8

static const oclt_cli_spec spec =
    SOLUTION_SPEC("03_solution_batch_timing",
                  "exercise 1: a batch of launches with global offsets, timed from their events");

static void release_events(cl_event *events, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (events[i]) clReleaseEvent(events[i]);
        events[i] = NULL;
    }
}

/* Chunk c covers [first, first + count): get_global_id(0) includes the offset, so the kernel
 * needs no change. No local size: the exact count need not be a multiple of one. */
static cl_int enqueue_batch(solution *s, cl_event launches[LAUNCHES]) {
    for (size_t c = 0; c < LAUNCHES; ++c) {
        const size_t first = c * s->n / LAUNCHES, count = (c + 1) * s->n / LAUNCHES - first;
        if (count == 0) continue; /* --size below 8 */
        cl_int err = OCLT_CHECK(clEnqueueNDRangeKernel(s->dev.queue, s->affine_map, 1, &first,
                                                       &count, NULL, 0, NULL, &launches[c]));
        if (err) return err;
    }
    return CL_SUCCESS;
}

/* Prints each launch's stamps and the span split into kernels and gaps; returns the number of
 * launches whose stamps break what an in-order queue promises, or -1 after an error. */
static int print_and_check_stamps(const cl_event launches[LAUNCHES]) {
    cl_ulong origin = 0, first_start = 0, last_end = 0, previous_end = 0;
    double kernel_us = 0.0;
    int bad = 0;
    printf("    launch   QUEUED    START      END   (us since the first launch was queued)\n");
    for (size_t c = 0; c < LAUNCHES; ++c) {
        if (!launches[c]) continue;
        cl_ulong queued, start, end;
        if (OCLT_CHECK(clGetEventProfilingInfo(launches[c], CL_PROFILING_COMMAND_QUEUED,
                                               sizeof queued, &queued, NULL)) ||
            OCLT_CHECK(clGetEventProfilingInfo(launches[c], CL_PROFILING_COMMAND_START,
                                               sizeof start, &start, NULL)) ||
            OCLT_CHECK(clGetEventProfilingInfo(launches[c], CL_PROFILING_COMMAND_END, sizeof end,
                                               &end, NULL)))
            return -1;
        if (!origin) origin = queued, first_start = start;
        printf("    %6zu %8.1f %8.1f %8.1f\n", c, (double)(queued - origin) * 1e-3,
               (double)(start - origin) * 1e-3, (double)(end - origin) * 1e-3);
        if (queued > start || start > end || start < previous_end) {
            fprintf(stderr, "  launch %zu: timestamps out of order or overlapping\n", c);
            ++bad;
        }
        kernel_us += (double)(end - start) * 1e-3;
        previous_end = last_end = end;
    }
    const double span_us = (double)(last_end - first_start) * 1e-3;
    printf("    span %.1f us = kernels %.1f us + gaps between launches %.1f us\n", span_us,
           kernel_us, span_us - kernel_us);
    return bad;
}

int main(int argc, char **argv) {
    solution s;
    int rc = solution_open(&s, &spec, argc, argv);
    cl_event launches[LAUNCHES] = {0};
    size_t failures = 0;
    if (rc != OCLT_CONTINUE) goto done;
    rc = OCLT_EXIT_FAIL;
    /* Twice: the first batch pays for whatever the driver does only once (on PoCL, at least the
     * lookup of its version of the kernel for each new launch shape); the second shows the
     * launches themselves. */
    for (int batch = 0; batch < 2; ++batch) {
        release_events(launches, LAUNCHES);
        oclt_poison_host(s.y, s.n * sizeof *s.y);
        if (oclt_poison_buffer(s.dev.queue, s.y_buf, s.n * sizeof *s.y) ||
            enqueue_batch(&s, launches) ||
            /* One wait for everything: the read waits for the launches on the in-order queue. */
            OCLT_CHECK(clEnqueueReadBuffer(s.dev.queue, s.y_buf, CL_TRUE, 0, s.n * sizeof *s.y, s.y,
                                           0, NULL, NULL)))
            goto done;
        printf("  %s batch:\n", batch ? "second" : "first");
        failures += solution_check(&s);
        /* Profiling counters need each launch CL_COMPLETE: the blocking read promised only y. */
        for (size_t c = 0; c < LAUNCHES; ++c)
            if (launches[c] && OCLT_CHECK(clWaitForEvents(1, &launches[c]))) goto done;
        const int bad = print_and_check_stamps(launches);
        if (bad < 0) goto done;
        failures += (size_t)bad;
    }
    printf("  two batches of %d launches: %s\n", LAUNCHES, failures ? "FAIL" : "PASS");
    rc = failures ? OCLT_EXIT_FAIL : OCLT_EXIT_OK;
done:
    release_events(launches, LAUNCHES);
    solution_close(&s);
    return rc;
}
