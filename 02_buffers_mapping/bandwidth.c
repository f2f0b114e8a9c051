/* Chapter 02, step 15: what moving data costs. Eight ways to get bytes between the program's
 * memory and a buffer, timed from 4 KiB to --size bytes, the result of every run checked (for
 * the non-blocking methods: what the batch of eight left, which the last transfer wrote).
 *
 * Timing follows clpeak's transfer-bandwidth test so the figures compare with it: host
 * wall-clock time around the calls (what the program waits), GB/s = 1e9 bytes per second. One
 * difference: a blocking write is timed until the call returns, which the specification ties
 * to the host memory being free again, not to the command being complete; clpeak also waits
 * for the queue to finish inside its timer.
 * The OpenCL commands' own profiling (event) time is reported beside it. Each size and method:
 * one warm-up run, then --reps runs, the median reported. Between runs, untimed: the
 * destination is poisoned and, after the run, compared with the source. */
#include "ch02.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Non-blocking transfers are enqueued this many at a time, then waited for together: what
 * non-blocking buys is that the host does not wait between them. (clpeak enqueues 20.) */
#define NONBLOCKING_BATCH 8

typedef enum {
    WRITE_BLOCKING,
    READ_BLOCKING,
    WRITE_NONBLOCKING,
    READ_NONBLOCKING,
    MAP_WRITE,
    MAP_READ,
    PINNED_WRITE,
    PINNED_READ,
    METHODS
} method;

static const struct {
    const char *name;   /* the CSV variant; parts of the map methods are <name>/<part> */
    const char *column; /* in the summary table */
    const char *how;
    int writes; /* 1: host -> buffer, 0: buffer -> host */
} methods[METHODS] = {
    {"write_blocking", "write", "clEnqueueWriteBuffer(CL_TRUE) from pageable memory", 1},
    {"read_blocking", "read", "clEnqueueReadBuffer(CL_TRUE) into pageable memory", 0},
    {"write_nonblocking", "write_nb", "8 x clEnqueueWriteBuffer(CL_FALSE), one wait", 1},
    {"read_nonblocking", "read_nb", "8 x clEnqueueReadBuffer(CL_FALSE), one wait", 0},
    {"map_write", "map_w",
     "map(WRITE_INVALIDATE_REGION) an ALLOC_HOST_PTR buffer + memcpy in + unmap", 1},
    {"map_read", "map_r", "map(READ) the ALLOC_HOST_PTR buffer + memcpy out + unmap", 0},
    {"pinned_write", "pin_w", "clEnqueueWriteBuffer(CL_TRUE) from pinned (mapped ALLOC_HOST_PTR)",
     1},
    {"pinned_read", "pin_r", "clEnqueueReadBuffer(CL_TRUE) into pinned memory", 0},
};

/* The memory every method works on; all of it is allocated once, for the largest size. */
typedef struct {
    ch02 *c;
    cl_command_queue queue;
    cl_mem device_buf; /* READ_WRITE: an ordinary buffer, the target of write/read/pinned */
    cl_mem map_buf;    /* READ_WRITE | ALLOC_HOST_PTR: what map_read/map_write map (as clpeak) */
    cl_mem pinned_buf; /* READ_WRITE | ALLOC_HOST_PTR, mapped for the whole sweep */
    unsigned char *pinned; /* that mapping: page-locked host memory on a GPU driver */
    unsigned char *src;    /* aligned_alloc'ed (pageable): the data every method moves */
    unsigned char *dst;    /* the same kind: where reads land, poisoned before each run */
    cl_map_flags map_write_flags;
} sweep;

/* One run of one method. Times in ms; the map parts are filled only by the map methods. */
typedef struct {
    double wall, event;            /* the whole method: host wall clock; command events */
    double map, copy, unmap;       /* map methods: the wall time of each part */
    double map_event, unmap_event; /* map methods: profiling time of the commands */
} sample;

enum { WALL, EVENT, MAP, COPY, UNMAP, MAP_EVENT, UNMAP_EVENT, FIELDS };

