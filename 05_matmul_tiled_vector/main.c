/* Chapter 05: C = A * B in single precision (SGEMM), from a naive kernel to double-buffered
 * 2-D register tiling, for any M x N x K, each step checked and timed beside the device's FP32
 * peak and two libraries (CLBlast on the device, OpenBLAS on the host CPU).
 *
 * The lesson, top to bottom:
 *   1. the steps: one table entry each, naming its kernel in matmul.cl and how its block of C
 *      maps onto work-items; matmul_enqueue_step sets the arguments and the NDRange from it;
 *   2. set-up: the shape, the tile sizes for this device (-D defines, tuning.c), the buffers;
 *   3. data: A and B from a printed seed, and the check they allow (verify.c);
 *   4. each step: built, run, timed (bench.c), read back, verified; reported against naive,
 *      against the step before, and against fp32_peak, the device's own roof (peak.c);
 *   5. the libraries on the same data, checked the same way (baselines.c).
 * A learner who reads this file and matmul.cl has the whole lesson; the rest is the harness. */
#include "matmul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. The steps -------------------------------------------------------------------------- */

/* naive, tiled: a TS x TS block of C per group, one output per work-item. */
static matmul_geometry one_output_per_item(const matmul_tuning *t) {
    matmul_geometry g = {(size_t)t->ts, (size_t)t->ts, {(size_t)t->ts, (size_t)t->ts}, ""};
    snprintf(g.params, sizeof g.params, "TS=%d", t->ts);
    return g;
}

/* more_work, vector: a TS x TS block, WPT outputs of one column per work-item. */
static matmul_geometry column_per_item(const matmul_tuning *t) {
    matmul_geometry g = {
        (size_t)t->ts, (size_t)t->ts, {(size_t)t->ts, (size_t)(t->ts / t->wpt)}, ""};
    snprintf(g.params, sizeof g.params, "TS=%d WPT=%d WIDTH=%d", t->ts, t->wpt, t->width);
    return g;
}

/* reg2d, double_buffer*: a TSM x TSN block, a WPTM x WPTN register block per work-item. */
static matmul_geometry register_block(const matmul_tuning *t) {
    matmul_geometry g = {(size_t)t->tsm,
                         (size_t)t->tsn,
                         {(size_t)(t->tsn / t->wptn), (size_t)(t->tsm / t->wptm)},
                         ""};
    snprintf(g.params, sizeof g.params, "TSM=%d TSN=%d TSK=%d WPTM=%d WPTN=%d VWN=%d", t->tsm,
             t->tsn, t->tsk, t->wptm, t->wptn, t->vwn);
    return g;
}

/* warp_tiled, split_k, whole_tiles, padded, tail_split: a BM x BN block, a TM x TN register block
 * per work-item. */
static matmul_geometry warp_block(const matmul_tuning *t) {
    matmul_geometry g = {
        (size_t)t->bm, (size_t)t->bn, {(size_t)(t->bn / t->tn), (size_t)(t->bm / t->tm)}, ""};
    snprintf(g.params, sizeof g.params,
             "BM=%d BN=%d BK=%d TM=%d TN=%d VW=%d WIM=%d WIN=%d GROUP_M=%d FMA_ROWS=%d", t->bm,
             t->bn, t->bk, t->tm, t->tn, t->vw, t->wim, t->win, t->group_m, t->fma_rows);
    return g;
}

/* The lesson's steps, in order. Adding a step is one line here (and its kernel). The kernel of
 * double_buffer is double_buffer_regs: no kernel name may begin with another's (Oclgrind 21.10
 * counts the __local arrays of double_buffer_async against double_buffer as well). */
