/* Chapter 03, exercise 2 (worked solution): be told instead of asking. Every launch of a batch
 * gets a CL_COMPLETE callback that counts completions with an atomic counter and notes its
 * place in the order; the host only flushes the queue and sleeps until every callback has
 * come, with no clWaitForEvents and no clFinish. Checks that each callback ran once, with
 * CL_COMPLETE, and checks y. */
#include "setup.h"

#include <stdatomic.h>
#include <stdio.h>

#define LAUNCHES 8

static const oclt_cli_spec spec =
    SOLUTION_SPEC("03_solution_completion_callbacks",
                  "exercise 2: completion callbacks count a batch instead of clWaitForEvents");

/* Written on the runtime's thread, read on the host's. Static: a callback that comes late
 * must still find its record after main's locals are gone. */
static atomic_int completed; /* callbacks that have begun: each one's place in the order */
static atomic_int finished;  /* callbacks that have written everything: what the host waits for */
static struct {
    atomic_int calls, status, place;
} records[LAUNCHES + 1]; /* the launches, then the read */

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *user_data) {
    (void)event;
    const size_t i = (size_t)(uintptr_t)user_data;
    atomic_store(&records[i].status, status);
    atomic_store(&records[i].place, atomic_fetch_add(&completed, 1));
    atomic_fetch_add(&records[i].calls, 1);
    atomic_fetch_add(&finished, 1); /* last: the host reads the rest after this */
}

int main(int argc, char **argv) {
    solution s;
    int rc = solution_open(&s, &spec, argc, argv);
    cl_event events[LAUNCHES + 1] = {0};
    size_t failures = 0, count = LAUNCHES + 1;
    if (rc != OCLT_CONTINUE) goto done;
    rc = OCLT_EXIT_FAIL;
    for (size_t c = 0; c < LAUNCHES; ++c) {
        const size_t first = c * s.n / LAUNCHES;
        size_t items = (c + 1) * s.n / LAUNCHES - first;
        if (items == 0) items = 1; /* --size below 8: the kernel's guard idles the extra item */
        if (OCLT_CHECK(clEnqueueNDRangeKernel(s.dev.queue, s.affine_map, 1, &first, &items, NULL, 0,
                                              NULL, &events[c])))
            goto done;
    }
    if (OCLT_CHECK(clEnqueueReadBuffer(s.dev.queue, s.y_buf, CL_FALSE, 0, s.n * sizeof *s.y, s.y, 0,
                                       NULL, &events[LAUNCHES])))
        goto done;
    for (size_t i = 0; i < count; ++i)
        if (OCLT_CHECK(clSetEventCallback(events[i], CL_COMPLETE, on_complete, (void *)i)))
            goto done;
    /* clFlush hands the commands over; then the host is free until it is told. */
    if (OCLT_CHECK(clFlush(s.dev.queue))) goto done;
    /* Sleep until every callback has come (or 10 s have passed: then the check fails). */
    const double deadline = oclt_now_ms() + 10e3;
    while (atomic_load(&finished) < (int)count && oclt_now_ms() < deadline) {
        oclt_os_sleep_ms(0.1);
    }
    for (size_t i = 0; i < count; ++i) {
        const int calls = atomic_load(&records[i].calls);
        const int place = atomic_load(&records[i].place);
        printf("  %-8s %zu: callback ran %d time(s), #%d to complete\n",
               i < LAUNCHES ? "launch" : "read", i < LAUNCHES ? i : 0, calls, place + 1);
        if (calls != 1 || atomic_load(&records[i].status) != CL_COMPLETE) ++failures;
    }
    failures += solution_check(&s);
    printf("  %zu callbacks counted %d completions: %s\n", count, atomic_load(&completed),
           failures ? "FAIL" : "PASS");
    rc = failures ? OCLT_EXIT_FAIL : OCLT_EXIT_OK;
done:
    if (s.dev.queue) clFinish(s.dev.queue); /* on an error path, before the buffers go */
    for (size_t i = 0; i < count; ++i)
        if (events[i]) clReleaseEvent(events[i]);
    solution_close(&s);
    return rc;
}
