/* Chapter 03: events, synchronization, profiling, timelines, several devices, program binaries.
 *
 * A kernel launch is one command among others in a command queue: writes, reads, markers,
 * barriers. Every command can return an event, and events are how the host and other commands
 * learn when a command has run and how long it took. The lesson, file by file:
 *   main.c         the execution model on one device: the states and timestamps of a command,
 *                  coarse vs fine synchronization, an out-of-order queue with a marker and a
 *                  barrier, user events (and their error path), callbacks and reference counts;
 *   performance.c  what the model costs: kernel launch latency, and hiding transfers behind
 *                  kernels with several queues;
 *   devices.c      several contexts on one device, and several devices in one context;
 *   programs.c     program binaries, separate compilation + linking, clEnqueueTask.
 * Each scenario checks its result against the CPU and the event states it expects. With
 * --trace FILE every profiled command is written as a timeline (Chrome trace-event JSON).
 */
#define _POSIX_C_SOURCE 200809L
#include "lesson.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const oclt_variant_info variants[] = {
    {"profiling", "write -> kernel -> read: state walk and the four timestamps of each command", 1},
    {"coarse_fine_sync", "blocking calls and clFinish vs event wait lists across two queues", 1},
    {"out_of_order", "two branches and a join on an out-of-order queue, marker and barrier", 1},
    {"user_events", "a user event holds a chain back until the host opens it", 1},
    {"user_event_error", "a user event set to an error fails every command waiting on it", 1},
    {"callbacks", "clSetEventCallback notifications and event reference counts", 1},
    {"launch_latency", "an empty kernel, many launches: queued->start, run time, round trip", 1},
    {"overlap", "chunked pipeline: uploads and downloads hidden behind kernels", 1},
    {"multi_context", "two contexts on one device: only the host can join them", 1},
    {"multi_device", "several devices (or sub-devices) in one context, joined by events", 1},
    {"binaries", "programs from source, from a binary, and compiled + linked from two units", 1},
    {"enqueue_task", "clEnqueueTask (deprecated in 2.0) and its NDRange of one work-item", 1},
};

/* In the order of `variants`. */
static void (*const scenarios[])(lesson *) = {
    scenario_profiling,      scenario_coarse_fine_sync, scenario_out_of_order,
    scenario_user_events,    scenario_user_event_error, scenario_callbacks,
    scenario_launch_latency, scenario_overlap,          scenario_multi_context,
    scenario_multi_device,   scenario_binaries,         scenario_enqueue_task,
};

static const oclt_cli_spec spec = {
    .chapter = "03_events_profiling",
    .summary = "events, synchronization, profiling, timelines, several devices, program binaries",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 22},
    .default_reps = 5,
    .variants = variants,
    .variant_count = sizeof variants / sizeof variants[0],
    .extra_options = OCLT_OPT_TRACE,
};

/* ---- The chain most scenarios use: write x -> y = a*x + b -> read y ---------------------- */

cl_int enqueue_chain(const lesson *L, cl_command_queue queue, cl_kernel affine_map, cl_mem x_buf,
                     cl_mem y_buf, const int32_t *x, int32_t *y, size_t n, int a, int b,
                     cl_event gate, chain_events *ev) {
    const size_t bytes = n * sizeof *x;
    const cl_uint n32 = (cl_uint)n;
    memset(ev, 0, sizeof *ev);
    /* Non-blocking (CL_FALSE): the call returns at once; x must stay untouched until the
     * write's event completes. */
    cl_int err = OCLT_CHECK(clEnqueueWriteBuffer(queue, x_buf, CL_FALSE, 0, bytes, x, gate ? 1 : 0,
                                                 gate ? &gate : NULL, &ev->write));
    if (err) return err;
    /* Arguments are copied at enqueue time: setting them again later does not change this
     * command. */
    if ((err = OCLT_ARG(affine_map, 0, x_buf)) || (err = OCLT_ARG(affine_map, 1, y_buf)) ||
        (err = OCLT_ARG(affine_map, 2, a)) || (err = OCLT_ARG(affine_map, 3, b)) ||
        (err = OCLT_ARG(affine_map, 4, n32)))
        return err;
    err = lesson_launch(L, queue, affine_map, n, 1, &ev->write, &ev->kernel, "affine_map");
    if (err) return err;
    return OCLT_CHECK(
        clEnqueueReadBuffer(queue, y_buf, CL_FALSE, 0, bytes, y, 1, &ev->kernel, &ev->read));
}

cl_int trace_chain(lesson *L, const chain_events *ev, int track, const char *label) {
    char name[40];
    cl_int err = CL_SUCCESS;
    snprintf(name, sizeof name, "write x%s", label);
    if (!err) err = lesson_trace(L, ev->write, track, name, 'W');
    snprintf(name, sizeof name, "affine_map%s", label);
    if (!err) err = lesson_trace(L, ev->kernel, track, name, 'K');
    snprintf(name, sizeof name, "read y%s", label);
    if (!err) err = lesson_trace(L, ev->read, track, name, 'R');
    return err;
}

void release_chain(chain_events *ev) {
    cl_event *all[3] = {&ev->write, &ev->kernel, &ev->read};
    for (int i = 0; i < 3; ++i) {
        if (*all[i]) clReleaseEvent(*all[i]);
        *all[i] = NULL;
    }
}

/* ---- 1. profiling: the life of a command --------------------------------------------------
 * Every command passes through four states, and a profiling queue stamps the moment it
 * entered each one with the device clock:
 *   CL_QUEUED     enqueued by the host                         CL_PROFILING_COMMAND_QUEUED
 *   CL_SUBMITTED  handed by the runtime to the device          CL_PROFILING_COMMAND_SUBMIT
 *   CL_RUNNING    executing                                    CL_PROFILING_COMMAND_START
 *   CL_COMPLETE   done                                         CL_PROFILING_COMMAND_END
 * The states are read with clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS); the values fall
 * as the command advances (CL_QUEUED = 3 ... CL_COMPLETE = 0), and negative means failed. */

