/* Chapter 03: overlap, hiding transfers behind kernels: chunks, three queues, events. */
#include "lesson.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- overlap ---------------------------------------------------------------------------------
 * A GPU has copy engines beside its compute units, so a transfer and a kernel can run at the
 * same time, if nothing orders them: they must be in different queues (or one out-of-order
 * queue). Cut the data into chunks, give uploads, kernels and downloads a queue each, and
 * chain each chunk through events; chunk i's kernel then runs while chunk i+1 uploads and
 * chunk i-1 downloads:
 *     upload    | x0 | x1 | x2 | x3 |
 *     compute        | k0 | k1 | k2 | k3 |
 *     download            | y0 | y1 | y2 | y3 |
 * The serial run enqueues the same commands on one in-order queue. The sum of its commands'
 * durations is what the work costs without overlap; the pipeline's total, first START to last
 * END, is what it costs with. overlap = 1 - pipelined / serial sum: 0 when nothing overlapped,
 * negative when the pipeline cost more than it hid, up to 1 - (chunks + 2) / (3 * chunks) when the
 * three stages are equal. A CPU device does its "transfers" with the same cores that run kernels,
 * and may show none. On discrete-GPU drivers such as NVIDIA's, transfers overlap kernels only
 * from pinned (page-locked) host memory, which a mapped CL_MEM_ALLOC_HOST_PTR buffer is there
 * (chapter 02); OpenCL itself promises neither the pinning nor the overlap.
 * Each chunk has buffers of its own, so no buffer is ever used by two commands at the same time. */

/* Pipeline depth: the data is cut into this many chunks (fewer if --size is smaller). */
#define OVERLAP_CHUNKS   8
/* The search for the kernel's work (steps per element): factor between tries, and the cap. */
#define MAX_STEPS_GROWTH 4
#define MAX_STEPS        65536

/* Exact result of relax_steps: y_s = x * (2 - 0.75^s) (the recurrence y <- 0.75 y + 0.5 x
 * from y = x, solved). The float kernel stays within 14 u |x|: each step rounds twice (at most
 * 1.75 u |y|, |y| <= 2|x|) and the factor 0.75 shrinks every earlier error, so the errors sum
 * to at most 1.75 u 2|x| / (1 - 0.75). 16 u |x| leaves room; 16 FLT_MIN covers underflow. */
size_t check_relax(const lesson *L, const char *what, const float *x, const float *y, size_t n,
                   cl_uint steps) {
    if (!L->opt->check) return 0;
    double *expected = malloc(n * sizeof *expected), *tolerance = malloc(n * sizeof *tolerance);
    size_t bad = n;
    if (expected && tolerance) {
        const double factor = 2.0 - pow(0.75, (double)steps), u = 0x1.0p-24;
        for (size_t i = 0; i < n; ++i) {
            expected[i] = (double)x[i] * factor;
            tolerance[i] = 16.0 * u * fabs((double)x[i]) + 16.0 * FLT_MIN;
        }
        bad = oclt_compare_float(what, y, expected, tolerance, 0.0, n);
    }
    free(expected);
    free(tolerance);
    return bad;
}

typedef struct {
    lesson *L;
    cl_command_queue serial, upload, compute, download;
    int serial_track, upload_track, compute_track, download_track;
    cl_kernel kernel;
    size_t chunks;
    size_t first[OVERLAP_CHUNKS + 1]; /* chunk c is elements first[c] .. first[c+1]-1 */
    cl_mem x_chunk[OVERLAP_CHUNKS], y_chunk[OVERLAP_CHUNKS];
    float *x_host, *y_host; /* pinned, mapped */
    cl_uint steps;
} pipeline;

static cl_int enqueue_upload(pipeline *p, cl_command_queue queue, size_t c, cl_event *done) {
    size_t count = p->first[c + 1] - p->first[c];
    return OCLT_CHECK(clEnqueueWriteBuffer(queue, p->x_chunk[c], CL_FALSE, 0, count * sizeof(float),
                                           p->x_host + p->first[c], 0, NULL, done));
}

static cl_int enqueue_relax(pipeline *p, cl_command_queue queue, size_t c, cl_uint steps,
                            const cl_event *after, cl_event *done) {
    const cl_uint count = (cl_uint)(p->first[c + 1] - p->first[c]);
    cl_int err;
    if ((err = OCLT_ARG(p->kernel, 0, p->x_chunk[c])) ||
        (err = OCLT_ARG(p->kernel, 1, p->y_chunk[c])) || (err = OCLT_ARG(p->kernel, 2, steps)) ||
        (err = OCLT_ARG(p->kernel, 3, count)))
        return err;
    return lesson_launch(p->L, queue, p->kernel, count, after ? 1 : 0, after, done, "relax_steps");
}

