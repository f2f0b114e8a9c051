/* Chapter 03: events, synchronization, profiling, timelines, several devices, program binaries.
 *
 * A kernel launch is one command among others in a command queue: writes, reads, markers,
 * barriers. Every command can return an event, and events are how the host and other commands
 * learn when a command has run and how long it took. This file is the lesson: the chain
 * write x -> kernel -> read y, made of non-blocking commands joined by events, then the states
 * and the four timestamps of each of its commands. The other scenarios, file by file:
 *   sync.c         coarse vs fine synchronization; an out-of-order queue, marker and barrier;
 *   user_events.c  user events (and their error path), callbacks and reference counts;
 *   latency.c      what a kernel launch costs; overlap.c  hiding transfers behind kernels;
 *   devices.c      several contexts on one device, and several devices in one context;
 *   programs.c     program binaries, separate compilation + linking, clEnqueueTask;
 *   divergence.c   a divergent branch against select(), measured with profiling events;
 *   states.c, trace.c, lesson.c   watching states, the timeline (--trace), shared plumbing.
 * Each scenario checks its result against the CPU and the event states it expects. With
 * --trace FILE every profiled command is written as a timeline (Chrome trace-event JSON).
 */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    {"divergence", "a divergent branch vs the same work branch-free with select(), timed", 1},
};