/* Prints the state of each command; returns how many are past CL_SUBMITTED, which no command
 * may be while the user event it waits on is still open. */
static int print_states(const char *when, const cl_event *events, const char *const *names,
                        int count) {
    int started = 0;
    printf("      %-16s", when);
    for (int i = 0; i < count; ++i) {
        cl_int state = execution_status(events[i]);
        printf("  %s %s", names[i], oclt_execution_status_name(state));
        if (state < CL_SUBMITTED) ++started;
    }
    printf("\n");
    if (started)
        fprintf(stderr, "  %d command(s) started before the user event they wait on was set\n",
                started);
    return started;
}

/* Sets the user event `gate` to CL_COMPLETE, then polls the commands until each one is complete
 * or failed, and prints every state it was seen in, starting from its state just before the
 * gate opened. A state shorter than one poll is never seen: CL_RUNNING of a short command often
 * is not. Returns the number of anomalies (a state going backwards, a failure, a time-out), or
 * -1 when clSetUserEventStatus failed. */
static int walk_states(cl_event gate, const cl_event *events, const char *const *names, int count) {
    enum { MAX_COMMANDS = 4, MAX_SEEN = 8 };
    cl_int seen[MAX_COMMANDS][MAX_SEEN];
    int seen_count[MAX_COMMANDS] = {0}, anomalies = 0;
    for (int i = 0; i < count; ++i) seen[i][seen_count[i]++] = execution_status(events[i]);
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) return -1;
    const double deadline = oclt_now_ms() + 60e3;
    for (;;) {
        int all_done = 1;
        for (int i = 0; i < count; ++i) {
            cl_int state = execution_status(events[i]);
            if (state != seen[i][seen_count[i] - 1] && seen_count[i] < MAX_SEEN)
                seen[i][seen_count[i]++] = state;
            if (state > CL_COMPLETE) all_done = 0;
        }
        if (all_done) break;
        if (oclt_now_ms() > deadline) {
            fprintf(stderr, "  the chain did not complete within 60 s\n");
            return count;
        }
        sched_yield(); /* leave the core to the runtime's threads on a CPU device */
    }
    for (int i = 0; i < count; ++i) {
        int saw_running = 0;
        printf("      %-10s", names[i]);
        for (int s = 0; s < seen_count[i]; ++s) {
            printf("%s%s", s ? " -> " : " ", oclt_execution_status_name(seen[i][s]));
            if (seen[i][s] == CL_RUNNING) saw_running = 1;
            if (s && seen[i][s] > seen[i][s - 1]) ++anomalies; /* went backwards */
        }
        if (seen[i][seen_count[i] - 1] != CL_COMPLETE) ++anomalies;
        printf("%s\n", saw_running ? "" : "   (CL_RUNNING lasted less than one poll)");
    }
    if (anomalies) fprintf(stderr, "  %d unexpected state change(s) in the walk\n", anomalies);
    return anomalies;
}

/* Checks what the timestamps of an in-order chain must satisfy: QUEUED <= SUBMIT <= START <=
 * END for each command, and each command starting after the one before it ended. Prints the
 * table when asked. Returns the number of violations. */
static int check_chain_stamps(const cl_event *events, const char *const *names, int count,
                              int print) {
    cl_ulong stamps[4][4];
    int violations = 0;
    for (int i = 0; i < count; ++i)
        if (profiling_stamps(events[i], stamps[i])) return 1;
    if (print)
        printf("      %-10s %9s %9s %9s %9s | %11s %12s %9s\n", "command", "QUEUED", "SUBMIT",
               "START", "END", "queue delay", "submit delay", "execution");
    for (int i = 0; i < count; ++i) {
        const cl_ulong *s = stamps[i], origin = stamps[0][0];
        if (print)
            printf("      %-10s %9.1f %9.1f %9.1f %9.1f | %11.1f %12.1f %9.1f\n", names[i],
                   stamp_us(s[0], origin), stamp_us(s[1], origin), stamp_us(s[2], origin),
                   stamp_us(s[3], origin), stamp_us(s[1], s[0]), stamp_us(s[2], s[1]),
                   stamp_us(s[3], s[2]));
        if (!(s[0] <= s[1] && s[1] <= s[2] && s[2] <= s[3])) {
            fprintf(stderr,
                    "  %s: timestamps out of order (QUEUED %llu SUBMIT %llu START %llu "
                    "END %llu)\n",
                    names[i], (unsigned long long)s[0], (unsigned long long)s[1],
                    (unsigned long long)s[2], (unsigned long long)s[3]);
            ++violations;
        }
        if (i > 0 && s[2] < stamps[i - 1][3]) {
            fprintf(stderr, "  %s started %.3f us before %s ended, on an in-order queue\n",
                    names[i], stamp_us(stamps[i - 1][3], s[2]), names[i - 1]);
            ++violations;
        }
    }
    if (print)
        printf("      (us since the write was queued; queue delay = SUBMIT - QUEUED, submit "
               "delay = START - SUBMIT, execution = END - START)\n");
    return violations;
}

/* The state walk: write -> kernel -> read held back by a user event in the write's wait list,
 * so that its early states can be seen for sure before the host lets it go. Returns the number
 * of failed checks, or -1 after an OpenCL error. */
