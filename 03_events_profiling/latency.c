/* Chapter 03: launch_latency, the fixed price of one kernel launch, measured the way clpeak
 * does. */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- launch_latency ------------------------------------------------------------------------
 * An empty kernel of one work-item: whatever its launch costs is overhead. clpeak's "kernel
 * launch latency" (clpeak --kernel-latency) launches a kernel, calls clFinish, and takes
 * CL_PROFILING_COMMAND_START - CL_PROFILING_COMMAND_QUEUED: the time from the enqueue to the
 * start of execution, the kernel's own run time excluded, averaged over its launches. This
 * loop is the same, so the two numbers compare; it reports the median (robust against the
 * odd slow launch) beside the mean (clpeak's statistic), and two more views of a launch:
 *   run        END - START, what an empty kernel costs on the device itself;
 *   round trip the host's clock around enqueue + clFinish, what a program that waits for
 *              each launch pays (recent clpeak versions report it too). */

/* Launches per --reps: 1000 with the default --reps 5. */
#define LAUNCHES_PER_REP 200

static double mean(const double *values, size_t n) {
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += values[i];
    return n ? sum / (double)n : 0.0;
}

void scenario_launch_latency(lesson *L) {
    const size_t launches = (size_t)L->opt->reps * LAUNCHES_PER_REP;
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", launches);
    if (!L->profiling) {
        oclt_report_result(L->report, "launch_latency", size_text, -1.0, -1.0, "us", OCLT_SKIP,
                           "the device does not offer profiling queues");
        return;
    }
    oclt_status status = OCLT_FAIL;
    double dispatch_median = -1.0, dispatch_mean = -1.0, run_median = -1.0, roundtrip_median = -1.0;
    size_t failures = 0;
    int track = 0;
    double *dispatch = malloc(3 * launches * sizeof *dispatch);
    double *run = dispatch + launches, *roundtrip = dispatch + 2 * launches;
    cl_command_queue queue = NULL;
    cl_kernel kernel = NULL;
    if (!dispatch) {
        fprintf(stderr, "  out of host memory\n");
        goto release;
    }
    if (!(queue = lesson_queue(L, L->dev->context, L->dev->device, 0, L->trace_device,
                               "launch latency", &track)))
        goto release;
    if (!(kernel = oclt_create_kernel(L->program, "empty"))) goto release;
    const size_t one = 1;
    /* Warm-up, as clpeak: the first launches pay for one-time work (code upload, queues). */
    for (int i = 0; i < 2; ++i)
        if (oclt_enqueue_kernel(queue, kernel, 1, &one, &one, 0, NULL, NULL, "empty (warm-up)"))
            goto release;
    if (OCLT_CHECK(clFinish(queue))) goto release;

    for (size_t i = 0; i < launches; ++i) {
        cl_event done = NULL;
        cl_ulong s[4];
        double start = oclt_now_ms();
        if (oclt_enqueue_kernel(queue, kernel, 1, &one, &one, 0, NULL, &done, "empty") ||
            OCLT_CHECK(clFinish(queue))) {
            if (done) clReleaseEvent(done);
            goto release;
        }
        roundtrip[i] = (oclt_now_ms() - start) * 1e3;
        cl_int state = execution_status(done);
        cl_int err = profiling_stamps(done, s);
        if (!err) err = lesson_trace(L, done, track, "empty", 'e');
        clReleaseEvent(done);
        if (err) goto release;
        if (state != CL_COMPLETE || !(s[0] <= s[1] && s[1] <= s[2] && s[2] <= s[3])) {
            if (failures++ < 3)
                fprintf(stderr, "  launch %zu: state %s, timestamps %llu %llu %llu %llu\n", i,
                        oclt_execution_status_name(state), (unsigned long long)s[0],
                        (unsigned long long)s[1], (unsigned long long)s[2],
                        (unsigned long long)s[3]);
        }
        dispatch[i] = stamp_us(s[2], s[0]);
        run[i] = stamp_us(s[3], s[2]);
    }
    dispatch_mean = mean(dispatch, launches);
    dispatch_median = oclt_median(dispatch, launches);
    run_median = oclt_median(run, launches);
    roundtrip_median = oclt_median(roundtrip, launches);
    printf("    %zu launches of an empty kernel, each followed by clFinish:\n", launches);
    printf("      QUEUED -> START   median %8.2f us   mean %8.2f us   (clpeak's definition; it "
           "reports the mean)\n",
           dispatch_median, dispatch_mean);
    printf("      START  -> END     median %8.2f us                       (the empty kernel "
           "on the device)\n",
           run_median);
    printf("      enqueue + finish  median %8.2f us                       (host round trip)\n",
           roundtrip_median);
    printf("      compare: clpeak --kernel-latency on the same device\n");
    status = failures ? OCLT_FAIL : OCLT_PASS; /* event states and timestamp order */
release:
    if (kernel) clReleaseKernel(kernel);
    finish_and_release(queue);
    free(dispatch);
    oclt_report_result(L->report, "launch_latency", size_text, -1.0, dispatch_median, "us", status,
                       "QUEUED->START, median; size = launches");
    oclt_report_result(L->report, "launch_run", size_text, -1.0, run_median, "us", status,
                       "START->END of the empty kernel, median");
    oclt_report_result(L->report, "launch_roundtrip", size_text, -1.0, roundtrip_median, "us",
                       status, "host clock around enqueue + clFinish, median");
}
