/* Chapter 05, worked solutions of the exercises at the end of docs/05_matmul_tiled_vector.md:
 *   tiled_bt    exercise 1: `tiled` for a B given transposed (N x K), compared with `tiled`
 *   naive_2x2   exercise 2: a 2 x 2 block of C per work-item, compared with `naive`
 *   tiled_padded exercise 3: `tiled` without bounds checks on zero-padded copies of A and B,
 *               compared with `tiled` (the copies are timed with it)
 * Each result is checked by the chapter's own verifier (../verify.c: every element within its
 * rounding bound), and each is timed after the chapter's step it changes (variants tiled and
 * naive, from ../matmul.cl; TS=16 for all). */
#include "../matmul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE 16

/* Each exercise after the chapter's step it changes (from ../matmul.cl), on the same data. */
static const oclt_variant_info variants[] = {
    {"tiled", "the chapter's tiled, for comparison (TS=16)", 1},
    {"tiled_bt", "exercise 1: tiled with B given transposed (N x K)", 1},
    {"naive", "the chapter's naive, for comparison", 1},
    {"naive_2x2", "exercise 2: a 2x2 block of C per work-item, no local memory", 1},
    {"tiled_padded", "exercise 3: tiled without bounds checks, on zero-padded A and B", 1},
};
/* How each variant runs, in the order of variants[]. */
static const struct {
    const char *file, *kernel;
    int per_item;      /* outputs along each side of an item's block of C */
    int compared_with; /* the variant of the chapter's step an exercise changes, or -1 */
    int transposed_b;  /* reads BT (N x K) instead of B */
    int padded;        /* runs on zero-padded copies of A and B (exercise 3) */
} runs[] = {
    {"matmul.cl", "tiled", 1, -1, 0, 0},
    {"exercises.cl", "tiled_bt", 1, 0, 1, 0},
    {"matmul.cl", "naive", 1, -1, 0, 0},
    {"exercises.cl", "naive_2x2", 2, 2, 0, 0},
    {"exercises.cl", "tiled_unguarded", 1, 0, 0, 1},
};
#define VARIANT_COUNT 5

static const oclt_cli_spec spec = {
    .chapter = "05_solutions",
    .summary = "worked solutions of chapter 05's exercises",
    .size_kind = OCLT_SIZE_MNK,
    .default_size = {257, 259, 131},
    .default_reps = 3,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
};

/* One kernel over C (or the 2x2 blocks of C), with B or BT, on a poisoned C: timed. */
typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    const matmul_problem *p;
    cl_mem b;
    size_t global[2], local[2];
} launch;

static cl_int run_once(void *context, double *ms) {
    launch *l = context;
    const int m = (int)l->p->m, n = (int)l->p->n, k = (int)l->p->k;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->p->c_buf, l->p->m * l->p->n * sizeof(float));
    if (err || (err = OCLT_ARG(l->kernel, 0, m)) || (err = OCLT_ARG(l->kernel, 1, n)) ||
        (err = OCLT_ARG(l->kernel, 2, k)) || (err = OCLT_ARG(l->kernel, 3, l->p->a_buf)) ||
        (err = OCLT_ARG(l->kernel, 4, l->b)) || (err = OCLT_ARG(l->kernel, 5, l->p->c_buf)))
        return err;
    err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 2, l->global, l->local, 0, NULL, &done,
                              "solution");
    if (!err) err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) err = oclt_events_span_ms(done, done, ms); /* START to END */
    if (done) clReleaseEvent(done);
    return err;
}

/* ---- Exercise 3: zero-padded copies of A and B, the unguarded kernel, C copied out ---------- */

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    const matmul_problem *p;
    matmul_problem padded; /* sides rounded up to multiples of TILE, and their buffers */
} padded_launch;

