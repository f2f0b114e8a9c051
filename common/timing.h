/* Timing: event profiling for device work, a monotonic clock for host work, medians. */
#ifndef OCLT_TIMING_H
#define OCLT_TIMING_H

#include <CL/cl.h>
#include <stddef.h>

/* Device time of a completed command, CL_PROFILING_COMMAND_START -> END, in milliseconds.
 * Returns a negative value after printing the error (e.g. a queue without profiling). */
double oclt_event_ms(cl_event event);
/* *ms = from the start of `first` to the end of `last` (completed commands of one in-order
 * queue): the device time of several launches that make up one result. Waits for both events
 * first (profiling counters exist only for complete commands). Returns the error of
 * clWaitForEvents or clGetEventProfilingInfo after printing it, else CL_SUCCESS. */
cl_int oclt_events_span_ms(cl_event first, cl_event last, double *ms);

/* Host wall clock (CLOCK_MONOTONIC) in milliseconds, for work events cannot see. */
double oclt_now_ms(void);

/* Median of n values; sorts them in place. */
double oclt_median(double *values, size_t n);

/* One measured run: enqueue the work, wait for it, store its time in *ms. Returns CL_SUCCESS or
 * the first OpenCL error. */
typedef cl_int (*oclt_run_fn)(void *context, double *ms);

/* Calls run once as a warm-up (first-launch costs: compilation, allocation, caches), then reps
 * times, and stores the median time in *median_ms. */
cl_int oclt_time_median(oclt_run_fn run, void *context, int reps, double *median_ms);

#endif