static int state_walk(lesson *L, cl_command_queue queue, cl_kernel kernel, cl_mem x_buf,
                      cl_mem y_buf, const int32_t *x, int32_t *y, int track) {
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    int failures = -1, gate_set = 0;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    printf("    states of write -> kernel -> read, held back by a user event:\n");
    cl_event gate = clCreateUserEvent(L->dev->context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) return -1;
    if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_gate;
    oclt_poison_host(y, bytes);
    if (enqueue_chain(L, queue, kernel, x_buf, y_buf, x, y, n, AFFINE_A, AFFINE_B, gate, &ev))
        goto release_gate;
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    int early = print_states("after enqueue:", chain, names, 3);
    /* clFlush hands the commands to the device without waiting for them: they may now show
     * CL_SUBMITTED (or stay CL_QUEUED: the runtime decides). */
    if (OCLT_CHECK(clFlush(queue))) goto release_gate;
    early += print_states("after clFlush:", chain, names, 3);
    printf("      user event set to CL_COMPLETE; states from just before, then polled:\n");
    const int anomalies = walk_states(gate, chain, names, 3);
    if (anomalies < 0) goto release_gate;
    gate_set = 1;
    if (trace_chain(L, &ev, track, " (held back)")) goto release_gate;
    failures =
        early + anomalies + (int)check_affine(L, "y (state walk)", x, y, n, AFFINE_A, AFFINE_B);
release_gate:
    /* A user event must be set before anything else is released (the specification leaves
     * the rest undefined otherwise); an error status cancels whatever still waits on it. */
    if (!gate_set) clSetUserEventStatus(gate, CL_INVALID_OPERATION);
    release_chain(&ev);
    clReleaseEvent(gate);
    return failures;
}

void scenario_profiling(lesson *L) {
    if (!L->profiling) {
        report_skip(L, "profiling", "the device does not offer profiling queues");
        return;
    }
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const int reps = L->opt->reps;
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    oclt_status status = OCLT_FAIL; /* until every step has run */
    double ms = -1.0;
    size_t failures = 0;
    int track = 0;
    double *kernel_ms = malloc((size_t)reps * sizeof *kernel_ms);
    int32_t *x = random_ints(L, n), *y = malloc(bytes);
    cl_command_queue queue = NULL;
    cl_kernel kernel = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!x || !y || !kernel_ms) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    queue = lesson_queue(L, L->dev->context, L->dev->device, 0, L->trace_device,
                         "profiling: in-order", &track);
    if (!queue) goto release_host;
    if (!(kernel = oclt_create_kernel(L->program, "affine_map"))) goto release_queue;
    x_buf = clCreateBuffer(L->dev->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_kernel;
    y_buf = clCreateBuffer(L->dev->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;

    if (L->flush_finishes) {
        printf("    state walk skipped: %s\n", FLUSH_FINISHES_WHY);
    } else {
        const int walk_failures = state_walk(L, queue, kernel, x_buf, y_buf, x, y, track);
        if (walk_failures < 0) goto release_y;
        failures += (size_t)walk_failures;
    }

    /* Timed runs: one warm-up, then --reps; the table shows the last. */
    for (int r = -1; r < reps; ++r) {
        if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_events;
        oclt_poison_host(y, bytes);
        if (enqueue_chain(L, queue, kernel, x_buf, y_buf, x, y, n, AFFINE_A, AFFINE_B, NULL, &ev) ||
            OCLT_CHECK(clWaitForEvents(1, &ev.read)))
            goto release_events;
        const cl_event timed[3] = {ev.write, ev.kernel, ev.read};
        if (r == reps - 1) printf("    timestamps of the last of %d runs:\n", reps);
        failures += check_chain_stamps(timed, names, 3, r == reps - 1);
        if (r >= 0) {
            if ((kernel_ms[r] = oclt_event_ms(ev.kernel)) < 0) goto release_events;
            if (trace_chain(L, &ev, track, "")) goto release_events;
        }
        release_chain(&ev);
    }
    failures += check_affine(L, "y", x, y, n, AFFINE_A, AFFINE_B);
    ms = oclt_median(kernel_ms, (size_t)reps);
    status = verdict(L, failures);
release_events:
    release_chain(&ev);
release_y:
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_kernel:
    clReleaseKernel(kernel);
release_queue:
    clFinish(queue); /* nothing may still write into host memory freed below */
    clReleaseCommandQueue(queue);
release_host:
    free(kernel_ms);
    free(x);
    free(y);
    oclt_report_result(L->report, "profiling", L->size_text, ms,
                       ms > 0 ? 2.0 * bytes / (ms * 1e6) : -1.0, "GB/s", status,
                       "time: kernel START->END, median");
}

/* ---- 2. coarse_fine_sync: two ways to know that the data is ready ---------------------------
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
    int coarse_track = 0, transfer_track = 0, compute_track = 0;
    double *times = malloc(2 * (size_t)reps * sizeof *times);
    int32_t *x = random_ints(L, n), *y = malloc(bytes);
    cl_command_queue queue = NULL, transfers = NULL, kernels = NULL;
    cl_kernel kernel = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!x || !y || !times) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    cl_context context = L->dev->context;
    cl_device_id device = L->dev->device;
    if (!(queue =
              lesson_queue(L, context, device, 0, L->trace_device, "sync: coarse", &coarse_track)))
        goto release_host;
    if (!(transfers = lesson_queue(L, context, device, 0, L->trace_device, "sync: transfers",
                                   &transfer_track)))
        goto release_queues;
    if (!(kernels = lesson_queue(L, context, device, 0, L->trace_device, "sync: kernels",
                                 &compute_track)))
        goto release_queues;
    if (!(kernel = oclt_create_kernel(L->program, "affine_map"))) goto release_queues;
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_kernel;
    y_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;
    if (OCLT_ARG(kernel, 0, x_buf) || OCLT_ARG(kernel, 1, y_buf) || OCLT_ARG(kernel, 2, a) ||
        OCLT_ARG(kernel, 3, b) || OCLT_ARG(kernel, 4, n32))
        goto release_y;

    for (int r = -1; r < reps; ++r) {
        /* Coarse: the host waits at every step. */
        if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_y;
        oclt_poison_host(y, bytes);
        double start = oclt_now_ms();
        if (OCLT_CHECK(
                clEnqueueWriteBuffer(queue, x_buf, CL_TRUE, 0, bytes, x, 0, NULL, &ev.write)) ||
            lesson_launch(L, queue, kernel, n, 0, NULL, &ev.kernel, "affine_map (coarse)") ||
            OCLT_CHECK(clFinish(queue)) ||
            OCLT_CHECK(clEnqueueReadBuffer(queue, y_buf, CL_TRUE, 0, bytes, y, 0, NULL, &ev.read)))
            goto release_y;
        if (r >= 0) times[r] = oclt_now_ms() - start;
        coarse_failures += check_affine(L, "y (coarse)", x, y, n, AFFINE_A, AFFINE_B);
        if (r >= 0 && trace_chain(L, &ev, coarse_track, " (coarse)")) goto release_y;
        release_chain(&ev);

        /* Fine: writes and reads on one queue, the kernel on another, joined by events. */
        if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_y;
        oclt_poison_host(y, bytes);
        start = oclt_now_ms();
        if (OCLT_CHECK(clEnqueueWriteBuffer(transfers, x_buf, CL_FALSE, 0, bytes, x, 0, NULL,
                                            &ev.write)) ||
            /* A command of another queue may wait on this write only once it has been
             * submitted: flush the queue that produces the event. */
            OCLT_CHECK(clFlush(transfers)) ||
            lesson_launch(L, kernels, kernel, n, 1, &ev.write, &ev.kernel, "affine_map (fine)") ||
            OCLT_CHECK(clFlush(kernels)) ||
            OCLT_CHECK(clEnqueueReadBuffer(transfers, y_buf, CL_FALSE, 0, bytes, y, 1, &ev.kernel,
                                           &ev.read)) ||
            /* clWaitForEvents flushes the queue of the event it waits for. */
            OCLT_CHECK(clWaitForEvents(1, &ev.read)))
            goto release_y;
        if (r >= 0) times[reps + r] = oclt_now_ms() - start;
        fine_failures += check_affine(L, "y (fine)", x, y, n, AFFINE_A, AFFINE_B);
        if (r >= 0 && (lesson_trace(L, ev.write, transfer_track, "write x (fine)", 'W') ||
                       lesson_trace(L, ev.kernel, compute_track, "affine_map (fine)", 'K') ||
                       lesson_trace(L, ev.read, transfer_track, "read y (fine)", 'R')))
            goto release_y;
        release_chain(&ev);
    }
    coarse_ms = oclt_median(times, (size_t)reps);
    fine_ms = oclt_median(times + reps, (size_t)reps);
    coarse_status = verdict(L, coarse_failures);
    fine_status = verdict(L, fine_failures);
    printf("    host time for write -> kernel -> read, median of %d: coarse %.3f ms (3 host "
           "waits), fine %.3f ms (1 host wait)\n",
           reps, coarse_ms, fine_ms);