static cl_int enqueue_download(pipeline *p, cl_command_queue queue, size_t c, const cl_event *after,
                               cl_event *done) {
    size_t count = p->first[c + 1] - p->first[c];
    return OCLT_CHECK(clEnqueueReadBuffer(queue, p->y_chunk[c], CL_FALSE, 0, count * sizeof(float),
                                          p->y_host + p->first[c], after ? 1 : 0, after, done));
}

/* Everything on one in-order queue: upload, kernel, download, chunk after chunk. The events
 * land in ev[3c], ev[3c+1], ev[3c+2]. */
static cl_int run_serial(pipeline *p, cl_event *ev) {
    cl_int err = CL_SUCCESS;
    for (size_t c = 0; c < p->chunks && !err; ++c)
        if (!(err = enqueue_upload(p, p->serial, c, &ev[3 * c])) &&
            !(err = enqueue_relax(p, p->serial, c, p->steps, NULL, &ev[3 * c + 1])))
            err = enqueue_download(p, p->serial, c, NULL, &ev[3 * c + 2]);
    return err ? err : OCLT_CHECK(clFinish(p->serial));
}

/* Three queues; chunk c's kernel waits only for chunk c's upload, its download only for its
 * kernel. Each queue is flushed at once, so that the others' commands can see its events. */
static cl_int run_pipelined(pipeline *p, cl_event *ev) {
    cl_int err = CL_SUCCESS;
    for (size_t c = 0; c < p->chunks && !err; ++c)
        if (!(err = enqueue_upload(p, p->upload, c, &ev[3 * c])) &&
            !(err = OCLT_CHECK(clFlush(p->upload))) &&
            !(err = enqueue_relax(p, p->compute, c, p->steps, &ev[3 * c], &ev[3 * c + 1])) &&
            !(err = OCLT_CHECK(clFlush(p->compute))) &&
            !(err = enqueue_download(p, p->download, c, &ev[3 * c + 1], &ev[3 * c + 2])))
            err = OCLT_CHECK(clFlush(p->download));
    return err ? err : OCLT_CHECK(clWaitForEvents((cl_uint)(3 * p->chunks), ev));
}

/* Sum of the commands' own durations, and the span from the first START to the last END. */
static cl_int command_times(const cl_event *ev, size_t count, double *sum_ms, double *span_ms) {
    cl_ulong first = 0, last = 0;
    double sum_us = 0.0;
    for (size_t i = 0; i < count; ++i) {
        cl_ulong s[4];
        cl_int err = profiling_stamps(ev[i], s);
        if (err) return err;
        sum_us += stamp_us(s[3], s[2]);
        if (i == 0 || s[2] < first) first = s[2];
        if (i == 0 || s[3] > last) last = s[3];
    }
    *sum_ms = sum_us * 1e-3;
    *span_ms = stamp_us(last, first) * 1e-3;
    return CL_SUCCESS;
}

static cl_int trace_pipeline(pipeline *p, const cl_event *ev, int pipelined) {
    for (size_t c = 0; c < p->chunks; ++c) {
        char name[40];
        const int odd = c % 2; /* alternate the case so that neighbouring chunks stand apart */
        snprintf(name, sizeof name, "upload %zu", c);
        cl_int err = lesson_trace(p->L, ev[3 * c], pipelined ? p->upload_track : p->serial_track,
                                  name, odd ? 'w' : 'W');
        snprintf(name, sizeof name, "relax_steps %zu", c);
        if (!err)
            err = lesson_trace(p->L, ev[3 * c + 1], pipelined ? p->compute_track : p->serial_track,
                               name, odd ? 'k' : 'K');
        snprintf(name, sizeof name, "download %zu", c);
        if (!err)
            err = lesson_trace(p->L, ev[3 * c + 2], pipelined ? p->download_track : p->serial_track,
                               name, odd ? 'r' : 'R');
        if (err) return err;
    }
    return CL_SUCCESS;
}

/* Device time of one command of chunk 0 (an upload, or a kernel of `steps`), after a warm-up. */
static cl_int time_chunk0(pipeline *p, int kernel, cl_uint steps, double *ms) {
    for (int round = 0; round < 2; ++round) {
        cl_event done = NULL;
        cl_int err = kernel ? enqueue_relax(p, p->serial, 0, steps, NULL, &done)
                            : enqueue_upload(p, p->serial, 0, &done);
        if (!err) err = OCLT_CHECK(clWaitForEvents(1, &done));
        if (!err && (*ms = oclt_event_ms(done)) < 0.0) err = CL_PROFILING_INFO_NOT_AVAILABLE;
        if (done) clReleaseEvent(done);
        if (err) return err;
    }
    return CL_SUCCESS;
}