static void sample_fields(const sample *s, double out[FIELDS]) {
    const double v[FIELDS] = {s->wall,  s->event,     s->map,        s->copy,
                              s->unmap, s->map_event, s->unmap_event};
    memcpy(out, v, sizeof v);
}

static double gbps(size_t bytes, double ms) {
    return ms > 0 ? (double)bytes / (ms * 1e6) : -1.0;
}

/* Counts differing 32-bit words (or a differing tail byte) and names the first. */
static size_t count_wrong(const unsigned char *got, const unsigned char *want, size_t bytes,
                          const char *what) {
    if (memcmp(got, want, bytes) == 0) return 0;
    size_t wrong = 0, first = bytes;
    for (size_t i = 0; i < bytes; i += 4) {
        size_t len = bytes - i < 4 ? bytes - i : 4;
        if (memcmp(got + i, want + i, len) != 0) {
            if (first == bytes) first = i;
            ++wrong;
        }
    }
    fprintf(stderr, "  %s at %zu bytes: %zu words differ, the first at byte %zu\n", what, bytes,
            wrong, first);
    return wrong;
}

/* Untimed: poison where the data will land (and put it where a pinned write takes it from). */
static cl_int prepare(sweep *s, method m, size_t bytes) {
    switch (m) {
    case WRITE_BLOCKING:
    case WRITE_NONBLOCKING:
        return oclt_poison_buffer(s->queue, s->device_buf, bytes);
    case PINNED_WRITE:
        memcpy(s->pinned, s->src, bytes);
        return oclt_poison_buffer(s->queue, s->device_buf, bytes);
    case MAP_WRITE:
        return oclt_poison_buffer(s->queue, s->map_buf, bytes);
    case PINNED_READ:
        oclt_poison_host(s->pinned, bytes);
        return CL_SUCCESS;
    default:
        oclt_poison_host(s->dst, bytes);
        return CL_SUCCESS;
    }
}

/* Untimed: did every byte arrive? Buffers are read back into dst with a plain blocking read. */
static cl_int verify(sweep *s, method m, size_t bytes, size_t *wrong) {
    const char *what = methods[m].name;
    if (m == WRITE_BLOCKING || m == WRITE_NONBLOCKING || m == PINNED_WRITE || m == MAP_WRITE) {
        oclt_poison_host(s->dst, bytes);
        cl_int err =
            OCLT_CHECK(clEnqueueReadBuffer(s->queue, m == MAP_WRITE ? s->map_buf : s->device_buf,
                                           CL_TRUE, 0, bytes, s->dst, 0, NULL, NULL));
        if (err) return err;
    }
    *wrong += count_wrong(m == PINNED_READ ? s->pinned : s->dst, s->src, bytes, what);
    return CL_SUCCESS;
}

