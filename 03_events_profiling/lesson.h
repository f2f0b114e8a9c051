/* Chapter 03: what the scenario files share. main.c sets up one `lesson` and hands it to each
 * scenario; each scenario creates its own queues, buffers and kernels, checks its result,
 * reports one or more rows and releases everything it made. */
#ifndef CH03_LESSON_H
#define CH03_LESSON_H

#include "oclt.h"
#include "trace.h"

#include <stdint.h>

/* Most scenarios compute y = A*x + B on ints (exact checks); the two-branch scenarios use a
 * second pair for the other branch. The host keeps |x| <= 1000, far from int overflow. */
#define AFFINE_A   3
#define AFFINE_B   (-7)
#define AFFINE_A2  (-2)
#define AFFINE_B2  5
#define INPUT_SPAN 1000

/* The status the host gives a user event to cancel what waits on it: any negative number;
 * this one is ours. */
#define HOST_CANCELLED (-9999)

/* Why the scenarios that hold a flushed chain back with a user event skip on Oclgrind. */
#define FLUSH_FINISHES_WHY                                                                         \
    "this runtime's clFlush waits for the queue to finish (Oclgrind), so a chain held back by "    \
    "a user event would wait forever"

typedef struct {
    const oclt_options *opt;
    oclt_device *dev;
    oclt_report *report;
    oclt_rng rng;
    size_t n;           /* --size: elements per scenario */
    char size_text[32]; /* n as the CSV size column */
    char *sources[2];   /* helpers.cl and events.cl, in that order */
    cl_program program; /* both units built for dev->device in dev->context */
    size_t local;       /* work-group size of the 1-D launches (64, or less if a kernel needs) */
    cl_command_queue_properties queue_caps; /* CL_DEVICE_QUEUE_(ON_HOST_)PROPERTIES */
    int profiling;                          /* the device accepts CL_QUEUE_PROFILING_ENABLE */
    int flush_finishes; /* clFlush waits for the queue to finish (Oclgrind): see main() */
    cl_command_queue_properties queue_properties; /* CL_QUEUE_PROFILING_ENABLE or 0 */
    trace_log trace;                              /* every profiled command of the run (--trace) */
    int trace_device;                             /* dev's index in the trace */
} lesson;

/* ---- Plumbing (lesson.c) ---- */

/* A queue on `device` of `context` with the lesson's properties plus `extra` (e.g. out-of-order),
 * registered in the trace as track `name` of trace device `trace_dev`. */
cl_command_queue lesson_queue(lesson *L, cl_context context, cl_device_id device,
                              cl_command_queue_properties extra, int trace_dev, const char *name,
                              int *track);

/* clFinish, then clReleaseCommandQueue; nothing for NULL. On an error path a non-blocking
 * command may still be writing into host memory: finish before freeing it. */
void finish_and_release(cl_command_queue queue);

/* helpers.cl + events.cl as one program for `count` devices of `context`; NULL after the log. */
cl_program lesson_build(const lesson *L, cl_context context, cl_uint count,
                        const cl_device_id *devices, const char *options);

/* Sets L->local: 64, or less where a kernel of L->program cannot have 64 work-items on the
 * device (CL_KERNEL_WORK_GROUP_SIZE). Returns 0, or -1 after an OpenCL error. */
int choose_local_size(lesson *L);

/* A 1-D launch over `count` items: global size rounded up to L->local (the kernels guard). */
cl_int lesson_launch(const lesson *L, cl_command_queue queue, cl_kernel kernel, size_t count,
                     cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                     const char *label);

/* Logs a completed command in the trace (does nothing without profiling). */
cl_int lesson_trace(lesson *L, cl_event event, int track, const char *name, char glyph);

/* CL_EVENT_COMMAND_EXECUTION_STATUS of an event (or the query's error, which is negative too). */
cl_int execution_status(cl_event event);

/* Random ints in [-INPUT_SPAN, INPUT_SPAN]; NULL when out of memory. */
int32_t *random_ints(lesson *L, size_t n);

/* Microseconds between two profiling timestamps (negative if out of order). */
double stamp_us(cl_ulong later, cl_ulong earlier);

/* Releases `count` events and sets them to NULL (NULL entries are passed over). */
void release_events(cl_event *events, size_t count);

/* Reports a SKIP row with its reason. */
void report_skip(lesson *L, const char *variant, const char *why);

