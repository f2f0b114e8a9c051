/* Chapter 03: synchronization between commands.
 *   coarse_fine_sync  blocking calls and clFinish against wait lists across two queues;
 *   out_of_order      a graph of two branches and a join on an out-of-order queue, with a
 *                     marker and a barrier, and what actually ran at the same time.
 */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- coarse_fine_sync: two ways to know that the data is ready ------------------------------
 * Coarse: blocking calls (CL_TRUE) and clFinish stop the host until everything before them is
 * done. Simple, and the host idles at every step. Fine: nothing blocks; each command names the
 * events it needs in its wait list, and the host waits once, for the one event it needs. Wait
 * lists are what make a chain correct across two queues (or on an out-of-order queue). */
void scenario_coarse_fine_sync(lesson *L) {
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const cl_uint n32 = (cl_uint)n;
    const int a = AFFINE_A, b = AFFINE_B, reps = L->opt->reps;
    oclt_status coarse_status = OCLT_FAIL, fine_status = OCLT_FAIL;
    double coarse_ms = -1.0, fine_ms = -1.0;
    size_t coarse_failures = 0, fine_failures = 0;
    int transfer_track = 0, compute_track = 0;
    double *times = malloc(2 * (size_t)reps * sizeof *times);
    chain_setup c = {0};
    cl_command_queue transfers = NULL, kernels = NULL;
    chain_events ev = {0};
    cl_context context = L->dev->context;
    cl_device_id device = L->dev->device;
    if (!times) fprintf(stderr, "  out of host memory\n");
    if (!times ||
        chain_open(L, &c, context, L->program, "affine_map", n, L->trace_device, "sync: coarse") ||
        !(transfers = lesson_queue(L, context, device, 0, L->trace_device, "sync: transfers",
                                   &transfer_track)) ||
        !(kernels = lesson_queue(L, context, device, 0, L->trace_device, "sync: kernels",
                                 &compute_track)))
        goto release;
    if (OCLT_ARG(c.kernel, 0, c.x_buf) || OCLT_ARG(c.kernel, 1, c.y_buf) ||
        OCLT_ARG(c.kernel, 2, a) || OCLT_ARG(c.kernel, 3, b) || OCLT_ARG(c.kernel, 4, n32))
        goto release;

    for (int r = -1; r < reps; ++r) {
        /* Coarse: the host waits at every step. */
        if (oclt_poison_buffer(c.queue, c.y_buf, bytes)) goto release;
        oclt_poison_host(c.y, bytes);
        double start = oclt_now_ms();
        if (OCLT_CHECK(clEnqueueWriteBuffer(c.queue, c.x_buf, CL_TRUE, 0, bytes, c.x, 0, NULL,
                                            &ev.write)) ||
            lesson_launch(L, c.queue, c.kernel, n, 0, NULL, &ev.kernel, "affine_map (coarse)") ||
            OCLT_CHECK(clFinish(c.queue)) ||
            OCLT_CHECK(
                clEnqueueReadBuffer(c.queue, c.y_buf, CL_TRUE, 0, bytes, c.y, 0, NULL, &ev.read)))
            goto release;
        if (r >= 0) times[r] = oclt_now_ms() - start;
        coarse_failures += check_affine(L, "y (coarse)", c.x, c.y, n, a, b);
        if (r >= 0 && trace_chain(L, &ev, c.track, " (coarse)")) goto release;
        release_chain(&ev);

        /* Fine: writes and reads on one queue, the kernel on another, joined by events. */
        if (oclt_poison_buffer(c.queue, c.y_buf, bytes)) goto release;
        oclt_poison_host(c.y, bytes);
        start = oclt_now_ms();
        if (OCLT_CHECK(clEnqueueWriteBuffer(transfers, c.x_buf, CL_FALSE, 0, bytes, c.x, 0, NULL,
                                            &ev.write)) ||
            /* A command of another queue may wait on this write only once it has been
             * submitted: flush the queue that produces the event. */
            OCLT_CHECK(clFlush(transfers)) ||
            lesson_launch(L, kernels, c.kernel, n, 1, &ev.write, &ev.kernel, "affine_map (fine)") ||
            OCLT_CHECK(clFlush(kernels)) ||
            OCLT_CHECK(clEnqueueReadBuffer(transfers, c.y_buf, CL_FALSE, 0, bytes, c.y, 1,
                                           &ev.kernel, &ev.read)) ||
            /* clWaitForEvents flushes the queue of the event it waits for. */
            OCLT_CHECK(clWaitForEvents(1, &ev.read)))
            goto release;
        if (r >= 0) times[reps + r] = oclt_now_ms() - start;
        fine_failures += check_affine(L, "y (fine)", c.x, c.y, n, a, b);
        if (r >= 0 && (lesson_trace(L, ev.write, transfer_track, "write x (fine)", 'W') ||
                       lesson_trace(L, ev.kernel, compute_track, "affine_map (fine)", 'K') ||
                       lesson_trace(L, ev.read, transfer_track, "read y (fine)", 'R')))
            goto release;
        release_chain(&ev);
    }
    coarse_ms = oclt_median(times, (size_t)reps);
    fine_ms = oclt_median(times + reps, (size_t)reps);
    coarse_status = verdict(L, coarse_failures);
    fine_status = verdict(L, fine_failures);
    printf("    host time for write -> kernel -> read, median of %d: coarse %.3f ms (3 host "
           "waits), fine %.3f ms (1 host wait)\n",
           reps, coarse_ms, fine_ms);
release:
    release_chain(&ev);
    finish_and_release(kernels);
    finish_and_release(transfers);
    chain_close(&c);
    free(times);
    oclt_report_result(L->report, "coarse_sync", L->size_text, coarse_ms, -1.0, NULL, coarse_status,
                       "host ms: blocking write, clFinish, blocking read");
    oclt_report_result(L->report, "fine_sync", L->size_text, fine_ms, -1.0, NULL, fine_status,
                       "host ms: two queues, wait lists, one clWaitForEvents");
}

