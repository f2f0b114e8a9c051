/* Chapter 03: the profiled-command log behind --trace and the ASCII timelines. */
#include "trace.h"
#include "oclt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_init(trace_log *log) {
    memset(log, 0, sizeof *log);
}

void trace_free(trace_log *log) {
    free(log->records);
    memset(log, 0, sizeof *log);
}

int trace_device(trace_log *log, const char *name) {
    for (int d = 0; d < log->device_count; ++d)
        if (strcmp(log->devices[d], name) == 0) return d;
    if (log->device_count == TRACE_MAX_DEVICES) return TRACE_MAX_DEVICES - 1;
    snprintf(log->devices[log->device_count], sizeof log->devices[0], "%s", name);
    return log->device_count++;
}

int trace_track_add(trace_log *log, int device, const char *name) {
    for (int t = 0; t < log->track_count; ++t)
        if (log->tracks[t].device == device && strcmp(log->tracks[t].name, name) == 0) return t;
    if (log->track_count == TRACE_MAX_TRACKS) return TRACE_MAX_TRACKS - 1;
    trace_track *track = &log->tracks[log->track_count];
    snprintf(track->name, sizeof track->name, "%s", name);
    track->device = device;
    return log->track_count++;
}

cl_int profiling_stamps(cl_event event, cl_ulong stamps[4]) {
    static const cl_profiling_info params[4] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};
    cl_int err = OCLT_CHECK(clWaitForEvents(1, &event));
    for (int i = 0; i < 4 && !err; ++i)
        err = OCLT_CHECK(
            clGetEventProfilingInfo(event, params[i], sizeof stamps[i], &stamps[i], NULL));
    return err;
}

cl_int trace_add(trace_log *log, cl_event event, int track, const char *name, char glyph) {
    trace_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.glyph = glyph;
    r.track = track;
    cl_ulong stamps[4];
    cl_int err = profiling_stamps(event, stamps);
    if (err) return err;
    r.queued = stamps[0], r.submit = stamps[1], r.start = stamps[2], r.end = stamps[3];
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? 2 * log->capacity : 256;
        trace_record *grown = realloc(log->records, capacity * sizeof *grown);
        if (!grown) return CL_OUT_OF_HOST_MEMORY;
        log->records = grown;
        log->capacity = capacity;
    }
    log->records[log->count++] = r;
    return CL_SUCCESS;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static double microseconds(cl_ulong later, cl_ulong earlier) {
    return later >= earlier ? (double)(later - earlier) * 1e-3 : -(double)(earlier - later) * 1e-3;
}

int trace_write(const trace_log *log, const char *path) {
    char temporary[4096];
    if (snprintf(temporary, sizeof temporary, "%s.tmp", path) >= (int)sizeof temporary) {
        fprintf(stderr, "--trace %s: path too long\n", path);
        return -1;
    }
    FILE *out = fopen(temporary, "w");
    if (!out) {
        fprintf(stderr, "--trace: cannot create %s: %s\n", temporary, strerror(errno));
        return -1;
    }
    cl_ulong origin = 0;
    for (size_t i = 0; i < log->count; ++i)
        if (i == 0 || log->records[i].start < origin) origin = log->records[i].start;

    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", out);
    int first = 1;
    for (int d = 0; d < log->device_count; ++d) {
        fprintf(out,
                "%s  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": "
                "{\"name\": ",
                first ? "" : ",\n", d);
        json_string(out, log->devices[d]);
        fputs("}}", out);
        first = 0;
    }
    for (int t = 0; t < log->track_count; ++t) {
        fprintf(out,
                "%s  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
                "\"args\": {\"name\": ",
                first ? "" : ",\n", log->tracks[t].device, t);
        json_string(out, log->tracks[t].name);
        fputs("}}", out);
        first = 0;
    }
    for (size_t i = 0; i < log->count; ++i) {
        const trace_record *r = &log->records[i];
        fprintf(out, "%s  {\"name\": ", first ? "" : ",\n");
        json_string(out, r->name);
        fprintf(out,
                ", \"cat\": \"command\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, "
                "\"pid\": %d, \"tid\": %d, \"args\": {\"queued_to_submit_us\": %.3f, "
                "\"submit_to_start_us\": %.3f}}",
                microseconds(r->start, origin), microseconds(r->end, r->start),
                log->tracks[r->track].device, r->track, microseconds(r->submit, r->queued),
                microseconds(r->start, r->submit));
        first = 0;
    }
    fputs("\n]}\n", out);
    int failed = ferror(out);
    if (fclose(out) != 0) failed = 1;
    if (failed || rename(temporary, path) != 0) {
        fprintf(stderr, "--trace: writing %s failed: %s\n", path, strerror(errno));
        remove(temporary);
        return -1;
    }
    return 0;
}

void trace_print_ascii(const trace_log *log, size_t first, size_t last, int width) {
    if (first >= last || last > log->count || width < 10) return;
    cl_ulong begin = log->records[first].start, end = log->records[first].end;
    for (size_t i = first; i < last; ++i) {
        if (log->records[i].start < begin) begin = log->records[i].start;
        if (log->records[i].end > end) end = log->records[i].end;
    }
    double span = end > begin ? (double)(end - begin) : 1.0;
    char *row = malloc((size_t)width + 1);
    if (!row) return;
    /* One row per track that has a command in the range, in the order the tracks were made. */
    for (int t = 0; t < log->track_count; ++t) {
        int used = 0;
        memset(row, '.', (size_t)width);
        row[width] = '\0';
        for (size_t i = first; i < last; ++i) {
            const trace_record *r = &log->records[i];
            if (r->track != t) continue;
            used = 1;
            int from = (int)((double)(r->start - begin) / span * width);
            int to = (int)((double)(r->end - begin) / span * width);
            if (from >= width) from = width - 1;
            if (to <= from) to = from + 1; /* at least one column, however short */
            if (to > width) to = width;
            for (int c = from; c < to; ++c) row[c] = r->glyph;
        }
        if (used) printf("      %-20.20s |%s|\n", log->tracks[t].name, row);
    }
    printf("      %-20s  0%*s%.3f ms\n", "", width - 9, "", span * 1e-6);
    free(row);
}