/* Where clFlush waits for the queue (Oclgrind), reports `variant` as SKIP and returns 1. */
int skip_if_flush_finishes(lesson *L, const char *variant);

/* FAIL with failures, else PASS (or UNCHECKED under --no-check). */
oclt_status verdict(const lesson *L, size_t failures);

/* Mismatches of y against a*x + b (0 without checking under --no-check). */
size_t check_affine(const lesson *L, const char *what, const int32_t *x, const int32_t *y, size_t n,
                    int a, int b);

/* Mismatches of y against `steps` rounds of relax_steps on x, within the float bound that
 * overlap.c derives (0 under --no-check). */
size_t check_relax(const lesson *L, const char *what, const float *x, const float *y, size_t n,
                   cl_uint steps);

/* ---- The chain: write x -> y = a*x + b -> read y (main.c; the rest in lesson.c) ----
 * Each command names the one before it in its wait list: redundant on an in-order queue, and
 * what keeps the chain correct on any other. `gate` (may be NULL) holds the write back.
 * Events not made stay NULL. */
typedef struct {
    cl_event write, kernel, read;
} chain_events;

cl_int enqueue_chain(const lesson *L, cl_command_queue queue, cl_kernel affine_map, cl_mem x_buf,
                     cl_mem y_buf, const int32_t *x, int32_t *y, size_t n, int a, int b,
                     cl_event gate, chain_events *ev);
/* The same with the kernel launched over `launch_items` >= n work-items (see devices.c). */
cl_int enqueue_chain_launching(const lesson *L, cl_command_queue queue, cl_kernel affine_map,
                               cl_mem x_buf, cl_mem y_buf, const int32_t *x, int32_t *y, size_t n,
                               size_t launch_items, int a, int b, cl_event gate, chain_events *ev);
cl_int trace_chain(lesson *L, const chain_events *ev, int track, const char *label);
void release_chain(chain_events *ev);

/* What a one-queue scenario needs: a queue, one kernel, n random ints x and an output y on
 * the host, and x_buf (read-only) and y_buf (read-write) of n ints on the device. */
typedef struct {
    cl_command_queue queue;
    cl_kernel kernel;
    cl_mem x_buf, y_buf;
    int32_t *x, *y;
    size_t n;
    int track; /* the queue's track in the trace */
} chain_setup;

/* Makes everything in `c` in `context`: kernel `kernel` of `program`, and a queue that is
 * track `queue_name` of trace device `trace_dev` (-1: not in the trace). Returns 0, or -1
 * after printing why; close `c` either way. */
int chain_open(lesson *L, chain_setup *c, cl_context context, cl_program program,
               const char *kernel, size_t n, int trace_dev, const char *queue_name);
/* Finishes the queue, then releases and frees everything `c` holds. */
void chain_close(chain_setup *c);
/* Poisons y on the device and the host, then enqueues write x -> y = A*x + B -> read y. */
cl_int chain_start(const lesson *L, chain_setup *c, cl_event gate, chain_events *ev);

/* ---- Watching states (states.c) ---- */

/* Prints the state of each command; returns how many are past CL_SUBMITTED, which no command
 * may be while the user event it waits on is still open. */
int print_states(const char *when, const cl_event *events, const char *const *names, int count);

/* Sets the user event `gate` to CL_COMPLETE, polls the commands until each is complete or
 * failed, and prints every state it was seen in. Returns the number of anomalies, or -1 when
 * clSetUserEventStatus failed. */
int walk_states(cl_event gate, const cl_event *events, const char *const *names, int count);

/* ---- The scenarios, one per variant ---- */
void scenario_profiling(lesson *L);        /* main.c */
void scenario_coarse_fine_sync(lesson *L); /* sync.c */
void scenario_out_of_order(lesson *L);
void scenario_user_events(lesson *L); /* user_events.c */
void scenario_user_event_error(lesson *L);
void scenario_callbacks(lesson *L);
void scenario_launch_latency(lesson *L); /* latency.c */
void scenario_overlap(lesson *L);        /* overlap.c */
void scenario_multi_context(lesson *L);  /* devices.c */
void scenario_multi_device(lesson *L);
void release_sub_devices(void);    /* devices.c: at the very end of main() */
void scenario_binaries(lesson *L); /* programs.c */
void scenario_enqueue_task(lesson *L);
void scenario_divergence(lesson *L); /* divergence.c */

#endif