/* clang-format off */ /* (one step per two lines reads as a table) */
const matmul_step matmul_steps[] = {
    {"naive", "naive", "matmul.cl", one_output_per_item, NULL,
     "one output per work-item, both operands from global memory", NULL, {NULL}},
    {"tiled", "tiled", "matmul.cl", one_output_per_item, NULL,
     "TS x TS tiles of A and B in local memory, two barriers per tile", NULL, {NULL}},
    {"more_work", "more_work", "matmul.cl", column_per_item, NULL,
     "each work-item computes WPT outputs of a column (1-D register blocking)", NULL, {NULL}},
    {"vector", "vector", "matmul.cl", column_per_item, NULL,
     "floatn (WIDTH) loads and multiply-adds along k; B tile stored transposed", NULL, {NULL}},
    {"reg2d", "reg2d", "matmul.cl", register_block, NULL,
     "WPTM x WPTN register block per item from float4 reads of a transposed A tile", NULL, {NULL}},
    {"double_buffer", "double_buffer_regs", "matmul.cl", register_block, NULL,
     "reg2d with two local buffers, next tile prefetched into registers", NULL, {NULL}},
    {"double_buffer_async", "double_buffer_async", "matmul.cl", register_block, NULL,
     "reg2d with async_work_group_copy into the other buffer", NULL, {NULL}},
    /* ---- Advanced steps (matmul_advanced.cl) follow here. ---- */
    {"warp_tiled", "warp_tiled", "matmul_advanced.cl", warp_block, NULL,
     "block and register tile sized per device and problem, warp tiles, float4 A, L2 order", NULL,
     {NULL}},
    {"split_k", "warp_tiled", "matmul_advanced.cl", warp_block, NULL,
     "warp_tiled over SPLIT_K slices of K into partial C, then sum_slices (deterministic)",
     matmul_run_split_k, {NULL}},
    {"whole_tiles", "whole_tiles", "matmul_advanced.cl", warp_block, NULL,
     "warp_tiled without bounds checks on whole blocks, then edge_tiles (checked) on the rest",
     matmul_run_whole_tiles, {"edge_tiles"}},
    {"padded", "padded_tiles", "matmul_advanced.cl", warp_block, NULL,
     "A and B copied with zero padding to whole blocks, then every block unchecked in one launch",
     matmul_run_padded, {"whole_tiles", "edge_tiles"}},
    {"tail_split", "whole_tiles", "matmul_advanced.cl", warp_block, NULL,
     "whole_tiles on the block rows that fill whole rounds, split_k on the last few",
     matmul_run_tail_split, {"warp_tiled", "edge_tiles"}},
};
/* clang-format on */
const size_t matmul_step_count = sizeof matmul_steps / sizeof matmul_steps[0];

/* Every step's kernel takes (M, N, K, A, B, C); the NDRange covers C with whole work-groups,
 * ceil(N / block_cols) of them along the columns and ceil(M / block_rows) along the rows, and
 * each kernel skips what lies outside C. */
cl_int matmul_enqueue_step(const oclt_device *dev, cl_kernel kernel, const char *label,
                           const matmul_geometry *g, const matmul_problem *p, cl_event *done) {
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    cl_int err;
    if ((err = OCLT_ARG(kernel, 0, m)) || (err = OCLT_ARG(kernel, 1, n)) ||
        (err = OCLT_ARG(kernel, 2, k)) || (err = OCLT_ARG(kernel, 3, p->a_buf)) ||
        (err = OCLT_ARG(kernel, 4, p->b_buf)) || (err = OCLT_ARG(kernel, 5, p->c_buf)))
        return err;
    const size_t global[2] = {(p->n + g->block_cols - 1) / g->block_cols * g->local[0],
                              (p->m + g->block_rows - 1) / g->block_rows * g->local[1]};
    return oclt_enqueue_kernel(dev->queue, kernel, 2, global, g->local, 0, NULL, done, label);
}

/* The variants of the command line: the steps, then the roof and the libraries. */
enum { FP32_PEAK, CLBLAST, OPENBLAS, EXTRA_COUNT };
static oclt_variant_info variants[OCLT_MAX_VARIANTS];
static const oclt_variant_info extras[EXTRA_COUNT] = {
    {"fp32_peak", "the device's FP32 multiply-add rate on the same flop count (for % of peak)", 1},
    {"clblast", "CLBlastSgemm on the same queue and data (if CLBlast was found at build time)", 1},
    {"openblas", "OpenBLAS cblas_sgemm on the host CPU, same data (if found at build time)", 1},
};
static oclt_cli_spec spec = {
    .chapter = "05_matmul_tiled_vector",
    .summary = "SGEMM C = A*B from naive to double-buffered register tiling, beside CLBlast "
               "and OpenBLAS",
    .size_kind = OCLT_SIZE_MNK,
    .default_size = {512, 512, 512},
    .default_reps = 5,
    .variants = variants,
    .extra_options = OCLT_OPT_TUNE,
};

/* ---- 2. Set-up ----------------------------------------------------------------------------- */

/* Rows and columns are int in the kernels, with room for a tile. */
#define MAX_DIMENSION (1u << 30)

typedef struct {
    oclt_options opt;
    oclt_device dev;
    matmul_tuning_override override;
    matmul_tuning tuning;
    matmul_problem p;
    matmul_check check;
    matmul_programs programs;
    oclt_report report;
    double peak, naive_rate, previous_rate, best_rate;
    const char *best;
} lesson;

