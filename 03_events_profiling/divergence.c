/* Chapter 03: divergence, a kernel choice measured with profiling events. The same computation
 * as a branch (mix_branch) and branch-free with select() (mix_select), each run on two data
 * sets: one whose outcomes are mixed inside every warp, one whose outcomes are uniform over runs
 * of UNIFORM_RUN elements. Kernels in divergence.cl; the optimisation note it measures is note 11
 * ("avoid branch or divergent branch within a warp"), quoted in docs/03_events_profiling.md. */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of each path (-DPATH_ROUNDS): about 100 integer operations per path and element, so
 * that on a GPU the arithmetic, not the memory traffic, sets the time. */
#define PATH_ROUNDS 32
/* Elements that share one outcome in the uniform data set: a multiple of NVIDIA's 32-wide warp,
 * AMD's 64-wide wavefront and a CPU's SIMD width, so that no group of them diverges. */
#define UNIFORM_RUN 64
/* The group size over which the program counts mixed outcomes (a warp). */
#define WARP        32
#define THRESHOLD   100

enum { MIXED, UNIFORM, DATA_SETS };
static const char *const data_names[DATA_SETS] = {"mixed", "uniform"};

/* ---- The CPU reference: the kernels' two paths, in C ---- */

static uint32_t path_above(uint32_t v) {
    for (int k = 0; k < PATH_ROUNDS; ++k) v = (v ^ (v >> 15)) * 0x2c1b3c6du;
    return v;
}

static uint32_t path_below(uint32_t v) {
    for (int k = 0; k < PATH_ROUNDS; ++k) v = (v ^ (v << 7)) * 0x297a2d39u;
    return v;
}

/* x = THRESHOLD + m (above) or THRESHOLD - m' (below) with random m in [1, INPUT_SPAN] and m' in
 * [0, INPUT_SPAN - 1]; a new coin decides above/below every `run` elements (1: every element).
 * Every 16th element that falls below is the threshold itself, so that a kernel that tests
 * x >= threshold fails at any size and seed (a random tie comes once in INPUT_SPAN elements).
 * Returns how many groups of WARP elements hold both outcomes. */
static size_t fill_outcomes(lesson *L, int32_t *x, size_t n, size_t run) {
    int above = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i % run == 0) above = oclt_rng_int(&L->rng, 0, 1);
        const int32_t m = oclt_rng_int(&L->rng, 1, INPUT_SPAN);
        x[i] = above ? THRESHOLD + m : i % 16 == 0 ? THRESHOLD : THRESHOLD - (m - 1);
    }
    size_t mixed_groups = 0;
    for (size_t g = 0; g < n; g += WARP) {
        int seen[2] = {0, 0};
        for (size_t i = g; i < n && i < g + WARP; ++i) seen[x[i] > THRESHOLD] = 1;
        mixed_groups += seen[0] && seen[1];
    }
    return mixed_groups;
}

/* ---- The measurement ---- */

typedef struct {
    const char *kernel_name, *row;
    cl_kernel kernel;
    int data;      /* MIXED or UNIFORM */
    double *times; /* ms of each timed round */
} timed_run;

/* Poisons y, runs `run` on its data set, reads y back and compares it with the reference.
 * Returns the number of mismatches, or -1 after an OpenCL error; *ms gets the kernel's
 * START -> END. */
static long run_once(lesson *L, cl_command_queue queue, int track, timed_run *run,
                     cl_mem const x_buf[DATA_SETS], cl_mem y_buf, uint32_t *y,
                     uint32_t *const expected[DATA_SETS], double *ms) {
    const size_t n = L->n, bytes = n * sizeof *y;
    const cl_uint n32 = (cl_uint)n;
    const cl_int threshold = THRESHOLD;
    cl_event done = NULL;
    oclt_poison_host(y, bytes);
    cl_int err = oclt_poison_buffer(queue, y_buf, bytes);
    if (!err && !(err = OCLT_ARG(run->kernel, 0, x_buf[run->data])) &&
        !(err = OCLT_ARG(run->kernel, 1, y_buf)) && !(err = OCLT_ARG(run->kernel, 2, threshold)) &&
        !(err = OCLT_ARG(run->kernel, 3, n32)))
        err = lesson_launch(L, queue, run->kernel, n, 0, NULL, &done, run->kernel_name);
    if (!err)
        err = OCLT_CHECK(clEnqueueReadBuffer(queue, y_buf, CL_TRUE, 0, bytes, y, 0, NULL, NULL));
    if (!err && (*ms = oclt_event_ms(done)) < 0) err = CL_PROFILING_INFO_NOT_AVAILABLE;
    if (!err) err = lesson_trace(L, done, track, run->row, run->data == MIXED ? 'm' : 'u');
    if (done) clReleaseEvent(done);
    if (err) return -1;
    if (!L->opt->check) return 0;
    char what[48];
    snprintf(what, sizeof what, "y (%s)", run->row);
    return (long)oclt_compare_int(what, (const int32_t *)y, (const int32_t *)expected[run->data],
                                  n);
}