/* ---- out_of_order: dependencies only where they are needed -----------------------------------
 * An in-order queue runs each command after the previous one has finished: a chain, whether
 * the commands depend on each other or not. An out-of-order queue may run a command as soon as
 * the events in its wait list are complete, so two independent branches may overlap:
 *
 *     write a -> u = affine(a) --\
 *                                 marker -> y = u + v -> barrier -> read y
 *     write b -> v = affine(b) --/
 *
 * clEnqueueMarkerWithWaitList gives one event for "both branches done";
 * clEnqueueBarrierWithWaitList makes every later command of the queue wait for every earlier
 * one (here: the read needs no wait list of its own). Without out-of-order support, two
 * in-order queues (one per branch) express the same graph. The queue only allows commands to
 * overlap; whether they do is the device's choice, so the timestamps are read to see what
 * actually ran at the same time. */

typedef struct {
    cl_mem a, b, u, v, y;
    cl_kernel affine_map, add_vectors;
    const int32_t *a_host, *b_host;
} branches;

enum { BR_WRITE_A, BR_WRITE_B, BR_U, BR_V, BR_MARKER, BR_ADD, BR_BARRIER, BR_READ, BR_COUNT };

/* Sets affine_map's arguments for one branch and launches it after `after`. */
static cl_int enqueue_branch(const lesson *L, const branches *g, cl_command_queue queue, cl_mem in,
                             cl_mem out, int a, int b, const cl_event *after, cl_event *done,
                             const char *label) {
    const cl_uint n32 = (cl_uint)L->n;
    cl_int err;
    if ((err = OCLT_ARG(g->affine_map, 0, in)) || (err = OCLT_ARG(g->affine_map, 1, out)) ||
        (err = OCLT_ARG(g->affine_map, 2, a)) || (err = OCLT_ARG(g->affine_map, 3, b)) ||
        (err = OCLT_ARG(g->affine_map, 4, n32)))
        return err;
    return lesson_launch(L, queue, g->affine_map, L->n, 1, after, done, label);
}

/* Enqueues the graph on queues first (write a, u, the join) and second (write b, v), which may
 * be the same queue, waits for the read, and returns the events. */