/* The timed part of one run. */
static cl_int transfer(sweep *s, method m, size_t bytes, sample *t) {
    cl_int err = CL_SUCCESS;
    cl_event events[NONBLOCKING_BATCH] = {NULL};
    memset(t, 0, sizeof *t);
    double start = oclt_now_ms();
    switch (m) {
    case WRITE_BLOCKING:
    case PINNED_WRITE:
    case READ_BLOCKING:
    case PINNED_READ: {
        /* One blocking call: a write takes from src (or the pinned area), a read lands in dst
         * (or the pinned area). */
        void *host = m == PINNED_WRITE || m == PINNED_READ ? (void *)s->pinned
                     : methods[m].writes                   ? (void *)s->src
                                                           : (void *)s->dst;
        err = methods[m].writes
                  ? OCLT_CHECK(clEnqueueWriteBuffer(s->queue, s->device_buf, CL_TRUE, 0, bytes,
                                                    host, 0, NULL, &events[0]))
                  : OCLT_CHECK(clEnqueueReadBuffer(s->queue, s->device_buf, CL_TRUE, 0, bytes, host,
                                                   0, NULL, &events[0]));
        t->wall = oclt_now_ms() - start;
        /* A blocking write returns once the host memory may be reused, not necessarily once
         * the command is complete, and profiling needs it complete. */
        if (!err) err = OCLT_CHECK(clWaitForEvents(1, &events[0]));
        if (!err) err = oclt_events_span_ms(events[0], events[0], &t->event);
        if (events[0]) clReleaseEvent(events[0]);
        break;
    }
    case WRITE_NONBLOCKING:
    case READ_NONBLOCKING: {
        /* All read the same source (or, in order, fill the same destination): the host must
         * not touch that memory until the events complete. */
        int queued = 0;
        for (; queued < NONBLOCKING_BATCH && !err; ++queued)
            err = m == WRITE_NONBLOCKING
                      ? OCLT_CHECK(clEnqueueWriteBuffer(s->queue, s->device_buf, CL_FALSE, 0, bytes,
                                                        s->src, 0, NULL, &events[queued]))
                      : OCLT_CHECK(clEnqueueReadBuffer(s->queue, s->device_buf, CL_FALSE, 0, bytes,
                                                       s->dst, 0, NULL, &events[queued]));
        if (err) --queued; /* the failed call made no event */
        cl_int wait = queued ? OCLT_CHECK(clWaitForEvents((cl_uint)queued, events)) : CL_SUCCESS;
        t->wall = (oclt_now_ms() - start) / NONBLOCKING_BATCH;
        if (!err) err = wait;
        for (int k = 0; k < queued; ++k) {
            double ms = 0.0;
            if (!err) err = oclt_events_span_ms(events[k], events[k], &ms);
            t->event += ms / NONBLOCKING_BATCH;
            clReleaseEvent(events[k]);
        }
        break;
    }
    case MAP_WRITE:
    case MAP_READ: {
        const int writing = m == MAP_WRITE;
        void *mapped = clEnqueueMapBuffer(s->queue, s->map_buf, CL_TRUE,
                                          writing ? s->map_write_flags : CL_MAP_READ, 0, bytes, 0,
                                          NULL, &events[0], &err);
        double mapped_at = oclt_now_ms();
        if (OCLT_CHECK_ERR(err, writing ? "clEnqueueMapBuffer(write)" : "clEnqueueMapBuffer(read)"))
            break;
        if (writing)
            memcpy(mapped, s->src, bytes);
        else
            memcpy(s->dst, mapped, bytes);
        double copied_at = oclt_now_ms();
        err =
            OCLT_CHECK(clEnqueueUnmapMemObject(s->queue, s->map_buf, mapped, 0, NULL, &events[1]));
        if (!err) err = OCLT_CHECK(clWaitForEvents(1, &events[1]));
        double end = oclt_now_ms();
        t->wall = end - start;
        t->map = mapped_at - start;
        t->copy = copied_at - mapped_at;
        t->unmap = end - copied_at;
        /* The queue is in order: the unmap complete means the map is too. */
        if (!err) err = oclt_events_span_ms(events[0], events[0], &t->map_event);
        if (!err) err = oclt_events_span_ms(events[1], events[1], &t->unmap_event);
        t->event = t->map_event + t->unmap_event;
        clReleaseEvent(events[0]); /* the map succeeded: it made one */
        if (events[1]) clReleaseEvent(events[1]);
        break;
    }
    default:
        break;
    }
    return err;
}

/* Warm-up plus reps runs; the median of each time. Adds the wrong words of every run to *wrong. */
static cl_int measure(sweep *s, method m, size_t bytes, sample *median, size_t *wrong) {
    const int reps = s->c->opt->reps, check = s->c->opt->check;
    double *fields = malloc((size_t)reps * FIELDS * sizeof *fields);
    double *column = malloc((size_t)reps * sizeof *column);
    cl_int err = fields && column ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    /* The read methods read what an untimed plain write put there. */
    if (!err && !methods[m].writes)
        err = OCLT_CHECK(clEnqueueWriteBuffer(s->queue, m == MAP_READ ? s->map_buf : s->device_buf,
                                              CL_TRUE, 0, bytes, s->src, 0, NULL, NULL));
    for (int r = -1; r < reps && !err; ++r) { /* r = -1: the warm-up */
        sample t;
        err = prepare(s, m, bytes);
        if (!err) err = transfer(s, m, bytes, &t);
        if (!err && check) err = verify(s, m, bytes, wrong);
        if (!err && r >= 0) sample_fields(&t, fields + (size_t)r * FIELDS);
    }
    if (!err) {
        double med[FIELDS];
        for (int f = 0; f < FIELDS; ++f) {
            for (int r = 0; r < reps; ++r) column[r] = fields[(size_t)r * FIELDS + f];
            med[f] = oclt_median(column, (size_t)reps);
        }
        *median = (sample){med[WALL],  med[EVENT],     med[MAP],        med[COPY],
                           med[UNMAP], med[MAP_EVENT], med[UNMAP_EVENT]};
    }
    free_all(fields, column);
    return err;
}