release_y:
    release_chain(&ev);
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_kernel:
    clReleaseKernel(kernel);
release_queues:
    /* On an error path a non-blocking read may still be on its way into y: finish first. */
    if (kernels) {
        clFinish(kernels);
        clReleaseCommandQueue(kernels);
    }
    if (transfers) {
        clFinish(transfers);
        clReleaseCommandQueue(transfers);
    }
    clFinish(queue);
    clReleaseCommandQueue(queue);
release_host:
    free(times);
    free(x);
    free(y);
    oclt_report_result(L->report, "coarse_sync", L->size_text, coarse_ms, -1.0, NULL, coarse_status,
                       "host ms: blocking write, clFinish, blocking read");
    oclt_report_result(L->report, "fine_sync", L->size_text, fine_ms, -1.0, NULL, fine_status,
                       "host ms: two queues, wait lists, one clWaitForEvents");
}

/* ---- 3. out_of_order: dependencies only where they are needed -------------------------------
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
 * in-order queues (one per branch) express the same graph. */

typedef struct {
    cl_mem a, b, u, v, y;
    cl_kernel affine_map, add_vectors;
    const int32_t *a_host, *b_host;
} branches;

enum { BR_WRITE_A, BR_WRITE_B, BR_U, BR_V, BR_MARKER, BR_ADD, BR_BARRIER, BR_READ, BR_COUNT };

/* Enqueues the graph on queues first (write a, u, the join) and second (write b, v), which may
 * be the same queue, waits for the read, and returns the events. */
