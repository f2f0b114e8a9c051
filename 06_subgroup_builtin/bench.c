/* Chapter 06: timing a reduction two ways. Kernel time: the launches' profiling events, START
 * to END of each, added up (what the device spends computing; chapter 04 counts the same).
 * End-to-end time: the host clock from the first enqueue until the result is in host memory,
 * the final read included (what a caller of the reduction waits for: launch latency, the gaps
 * between passes and the read-back as well). */
#include "ch06.h"

#include <stdlib.h>

/* One run: poison every output, then enqueue, read the result back and time both ways.
 * The partials are poisoned with a write rather than oclt_poison_buffer's fill: Oclgrind 21.10
 * then reports values that later passes read from a filled buffer as uninitialized, even
 * after a kernel wrote them. */
static cl_int run_once(const reduction *r, double *kernel_ms, double *e2e_ms, scalar *value) {
    cl_command_queue queue = r->dev->queue;
    cl_int err = oclt_poison_buffer(queue, r->result, r->element_size);
    for (int i = 0; i < 2 && !err; ++i)
        err = OCLT_CHECK(clEnqueueWriteBuffer(queue, r->partial[i], CL_TRUE, 0, r->partial_bytes,
                                              r->partial_poison, 0, NULL, NULL));
    if (err) return err;
    cl_event events[MAX_PASSES] = {NULL};
    const double start = oclt_now_ms();
    const int launches = enqueue_reduction(r, events);
    if (launches < 0) err = CL_INVALID_OPERATION;
    if (!err)
        err = OCLT_CHECK(clEnqueueReadBuffer(queue, r->result, CL_TRUE, 0, r->element_size, value,
                                             0, NULL, NULL));
    *e2e_ms = oclt_now_ms() - start;
    double total = 0.0;
    for (int p = 0; p < launches && !err; ++p) {
        const double ms = oclt_event_ms(events[p]);
        if (ms < 0) err = CL_PROFILING_INFO_NOT_AVAILABLE;
        total += ms;
    }
    *kernel_ms = total;
    if (err) clFinish(queue);
    for (int p = 0; p < MAX_PASSES; ++p)
        if (events[p]) clReleaseEvent(events[p]);
    return err;
}

cl_int measure_reduction(const reduction *r, int reps, double *kernel_ms, double *e2e_ms,
                         scalar *value) {
    double kernel = 0.0, e2e = 0.0; /* the warm-up: first-launch costs, not timed */
    cl_int err = run_once(r, &kernel, &e2e, value);
    double *times = malloc(2 * (size_t)reps * sizeof *times);
    if (!times) return CL_OUT_OF_HOST_MEMORY;
    for (int i = 0; i < reps && !err; ++i) err = run_once(r, &times[i], &times[reps + i], value);
    if (!err) {
        *kernel_ms = oclt_median(times, (size_t)reps);
        *e2e_ms = oclt_median(times + reps, (size_t)reps);
    }
    free(times);
    return err;
}