/* The steps per element that make a chunk's kernel last about as long as its upload, so that
 * the pipeline has something to hide: steps 1, 4, 16, ... until the kernel is the longer, then
 * a straight line between the last two. (A kernel's time is a fixed cost plus a part that
 * grows with the steps: one measurement scaled up would miss the fixed cost.) */
static cl_int calibrate(pipeline *p) {
    double upload_ms = 0.0, kernel_ms = 0.0, below_ms = 0.0;
    cl_uint below = 0, tried = 1;
    cl_int err = time_chunk0(p, 0, 0, &upload_ms);
    for (; !err; tried *= MAX_STEPS_GROWTH) {
        if ((err = time_chunk0(p, 1, tried, &kernel_ms))) break;
        if (kernel_ms >= upload_ms || tried >= MAX_STEPS) break;
        below = tried;
        below_ms = kernel_ms;
    }
    if (err) return err;
    p->steps = tried;
    if (below && kernel_ms >= upload_ms && kernel_ms > below_ms)
        p->steps = below + (cl_uint)((double)(tried - below) * (upload_ms - below_ms) /
                                     (kernel_ms - below_ms));
    if (!below)
        printf("    chunk 0: upload %.3f ms; the kernel with 1 step already takes %.3f ms: 1 step "
               "per element\n",
               upload_ms, kernel_ms);
    else
        printf("    chunk 0: upload %.3f ms; kernel %.3f ms with %u steps, %.3f ms with %u: %u "
               "steps per element\n",
               upload_ms, below_ms, below, kernel_ms, tried, p->steps);
    return CL_SUCCESS;
}