/* Shape, tuning and memory checked before any buffer: exit 2 with one line if one is bad. */
static int set_up(lesson *l, matmul_check_method *method) {
    matmul_problem *p = &l->p;
    int rc = matmul_read_tuning_override(&spec, &l->override);
    if (rc) return rc;
    *p = (matmul_problem){.m = l->opt.size[0], .n = l->opt.size[1], .k = l->opt.size[2]};
    if (p->m > MAX_DIMENSION || p->n > MAX_DIMENSION || p->k > MAX_DIMENSION)
        return oclt_usage_error(&spec, "--size %zux%zux%zu: M, N and K must be at most 2^30", p->m,
                                p->n, p->k);
    snprintf(p->text, sizeof p->text, "%zux%zux%zu", p->m, p->n, p->k);
    if ((rc = matmul_choose_check(&spec, &l->opt, p, method))) return rc;
    rc = oclt_open_device(&spec, &l->opt, &l->dev);
    if (rc != OCLT_CONTINUE) return rc;
    if ((rc = matmul_check_for_device(&spec, &l->dev, method))) return rc;
    matmul_device_limits limits;
    if (matmul_query_limits(&l->dev, &limits)) return OCLT_EXIT_FAIL;
    if ((rc = matmul_choose_tuning(&spec, &limits, &l->override, &l->tuning)) ||
        (rc = matmul_pick_advanced(&spec, &l->opt, &l->dev, p, &l->override, &l->tuning)))
        return rc;
    if ((rc = matmul_require_memory(&spec, &l->dev, p, 1))) return rc;
    oclt_report_begin(&l->report, &spec, &l->opt, &l->dev);
    char text[256];
    matmul_format_tuning(&l->tuning, text, sizeof text);
    printf("  problem  C = A*B, A %zux%zu, B %zux%zu, C %zux%zu (row-major float), %.3g GFLOP\n",
           p->m, p->k, p->k, p->n, p->m, p->n, 2.0 * (double)p->m * p->n * p->k * 1e-9);
    /* BM to FMA_ROWS come from the table, the cache or --tune: the advanced line says which. */
    printf("  tuning   %s (%s, %s; BM to FMA_ROWS: see advanced)\n", text,
           l->override.text ? "from " MATMUL_TUNE_ENV : "defaults for this device",
           limits.is_cpu ? "CPU" : "GPU/other");
    printf("  advanced %s\n", matmul_advanced_source());
    return 0;
}

/* ---- 3. Data: host matrices, the check they allow, the device's copies ---------------------- */