static cl_int enqueue_branches(const lesson *L, const branches *g, cl_command_queue first,
                               cl_command_queue second, int32_t *y, cl_event ev[BR_COUNT]) {
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const cl_uint n32 = (cl_uint)n;
    const int a1 = AFFINE_A, b1 = AFFINE_B, a2 = AFFINE_A2, b2 = AFFINE_B2;
    cl_int err;
    if ((err = OCLT_CHECK(clEnqueueWriteBuffer(first, g->a, CL_FALSE, 0, bytes, g->a_host, 0, NULL,
                                               &ev[BR_WRITE_A]))) ||
        (err = OCLT_CHECK(clEnqueueWriteBuffer(second, g->b, CL_FALSE, 0, bytes, g->b_host, 0, NULL,
                                               &ev[BR_WRITE_B]))))
        return err;
    /* One kernel object, two launches: the arguments are captured at each enqueue. */
    if ((err = OCLT_ARG(g->affine_map, 0, g->a)) || (err = OCLT_ARG(g->affine_map, 1, g->u)) ||
        (err = OCLT_ARG(g->affine_map, 2, a1)) || (err = OCLT_ARG(g->affine_map, 3, b1)) ||
        (err = OCLT_ARG(g->affine_map, 4, n32)) ||
        (err = lesson_launch(L, first, g->affine_map, n, 1, &ev[BR_WRITE_A], &ev[BR_U],
                             "affine_map (u)")) ||
        (err = OCLT_ARG(g->affine_map, 0, g->b)) || (err = OCLT_ARG(g->affine_map, 1, g->v)) ||
        (err = OCLT_ARG(g->affine_map, 2, a2)) || (err = OCLT_ARG(g->affine_map, 3, b2)) ||
        (err = lesson_launch(L, second, g->affine_map, n, 1, &ev[BR_WRITE_B], &ev[BR_V],
                             "affine_map (v)")))
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

static void release_events(cl_event *events, int count) {
    for (int i = 0; i < count; ++i) {
        if (events[i]) clReleaseEvent(events[i]);
        events[i] = NULL;
    }
}

/* Device time from the first START to the last END of the graph, and how long its two branch
 * kernels ran at the same time (0 when one ran after the other). */
static cl_int branch_times(const cl_event ev[BR_COUNT], double *span_ms, double *overlap_us) {
    cl_ulong s[BR_COUNT][4];
    for (int i = 0; i < BR_COUNT; ++i)
        if (profiling_stamps(ev[i], s[i])) return CL_PROFILING_INFO_NOT_AVAILABLE;
    cl_ulong first = s[0][2], last = s[0][3];
    for (int i = 1; i < BR_COUNT; ++i) {
        if (s[i][2] < first) first = s[i][2];
        if (s[i][3] > last) last = s[i][3];
    }
    *span_ms = stamp_us(last, first) * 1e-3;
    cl_ulong later_start = s[BR_U][2] > s[BR_V][2] ? s[BR_U][2] : s[BR_V][2];
    cl_ulong earlier_end = s[BR_U][3] < s[BR_V][3] ? s[BR_U][3] : s[BR_V][3];
    *overlap_us = earlier_end > later_start ? stamp_us(earlier_end, later_start) : 0.0;
    return CL_SUCCESS;
}

void scenario_out_of_order(lesson *L) {
    static const char *const names[BR_COUNT] = {"write a", "write b", "affine u", "affine v",
                                                "marker",  "add",     "barrier",  "read y"};
    static const char glyphs[BR_COUNT] = {'a', 'b', 'U', 'V', 'm', '+', '|', 'R'};
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const int reps = L->opt->reps;
    const int out_of_order = (L->queue_caps & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    oclt_status status = OCLT_FAIL;
    double ms = -1.0, speedup = -1.0, overlap_us = 0.0;
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
        goto release_host;
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
        goto release_host;
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
    if (!queues[0] || !queues[1]) goto release_queues;
    if (!(g.affine_map = oclt_create_kernel(L->program, "affine_map")) ||
        !(g.add_vectors = oclt_create_kernel(L->program, "add_vectors")))
        goto release_kernels;
    for (int i = 0; i < 5; ++i) {
        *buffers[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(a, b, u, v or y)")) goto release_buffers;
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
                goto release_buffers;
            oclt_poison_host(out, bytes);
            if (enqueue_branches(L, &g, run ? queues[0] : reference, run ? queues[1] : reference,
                                 out, ev))
                goto release_buffers;
            double branch_overlap = 0.0;
            if (L->profiling) {
                if (branch_times(ev, &spans[run * reps + (r < 0 ? 0 : r)], &branch_overlap))
                    goto release_buffers;
                if (run) overlap_us = branch_overlap;
                for (int i = 0; r >= 0 && i < BR_COUNT; ++i) {
                    int track = !run ? ref_track : tracks[i == BR_WRITE_B || i == BR_V];
                    if (lesson_trace(L, ev[i], track, names[i], glyphs[i])) goto release_buffers;
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
        printf("    device time of the graph, median of %d: in-order %.3f ms, %s %.3f ms\n", reps,
               ref_ms, out_of_order ? "out-of-order" : "two queues", ms);
        if (overlap_us > 0.0)
            printf("    the two branch kernels ran side by side for %.1f us (last run)\n",
                   overlap_us);
        else
            printf("    the two branch kernels ran one after the other (last run): the queue "
                   "allows concurrency, the device decides\n");
    }
    status = verdict(L, failures);
release_buffers:
    release_events(ev, BR_COUNT);
    for (int i = 0; i < 5; ++i)
        if (*buffers[i]) clReleaseMemObject(*buffers[i]);
release_kernels:
    if (g.affine_map) clReleaseKernel(g.affine_map);
    if (g.add_vectors) clReleaseKernel(g.add_vectors);
release_queues:
    /* On an error path commands may still read a, b or fill y: finish before freeing them. */
    if (queues[1] && queues[1] != queues[0]) {
        clFinish(queues[1]);
        clReleaseCommandQueue(queues[1]);
    }
    if (queues[0]) {
        clFinish(queues[0]);
        clReleaseCommandQueue(queues[0]);
    }
    clFinish(reference);
    clReleaseCommandQueue(reference);
release_host:
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

/* ---- 4. user_events: the host decides when a chain may start --------------------------------
 * A user event is an event the host completes itself, with clSetUserEventStatus. Put in a wait
 * list it holds the command (and everything after it) back: a way to enqueue work early and
 * release it when some host-side condition is met (a file read, a network message). */
void scenario_user_events(lesson *L) {
    if (L->flush_finishes) {
        report_skip(L, "user_events", FLUSH_FINISHES_WHY);
        return;
    }
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    oclt_status status = OCLT_FAIL;
    double ms = -1.0;
    size_t failures = 0;
    int track = 0, gate_set = 0;
    int32_t *x = random_ints(L, n), *y = malloc(bytes), *peek = malloc(bytes),
            *poison = malloc(bytes);
    cl_command_queue queue = NULL, peeker = NULL;
    cl_kernel kernel = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!x || !y || !peek || !poison) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    oclt_poison_host(poison, bytes);
    cl_context context = L->dev->context;
    if (!(queue = lesson_queue(L, context, L->dev->device, 0, L->trace_device, "user events: chain",
                               &track)))
        goto release_host;
    if (!(peeker = lesson_queue(L, context, L->dev->device, 0, L->trace_device, "user events: peek",
                                NULL)))
        goto release_queues;
    if (!(kernel = oclt_create_kernel(L->program, "affine_map"))) goto release_queues;
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_kernel;
    y_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;
    gate = clCreateUserEvent(context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release_y;

    if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_gate;
    oclt_poison_host(y, bytes);
    if (enqueue_chain(L, queue, kernel, x_buf, y_buf, x, y, n, AFFINE_A, AFFINE_B, gate, &ev) ||
        OCLT_CHECK(clFlush(queue)))
        goto release_gate;
    /* The host goes on with other work; the chain must not move meanwhile. */
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    printf("    chain enqueued and flushed behind a user event; 20 ms later:\n");
    failures += print_states("states:", chain, names, 3);
    /* Proof that the kernel has not run: y, read through a second queue that does not wait
     * for the gate, still holds the poison. */
    if (OCLT_CHECK(clEnqueueReadBuffer(peeker, y_buf, CL_TRUE, 0, bytes, peek, 0, NULL, NULL)))
        goto release_gate;
    if (memcmp(peek, poison, bytes) != 0) {
        fprintf(stderr, "  y changed while the chain was held back by the user event\n");
        ++failures;
    } else {
        printf("      y on the device still holds the poison: nothing has run\n");
    }
    double released = oclt_now_ms();
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) goto release_gate;
    gate_set = 1;
    if (OCLT_CHECK(clWaitForEvents(1, &ev.read))) goto release_gate;
    ms = oclt_now_ms() - released;
    printf("    clSetUserEventStatus(CL_COMPLETE): the chain ran and was read back %.3f ms "
           "later\n",
           ms);
    failures += check_affine(L, "y", x, y, n, AFFINE_A, AFFINE_B);
    if (trace_chain(L, &ev, track, " (after the user event)")) goto release_gate;
    status = verdict(L, failures);
release_gate:
    if (!gate_set) clSetUserEventStatus(gate, CL_INVALID_OPERATION);
    release_chain(&ev);
    clReleaseEvent(gate);
release_y:
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_kernel:
    clReleaseKernel(kernel);
release_queues:
    clFinish(queue);
    clReleaseCommandQueue(queue);
    if (peeker) clReleaseCommandQueue(peeker);
release_host:
    free(x);
    free(y);
    free(peek);
    free(poison);
    oclt_report_result(L->report, "user_events", L->size_text, ms, -1.0, NULL, status,
                       "host ms from clSetUserEventStatus to the data read back");
}

/* ---- 5. user_event_error: cancelling a chain ------------------------------------------------
 * clSetUserEventStatus with a negative value marks the user event as failed. Every command that
 * waits on it ends with a negative status too (typically
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST), and so does every command waiting on those:
 * the error flows down the graph and nothing of the chain runs. The specification allows a
 * context whose commands were terminated to become unusable, so this scenario gets a context
 * of its own. */

/* The value the host gives the user event: any negative number; this one is ours. */
#define HOST_CANCELLED (-9999)

/* Any negative status is an error; which value is the runtime's choice (PoCL gives -1, which as
 * an error code would read CL_DEVICE_NOT_FOUND and means nothing of the kind here). */
static void print_cancelled_state(const char *what, cl_int status) {
    if (status >= 0)
        printf("      %-10s %s\n", what, oclt_execution_status_name(status));
    else if (status == HOST_CANCELLED)
        printf("      %-10s failed, status %d (the host's own code)\n", what, (int)status);
    else if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        printf("      %-10s failed, status %d (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)\n",
               what, (int)status);
    else
        printf("      %-10s failed, status %d (the runtime's own error value)\n", what,
               (int)status);
}

void scenario_user_event_error(lesson *L) {
    if (L->flush_finishes) {
        report_skip(L, "user_event_error", FLUSH_FINISHES_WHY);
        return;
    }
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    oclt_status status = OCLT_FAIL;
    size_t failures = 0;
    int gate_set = 0;
    int32_t *x = random_ints(L, n), *y = malloc(bytes), *poison = malloc(bytes);
    cl_context context = NULL;
    cl_program program = NULL;
    cl_command_queue queue = NULL;
    cl_kernel kernel = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!x || !y || !poison) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    oclt_poison_host(poison, bytes);
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                          (cl_context_properties)L->dev->platform, 0};
    context = clCreateContext(properties, 1, &L->dev->device, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext (user_event_error)")) goto release_host;
    if (!(program = lesson_build(L, context, 1, &L->dev->device, NULL))) goto release_context;
    /* Failed commands have no timestamps: this queue stays out of the trace. */
    if (!(queue = lesson_queue(L, context, L->dev->device, 0, 0, "user event error", NULL)))
        goto release_program;
    if (!(kernel = oclt_create_kernel(program, "affine_map"))) goto release_queue;
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_kernel;
    y_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;
    gate = clCreateUserEvent(context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release_y;

    oclt_poison_host(y, bytes);
    if (enqueue_chain(L, queue, kernel, x_buf, y_buf, x, y, n, AFFINE_A, AFFINE_B, gate, &ev) ||
        OCLT_CHECK(clFlush(queue)))
        goto release_gate;
    printf("    chain enqueued behind a user event; the host cancels it with "
           "clSetUserEventStatus(%d)\n",
           HOST_CANCELLED);
    if (OCLT_CHECK(clSetUserEventStatus(gate, HOST_CANCELLED))) goto release_gate;
    gate_set = 1;
    /* Expected to fail: not an OCLT_CHECK. */
    err = clWaitForEvents(1, &ev.read);
    printf("      clWaitForEvents(read) returned %s (%d)%s\n", oclt_error_name(err), (int)err,
           err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? ", as expected" : "");
    if (err == CL_SUCCESS) {
        fprintf(stderr, "  clWaitForEvents succeeded on a cancelled chain\n");
        ++failures;
    }
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    print_cancelled_state("user event", execution_status(gate));
    for (int i = 0; i < 3; ++i) {
        cl_int state = execution_status(chain[i]);
        print_cancelled_state(names[i], state);
        if (state >= 0) {
            fprintf(stderr, "  %s ended with %s instead of an error status\n", names[i],
                    oclt_execution_status_name(state));
            ++failures;
        }
    }
    /* Nothing ran: the read never wrote into y. */
    if (memcmp(y, poison, bytes) != 0) {
        fprintf(stderr, "  the cancelled read wrote into y\n");
        ++failures;
    } else {
        printf("      the host's y still holds the poison: the read did not run\n");
    }
    status = failures ? OCLT_FAIL : OCLT_PASS; /* the check is of states, not of data */
release_gate:
    if (!gate_set) clSetUserEventStatus(gate, HOST_CANCELLED);
    release_chain(&ev);
    clReleaseEvent(gate);
release_y:
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_kernel:
    clReleaseKernel(kernel);
release_queue:
    clFinish(queue); /* may report the failure again; nothing is left to run */
    clReleaseCommandQueue(queue);
release_program:
    clReleaseProgram(program);
release_context:
    clReleaseContext(context);
release_host:
    free(x);
    free(y);
    free(poison);
    oclt_report_result(L->report, "user_event_error", L->size_text, -1.0, -1.0, NULL, status,
                       "every waiting command failed; nothing ran");
}

/* ---- 6. callbacks: being told instead of asking ---------------------------------------------
 * clSetEventCallback registers a function that the runtime calls, on a thread of its own,
 * when the command reaches a state (CL_COMPLETE; CL_SUBMITTED and CL_RUNNING too since 2.0).
 * A callback must be short and must not block on OpenCL (no clFinish, no blocking calls):
 * here it only records what it was told, through atomics, and the host thread looks. Note
 * that clWaitForEvents may return before the callback has run: wait for the callback itself. */

typedef struct {
    const char *command;
    cl_int wanted;     /* the state the callback was registered for */
    atomic_int calls;  /* written by the runtime's thread, read by the host's */
    atomic_int status; /* the state the callback was told */
    atomic_int order;  /* 1 for the first callback of the scenario to run, 2 for the next... */
    atomic_int *sequence;
} callback_record;

static void CL_CALLBACK record_callback(cl_event event, cl_int status, void *user_data) {
    (void)event;
    callback_record *record = user_data;
    atomic_store(&record->status, status);
    atomic_store(&record->order, atomic_fetch_add(record->sequence, 1) + 1);
    atomic_fetch_add(&record->calls, 1); /* last: the host reads the rest after seeing this */
}

static cl_uint reference_count(cl_event event) {
    cl_uint count = 0;
    OCLT_CHECK(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof count, &count, NULL));
    return count;
}

void scenario_callbacks(lesson *L) {
    enum { MAX_RECORDS = 5 };
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    oclt_status status = OCLT_FAIL;
    size_t failures = 0;
    int track = 0, gate_set = 0, record_count = 0;
    /* Static: a late callback may still write here after this function has returned. */
    static atomic_int sequence;
    static callback_record records[MAX_RECORDS];
    atomic_store(&sequence, 0);
    int32_t *x = random_ints(L, n), *y = malloc(bytes);
    cl_command_queue queue = NULL;
    cl_kernel kernel = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!x || !y) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    cl_context context = L->dev->context;
    if (!(queue =
              lesson_queue(L, context, L->dev->device, 0, L->trace_device, "callbacks", &track)))
        goto release_host;
    if (!(kernel = oclt_create_kernel(L->program, "affine_map"))) goto release_queue;
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_kernel;
    y_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;
    gate = clCreateUserEvent(context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release_y;

    /* The gate keeps the chain still while the callbacks are registered, so that every one of
     * them sees its state change happen. */
    if (oclt_poison_buffer(queue, y_buf, bytes)) goto release_gate;
    oclt_poison_host(y, bytes);
    if (enqueue_chain(L, queue, kernel, x_buf, y_buf, x, y, n, AFFINE_A, AFFINE_B, gate, &ev))
        goto release_gate;
    struct {
        const char *command;
        cl_event event;
        cl_int wanted;
    } wanted[MAX_RECORDS] = {{"write x", ev.write, CL_COMPLETE},
                             {"affine_map", ev.kernel, CL_COMPLETE},
                             {"read y", ev.read, CL_COMPLETE},
                             {"affine_map", ev.kernel, CL_SUBMITTED},
                             {"affine_map", ev.kernel, CL_RUNNING}};
    /* CL_SUBMITTED and CL_RUNNING callbacks are OpenCL 2.0. */
    int wanted_count = L->dev->platform_version >= 200 ? 5 : 3;
    for (int i = 0; i < wanted_count; ++i) {
        callback_record *r = &records[record_count];
        r->command = wanted[i].command;
        r->wanted = wanted[i].wanted;
        atomic_store(&r->calls, 0);
        atomic_store(&r->status, 1000);
        atomic_store(&r->order, 0);
        r->sequence = &sequence;
        if (OCLT_CHECK(clSetEventCallback(wanted[i].event, wanted[i].wanted, record_callback, r)))
            goto release_gate;
        ++record_count;
    }
    printf("    %d callbacks registered; the host opens the gate and waits for the read\n",
           record_count);
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) goto release_gate;
    gate_set = 1;
    if (OCLT_CHECK(clWaitForEvents(1, &ev.read))) goto release_gate;
    int pending = 0;
    for (int i = 0; i < record_count; ++i) pending += atomic_load(&records[i].calls) == 0;
    printf("      when clWaitForEvents returned, %d of %d callbacks had not run yet\n", pending,
           record_count);
    /* Wait for the callbacks themselves (they run on the runtime's thread). */
    const double deadline = oclt_now_ms() + 10e3;
    for (int i = 0; i < record_count; ++i)
        while (atomic_load(&records[i].calls) == 0 && oclt_now_ms() < deadline) {
            struct timespec pause = {0, 100 * 1000};
            nanosleep(&pause, NULL);
        }
    for (int i = 0; i < record_count; ++i) {
        const callback_record *r = &records[i];
        int calls = atomic_load(&r->calls);
        cl_int told = atomic_load(&r->status);
        printf("      %-10s callback for %-12s ran %d time(s), #%d in order, told %s\n", r->command,
               oclt_execution_status_name(r->wanted), calls, atomic_load(&r->order),
               calls ? oclt_execution_status_name(told) : "-");
        /* Called once, with the state it was registered for or a later one. */
        if (calls != 1 || told > r->wanted || told < 0) {
            fprintf(stderr, "  the %s callback of %s: %d call(s), status %d\n",
                    oclt_execution_status_name(r->wanted), r->command, calls, (int)told);
            ++failures;
        }
    }
    failures += check_affine(L, "y", x, y, n, AFFINE_A, AFFINE_B);
    if (trace_chain(L, &ev, track, " (callbacks)")) goto release_gate;

    /* Reference counts: every clRetainEvent needs its clReleaseEvent; the event is freed when
     * the count reaches 0 (and the runtime is done with it). The count is for finding leaks,
     * not for program logic: it may change under you while the runtime holds references. */
    cl_uint before = reference_count(ev.kernel);
    if (OCLT_CHECK(clRetainEvent(ev.kernel))) goto release_gate;
    cl_uint retained = reference_count(ev.kernel);
    if (OCLT_CHECK(clReleaseEvent(ev.kernel))) goto release_gate;
    cl_uint released = reference_count(ev.kernel);
    printf("    CL_EVENT_REFERENCE_COUNT of the kernel's event: %u, after clRetainEvent %u, after "
           "clReleaseEvent %u\n",
           before, retained, released);
    /* What holds on every conformant runtime, whose own references may go at any moment: while
     * we hold two references the count is at least 2, after our release at least 1, and a
     * release never raises it. (On a quiet runtime: before + 1, then before.) */
    if (retained < 2 || released < 1 || released >= retained || retained > before + 1) {
        fprintf(stderr, "  the reference count did not follow retain/release\n");
        ++failures;
    }
    status = verdict(L, failures);
release_gate:
    if (!gate_set) clSetUserEventStatus(gate, CL_INVALID_OPERATION);
    release_chain(&ev); /* the last reference of each: no event is leaked */
    clReleaseEvent(gate);
release_y:
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_kernel:
    clReleaseKernel(kernel);
release_queue:
    clFinish(queue);
    clReleaseCommandQueue(queue);
release_host:
    free(x);
    free(y);
    oclt_report_result(L->report, "callbacks", L->size_text, -1.0, -1.0, NULL, status,
                       "each callback ran once with its state; retain/release counted");
}

/* ---- The lesson ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.list_devices) return oclt_list_devices(stdout);
    if (opt.size[0] > 0xFFFFFFFFu)
        return oclt_usage_error(&spec, "--size %zu does not fit the kernels' uint count",
                                opt.size[0]);

    /* Profiling queues are required by the specification, yet not every driver has them: ask
     * the device (CL_DEVICE_QUEUE_PROPERTIES, named CL_DEVICE_QUEUE_ON_HOST_PROPERTIES since
     * 2.0) before asking for one, and run without timestamps if it has none. */
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    rc = oclt_choose_device(&spec, opt.platform, opt.device, &platform, &device);
    if (rc != OCLT_CONTINUE) return rc;
    cl_command_queue_properties caps = 0;
    if (OCLT_CHECK(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof caps, &caps, NULL)))
        return OCLT_EXIT_FAIL;
    const int profiling = (caps & CL_QUEUE_PROFILING_ENABLE) != 0;
    oclt_device dev;
    lesson L;
    memset(&L, 0, sizeof L);
    rc = oclt_open_device_with_queue(&spec, &opt, &dev, profiling ? CL_QUEUE_PROFILING_ENABLE : 0);
    if (rc != OCLT_CONTINUE) return rc;
    /* The largest scenario (out_of_order) holds five buffers of n ints. */
    const size_t n = opt.size[0];
    rc = oclt_require_memory(&spec, &dev, n * sizeof(int32_t), 5 * n * sizeof(int32_t), "--size");
    if (rc) goto close_device;

    L.spec = &spec;
    L.opt = &opt;
    L.dev = &dev;
    L.n = n;
    snprintf(L.size_text, sizeof L.size_text, "%zu", n);
    L.queue_caps = caps;
    L.profiling = profiling;
    L.queue_properties = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    /* Oclgrind simplifies clFlush to clFinish; the scenarios that flush a queue whose chain
     * waits on a user event would wait forever there, and skip instead. */
    L.flush_finishes = strstr(dev.platform_name, "Oclgrind") != NULL;
    trace_init(&L.trace);
    oclt_rng_seed(&L.rng, opt.seed);
    rc = OCLT_EXIT_FAIL;
    if (!(L.sources[0] = oclt_kernel_source("helpers.cl")) ||
        !(L.sources[1] = oclt_kernel_source("events.cl")))
        goto release_sources;
    if (!(L.program = lesson_build(&L, dev.context, 1, &dev.device, NULL))) goto release_sources;
    /* 64 work-items per group, or fewer if a kernel cannot have that many on this device. */
    L.local = 64;
    static const char *const kernel_names[3] = {"affine_map", "add_vectors", "relax_steps"};
    for (int k = 0; k < 3; ++k) {
        cl_kernel kernel = oclt_create_kernel(L.program, kernel_names[k]);
        size_t limit = 0;
        if (!kernel) goto release_program;
        cl_int err = OCLT_CHECK(clGetKernelWorkGroupInfo(
            kernel, dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL));
        clReleaseKernel(kernel);
        if (err) goto release_program;
        while (L.local > limit) L.local /= 2;
    }

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    L.report = &report;
    L.trace_device = trace_device(&L.trace, dev.device_name);
    printf("  queues   profiling %s, out-of-order %s (CL_DEVICE_QUEUE_PROPERTIES)\n",
           profiling ? "yes" : "NO: timings and the trace are skipped",
           caps & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE ? "yes" : "no");
    for (size_t v = 0; v < spec.variant_count; ++v) {
        if (!opt.selected[v]) continue;
        printf("\n  %s: %s\n", variants[v].name, variants[v].description);
        fflush(stdout);
        scenarios[v](&L);
    }
    rc = oclt_report_exit_code(&report);
    if (opt.trace_path) {
        if (trace_write(&L.trace, opt.trace_path) != 0) {
            rc = OCLT_EXIT_FAIL;
        } else {
            printf("\ntrace: %zu profiled commands written to %s (open it in "
                   "https://ui.perfetto.dev or chrome://tracing)\n",
                   L.trace.count, opt.trace_path);
        }
    }
release_program:
    clReleaseProgram(L.program);
release_sources:
    free(L.sources[0]);
    free(L.sources[1]);
    trace_free(&L.trace);
close_device:
    oclt_close_device(&dev);
    for (cl_uint d = 0; d < L.sub_device_count; ++d) clReleaseDevice(L.sub_devices[d]);
    return rc;
}