/* The rows of one method at one size. */
static void report_method(sweep *s, method m, size_t bytes, const sample *t, oclt_status status) {
    oclt_report *report = s->c->report;
    char variant[64], size_text[32], note[160];
    snprintf(size_text, sizeof size_text, "%zu", bytes);
    snprintf(variant, sizeof variant, "%s", methods[m].name);
    if (m == MAP_WRITE || m == MAP_READ)
        snprintf(note, sizeof note, "map %.4f + memcpy %.4f + unmap %.4f ms; events %.2f GB/s",
                 t->map, t->copy, t->unmap, gbps(bytes, t->event));
    else
        snprintf(note, sizeof note, "event %.2f GB/s", gbps(bytes, t->event));
    oclt_report_result(report, variant, size_text, t->wall, gbps(bytes, t->wall), "GB/s", status,
                       note);
    /* The parts clpeak reports on their own: enqueueMapBuffer(for read), memcpy from mapped
     * ptr, memcpy to mapped ptr, enqueueUnmap(after write); the map and unmap also by event. */
    if (m != MAP_READ && m != MAP_WRITE) return;
    const char *const part_names[2][3] = {{"map", "map_event", "memcpy"},
                                          {"memcpy", "unmap", "unmap_event"}};
    const double read_parts[3] = {t->map, t->map_event, t->copy};
    const double write_parts[3] = {t->copy, t->unmap, t->unmap_event};
    const int w = m == MAP_WRITE;
    for (int p = 0; p < 3; ++p) {
        const double ms = w ? write_parts[p] : read_parts[p];
        snprintf(variant, sizeof variant, "%s/%s", methods[m].name, part_names[w][p]);
        oclt_report_result(report, variant, size_text, ms, gbps(bytes, ms), "GB/s", status, NULL);
    }
}

/* The one-screen summary: wall-clock GB/s of every method at every size, the best marked. */
static void print_summary(const size_t *sizes, size_t size_count, double (*figure)[METHODS]) {
    printf("\n  Best method per size (host wall-clock GB/s; * = fastest)\n  %9s", "size");
    for (int m = 0; m < METHODS; ++m) printf(" %9s", methods[m].column);
    printf("   best\n");
    for (size_t i = 0; i < size_count; ++i) {
        char size_text[32];
        format_bytes(size_text, sizeof size_text, sizes[i]);
        int best = -1;
        for (int m = 0; m < METHODS; ++m)
            if (figure[i][m] > 0 && (best < 0 || figure[i][m] > figure[i][best])) best = m;
        printf("  %9s", size_text);
        for (int m = 0; m < METHODS; ++m) {
            if (figure[i][m] > 0)
                printf(" %8.2f%c", figure[i][m], m == best ? '*' : ' ');
            else
                printf(" %9s", "-");
        }
        printf("   %s\n", best >= 0 ? methods[best].name : "-");
    }
}

/* clpeak's test names beside ours, at the largest size. (clpeak 1.1 moves min(512 MiB on a
 * CPU or 2 GiB on a GPU, half the max allocation): larger, but the curve is flat there.) */