static cl_int enqueue_branches(const lesson *L, const branches *g, cl_command_queue first,
                               cl_command_queue second, int32_t *y, cl_event ev[BR_COUNT]) {
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const cl_uint n32 = (cl_uint)n;
    cl_int err;
    /* One kernel object, two launches: the arguments are captured at each enqueue. */
    if ((err = OCLT_CHECK(clEnqueueWriteBuffer(first, g->a, CL_FALSE, 0, bytes, g->a_host, 0, NULL,
                                               &ev[BR_WRITE_A]))) ||
        (err = OCLT_CHECK(clEnqueueWriteBuffer(second, g->b, CL_FALSE, 0, bytes, g->b_host, 0, NULL,
                                               &ev[BR_WRITE_B]))) ||
        (err = enqueue_branch(L, g, first, g->a, g->u, AFFINE_A, AFFINE_B, &ev[BR_WRITE_A],
                              &ev[BR_U], "affine_map (u)")) ||
        (err = enqueue_branch(L, g, second, g->b, g->v, AFFINE_A2, AFFINE_B2, &ev[BR_WRITE_B],
                              &ev[BR_V], "affine_map (v)")))
        return err;
    if (second != first && (err = OCLT_CHECK(clFlush(second)))) return err;
    const cl_event both[2] = {ev[BR_U], ev[BR_V]};
    if ((err = OCLT_CHECK(clEnqueueMarkerWithWaitList(first, 2, both, &ev[BR_MARKER]))) ||
        (err = OCLT_ARG(g->add_vectors, 0, g->u)) || (err = OCLT_ARG(g->add_vectors, 1, g->v)) ||
        (err = OCLT_ARG(g->add_vectors, 2, g->y)) || (err = OCLT_ARG(g->add_vectors, 3, n32)) ||
        (err = lesson_launch(L, first, g->add_vectors, n, 1, &ev[BR_MARKER], &ev[BR_ADD],
                             "add_vectors")) ||
        (err = OCLT_CHECK(clEnqueueBarrierWithWaitList(first, 0, NULL, &ev[BR_BARRIER]))) ||
        (err = OCLT_CHECK(
             clEnqueueReadBuffer(first, g->y, CL_FALSE, 0, bytes, y, 0, NULL, &ev[BR_READ]))) ||
        (err = OCLT_CHECK(clFlush(first))))
        return err;
    return OCLT_CHECK(clWaitForEvents(1, &ev[BR_READ]));
}

/* What one run of the graph did on the device, from its commands' START and END stamps. */
typedef struct {
    double span_ms;         /* first START to last END */
    double sum_ms;          /* the commands' own durations, added up */
    double idle_ms;         /* time within the span when no command ran */
    double side_by_side_ms; /* sum - busy: how much command time ran beside other commands */
    double kernels_us;      /* how long the two branch kernels ran at the same time */
} graph_times;