/* rows x cols floats from one buffer to another of a different row pitch (in floats). */
static cl_int copy_rect(cl_command_queue queue, cl_mem from, size_t from_pitch, cl_mem to,
                        size_t to_pitch, size_t rows, size_t cols, cl_event *done) {
    const size_t origin[3] = {0, 0, 0}, region[3] = {cols * sizeof(float), rows, 1};
    return OCLT_CHECK(clEnqueueCopyBufferRect(queue, from, to, origin, origin, region,
                                              from_pitch * sizeof(float), 0,
                                              to_pitch * sizeof(float), 0, 0, NULL, done));
}

static cl_int run_padded_once(void *context, double *ms) {
    padded_launch *l = context;
    const matmul_problem *p = l->p, *q = &l->padded;
    const int m = (int)q->m, n = (int)q->n, k = (int)q->k;
    const cl_command_queue queue = l->dev->queue;
    const float zero = 0.0f;
    cl_event first = NULL, last = NULL;
    /* C and the padded C poisoned (not timed): a block the kernel skips cannot pass. */
    cl_int err = oclt_poison_buffer(queue, p->c_buf, p->m * p->n * sizeof(float));
    if (!err) err = oclt_poison_buffer(queue, q->c_buf, q->m * q->n * sizeof(float));
    /* Zeros everywhere, then A and B over them: the padding is what stays zero. */
    if (!err)
        err = OCLT_CHECK(clEnqueueFillBuffer(queue, q->a_buf, &zero, sizeof zero, 0,
                                             q->m * q->k * sizeof(float), 0, NULL, &first));
    if (!err)
        err = OCLT_CHECK(clEnqueueFillBuffer(queue, q->b_buf, &zero, sizeof zero, 0,
                                             q->k * q->n * sizeof(float), 0, NULL, NULL));
    if (!err) err = copy_rect(queue, p->a_buf, p->k, q->a_buf, q->k, p->m, p->k, NULL);
    if (!err) err = copy_rect(queue, p->b_buf, p->n, q->b_buf, q->n, p->k, p->n, NULL);
    const size_t global[2] = {q->n, q->m}, local[2] = {TILE, TILE};
    if (!err && !(err = OCLT_ARG(l->kernel, 0, m)) && !(err = OCLT_ARG(l->kernel, 1, n)) &&
        !(err = OCLT_ARG(l->kernel, 2, k)) && !(err = OCLT_ARG(l->kernel, 3, q->a_buf)) &&
        !(err = OCLT_ARG(l->kernel, 4, q->b_buf)) && !(err = OCLT_ARG(l->kernel, 5, q->c_buf)))
        err = oclt_enqueue_kernel(queue, l->kernel, 2, global, local, 0, NULL, NULL,
                                  "tiled_unguarded");
    /* The true C out of the padded one. */
    if (!err) err = copy_rect(queue, q->c_buf, q->n, p->c_buf, p->n, p->m, p->n, &last);
    if (!err) err = OCLT_CHECK(clWaitForEvents(1, &last));
    if (!err) err = oclt_events_span_ms(first, last, ms); /* the copies count */
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    return err;
}

/* The padded buffers, made once for all the timed runs; then the median time of the runs. */
static cl_int time_padded(const oclt_device *dev, const oclt_options *opt, cl_kernel kernel,
                          const matmul_problem *p, double *ms) {
    padded_launch l = {dev, kernel, p, *p};
    l.padded.m = (p->m + TILE - 1) / TILE * TILE;
    l.padded.n = (p->n + TILE - 1) / TILE * TILE;
    l.padded.k = (p->k + TILE - 1) / TILE * TILE;
    const size_t sizes[3] = {l.padded.m * l.padded.k, l.padded.k * l.padded.n,
                             l.padded.m * l.padded.n};
    cl_mem *buffers[3] = {&l.padded.a_buf, &l.padded.b_buf, &l.padded.c_buf};
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 3; ++i) *buffers[i] = NULL;
    for (int i = 0; i < 3 && !err; ++i) {
        *buffers[i] =
            clCreateBuffer(dev->context, CL_MEM_READ_WRITE, sizes[i] * sizeof(float), NULL, &err);
        OCLT_CHECK_ERR(err, "clCreateBuffer(padded)");
        /* Poisoned once: the zeros of the padding must come from the fill in each run, not
         * from a new buffer that happens to hold zeros. */
        if (!err) err = oclt_poison_buffer(dev->queue, *buffers[i], sizes[i] * sizeof(float));
    }
    if (!err) err = oclt_time_median(run_padded_once, &l, opt->reps, ms);
    for (int i = 0; i < 3; ++i)
        if (*buffers[i]) clReleaseMemObject(*buffers[i]);
    return err;
}