void scenario_overlap(lesson *L) {
    const size_t n = L->n, bytes = n * sizeof(float);
    const int reps = L->opt->reps;
    if (!L->profiling) {
        report_skip(L, "overlap", "the device does not offer profiling queues");
        return;
    }
    oclt_status status[2] = {OCLT_FAIL, OCLT_FAIL}; /* the check of y: serial, pipelined */
    double serial_sum = -1.0, serial_span = -1.0, pipelined = -1.0;
    size_t failures[2] = {0, 0}, trace_marks[4] = {0, 0, 0, 0};
    pipeline p;
    memset(&p, 0, sizeof p);
    p.L = L;
    p.chunks = n < OVERLAP_CHUNKS ? n : OVERLAP_CHUNKS;
    for (size_t c = 0; c <= p.chunks; ++c) p.first[c] = c * n / p.chunks;
    double *times = malloc(3 * (size_t)reps * sizeof *times);
    cl_event *ev = calloc(3 * p.chunks, sizeof *ev);
    cl_mem x_pinned = NULL, y_pinned = NULL;
    cl_int err = CL_SUCCESS;
    if (!times || !ev) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    cl_context context = L->dev->context;
    cl_device_id device = L->dev->device;
    const int dev_id = L->trace_device;
    if (!(p.serial =
              lesson_queue(L, context, device, 0, dev_id, "overlap: serial", &p.serial_track)) ||
        !(p.upload =
              lesson_queue(L, context, device, 0, dev_id, "overlap: upload", &p.upload_track)) ||
        !(p.compute =
              lesson_queue(L, context, device, 0, dev_id, "overlap: compute", &p.compute_track)) ||
        !(p.download =
              lesson_queue(L, context, device, 0, dev_id, "overlap: download", &p.download_track)))
        goto release_queues;
    if (!(p.kernel = oclt_create_kernel(L->program, "relax_steps"))) goto release_queues;
    /* Pinned host memory: allocated by the runtime, mapped once for the whole scenario. */
    x_pinned =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x, pinned)")) goto release_kernel;
    y_pinned =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y, pinned)")) goto release_pinned;
    /* The host writes x and reads it again for the check: mapped for both, like y. */
    p.x_host = clEnqueueMapBuffer(p.serial, x_pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                  0, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(x)")) goto release_pinned;
    p.y_host = clEnqueueMapBuffer(p.serial, y_pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                  0, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(y)")) goto release_mapped;
    for (size_t c = 0; c < p.chunks; ++c) {
        size_t chunk_bytes = (p.first[c + 1] - p.first[c]) * sizeof(float);
        p.x_chunk[c] = clCreateBuffer(context, CL_MEM_READ_ONLY, chunk_bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(x chunk)")) goto release_chunks;
        p.y_chunk[c] = clCreateBuffer(context, CL_MEM_WRITE_ONLY, chunk_bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(y chunk)")) goto release_chunks;
    }
    oclt_fill_float(&L->rng, p.x_host, n, -1.0f, 1.0f);
    printf("    %zu chunks of about %zu elements; uploads, kernels and downloads of a chunk "
           "chained by events\n",
           p.chunks, n / p.chunks);
    if (calibrate(&p)) goto release_chunks;

    for (int r = -1; r < reps; ++r) {
        for (int piped = 0; piped < 2; ++piped) {
            /* Both ends poisoned: a kernel that ran before its chunk's upload would otherwise
             * find the previous run's x, the same data, and pass. */
            for (size_t c = 0; c < p.chunks; ++c) {
                const size_t chunk_bytes = (p.first[c + 1] - p.first[c]) * sizeof(float);
                if (oclt_poison_buffer(p.serial, p.x_chunk[c], chunk_bytes) ||
                    oclt_poison_buffer(p.serial, p.y_chunk[c], chunk_bytes))
                    goto release_chunks;
            }
            oclt_poison_host(p.y_host, bytes);
            if (r == reps - 1) trace_marks[2 * piped] = L->trace.count;
            if (piped ? run_pipelined(&p, ev) : run_serial(&p, ev)) goto release_ev;
            double sum = 0.0, span = 0.0;
            if (command_times(ev, 3 * p.chunks, &sum, &span)) goto release_ev;
            if (r >= 0) {
                if (piped) {
                    times[2 * reps + r] = span;
                } else {
                    times[r] = sum;
                    times[reps + r] = span;
                }
                if (trace_pipeline(&p, ev, piped)) goto release_ev;
            }
            if (r == reps - 1) trace_marks[2 * piped + 1] = L->trace.count;
            failures[piped] += check_relax(L, piped ? "y (pipelined)" : "y (serial)", p.x_host,
                                           p.y_host, n, p.steps);
            release_events(ev, 3 * p.chunks);
        }
    }
    serial_sum = oclt_median(times, (size_t)reps);
    serial_span = oclt_median(times + reps, (size_t)reps);
    pipelined = oclt_median(times + 2 * reps, (size_t)reps);
    /* Negative when the pipeline took longer than the serial commands added up: the extra
     * queues, events and smaller transfers cost more than the overlap hid. */
    const double overlap = 1.0 - pipelined / serial_sum;
    printf("    median of %d: serial run %.3f ms (sum of its commands %.3f ms), pipelined "
           "%.3f ms -> overlap %.1f%% (1 - pipelined / serial sum)\n",
           reps, serial_span, serial_sum, pipelined, 100.0 * overlap);
    if (overlap < 0.0)
        printf("    negative: the pipeline cost more than it hid (more commands, more events, "
               "queues waiting on each other; a CPU device copies with the cores that compute)\n");
    if (L->trace.count > 0) {
        printf("    last serial run:\n");
        trace_print_ascii(&L->trace, trace_marks[0], trace_marks[1], 72);
        printf("    last pipelined run (W upload, K kernel, R download; case alternates by "
               "chunk):\n");
        trace_print_ascii(&L->trace, trace_marks[2], trace_marks[3], 72);
    }
    status[0] = verdict(L, failures[0]);
    status[1] = verdict(L, failures[1]);
release_ev:
    release_events(ev, 3 * p.chunks);
release_chunks:
    for (size_t c = 0; c < p.chunks; ++c) {
        if (p.x_chunk[c]) clReleaseMemObject(p.x_chunk[c]);
        if (p.y_chunk[c]) clReleaseMemObject(p.y_chunk[c]);
    }
    clFinish(p.upload);
    clFinish(p.compute);
    clFinish(p.download);
    if (OCLT_CHECK(clEnqueueUnmapMemObject(p.serial, y_pinned, p.y_host, 0, NULL, NULL)))
        status[0] = status[1] = OCLT_FAIL;
release_mapped:
    if (OCLT_CHECK(clEnqueueUnmapMemObject(p.serial, x_pinned, p.x_host, 0, NULL, NULL)))
        status[0] = status[1] = OCLT_FAIL;
    clFinish(p.serial);
release_pinned:
    if (y_pinned) clReleaseMemObject(y_pinned);
    clReleaseMemObject(x_pinned);
release_kernel:
    clReleaseKernel(p.kernel);
release_queues:
    if (p.download) clReleaseCommandQueue(p.download);
    if (p.compute) clReleaseCommandQueue(p.compute);
    if (p.upload) clReleaseCommandQueue(p.upload);
    if (p.serial) clReleaseCommandQueue(p.serial);
release_host:
    free(times);
    free(ev);
    /* PASS and FAIL are the check of y; the times and the ratio are measurements. */
    oclt_report_result(L->report, "overlap_serial", L->size_text, serial_sum, -1.0, NULL, status[0],
                       "sum of the serial run's command durations (device ms)");
    oclt_report_result(L->report, "overlap_pipelined", L->size_text, pipelined,
                       pipelined > 0.0 && serial_sum > 0.0 ? serial_sum / pipelined : -1.0, "x",
                       status[1],
                       "first START to last END over three queues; x = serial sum / this");
}
