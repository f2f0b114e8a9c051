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

cl_int profiling_stamps(cl_event event, cl_ulong stamps[4]) {
    static const cl_profiling_info params[4] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; ++i) {
        cl_int err = OCLT_CHECK(
            clGetEventProfilingInfo(event, params[i], sizeof stamps[i], &stamps[i], NULL));
        if (err) return err;
    }
    return CL_SUCCESS;
}

double stamp_us(cl_ulong later, cl_ulong earlier) {
    return later >= earlier ? (double)(later - earlier) * 1e-3 : -(double)(earlier - later) * 1e-3;
}

int32_t *random_ints(lesson *L, size_t n) {
    int32_t *x = malloc(n * sizeof *x);
    if (x) oclt_fill_int(&L->rng, x, n, -INPUT_SPAN, INPUT_SPAN);
    return x;
}

void report_skip(lesson *L, const char *variant, const char *why) {
    oclt_report_result(L->report, variant, L->size_text, -1.0, -1.0, NULL, OCLT_SKIP, why);
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