/* PASS when the kernel can run in groups of TILE x TILE on this device; SKIP (with *why) when
 * it cannot; FAIL when the limits could not be queried (the error is printed). */
static oclt_status tile_fits(const oclt_device *dev, cl_kernel kernel, const char **why) {
    size_t kernel_max = 0, item_max[3] = {0, 0, 0};
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)) ||
        OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max,
                                   item_max, NULL)))
        return OCLT_FAIL;
    if (kernel_max >= TILE * TILE && item_max[0] >= TILE && item_max[1] >= TILE) return OCLT_PASS;
    *why = "needs work-groups of 16 x 16 items, more than this device or kernel allows";
    return OCLT_SKIP;
}

/* Runs `name` from `program` (items per block of C: per_item x per_item; `padded`: on padded
 * copies, exercise 3), checks it, and returns its time in *ms (negative when it failed to run).
 * A SKIP, with *why, where the device cannot run groups of TILE x TILE. */
static oclt_status run_kernel(const oclt_device *dev, const oclt_options *opt, cl_program program,
                              const char *name, int per_item, int padded, matmul_problem *p,
                              cl_mem b, const matmul_check *chk, double *ms, const char **why) {
    cl_kernel kernel = oclt_create_kernel(program, name);
    *ms = -1.0;
    if (!kernel) return OCLT_FAIL;
    const oclt_status fits = tile_fits(dev, kernel, why);
    if (fits != OCLT_PASS) {
        clReleaseKernel(kernel);
        return fits;
    }
    cl_int err;
    if (padded) {
        err = time_padded(dev, opt, kernel, p, ms);
    } else {
        const size_t cols = (p->n + per_item - 1) / per_item;
        const size_t rows = (p->m + per_item - 1) / per_item;
        launch l = {dev, kernel, p, b, {0, 0}, {TILE, TILE}};
        l.global[0] = (cols + TILE - 1) / TILE * TILE;
        l.global[1] = (rows + TILE - 1) / TILE * TILE;
        err = oclt_time_median(run_once, &l, opt->reps, ms);
    }
    oclt_status status = OCLT_FAIL;
    if (!err && !OCLT_CHECK(clEnqueueReadBuffer(dev->queue, p->c_buf, CL_TRUE, 0,
                                                p->m * p->n * sizeof(float), p->c, 0, NULL, NULL)))
        status = matmul_verify(chk, p, p->c, name);
    clReleaseKernel(kernel);
    return status;
}

/* Runs variant v; exercises are reported with their speed-up over the step they change (when
 * that step ran in this run: step_ms[] holds the passing steps' times). */
