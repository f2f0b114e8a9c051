/* Timing: event profiling for device work, a monotonic clock for host work, medians. */
#include "timing.h"
#include "errors.h"

#include <stdlib.h>
#include "os.h"

double oclt_event_ms(cl_event event) {
    double ms = -1.0;
    return oclt_events_span_ms(event, event, &ms) ? -1.0 : ms;
}

cl_int oclt_events_span_ms(cl_event first, cl_event last, double *ms) {
    cl_ulong start = 0, end = 0;
    /* Profiling counters exist only once a command is CL_COMPLETE; a blocking read that did not
     * list these events promises nothing about them. Waiting on complete events costs nothing. */
    const cl_event both[2] = {first, last};
    cl_int err = OCLT_CHECK(clWaitForEvents(first == last ? 1 : 2, both));
    if (err) return err;
    if ((err = OCLT_CHECK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start,
                                                  &start, NULL))) ||
        (err = OCLT_CHECK(
             clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL))))
        return err;
    *ms = (double)(end - start) * 1e-6;
    return CL_SUCCESS;
}

double oclt_now_ms(void) {
    return oclt_os_monotonic_ms();
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double oclt_median(double *values, size_t n) {
    if (n == 0) return 0.0;
    qsort(values, n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

cl_int oclt_time_median(oclt_run_fn run, void *context, int reps, double *median_ms) {
    double warm_up = 0.0;
    cl_int err = run(context, &warm_up);
    if (err != CL_SUCCESS) return err;
    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) return CL_OUT_OF_HOST_MEMORY;
    for (int r = 0; r < reps && err == CL_SUCCESS; ++r) err = run(context, &times[r]);
    if (err == CL_SUCCESS) *median_ms = oclt_median(times, (size_t)reps);
    free(times);
    return err;
}
