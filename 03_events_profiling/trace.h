/* Chapter 03: a log of profiled commands, written as Chrome trace-event JSON (--trace FILE,
 * open it in https://ui.perfetto.dev or chrome://tracing) and drawn as an ASCII timeline.
 * One track per command queue, grouped by device: pid = device, tid = queue. */
#ifndef CH03_TRACE_H
#define CH03_TRACE_H

#include <CL/cl.h>
#include <stddef.h>

typedef struct {
    char name[40];
    char glyph;                          /* the character that draws it in the ASCII timeline */
    int track;                           /* index into the track table */
    cl_ulong queued, submit, start, end; /* CL_PROFILING_COMMAND_* in device nanoseconds */
} trace_record;

typedef struct {
    char name[64]; /* the queue, e.g. "overlap: upload" */
    int device;    /* index into the device table */
} trace_track;

#define TRACE_MAX_DEVICES 16
#define TRACE_MAX_TRACKS  64

typedef struct {
    trace_record *records;
    size_t count, capacity;
    trace_track tracks[TRACE_MAX_TRACKS];
    int track_count;
    char devices[TRACE_MAX_DEVICES][128];
    int device_count;
} trace_log;

void trace_init(trace_log *log);
void trace_free(trace_log *log);

/* A device (a Chrome trace "process"); the same name gives the same index. */
int trace_device(trace_log *log, const char *name);

/* A command queue on a device (a Chrome trace "thread"). Returns the track index. */
int trace_track_add(trace_log *log, int device, const char *name);

/* Reads the four timestamps of a command of a profiling queue (profiling_stamps: after waiting
 * for it) and logs it. Returns CL_SUCCESS or the OpenCL error (printed). */
cl_int trace_add(trace_log *log, cl_event event, int track, const char *name, char glyph);

/* CL_PROFILING_COMMAND_QUEUED, _SUBMIT, _START and _END of a command, after waiting for it:
 * the counters exist only once it is CL_COMPLETE (a blocking read that did not list this event
 * promises nothing about it). */
cl_int profiling_stamps(cl_event event, cl_ulong stamps[4]);

/* Writes the log as {"traceEvents": [...]}: one complete ("ph": "X") event per command,
 * ts/dur in microseconds from the earliest START, plus the names of devices and queues
 * ("ph": "M"). Written to PATH.tmp, then renamed, so a failure leaves no partial file.
 * Returns 0, or -1 after printing why. */
int trace_write(const trace_log *log, const char *path);

/* Draws records [first, last) as one text row per queue, `width` columns across. */
void trace_print_ascii(const trace_log *log, size_t first, size_t last, int width);

#endif