static void solve(const oclt_device *dev, const oclt_options *opt, oclt_report *report,
                  cl_program program, int v, matmul_problem *p, cl_mem bt, const matmul_check *chk,
                  double step_ms[VARIANT_COUNT]) {
    const int step = runs[v].compared_with;
    double ms;
    const char *why = NULL;
    oclt_status status =
        run_kernel(dev, opt, program, runs[v].kernel, runs[v].per_item, runs[v].padded, p,
                   runs[v].transposed_b ? bt : p->b_buf, chk, &ms, &why);
    char note[128] = "";
    if (why) snprintf(note, sizeof note, "%s", why);
    if (step >= 0 && status == OCLT_PASS && step_ms[step] > 0)
        snprintf(note, sizeof note, "x%.3g the chapter's %s", step_ms[step] / ms,
                 variants[step].name);
    snprintf(note + strlen(note), sizeof note - strlen(note), "%sTS=%d", *note ? ", " : "", TILE);
    oclt_report_result(report, variants[v].name, p->text, ms,
                       ms > 0 ? 2.0 * (double)p->m * p->n * p->k / (ms * 1e6) : -1.0, "GFLOP/s",
                       status, note);
    step_ms[v] = step < 0 && status == OCLT_PASS ? ms : -1.0;
}

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.list_devices) return oclt_list_devices(stdout);
    matmul_problem p = {.m = opt.size[0], .n = opt.size[1], .k = opt.size[2]};
    if ((double)p.m * (double)p.n * (double)p.k > 0x1p30)
        return oclt_usage_error(&spec, "--size: at most 2^30 multiply-adds for the solutions");
    snprintf(p.text, sizeof p.text, "%zux%zux%zu", p.m, p.n, p.k);
    /* The chapter's choice of check: every element up to K = 1440, the randomized check above,
     * where the full check's bound would be too wide to see one wrong term. */
    matmul_check_method method;
    if ((rc = matmul_choose_check(&spec, &opt, &p, &method))) return rc;
    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    if ((rc = matmul_require_memory(&spec, &dev, &p, 2))) { /* B and B transposed */
        oclt_close_device(&dev);
        return rc;
    }
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    rc = OCLT_EXIT_FAIL;
    matmul_check chk = {0};
    cl_mem bt = NULL;
    cl_program programs[VARIANT_COUNT] = {NULL};
    float *bt_host = malloc(p.n * p.k * sizeof *bt_host);
    p.a = malloc(p.m * p.k * sizeof *p.a);
    p.b = malloc(p.k * p.n * sizeof *p.b);
    p.c = malloc(p.m * p.n * sizeof *p.c);
    if (!bt_host || !p.a || !p.b || !p.c || matmul_prepare_check(&chk, method, &p, opt.seed)) {
        fprintf(stderr, "out of host memory for %s matrices and their check\n", p.text);
        goto release;
    }
    for (size_t k = 0; k < p.k; ++k) /* BT = B transposed, N x K */
        for (size_t j = 0; j < p.n; ++j) bt_host[j * p.k + k] = p.b[k * p.n + j];
    cl_int err = CL_SUCCESS;
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    p.a_buf = clCreateBuffer(dev.context, in, p.m * p.k * sizeof(float), p.a, &err);
    if (!OCLT_CHECK_ERR(err, "clCreateBuffer(A)"))
        p.b_buf = clCreateBuffer(dev.context, in, p.k * p.n * sizeof(float), p.b, &err);
    if (!OCLT_CHECK_ERR(err, "clCreateBuffer(B)"))
        bt = clCreateBuffer(dev.context, in, p.n * p.k * sizeof(float), bt_host, &err);
    if (!OCLT_CHECK_ERR(err, "clCreateBuffer(BT)"))
        p.c_buf =
            clCreateBuffer(dev.context, CL_MEM_READ_WRITE, p.m * p.n * sizeof(float), NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(C)")) goto release;
    double step_ms[VARIANT_COUNT] = {-1.0, -1.0, -1.0, -1.0, -1.0};
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!opt.selected[v]) continue;
        /* the file is built only for a selected variant */
        programs[v] = oclt_build_file(dev.context, dev.device, runs[v].file, "-DTS=16");
        if (!programs[v]) goto release;
        solve(&dev, &opt, &report, programs[v], v, &p, bt, &chk, step_ms);
    }
    rc = oclt_report_exit_code(&report);
release:
    for (int v = 0; v < VARIANT_COUNT; ++v)
        if (programs[v]) clReleaseProgram(programs[v]);
    cl_mem buffers[] = {p.a_buf, p.b_buf, bt, p.c_buf};
    for (int i = 0; i < 4; ++i)
        if (buffers[i]) clReleaseMemObject(buffers[i]);
    free(bt_host), free(p.a), free(p.b), free(p.c);
    matmul_free_check(&chk);
    oclt_close_device(&dev);
    return rc;
}