static cl_int measure_graph(const cl_event ev[BR_COUNT], graph_times *t) {
    cl_ulong s[BR_COUNT][4];
    for (int i = 0; i < BR_COUNT; ++i)
        if (profiling_stamps(ev[i], s[i])) return CL_PROFILING_INFO_NOT_AVAILABLE;
    /* The busy time is the length of the union of the [START, END] intervals: walk them in
     * order of START, extending the current stretch while the next one starts inside it. */
    int order[BR_COUNT];
    for (int i = 0; i < BR_COUNT; ++i) order[i] = i;
    for (int i = 1; i < BR_COUNT; ++i)
        for (int j = i; j > 0 && s[order[j]][2] < s[order[j - 1]][2]; --j) {
            int swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
    double busy_us = 0.0, sum_us = 0.0;
    cl_ulong stretch_start = s[order[0]][2], stretch_end = s[order[0]][3], last = 0;
    for (int k = 0; k < BR_COUNT; ++k) {
        const cl_ulong *c = s[order[k]];
        sum_us += stamp_us(c[3], c[2]);
        if (c[3] > last) last = c[3];
        if (c[2] > stretch_end) { /* a gap: close the stretch */
            busy_us += stamp_us(stretch_end, stretch_start);
            stretch_start = c[2];
        }
        if (c[3] > stretch_end) stretch_end = c[3];
    }
    busy_us += stamp_us(stretch_end, stretch_start);
    const double span_us = stamp_us(last, s[order[0]][2]);
    cl_ulong later_start = s[BR_U][2] > s[BR_V][2] ? s[BR_U][2] : s[BR_V][2];
    cl_ulong earlier_end = s[BR_U][3] < s[BR_V][3] ? s[BR_U][3] : s[BR_V][3];
    t->span_ms = span_us * 1e-3;
    t->sum_ms = sum_us * 1e-3;
    t->idle_ms = (span_us - busy_us) * 1e-3;
    t->side_by_side_ms = (sum_us - busy_us) * 1e-3;
    t->kernels_us = earlier_end > later_start ? stamp_us(earlier_end, later_start) : 0.0;
    return CL_SUCCESS;
}

/* Where the time went, for the last run of each graph: the difference of the two spans is
 * the difference of the commands' own time, minus what ran side by side, plus idle gaps. */
static void explain_graphs(const graph_times *in_order, const graph_times *other,
                           const char *other_name) {
    printf("    last run, device ms:      span  commands  side by side  idle gaps\n");
    printf("      in-order          %9.3f %9.3f %13.3f %10.3f\n", in_order->span_ms,
           in_order->sum_ms, in_order->side_by_side_ms, in_order->idle_ms);
    printf("      %-17s %9.3f %9.3f %13.3f %10.3f\n", other_name, other->span_ms, other->sum_ms,
           other->side_by_side_ms, other->idle_ms);
    if (other->kernels_us > 0.0)
        printf("    the two branch kernels ran side by side for %.1f us\n", other->kernels_us);
    else
        printf("    the two branch kernels ran one after the other: the queue allows "
               "concurrency, the device decides\n");
    printf("    in-order minus %s, ms: span %+.3f = commands %+.3f + side by side %+.3f + idle "
           "gaps %+.3f\n",
           other_name, in_order->span_ms - other->span_ms, in_order->sum_ms - other->sum_ms,
           other->side_by_side_ms - in_order->side_by_side_ms, in_order->idle_ms - other->idle_ms);
}

void scenario_out_of_order(lesson *L) {
    static const char *const names[BR_COUNT] = {"write a", "write b", "affine u", "affine v",
                                                "marker",  "add",     "barrier",  "read y"};
    static const char glyphs[BR_COUNT] = {'a', 'b', 'U', 'V', 'm', '+', '|', 'R'};
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const int reps = L->opt->reps;
    const int out_of_order = (L->queue_caps & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    oclt_status status = OCLT_FAIL;
    double ms = -1.0, speedup = -1.0;
    graph_times last[2];
    size_t failures = 0;
    int ref_track = 0, tracks[2] = {0, 0};
    double *spans = malloc(2 * (size_t)reps * sizeof *spans);
    int32_t *a = random_ints(L, n), *b = random_ints(L, n);
    int32_t *y_ref = malloc(bytes), *y = malloc(bytes), *expected = malloc(bytes),
            *poison = malloc(bytes);
    cl_command_queue reference = NULL, queues[2] = {NULL, NULL};
    branches g = {0};
    cl_mem *buffers[5] = {&g.a, &g.b, &g.u, &g.v, &g.y};
    cl_event ev[BR_COUNT] = {0};
    cl_int err = CL_SUCCESS;
    if (!spans || !a || !b || !y_ref || !y || !expected || !poison) {
        fprintf(stderr, "  out of host memory\n");
        goto release;
    }
    oclt_poison_host(poison, bytes);
    for (size_t i = 0; i < n; ++i)
        expected[i] = (AFFINE_A * a[i] + AFFINE_B) + (AFFINE_A2 * b[i] + AFFINE_B2);
    g.a_host = a;
    g.b_host = b;
    cl_context context = L->dev->context;
    cl_device_id device = L->dev->device;
    if (!(reference = lesson_queue(L, context, device, 0, L->trace_device, "branches: in-order",
                                   &ref_track)))
        goto release;
    if (out_of_order) {
        printf("    out-of-order queues: supported; one queue, order only through events\n");
        queues[0] = lesson_queue(L, context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                 L->trace_device, "branches: out-of-order", &tracks[0]);
        queues[1] = queues[0];
        tracks[1] = tracks[0];
    } else {
        printf("    out-of-order queues: not supported by this device (CL_DEVICE_QUEUE_"
               "PROPERTIES); two in-order queues, one per branch, instead\n");
        queues[0] =
            lesson_queue(L, context, device, 0, L->trace_device, "branches: queue 1", &tracks[0]);
        queues[1] =
            lesson_queue(L, context, device, 0, L->trace_device, "branches: queue 2", &tracks[1]);
    }
    if (!queues[0] || !queues[1]) goto release;
    if (!(g.affine_map = oclt_create_kernel(L->program, "affine_map")) ||
        !(g.add_vectors = oclt_create_kernel(L->program, "add_vectors")))
        goto release;
    for (int i = 0; i < 5; ++i) {
        *buffers[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(a, b, u, v or y)")) goto release;
    }

    for (int r = -1; r < reps; ++r) {
        for (int run = 0; run < 2; ++run) { /* 0: in-order reference, 1: out-of-order */
            int32_t *out = run ? y : y_ref;
            /* u and v are poisoned too, so a branch that wrote nothing cannot pass on the
             * previous run's values. They are written from the host rather than filled:
             * Oclgrind 21.10 takes data that a kernel wrote over a clEnqueueFillBuffer region
             * for uninitialized when the next kernel reads it. */
            if (oclt_poison_buffer(reference, g.y, bytes) ||
                OCLT_CHECK(clEnqueueWriteBuffer(reference, g.u, CL_TRUE, 0, bytes, poison, 0, NULL,
                                                NULL)) ||
                OCLT_CHECK(
                    clEnqueueWriteBuffer(reference, g.v, CL_TRUE, 0, bytes, poison, 0, NULL, NULL)))
                goto release;
            oclt_poison_host(out, bytes);
            if (enqueue_branches(L, &g, run ? queues[0] : reference, run ? queues[1] : reference,
                                 out, ev))
                goto release;
            if (L->profiling) {
                if (measure_graph(ev, &last[run])) goto release;
                spans[run * reps + (r < 0 ? 0 : r)] = last[run].span_ms;
                for (int i = 0; r >= 0 && i < BR_COUNT; ++i) {
                    int track = !run ? ref_track : tracks[i == BR_WRITE_B || i == BR_V];
                    if (lesson_trace(L, ev[i], track, names[i], glyphs[i])) goto release;
                }
            }
            release_events(ev, BR_COUNT);
        }
        if (L->opt->check) failures += oclt_compare_int("y (in-order)", y_ref, expected, n);
        if (memcmp(y, y_ref, bytes) != 0)
            failures += oclt_compare_int("y (out-of-order vs in-order)", y, y_ref, n);
    }
    if (L->profiling) {
        double ref_ms = oclt_median(spans, (size_t)reps);
        ms = oclt_median(spans + reps, (size_t)reps);
        speedup = ref_ms / ms;
        printf("    device time of the graph, median of %d: in-order %.3f ms, %s %.3f ms (x%.2f)\n",
               reps, ref_ms, out_of_order ? "out-of-order" : "two queues", ms, speedup);
        explain_graphs(&last[0], &last[1], out_of_order ? "out-of-order" : "two queues");
    }
    status = verdict(L, failures);
release:
    release_events(ev, BR_COUNT);
    for (int i = 0; i < 5; ++i)
        if (*buffers[i]) clReleaseMemObject(*buffers[i]);
    if (g.affine_map) clReleaseKernel(g.affine_map);
    if (g.add_vectors) clReleaseKernel(g.add_vectors);
    /* On an error path commands may still read a, b or fill y: finish before freeing them. */
    if (queues[1] != queues[0]) finish_and_release(queues[1]);
    finish_and_release(queues[0]);
    finish_and_release(reference);
    free(spans);
    free(a);
    free(b);
    free(y_ref);
    free(y);
    free(expected);
    free(poison);
    oclt_report_result(L->report, "out_of_order", L->size_text, ms, speedup, "x", status,
                       L->profiling ? "device ms of the graph; x = in-order time / this"
                                    : "no profiling: not timed");
}
