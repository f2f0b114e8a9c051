/* Chapter 03: plumbing shared by the scenario files (declared in lesson.h). */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cl_command_queue lesson_queue(lesson *L, cl_context context, cl_device_id device,
                              cl_command_queue_properties extra, int trace_dev, const char *name,
                              int *track) {
    cl_int err = CL_SUCCESS;
    cl_command_queue queue = oclt_create_queue(context, device, L->queue_properties | extra, &err);
    char what[128];
    snprintf(what, sizeof what, "clCreateCommandQueue(%s)", name);
    if (OCLT_CHECK_ERR(err, what)) return NULL;
    if (track) *track = trace_track_add(&L->trace, trace_dev, name);
    return queue;
}

void finish_and_release(cl_command_queue queue) {
    if (!queue) return;
    clFinish(queue);
    clReleaseCommandQueue(queue);
}

cl_program lesson_build(const lesson *L, cl_context context, cl_uint count,
                        const cl_device_id *devices, const char *options) {
    /* Two strings, one program: clCreateProgramWithSource concatenates them. */
    const char *texts[2] = {L->sources[0], L->sources[1]};
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 2, texts, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithSource(helpers.cl + events.cl)")) return NULL;
    err = clBuildProgram(program, count, devices, options, NULL, NULL);
    if (OCLT_CHECK_ERR(err, "clBuildProgram(helpers.cl + events.cl)")) {
        oclt_print_build_logs(program, options);
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

cl_int lesson_launch(const lesson *L, cl_command_queue queue, cl_kernel kernel, size_t count,
                     cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                     const char *label) {
    size_t global = (count + L->local - 1) / L->local * L->local;
    return oclt_enqueue_kernel(queue, kernel, 1, &global, &L->local, wait_count, wait_list, event,
                               label);
}

cl_int lesson_trace(lesson *L, cl_event event, int track, const char *name, char glyph) {
    if (!L->profiling) return CL_SUCCESS;
    return trace_add(&L->trace, event, track, name, glyph);
}

cl_int execution_status(cl_event event) {
    cl_int status = CL_COMPLETE;
    cl_int err = OCLT_CHECK(
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    return err ? err : status;
}

double stamp_us(cl_ulong later, cl_ulong earlier) {
    return later >= earlier ? (double)(later - earlier) * 1e-3 : -(double)(earlier - later) * 1e-3;
}

void release_events(cl_event *events, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (events[i]) clReleaseEvent(events[i]);
        events[i] = NULL;
    }
}

int32_t *random_ints(lesson *L, size_t n) {
    int32_t *x = malloc(n * sizeof *x);
    if (x) oclt_fill_int(&L->rng, x, n, -INPUT_SPAN, INPUT_SPAN);
    return x;
}

void report_skip(lesson *L, const char *variant, const char *why) {
    oclt_report_result(L->report, variant, L->size_text, -1.0, -1.0, NULL, OCLT_SKIP, why);
}

int skip_if_flush_finishes(lesson *L, const char *variant) {
    if (L->flush_finishes) report_skip(L, variant, FLUSH_FINISHES_WHY);
    return L->flush_finishes;
}

oclt_status verdict(const lesson *L, size_t failures) {
    return failures ? OCLT_FAIL : L->opt->check ? OCLT_PASS : OCLT_UNCHECKED;
}

size_t check_affine(const lesson *L, const char *what, const int32_t *x, const int32_t *y, size_t n,
                    int a, int b) {
    if (!L->opt->check) return 0;
    int32_t *expected = malloc(n * sizeof *expected);
    if (!expected) return n;
    for (size_t i = 0; i < n; ++i) expected[i] = a * x[i] + b;
    size_t bad = oclt_compare_int(what, y, expected, n);
    free(expected);
    return bad;
}

/* ---- The chain's companions (enqueue_chain itself is in main.c) ---- */

cl_int trace_chain(lesson *L, const chain_events *ev, int track, const char *label) {
    const cl_event events[3] = {ev->write, ev->kernel, ev->read};
    static const char *const what[3] = {"write x", "affine_map", "read y"};
    static const char glyphs[3] = {'W', 'K', 'R'};
    for (int i = 0; i < 3; ++i) {
        char name[40];
        snprintf(name, sizeof name, "%s%s", what[i], label);
        cl_int err = lesson_trace(L, events[i], track, name, glyphs[i]);
        if (err) return err;
    }
    return CL_SUCCESS;
}

void release_chain(chain_events *ev) {
    cl_event all[3] = {ev->write, ev->kernel, ev->read};
    release_events(all, 3);
    ev->write = ev->kernel = ev->read = NULL;
}

int chain_open(lesson *L, chain_setup *c, cl_context context, cl_program program,
               const char *kernel, size_t n, int trace_dev, const char *queue_name) {
    const size_t bytes = n * sizeof(int32_t);
    cl_int err = CL_SUCCESS;
    memset(c, 0, sizeof *c);
    c->n = n;
    c->x = random_ints(L, n);
    c->y = malloc(bytes);
    if (!c->x || !c->y) {
        fprintf(stderr, "  out of host memory\n");
        return -1;
    }
    c->queue = lesson_queue(L, context, L->dev->device, 0, trace_dev, queue_name,
                            trace_dev >= 0 ? &c->track : NULL);
    if (!c->queue || !(c->kernel = oclt_create_kernel(program, kernel))) return -1;
    c->x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) return -1;
    c->y_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) return -1;
    return 0;
}

void chain_close(chain_setup *c) {
    finish_and_release(c->queue); /* first: nothing may still write into y */
    if (c->kernel) clReleaseKernel(c->kernel);
    if (c->x_buf) clReleaseMemObject(c->x_buf);
    if (c->y_buf) clReleaseMemObject(c->y_buf);
    free(c->x);
    free(c->y);
    memset(c, 0, sizeof *c);
}

cl_int chain_start(const lesson *L, chain_setup *c, cl_event gate, chain_events *ev) {
    const size_t bytes = c->n * sizeof(int32_t);
    memset(ev, 0, sizeof *ev);
    cl_int err = oclt_poison_buffer(c->queue, c->y_buf, bytes);
    if (err) return err;
    oclt_poison_host(c->y, bytes);
    return enqueue_chain(L, c->queue, c->kernel, c->x_buf, c->y_buf, c->x, c->y, c->n, AFFINE_A,
                         AFFINE_B, gate, ev);
}

int choose_local_size(lesson *L) {
    /* 64 work-items per group, or fewer if a kernel cannot have that many on this device. */
    static const char *const kernel_names[3] = {"affine_map", "add_vectors", "relax_steps"};
    L->local = 64;
    for (int k = 0; k < 3; ++k) {
        cl_kernel kernel = oclt_create_kernel(L->program, kernel_names[k]);
        size_t limit = 0;
        if (!kernel) return -1;
        cl_int err = OCLT_CHECK(clGetKernelWorkGroupInfo(
            kernel, L->dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL));
        clReleaseKernel(kernel);
        if (err) return -1;
        while (L->local > limit) L->local /= 2;
    }
    return 0;
}