void scenario_divergence(lesson *L) {
    static const char *const rows[4] = {"branch_mixed", "branch_uniform", "select_mixed",
                                        "select_uniform"};
    if (!L->profiling) {
        for (int i = 0; i < 4; ++i)
            report_skip(L, rows[i], "the device does not offer profiling queues");
        return;
    }
    const size_t n = L->n;
    const int reps = L->opt->reps;
    timed_run runs[4] = {{"mix_branch", rows[0], NULL, MIXED, NULL},
                         {"mix_branch", rows[1], NULL, UNIFORM, NULL},
                         {"mix_select", rows[2], NULL, MIXED, NULL},
                         {"mix_select", rows[3], NULL, UNIFORM, NULL}};
    oclt_status status = OCLT_FAIL; /* until every run has been checked */
    double median_ms[4] = {-1.0, -1.0, -1.0, -1.0}, ratio[4] = {-1.0, -1.0, -1.0, -1.0};
    size_t failures = 0;
    int track = 0;
    cl_program program = NULL;
    cl_command_queue queue = NULL;
    cl_mem x_buf[DATA_SETS] = {NULL, NULL}, y_buf = NULL;
    int32_t *x[DATA_SETS] = {NULL, NULL};
    uint32_t *expected[DATA_SETS] = {NULL, NULL};
    uint32_t *y = malloc(n * sizeof *y);
    double *times = malloc(4 * (size_t)reps * sizeof *times);
    for (int d = 0; d < DATA_SETS; ++d) {
        x[d] = malloc(n * sizeof *x[d]);
        expected[d] = malloc(n * sizeof *expected[d]);
    }
    if (!y || !times || !x[0] || !x[1] || !expected[0] || !expected[1]) {
        fprintf(stderr, "  out of host memory\n");
        goto release;
    }

    /* The data sets and the reference; seeded by --seed (printed in the header). */
    for (int d = 0; d < DATA_SETS; ++d) {
        const size_t mixed_groups = fill_outcomes(L, x[d], n, d == MIXED ? 1 : UNIFORM_RUN);
        size_t above = 0;
        for (size_t i = 0; i < n; ++i) {
            above += x[d][i] > THRESHOLD;
            expected[d][i] =
                x[d][i] > THRESHOLD ? path_above((uint32_t)x[d][i]) : path_below((uint32_t)x[d][i]);
        }
        printf("    %-7s data: %5.1f %% of elements above the threshold, %5.1f %% of the "
               "%d-element groups mixed\n",
               data_names[d], 100.0 * above / n, 100.0 * mixed_groups / ((n + WARP - 1) / WARP),
               WARP);
    }

    char options[64];
    snprintf(options, sizeof options, "-DPATH_ROUNDS=%d", PATH_ROUNDS);
    cl_int err = CL_SUCCESS;
    if (!(program = oclt_build_file(L->dev->context, L->dev->device, "divergence.cl", options)))
        goto release;
    for (int i = 0; i < 4; ++i) {
        runs[i].times = times + (size_t)i * reps;
        if (!(runs[i].kernel = oclt_create_kernel(program, runs[i].kernel_name))) goto release;
    }
    if (!(queue = lesson_queue(L, L->dev->context, L->dev->device, 0, L->trace_device, "divergence",
                               &track)))
        goto release;
    for (int d = 0; d < DATA_SETS; ++d) {
        x_buf[d] = clCreateBuffer(L->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  n * sizeof *x[d], x[d], &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release;
    }
    y_buf = clCreateBuffer(L->dev->context, CL_MEM_READ_WRITE, n * sizeof *y, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release;

    /* A warm-up round (checked, not timed), then --reps interleaved rounds. */
    for (int r = -1; r < reps; ++r)
        for (int i = 0; i < 4; ++i) {
            double ms = 0.0;
            const long bad = run_once(L, queue, track, &runs[i], x_buf, y_buf, y, expected, &ms);
            if (bad < 0) goto release;
            failures += (size_t)bad;
            if (r >= 0) runs[i].times[r] = ms;
        }
    /* Every round ran the four pairs one after the other, so a machine whose speed drifts slows
     * all four alike. Figures: branch_mixed / branch_uniform is what divergence costs the
     * branch; for select, the branch's time on the same data over select's (above 1: select is
     * faster). Ratios of the medians, as printed. */
    for (int i = 0; i < 4; ++i) median_ms[i] = oclt_median(runs[i].times, (size_t)reps);
    ratio[0] = median_ms[0] / median_ms[1];
    ratio[2] = median_ms[0] / median_ms[2];
    ratio[3] = median_ms[1] / median_ms[3];
    printf("    %d interleaved rounds, kernel START->END medians: branch %.3f ms mixed, %.3f ms "
           "uniform (divergence costs %.2f x); select %.3f ms mixed, %.3f ms uniform\n",
           reps, median_ms[0], median_ms[1], ratio[0], median_ms[2], median_ms[3]);
    status = verdict(L, failures);
release:
    for (int i = 0; i < 4; ++i)
        if (runs[i].kernel) clReleaseKernel(runs[i].kernel);
    finish_and_release(queue);
    for (int d = 0; d < DATA_SETS; ++d) {
        if (x_buf[d]) clReleaseMemObject(x_buf[d]);
        free(x[d]);
        free(expected[d]);
    }
    if (y_buf) clReleaseMemObject(y_buf);
    if (program) clReleaseProgram(program);
    free(y);
    free(times);
    static const char *const notes[4] = {"x = this / branch_uniform: the cost of divergence",
                                         "kernel START->END, median",
                                         "x = branch_mixed / this (above 1: select faster)",
                                         "x = branch_uniform / this (above 1: select faster)"};
    for (int i = 0; i < 4; ++i)
        oclt_report_result(L->report, rows[i], L->size_text, median_ms[i], ratio[i],
                           ratio[i] > 0 ? "x" : NULL, status, notes[i]);
}