static void print_clpeak_names(size_t bytes, const sample *t) {
    char size_text[32];
    format_bytes(size_text, sizeof size_text, bytes);
    printf("\n  clpeak --transfer-bandwidth names for the same measurements at %s (GB/s):\n",
           size_text);
    const struct {
        const char *clpeak, *ours;
        double ms;
    } rows[] = {
        {"enqueueWriteBuffer", "write_blocking", t[WRITE_BLOCKING].wall},
        {"enqueueReadBuffer", "read_blocking", t[READ_BLOCKING].wall},
        {"enqueueWriteBuffer non-blocking", "write_nonblocking", t[WRITE_NONBLOCKING].wall},
        {"enqueueReadBuffer non-blocking", "read_nonblocking", t[READ_NONBLOCKING].wall},
        {"enqueueMapBuffer(for read)", "map_read/map", t[MAP_READ].map},
        {"  memcpy from mapped ptr", "map_read/memcpy", t[MAP_READ].copy},
        {"enqueueUnmap(after write)", "map_write/unmap", t[MAP_WRITE].unmap},
        {"  memcpy to mapped ptr", "map_write/memcpy", t[MAP_WRITE].copy},
    };
    /* As newer clpeak versions do: a map or unmap more than five times faster than every real
     * transfer (the other rows) moved no data. */
    int is_map[sizeof rows / sizeof rows[0]] = {0};
    double fastest = 0.0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        is_map[i] = strncmp(rows[i].clpeak, "enqueueMap", 10) == 0 ||
                    strncmp(rows[i].clpeak, "enqueueUnmap", 12) == 0;
        if (!is_map[i] && gbps(bytes, rows[i].ms) > fastest) fastest = gbps(bytes, rows[i].ms);
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        const double figure = gbps(bytes, rows[i].ms);
        printf("    %-33s = %-18s %10.2f%s\n", rows[i].clpeak, rows[i].ours, figure,
               is_map[i] && figure > 5 * fastest ? "  (zero-copy: no data moved)" : "");
    }
}

int transfer_buffer_flags_from_env(cl_mem_flags *flags) {
    const char *target = getenv("OCLT_TRANSFER_BUFFER");
    *flags = 0;
    if (target && strcmp(target, "alloc_host_ptr") == 0)
        *flags = CL_MEM_ALLOC_HOST_PTR;
    else if (target && *target && strcmp(target, "device") != 0)
        return -1;
    return 0;
}

/* The largest power of 4 (times 4 KiB) not above limit, but at least 4 KiB. */
static size_t power_of_four_below(cl_ulong limit) {
    size_t size = 4096;
    while ((cl_ulong)size * 4 <= limit) size *= 4;
    return size;
}

size_t bandwidth_largest(const oclt_options *opt, const oclt_device *dev) {
    size_t largest = opt->size[0];
    if (!opt->size_given &&
        (largest > dev->max_alloc || oclt_mul_size(largest, 3) > dev->global_mem))
        largest = power_of_four_below(dev->max_alloc < dev->global_mem / 3 ? dev->max_alloc
                                                                           : dev->global_mem / 3);
    return largest;
}