/* In the order of `variants`. */
static void (*const scenarios[])(lesson *) = {
    scenario_profiling,      scenario_coarse_fine_sync, scenario_out_of_order,
    scenario_user_events,    scenario_user_event_error, scenario_callbacks,
    scenario_launch_latency, scenario_overlap,          scenario_multi_context,
    scenario_multi_device,   scenario_binaries,         scenario_enqueue_task,
    scenario_divergence,
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

/* ---- 1. The chain: write x -> y = a*x + b -> read y -----------------------------------------
 * Three commands, none of them blocking: the host enqueues all three at once and learns later,
 * from the events, when each has run. Most scenarios of the chapter use this chain. */

cl_int enqueue_chain(const lesson *L, cl_command_queue queue, cl_kernel affine_map, cl_mem x_buf,
                     cl_mem y_buf, const int32_t *x, int32_t *y, size_t n, int a, int b,
                     cl_event gate, chain_events *ev) {
    return enqueue_chain_launching(L, queue, affine_map, x_buf, y_buf, x, y, n, n, a, b, gate, ev);
}

cl_int enqueue_chain_launching(const lesson *L, cl_command_queue queue, cl_kernel affine_map,
                               cl_mem x_buf, cl_mem y_buf, const int32_t *x, int32_t *y, size_t n,
                               size_t launch_items, int a, int b, cl_event gate, chain_events *ev) {
    const size_t bytes = n * sizeof *x;
    const cl_uint n32 = (cl_uint)n;
    memset(ev, 0, sizeof *ev);
    /* Non-blocking (CL_FALSE): the call returns at once; x must stay untouched until the
     * write's event completes. A gate (a user event) in the wait list holds the write back. */
    cl_int err = OCLT_CHECK(clEnqueueWriteBuffer(queue, x_buf, CL_FALSE, 0, bytes, x, gate ? 1 : 0,
                                                 gate ? &gate : NULL, &ev->write));
    if (err) return err;
    /* Arguments are copied at enqueue time: setting them again later does not change this
     * command. */
    if ((err = OCLT_ARG(affine_map, 0, x_buf)) || (err = OCLT_ARG(affine_map, 1, y_buf)) ||
        (err = OCLT_ARG(affine_map, 2, a)) || (err = OCLT_ARG(affine_map, 3, b)) ||
        (err = OCLT_ARG(affine_map, 4, n32)))
        return err;
    /* The kernel waits for the write, the read for the kernel: the events make the order. */
    err =
        lesson_launch(L, queue, affine_map, launch_items, 1, &ev->write, &ev->kernel, "affine_map");
    if (err) return err;
    return OCLT_CHECK(
        clEnqueueReadBuffer(queue, y_buf, CL_FALSE, 0, bytes, y, 1, &ev->kernel, &ev->read));
}

/* ---- 2. profiling: the life of a command --------------------------------------------------
 * Every command passes through four states, and a profiling queue stamps the moment it
 * entered each one with the device clock:
 *   CL_QUEUED     enqueued by the host                         CL_PROFILING_COMMAND_QUEUED
 *   CL_SUBMITTED  handed by the runtime to the device          CL_PROFILING_COMMAND_SUBMIT
 *   CL_RUNNING    executing                                    CL_PROFILING_COMMAND_START
 *   CL_COMPLETE   done                                         CL_PROFILING_COMMAND_END
 * The states are read with clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS); the values fall
 * as the command advances (CL_QUEUED = 3 ... CL_COMPLETE = 0), and negative means failed. */

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

/* The state walk: the chain held back by a user event in the write's wait list, so that its
 * early states can be seen for sure before the host lets it go. Returns the number of failed
 * checks, or -1 after an OpenCL error. */
static int state_walk(lesson *L, chain_setup *c) {
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    int failures = -1, gate_set = 0;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    printf("    states of write -> kernel -> read, held back by a user event:\n");
    cl_event gate = clCreateUserEvent(L->dev->context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) return -1;
    if (chain_start(L, c, gate, &ev)) goto release_gate;
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    int early = print_states("after enqueue:", chain, names, 3);
    /* clFlush hands the commands to the device without waiting for them: they may now show
     * CL_SUBMITTED (or stay CL_QUEUED: the runtime decides). */
    if (OCLT_CHECK(clFlush(c->queue))) goto release_gate;
    early += print_states("after clFlush:", chain, names, 3);
    printf("      user event set to CL_COMPLETE; states from just before, then polled:\n");
    const int anomalies = walk_states(gate, chain, names, 3);
    if (anomalies < 0) goto release_gate;
    gate_set = 1;
    if (trace_chain(L, &ev, c->track, " (held back)")) goto release_gate;
    failures = early + anomalies +
               (int)check_affine(L, "y (state walk)", c->x, c->y, c->n, AFFINE_A, AFFINE_B);
release_gate:
    /* A user event must be set before anything else is released (the specification leaves
     * the rest undefined otherwise); an error status cancels whatever still waits on it. */
    if (!gate_set) clSetUserEventStatus(gate, HOST_CANCELLED);
    release_chain(&ev);
    clReleaseEvent(gate);
    return failures;
}

void scenario_profiling(lesson *L) {
    if (!L->profiling) {
        report_skip(L, "profiling", "the device does not offer profiling queues");
        return;
    }
    static const char *const names[3] = {"write x", "affine_map", "read y"};
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const int reps = L->opt->reps;
    oclt_status status = OCLT_FAIL; /* until every step has run */
    double ms = -1.0;
    size_t failures = 0;
    double *kernel_ms = malloc((size_t)reps * sizeof *kernel_ms);
    chain_setup c = {0};
    chain_events ev = {0};
    if (!kernel_ms) fprintf(stderr, "  out of host memory\n");
    if (!kernel_ms || chain_open(L, &c, L->dev->context, L->program, "affine_map", n,
                                 L->trace_device, "profiling: in-order"))
        goto release;

    if (L->flush_finishes) {
        printf("    state walk skipped: %s\n", FLUSH_FINISHES_WHY);
    } else {
        const int walk_failures = state_walk(L, &c);
        if (walk_failures < 0) goto release;
        failures += (size_t)walk_failures;
    }
    /* Timed runs: one warm-up, then --reps; the table shows the last. */
    for (int r = -1; r < reps; ++r) {
        if (chain_start(L, &c, NULL, &ev) || OCLT_CHECK(clWaitForEvents(1, &ev.read))) goto release;
        const cl_event timed[3] = {ev.write, ev.kernel, ev.read};
        if (r == reps - 1) printf("    timestamps of the last of %d runs:\n", reps);
        failures += check_chain_stamps(timed, names, 3, r == reps - 1);
        if (r >= 0) {
            if ((kernel_ms[r] = oclt_event_ms(ev.kernel)) < 0) goto release;
            if (trace_chain(L, &ev, c.track, "")) goto release;
        }
        release_chain(&ev);
    }
    failures += check_affine(L, "y", c.x, c.y, n, AFFINE_A, AFFINE_B);
    ms = oclt_median(kernel_ms, (size_t)reps);
    status = verdict(L, failures);
release:
    release_chain(&ev);
    chain_close(&c);
    free(kernel_ms);
    oclt_report_result(L->report, "profiling", L->size_text, ms,
                       ms > 0 ? 2.0 * bytes / (ms * 1e6) : -1.0, "GB/s", status,
                       "time: kernel START->END, median");
}

/* ---- 3. Set-up, then every chosen scenario ------------------------------------------------- */

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
    lesson L = {0};
    if (OCLT_CHECK(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof L.queue_caps,
                                   &L.queue_caps, NULL)))
        return OCLT_EXIT_FAIL;
    L.profiling = (L.queue_caps & CL_QUEUE_PROFILING_ENABLE) != 0;
    L.queue_properties = L.profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    oclt_device dev;
    rc = oclt_open_device_with_queue(&spec, &opt, &dev, L.queue_properties);
    if (rc != OCLT_CONTINUE) return rc;
    trace_init(&L.trace);
    /* The largest scenario (out_of_order) holds five buffers of n ints. */
    const size_t n = opt.size[0];
    rc = oclt_require_memory(&spec, &dev, n * sizeof(int32_t), 5 * n * sizeof(int32_t), "--size");
    /* The host's largest scenario (overlap) keeps 24 bytes per element: the expected values
     * and bounds in double, and the pinned x and y. */
    if (!rc)
        rc = oclt_require_host_memory(&spec, &dev, oclt_mul_size(n, 24), oclt_mul_size(n, 20),
                                      "--size");
    if (rc) goto release;
    L.opt = &opt;
    L.dev = &dev;
    L.n = n;
    snprintf(L.size_text, sizeof L.size_text, "%zu", n);
    /* Oclgrind simplifies clFlush to clFinish; the scenarios that flush a queue whose chain
     * waits on a user event would wait forever there, and skip instead. */
    L.flush_finishes = strstr(dev.platform_name, "Oclgrind") != NULL;
    oclt_rng_seed(&L.rng, opt.seed);

    /* The program: helpers.cl and events.cl built together, for the lesson's device. */
    rc = OCLT_EXIT_FAIL;
    if (!(L.sources[0] = oclt_kernel_source("helpers.cl")) ||
        !(L.sources[1] = oclt_kernel_source("events.cl")) ||
        !(L.program = lesson_build(&L, dev.context, 1, &dev.device, NULL)) || choose_local_size(&L))
        goto release;

    /* Each chosen scenario runs, checks its result and reports its rows. */
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    L.report = &report;
    L.trace_device = trace_device(&L.trace, dev.device_name);
    printf("  queues   profiling %s, out-of-order %s (CL_DEVICE_QUEUE_PROPERTIES)\n",
           L.profiling ? "yes" : "NO: timings and the trace are skipped",
           L.queue_caps & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE ? "yes" : "no");
    for (size_t v = 0; v < spec.variant_count; ++v) {
        if (!opt.selected[v]) continue;
        printf("\n  %s: %s\n", variants[v].name, variants[v].description);
        fflush(stdout);
        scenarios[v](&L);
    }
    rc = oclt_report_exit_code(&report);
    if (opt.trace_path && trace_write(&L.trace, opt.trace_path) != 0)
        rc = OCLT_EXIT_FAIL;
    else if (opt.trace_path)
        printf("\ntrace: %zu profiled commands written to %s (open it in "
               "https://ui.perfetto.dev or chrome://tracing)\n",
               L.trace.count, opt.trace_path);
release:
    if (L.program) clReleaseProgram(L.program);
    free(L.sources[0]);
    free(L.sources[1]);
    trace_free(&L.trace);
    oclt_close_device(&dev);
    release_sub_devices(); /* last of all: see devices.c */
    return rc;
}