static int make_data(lesson *l, matmul_check_method method) {
    matmul_problem *p = &l->p;
    cl_int err = CL_SUCCESS;
    p->a = malloc(p->m * p->k * sizeof *p->a);
    p->b = malloc(p->k * p->n * sizeof *p->b);
    p->c = malloc(p->m * p->n * sizeof *p->c);
    if (!p->a || !p->b || !p->c || matmul_prepare_check(&l->check, method, p, l->opt.seed)) {
        fprintf(stderr, "out of host memory for %s matrices and their check\n", p->text);
        return -1;
    }
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    p->a_buf = clCreateBuffer(l->dev.context, in, p->m * p->k * sizeof(float), p->a, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(A)")) return -1;
    p->b_buf = clCreateBuffer(l->dev.context, in, p->k * p->n * sizeof(float), p->b, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(B)")) return -1;
    p->c_buf =
        clCreateBuffer(l->dev.context, CL_MEM_READ_WRITE, p->m * p->n * sizeof(float), NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(C)")) return -1;
    return matmul_build_options(&l->dev, &l->tuning, p, l->programs.options,
                                sizeof l->programs.options);
}

/* ---- 4. The steps, and 5. the libraries --------------------------------------------------- */

/* One result line (and CSV row), the rate compared with naive, the step before and the peak. */
static void report(lesson *l, const char *name, oclt_status status, double ms, const char *setting,
                   int is_step) {
    const double rate =
        ms > 0 && status != OCLT_FAIL && status != OCLT_SKIP ? matmul_gflops(&l->p, ms) : -1.0;
    char note[512];
    matmul_describe(note, sizeof note, setting, rate, is_step ? l->naive_rate : -1.0,
                    is_step ? l->previous_rate : -1.0, l->peak);
    oclt_report_result(&l->report, name, l->p.text, status == OCLT_SKIP ? -1.0 : ms, rate,
                       "GFLOP/s", status, note);
    if (rate > 0 && !is_step && l->best)
        printf("  best step: %s at %.2f GFLOP/s = %.2f x %s (%.2f GFLOP/s)\n", l->best,
               l->best_rate, l->best_rate / rate, name, rate);
    if (rate > 0 && is_step) {
        if (strcmp(name, "naive") == 0) l->naive_rate = rate;
        l->previous_rate = rate;
        if (rate > l->best_rate) l->best_rate = rate, l->best = name;
    }
}

static void run_steps(lesson *l) {
    for (size_t s = 0; s < matmul_step_count; ++s) {
        const matmul_step *step = &matmul_steps[s];
        if (!l->opt.selected[s]) continue;
        double ms = -1.0;
        char setting[256] = "";
        /* A step this device cannot run is not even built (its file may not compile here). */
        const int runs_here = !step->unsupported || !step->unsupported(&l->dev, &l->tuning);
        cl_program program = runs_here ? matmul_program(&l->programs, &l->dev, step->file) : NULL;
        oclt_status status = matmul_time_step(&l->dev, program, step, &l->tuning, &l->p,
                                              l->opt.reps, &ms, setting, sizeof setting);
        if (status == OCLT_PASS) status = matmul_read_and_verify(&l->dev, &l->check, &l->p, "C");
        report(l, step->name, status, ms, setting, 1);
    }
}

static void run_libraries(lesson *l) {
    const size_t first = matmul_step_count;
    char setting[256] = "";
    double ms = -1.0;
    if (l->opt.selected[first + CLBLAST]) {
        oclt_status status =
            matmul_clblast(&l->dev, &l->check, &l->p, l->opt.reps, &ms, setting, sizeof setting);
        report(l, "clblast", status, ms, setting, 0);
    }
    if (l->opt.selected[first + OPENBLAS]) {
        oclt_status status =
            matmul_openblas(&l->check, &l->p, l->opt.reps, &ms, setting, sizeof setting);
        report(l, "openblas", status, ms, setting, 0);
    }
    if (l->best && l->peak > 0)
        printf("  best step: %s at %.2f GFLOP/s = %.0f%% of the measured FP32 peak (%.2f "
               "GFLOP/s)\n",
               l->best, l->best_rate, 100.0 * l->best_rate / l->peak, l->peak);
}

int main(int argc, char **argv) {
    for (size_t s = 0; s < matmul_step_count; ++s)
        variants[s] = (oclt_variant_info){matmul_steps[s].name, matmul_steps[s].description, 1};
    for (int e = 0; e < EXTRA_COUNT; ++e) variants[matmul_step_count + e] = extras[e];
    spec.variant_count = matmul_step_count + EXTRA_COUNT;

    lesson l = {.peak = -1.0, .naive_rate = -1.0, .previous_rate = -1.0, .best_rate = -1.0};
    int rc = oclt_parse_command_line(argc, argv, &spec, &l.opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (l.opt.list_devices) return oclt_list_devices(stdout);
    matmul_check_method method;
    rc = set_up(&l, &method);
    if (rc) {
        if (l.dev.context) oclt_close_device(&l.dev);
        return rc;
    }
    rc = OCLT_EXIT_FAIL; /* until the report says otherwise */
    if (make_data(&l, method) ||
        matmul_fit_simple_tiles(&l.dev, &l.p, &l.override, &l.tuning, &l.programs) ||
        (l.opt.tune &&
         matmul_autotune(&l.dev, &l.opt, &l.p, &l.check, &l.override, &l.tuning, &l.programs)))
        goto release;

    if (l.opt.selected[matmul_step_count + FP32_PEAK]) {
        double ms = -1.0, rate = -1.0;
        cl_program program = matmul_program(&l.programs, &l.dev, "matmul.cl");
        oclt_status status =
            program ? matmul_fp32_peak(&l.dev, program, &l.p, l.opt.reps, &ms, &rate) : OCLT_FAIL;
        if (status == OCLT_PASS) l.peak = rate;
        oclt_report_result(&l.report, "fp32_peak", l.p.text, ms, l.peak, "GFLOP/s", status,
                           "FMA chains: the product's flop count, or more to last 20 ms");
    }
    run_steps(&l);
    run_libraries(&l);
    rc = oclt_report_exit_code(&l.report);

release:
    matmul_release_baselines();
    matmul_release_workspaces();
    matmul_release_programs(&l.programs);
    if (l.p.a_buf) clReleaseMemObject(l.p.a_buf);
    if (l.p.b_buf) clReleaseMemObject(l.p.b_buf);
    if (l.p.c_buf) clReleaseMemObject(l.p.c_buf);
    free(l.p.a), free(l.p.b), free(l.p.c);
    matmul_free_check(&l.check);
    oclt_close_device(&l.dev);
    return rc;
}