oclt_status run_bandwidth(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t largest = c->largest_bytes;
    oclt_status overall = OCLT_FAIL;
    int failed = 0; /* a row said FAIL */
    cl_int err = CL_SUCCESS;
    sweep s = {.c = c,
               .queue = dev->queue,
               .map_write_flags =
                   dev->device_version >= 120 ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_WRITE};

    /* Sizes: 4 KiB, 16 KiB, ... (powers of 4) up to --size, and --size itself. */
    size_t sizes[32], size_count = 0;
    for (size_t b = 4096; b <= largest && size_count < 31; b *= 4) sizes[size_count++] = b;
    if (size_count == 0 || sizes[size_count - 1] != largest) sizes[size_count++] = largest;
    double(*figure)[METHODS] = calloc(size_count, sizeof *figure);
    sample at_largest[METHODS];
    memset(at_largest, 0, sizeof at_largest);

    char text[32];
    format_bytes(text, sizeof text, largest);
    printf("\n  bandwidth: 8 methods x %zu sizes up to %s; GB/s = 1e9 bytes/s of host wall-clock "
           "time,\n  median of %d runs after a warm-up; event = the commands' profiling "
           "time%s\n",
           size_count, text, c->opt->reps,
           c->opt->check ? "; every run's data verified" : "; --no-check: data not verified");
    for (int m = 0; m < METHODS; ++m) printf("    %-18s %s\n", methods[m].name, methods[m].how);
    printf("  the write/read/pinned methods' buffer: CL_MEM_READ_WRITE%s (OCLT_TRANSFER_BUFFER)\n",
           c->transfer_buffer_flags ? " | CL_MEM_ALLOC_HOST_PTR" : "");

    /* Host memory: touched (filled or poisoned) before any timing, so that page faults of the
     * first touch are not timed. */
    const size_t host_bytes = (largest + 4095) / 4096 * 4096; /* aligned_alloc wants multiples */
    s.src = aligned_alloc(4096, host_bytes); /* page-aligned, like most drivers' fast paths */
    s.dst = aligned_alloc(4096, host_bytes);
    if (!figure || !s.src || !s.dst) {
        fprintf(stderr, "  cannot allocate 2 x %s of host memory: use a smaller --size\n", text);
        goto release_host;
    }
    fill_words(&c->rng, (uint32_t *)s.src, largest / 4);
    oclt_poison_host(s.dst, largest);

    s.device_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | c->transfer_buffer_flags,
                                  largest, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(device_buf)")) goto release_host;
    s.map_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, largest,
                               NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(map_buf)")) goto release_device_buf;
    s.pinned_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, largest,
                                  NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(pinned_buf)")) goto release_map_buf;
    /* The pinned staging area: mapped once, used as ordinary host memory by the pinned_*
     * methods (for transfers to device_buf, never as a buffer while mapped). */
    s.pinned = clEnqueueMapBuffer(s.queue, s.pinned_buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                  largest, 0, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(pinned_buf)")) goto release_pinned_buf;
    oclt_poison_host(s.pinned, largest);

    for (size_t i = 0; i < size_count; ++i) {
        for (int m = 0; m < METHODS; ++m) {
            sample t;
            size_t wrong = 0;
            err = measure(&s, (method)m, sizes[i], &t, &wrong);
            if (err) { /* an OpenCL error: reported by the check, the sweep ends here */
                char size_text[32];
                snprintf(size_text, sizeof size_text, "%zu", sizes[i]);
                oclt_report_result(c->report, methods[m].name, size_text, -1, -1, "GB/s", OCLT_FAIL,
                                   "OpenCL error");
                failed = 1;
                goto unmap;
            }
            oclt_status status = !c->opt->check ? OCLT_UNCHECKED : wrong ? OCLT_FAIL : OCLT_PASS;
            failed |= status == OCLT_FAIL;
            report_method(&s, (method)m, sizes[i], &t, status);
            figure[i][m] = gbps(sizes[i], t.wall);
            if (i == size_count - 1) at_largest[m] = t;
        }
    }
    print_summary(sizes, size_count, figure);
    if (largest >= (1u << 20)) print_clpeak_names(largest, at_largest); /* clpeak: large sizes */
    overall = failed ? OCLT_FAIL : c->opt->check ? OCLT_PASS : OCLT_UNCHECKED;
unmap:
    if (OCLT_CHECK(clEnqueueUnmapMemObject(s.queue, s.pinned_buf, s.pinned, 0, NULL, NULL)) ||
        OCLT_CHECK(clFinish(s.queue)))
        overall = OCLT_FAIL;
release_pinned_buf:
    clReleaseMemObject(s.pinned_buf);
release_map_buf:
    clReleaseMemObject(s.map_buf);
release_device_buf:
    clReleaseMemObject(s.device_buf);
release_host:
    /* Set-up failed before any row: one row says so (size in bytes, like the others). */
    if (overall == OCLT_FAIL && !failed) {
        snprintf(text, sizeof text, "%zu", largest);
        oclt_report_result(c->report, "bandwidth", text, -1, -1, "GB/s", OCLT_FAIL,
                           "OpenCL or host memory error (see above)");
    }
    free_all(s.src, s.dst, figure);
    return overall;
}
