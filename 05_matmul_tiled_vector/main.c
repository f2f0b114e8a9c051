/* Chapter 05: C = A * B in single precision (SGEMM), from a naive kernel to double-buffered
 * 2-D register tiling, for any M x N x K, measured side by side with CLBlast.
 *
 * The lesson, top to bottom (main, at the end of this file):
 *   1. limits: the shape and OCLT_MATMUL_TUNE checked, the device opened, the tile and work
 *      sizes chosen for it (tuning.c) and checked with the memory needed, all before any buffer;
 *   2. the problem: A (M x K) and B (K x N), row-major, random in [-1, 1]; a blocked CPU
 *      reference in double that also sums |a*b| per output, the scale of the error bound;
 *   3. the program, built with the tuning as -D defines, and fp32_peak: the device's
 *      multiply-add rate, measured first so that every step can be given as a share of it;
 *   4. the steps naive -> tiled -> more_work -> vector -> reg2d -> double_buffer(_async), each
 *      timed (one kernel, event profiling), checked, and compared with the step before;
 *   5. CLBlast's SGEMM on the same queue and data, checked the same way, where CMake found it.
 */
#include "oclt.h"
#include "tuning.h"

#ifdef OCLT_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NAIVE,
    TILED,
    MORE_WORK,
    VECTOR,
    REG2D,
    DOUBLE_BUFFER,
    DOUBLE_BUFFER_ASYNC,
    FP32_PEAK,
    CLBLAST,
    VARIANT_COUNT
};

static const oclt_variant_info variants[VARIANT_COUNT] = {
    {"naive", "one output per work-item, both operands from global memory", 1},
    {"tiled", "TS x TS tiles of A and B in local memory, two barriers per tile", 1},
    {"more_work", "each work-item computes WPT outputs of a column (1-D register blocking)", 1},
    {"vector", "floatn (WIDTH) loads and multiply-adds along k; B tile stored transposed", 1},
    {"reg2d", "WPTM x WPTN register block per item from float4 reads of a transposed A tile", 1},
    {"double_buffer", "reg2d with two local buffers, next tile prefetched into registers", 1},
    {"double_buffer_async", "reg2d with async_work_group_copy into the other buffer", 1},
    {"fp32_peak", "the device's FP32 multiply-add rate on the same flop count (for % of peak)", 1},
    {"clblast", "CLBlastSgemm on the same queue and data (if CLBlast was found at build time)", 1},
};

/* The kernel behind each step: its variant's name, except that double_buffer's kernel is
 * double_buffer_regs (no kernel name may begin with another's: Oclgrind 21.10 would count the
 * __local arrays of double_buffer_async against double_buffer as well). */
static const char *const kernel_names[] = {
    "naive", "tiled", "more_work", "vector", "reg2d", "double_buffer_regs", "double_buffer_async"};

static const oclt_cli_spec spec = {
    .chapter = "05_matmul_tiled_vector",
    .summary = "SGEMM C = A*B from naive to double-buffered register tiling, beside CLBlast",
    .size_kind = OCLT_SIZE_MNK,
    .default_size = {512, 512, 512},
    .default_reps = 5,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
};

#define MAX_DIMENSION (1u << 30)

/* ---- The problem ----------------------------------------------------------------------------- */

typedef struct {
    size_t m, n, k;
    char text[64];     /* "MxNxK" for the output and the CSV */
    float *a, *b, *c;  /* host copies; c receives results */
    double *expected;  /* reference C, NULL with --no-check */
    double *tolerance; /* per element of C */
} problem;

/* C = A*B in double, and S = |A|*|B| (the sum of |a_ik * b_kj| for each output). Blocked: a
 * 64-row strip of A meets a 256 x 512 block of B that stays in the cache, in i-k-j order so the
 * innermost loop runs along rows of B, C and S with unit stride (the compiler vectorizes it). */
static void reference_matmul(const problem *p, double *c, double *abs_sum) {
    enum { BLOCK_I = 64, BLOCK_K = 256, BLOCK_J = 512 };
    const size_t m = p->m, n = p->n, k = p->k;
    memset(c, 0, m * n * sizeof *c);
    memset(abs_sum, 0, m * n * sizeof *abs_sum);
    for (size_t i0 = 0; i0 < m; i0 += BLOCK_I)
        for (size_t k0 = 0; k0 < k; k0 += BLOCK_K)
            for (size_t j0 = 0; j0 < n; j0 += BLOCK_J) {
                const size_t i1 = i0 + BLOCK_I < m ? i0 + BLOCK_I : m;
                const size_t k1 = k0 + BLOCK_K < k ? k0 + BLOCK_K : k;
                const size_t j1 = j0 + BLOCK_J < n ? j0 + BLOCK_J : n;
                for (size_t i = i0; i < i1; ++i)
                    for (size_t kk = k0; kk < k1; ++kk) {
                        const double a = p->a[i * k + kk], abs_a = fabs(a);
                        const float *b_row = p->b + kk * n;
                        double *c_row = c + i * n, *s_row = abs_sum + i * n;
                        for (size_t j = j0; j < j1; ++j) {
                            c_row[j] += a * b_row[j];
                            s_row[j] += abs_a * fabs((double)b_row[j]);
                        }
                    }
            }
}

/* Random inputs, and with checking the reference and each output's tolerance. A float dot
 * product of K terms, summed in any order by fma or mul+add, is within gamma(K) * sum|a*b| of
 * the exact value; the vector kernel's final sum of WIDTH <= 16 partial sums adds at most 4
 * more additions to a chain, hence K + 4. */
static int make_problem(problem *p, const oclt_options *opt) {
    const size_t m = p->m, n = p->n, k = p->k;
    p->a = malloc(m * k * sizeof *p->a);
    p->b = malloc(k * n * sizeof *p->b);
    p->c = malloc(m * n * sizeof *p->c);
    if (!p->a || !p->b || !p->c) return -1;
    oclt_rng rng;
    oclt_rng_seed(&rng, opt->seed);
    oclt_fill_float(&rng, p->a, m * k, -1.0f, 1.0f);
    oclt_fill_float(&rng, p->b, k * n, -1.0f, 1.0f);
    if (!opt->check) return 0;
    p->expected = malloc(m * n * sizeof *p->expected);
    p->tolerance = malloc(m * n * sizeof *p->tolerance);
    if (!p->expected || !p->tolerance) return -1;
    const double start = oclt_now_ms();
    reference_matmul(p, p->expected, p->tolerance);
    for (size_t i = 0; i < m * n; ++i)
        p->tolerance[i] = oclt_sum_error_bound(FLT_EPSILON / 2, k + 4, p->tolerance[i]);
    printf("  reference: blocked CPU product in double, %.0f ms\n", oclt_now_ms() - start);
    return 0;
}

static void free_problem(problem *p) {
    free(p->a);
    free(p->b);
    free(p->c);
    free(p->expected);
    free(p->tolerance);
}

/* Reads C back and compares it with the reference. */
static oclt_status check_result(const oclt_device *dev, const problem *p, cl_mem c_buf,
                                const char *what) {
    if (!p->expected) return OCLT_UNCHECKED;
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, c_buf, CL_TRUE, 0, p->m * p->n * sizeof(float),
                                       p->c, 0, NULL, NULL)))
        return OCLT_FAIL;
    return oclt_compare_float(what, p->c, p->expected, p->tolerance, 0.0, p->m * p->n) ? OCLT_FAIL
                                                                                       : OCLT_PASS;
}

/* ---- Launch geometry of each step ------------------------------------------------------------ */

/* A work-group computes a tile_rows x tile_cols block of C with local[0] x local[1] items; the
 * NDRange covers C with whole groups, and the kernels skip what lies outside. */
typedef struct {
    size_t tile_cols, tile_rows, local[2];
    char note[96];
} geometry;

static geometry geometry_of(int variant, const matmul_tuning *t) {
    geometry g;
    const size_t ts = (size_t)t->ts;
    switch (variant) {
    case NAIVE:
    case TILED:
        g = (geometry){ts, ts, {ts, ts}, ""};
        snprintf(g.note, sizeof g.note, "TS=%d", t->ts);
        break;
    case MORE_WORK:
        g = (geometry){ts, ts, {ts, ts / t->wpt}, ""};
        snprintf(g.note, sizeof g.note, "TS=%d WPT=%d", t->ts, t->wpt);
        break;
    case VECTOR:
        g = (geometry){ts, ts, {ts, ts / t->wpt}, ""};
        snprintf(g.note, sizeof g.note, "TS=%d WPT=%d WIDTH=%d", t->ts, t->wpt, t->width);
        break;
    default: /* reg2d, double_buffer, double_buffer_async */
        g = (geometry){(size_t)t->tsn,
                       (size_t)t->tsm,
                       {(size_t)(t->tsn / t->wptn), (size_t)(t->tsm / t->wptm)},
                       ""};
        snprintf(g.note, sizeof g.note, "TSM=%d TSN=%d TSK=%d WPTM=%d WPTN=%d VWN=%d", t->tsm,
                 t->tsn, t->tsk, t->wptm, t->wptn, t->vwn);
        break;
    }
    return g;
}

static int peak_width(const oclt_device *dev);

/* The tuning and two facts of the problem and the device as -D defines for matmul.cl. */
static int build_options(const oclt_device *dev, const matmul_tuning *t, const problem *p,
                         char *options, size_t size) {
    /* Rows of B and C may be read and written as aligned VWN-vectors when N is a multiple of
     * VWN and buffers start on a boundary of that size (CL_DEVICE_MEM_BASE_ADDR_ALIGN, bits). */
    const int b_aligned =
        p->n % (size_t)t->vwn == 0 &&
        oclt_device_uint(dev->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 32u * (cl_uint)t->vwn;
    /* fma where the device fuses in hardware; else mad, which may be a multiply and an add. */
    cl_device_fp_config fp_config = 0;
    if (OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp_config,
                                   &fp_config, NULL)))
        return -1;
    const int fused = (fp_config & CL_FP_FMA) && !(fp_config & CL_FP_SOFT_FLOAT);
    char peak_type[32] = "float";
    if (peak_width(dev) > 1) snprintf(peak_type, sizeof peak_type, "float%d", peak_width(dev));
    snprintf(options, size,
             "-DTS=%d -DWPT=%d -DWIDTH=%d -DTSM=%d -DTSN=%d -DTSK=%d -DWPTM=%d -DWPTN=%d "
             "-DVWN=%d -DB_ALIGNED=%d -DMAD=%s -DPEAK_TYPE=%s",
             t->ts, t->wpt, t->width, t->tsm, t->tsn, t->tsk, t->wptm, t->wptn, t->vwn, b_aligned,
             fused ? "fma" : "mad", peak_type);
    return 0;
}

/* ---- One timed run --------------------------------------------------------------------------- */

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    size_t global[2], local[2];
    cl_mem c;
    size_t c_bytes;
    const char *label;
} matmul_launch;

/* Poison C (so an element a kernel forgets cannot pass), run the kernel once, time it. */
static cl_int run_matmul(void *context, double *ms) {
    matmul_launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->c, l->c_bytes);
    if (err) return err;
    err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 2, l->global, l->local, 0, NULL, &done,
                              l->label);
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) *ms = oclt_event_ms(done);
    clReleaseEvent(done);
    return err;
}

static double gflops(const problem *p, double ms) {
    return 2.0 * (double)p->m * (double)p->n * (double)p->k / (ms * 1e6);
}

/* Runs one step; fills *ms (or leaves it negative) and returns its status. `note` receives why
 * a step was skipped. */
static oclt_status run_step(const oclt_device *dev, const oclt_options *opt, cl_program program,
                            int variant, const matmul_tuning *tuning, const problem *p,
                            cl_mem buffers[3], double *ms, char *note, size_t note_size) {
    const geometry g = geometry_of(variant, tuning);
    cl_kernel kernel = oclt_create_kernel(program, kernel_names[variant]);
    if (!kernel) return OCLT_FAIL;
    oclt_status status = OCLT_FAIL;
    /* A kernel may allow fewer items per group than the device (registers, local memory). */
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        goto release_kernel;
    if (g.local[0] * g.local[1] > kernel_max) {
        snprintf(note, note_size, "needs %zu work-items per group, the compiled kernel allows %zu",
                 g.local[0] * g.local[1], kernel_max);
        status = OCLT_SKIP;
        goto release_kernel;
    }
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    if (OCLT_ARG(kernel, 0, m) || OCLT_ARG(kernel, 1, n) || OCLT_ARG(kernel, 2, k) ||
        OCLT_ARG(kernel, 3, buffers[0]) || OCLT_ARG(kernel, 4, buffers[1]) ||
        OCLT_ARG(kernel, 5, buffers[2]))
        goto release_kernel;
    matmul_launch l = {dev,
                       kernel,
                       {0, 0},
                       {g.local[0], g.local[1]},
                       buffers[2],
                       p->m * p->n * sizeof(float),
                       variants[variant].name};
    l.global[0] = (p->n + g.tile_cols - 1) / g.tile_cols * g.local[0];
    l.global[1] = (p->m + g.tile_rows - 1) / g.tile_rows * g.local[1];
    if (oclt_time_median(run_matmul, &l, opt->reps, ms)) goto release_kernel;
    status = check_result(dev, p, buffers[2], "C");
    snprintf(note, note_size, "%s", g.note);
release_kernel:
    clReleaseKernel(kernel);
    return status;
}

/* The note of a result line: its setting, then (where known) the speedup over naive and over
 * the previous step, and the share of the measured peak. */
static void describe_step(char *note, size_t size, const char *setting, double rate,
                          double naive_rate, double previous_rate, double peak) {
    size_t used = (size_t)snprintf(note, size, "%s", setting);
    const char *separator = "; ";
    if (rate > 0 && naive_rate > 0) {
        used += (size_t)snprintf(note + used, size - used, "%sx%.3g naive", separator,
                                 rate / naive_rate);
        separator = ", ";
    }
    if (rate > 0 && previous_rate > 0) {
        used += (size_t)snprintf(note + used, size - used, "%sx%.3g previous", separator,
                                 rate / previous_rate);
        separator = ", ";
    }
    if (rate > 0 && peak > 0 && used < size)
        snprintf(note + used, size - used, "%s%.0f%% of peak", separator, 100.0 * rate / peak);
}

/* The fewest work-items per group that the compiled naive and tiled kernels allow. */
static size_t simple_kernels_limit(const oclt_device *dev, cl_program program) {
    static const char *const names[] = {"naive", "tiled"};
    size_t limit = (size_t)-1;
    for (int i = 0; i < 2; ++i) {
        size_t max = 0;
        cl_kernel kernel = oclt_create_kernel(program, names[i]);
        if (kernel &&
            !OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                 sizeof max, &max, NULL)) &&
            max < limit)
            limit = max;
        if (kernel) clReleaseKernel(kernel);
    }
    return limit;
}

/* ---- The device's FP32 peak ------------------------------------------------------------------ */

/* Lanes of PEAK_TYPE: the device's preferred float vector width (1 on GPUs, 8 or 16 on CPUs
 * with AVX or AVX-512). */
static int peak_width(const oclt_device *dev) {
    cl_uint width = oclt_device_uint(dev->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
    int w = 1;
    while (w < 16 && (cl_uint)(w * 2) <= width) w *= 2;
    return w;
}

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    size_t global, local;
    cl_mem out;
    size_t out_bytes;
} peak_launch;

/* Poison the output (so a run that skipped work cannot pass on an earlier run's values), run
 * fp32_peak once, time it. */
static cl_int run_peak(void *context, double *ms) {
    peak_launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->out, l->out_bytes);
    if (err) return err;
    err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 1, &l->global, &l->local, 0, NULL, &done,
                              "fp32_peak");
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) *ms = oclt_event_ms(done);
    clReleaseEvent(done);
    return err;
}

/* Runs fp32_peak on (at least) `mads` multiply-adds, spread over enough items to fill the
 * device, and checks the result: with a = b = 1 each chain counts x0 + n exactly, so each
 * item's sum of 16 chains, 16 * (x0 + n) < 2^24 for n <= 2^19, shows that every step ran.
 * Fills *ms and *rate (GFLOP/s of the work it really did). */
static oclt_status run_fp32_peak(const oclt_device *dev, const oclt_options *opt,
                                 cl_program program, double mads, double *ms, double *rate) {
    enum { CHAINS = 16, UNROLL = 4, MAX_ITERATIONS = 1 << 19 };
    const int width = peak_width(dev);
    const cl_uint units = oclt_device_uint(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS);
    const int is_gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    /* Items: enough groups to keep every compute unit busy (a GPU needs thousands of items per
     * unit to hide latency; a CPU runs a group as a loop, so it needs a few groups per core),
     * fewer when the product is tiny. */
    size_t local = is_gpu ? 256 : 8;
    const size_t max_group = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    while (local > max_group) local /= 2;
    size_t items = (size_t)units * (is_gpu ? 8192 : 16 * local);
    double per_item = mads / ((double)items * CHAINS * width);
    if (per_item < UNROLL) {
        items = (size_t)ceil(mads / ((double)CHAINS * width * UNROLL));
        items = (items + local - 1) / local * local;
        per_item = UNROLL;
    }
    while (per_item > MAX_ITERATIONS) { /* more items rather than counts beyond exactness */
        items *= 2;
        per_item /= 2;
    }
    const int iterations = (int)(ceil(per_item / UNROLL) * UNROLL);
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    float *out = malloc(items * width * sizeof *out);
    cl_kernel kernel = oclt_create_kernel(program, "fp32_peak");
    cl_mem out_buf = NULL;
    if (!out || !kernel) goto release;
    out_buf =
        clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, items * width * sizeof *out, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(fp32_peak out)")) goto release;
    const float a = 1.0f, b = 1.0f;
    if (OCLT_ARG(kernel, 0, out_buf) || OCLT_ARG(kernel, 1, a) || OCLT_ARG(kernel, 2, b) ||
        OCLT_ARG(kernel, 3, iterations))
        goto release;
    peak_launch l = {dev, kernel, items, local, out_buf, items * width * sizeof *out};
    if (oclt_time_median(run_peak, &l, opt->reps, ms)) goto release;
    *rate = 2.0 * (double)items * CHAINS * width * iterations / (*ms * 1e6);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, items * width * sizeof *out,
                                       out, 0, NULL, NULL)))
        goto release;
    /* Each lane: the sum over j of x0 + iterations, x0 = id % 7 + j; integers below 2^24. */
    size_t bad = 0;
    for (size_t i = 0; i < items * width; ++i) {
        const float expected = (float)(CHAINS * ((i / width) % 7) + CHAINS * (CHAINS - 1) / 2 +
                                       (size_t)CHAINS * (size_t)iterations);
        if (out[i] != expected && bad++ < 3)
            fprintf(stderr, "  fp32_peak out[%zu] = %g, expected %g\n", i, out[i], expected);
    }
    status = bad ? OCLT_FAIL : OCLT_PASS;
release:
    if (out_buf) clReleaseMemObject(out_buf);
    if (kernel) clReleaseKernel(kernel);
    free(out);
    return status;
}

/* ---- CLBlast --------------------------------------------------------------------------------- */

#ifdef OCLT_HAVE_CLBLAST
typedef struct {
    const oclt_device *dev;
    const problem *p;
    cl_mem a, b, c;
} clblast_launch;

/* CLBlast may run several kernels for one call (padding, transposing, the product), so its
 * time is the host's clock from the call to the end of the queue, not one event. */
static cl_int run_clblast(void *context, double *ms) {
    clblast_launch *l = context;
    cl_command_queue queue = l->dev->queue;
    cl_int err = oclt_poison_buffer(queue, l->c, l->p->m * l->p->n * sizeof(float));
    if (err) return err;
    cl_event done = NULL;
    const double start = oclt_now_ms();
    CLBlastStatusCode status = CLBlastSgemm(
        CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, l->p->m, l->p->n, l->p->k,
        1.0f, l->a, 0, l->p->k, l->b, 0, l->p->n, 0.0f, l->c, 0, l->p->n, &queue, &done);
    if (status != CLBlastSuccess) {
        fprintf(stderr, "CLBlastSgemm failed: status %d%s%s\n", (int)status,
                status > -1000 ? " = " : " (a CLBlast code, see clblast_c.h)",
                status > -1000 ? oclt_error_name((cl_int)status) : "");
        return status > -1000 && status < 0 ? (cl_int)status : CL_INVALID_OPERATION;
    }
    err = OCLT_CHECK(clFinish(queue));
    *ms = oclt_now_ms() - start;
    if (done) clReleaseEvent(done);
    return err;
}
#endif

static oclt_status run_clblast_step(const oclt_device *dev, const oclt_options *opt,
                                    const problem *p, cl_mem buffers[3], double *ms, char *note,
                                    size_t note_size) {
#ifdef OCLT_HAVE_CLBLAST
    printf("  (CLBlast compiles its kernels at the first call, outside the timing: on a CPU "
           "this can take a minute)\n");
    fflush(stdout);
    clblast_launch l = {dev, p, buffers[0], buffers[1], buffers[2]};
    if (oclt_time_median(run_clblast, &l, opt->reps, ms)) return OCLT_FAIL;
    snprintf(note, note_size, "host clock, all of CLBlast's kernels");
    return check_result(dev, p, buffers[2], "C (CLBlast)");
#else
    (void)dev, (void)opt, (void)p, (void)buffers, (void)ms;
    snprintf(note, note_size, "CLBlast was not found at build time (Debian: libclblast-dev)");
    return OCLT_SKIP;
#endif
}

/* ---- The lesson ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.list_devices) return oclt_list_devices(stdout);
    /* 1. Limits. */
    matmul_tuning_override override;
    rc = matmul_read_tuning_override(&spec, &override);
    if (rc) return rc;
    problem p = {.m = opt.size[0], .n = opt.size[1], .k = opt.size[2]};
    /* The kernels count rows and columns in int (offsets in size_t), with room for a tile. */
    if (p.m > MAX_DIMENSION || p.n > MAX_DIMENSION || p.k > MAX_DIMENSION)
        return oclt_usage_error(&spec, "--size %zux%zux%zu: M, N and K must be at most 2^30", p.m,
                                p.n, p.k);
    snprintf(p.text, sizeof p.text, "%zux%zux%zu", p.m, p.n, p.k);

    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    matmul_device_limits limits;
    matmul_query_limits(&dev, &limits);
    matmul_tuning tuning;
    rc = matmul_choose_tuning(&spec, &limits, &override, &tuning);
    if (rc) goto close_device;
    /* Below 2^62 bytes each, as every dimension is at most 2^30. */
    const cl_ulong a_bytes = (cl_ulong)p.m * p.k * sizeof(float),
                   b_bytes = (cl_ulong)p.k * p.n * sizeof(float),
                   c_bytes = (cl_ulong)p.m * p.n * sizeof(float);
    const cl_ulong largest = a_bytes > b_bytes ? (a_bytes > c_bytes ? a_bytes : c_bytes)
                                               : (b_bytes > c_bytes ? b_bytes : c_bytes);
    rc = oclt_require_memory(&spec, &dev, largest, a_bytes + b_bytes + c_bytes, "--size");
    if (rc) goto close_device;

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    char tuning_text[128];
    matmul_format_tuning(&tuning, tuning_text, sizeof tuning_text);
    printf("  problem  C = A*B, A %zux%zu, B %zux%zu, C %zux%zu (row-major float), %.3g GFLOP\n",
           p.m, p.k, p.k, p.n, p.m, p.n, 2.0 * (double)p.m * p.n * p.k * 1e-9);
    printf("  tuning   %s (%s, %s)\n", tuning_text,
           override.text ? "from " MATMUL_TUNE_ENV : "defaults for this device",
           limits.is_cpu ? "CPU" : "GPU/other");

    /* 2. Data and reference. */
    if (make_problem(&p, &opt)) {
        fprintf(stderr, "out of host memory for %s matrices\n", p.text);
        rc = OCLT_EXIT_FAIL;
        goto free_problem;
    }

    /* 3. Buffers, the program built with the tuning as defines, and the peak first. */
    rc = OCLT_EXIT_FAIL; /* until the report says otherwise */
    cl_int err = CL_SUCCESS;
    cl_mem buffers[3] = {NULL, NULL, NULL};
    buffers[0] =
        clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a_bytes, p.a, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(A)")) goto release_buffers;
    buffers[1] =
        clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b_bytes, p.b, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(B)")) goto release_buffers;
    buffers[2] = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, c_bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(C)")) goto release_buffers;
    char options[320];
    if (build_options(&dev, &tuning, &p, options, sizeof options)) goto release_buffers;
    printf("  build    %s\n", options);
    fflush(stdout);
    cl_program program = oclt_build_file(dev.context, dev.device, "matmul.cl", options);
    if (!program) goto release_buffers;
    /* A compiled kernel may allow fewer work-items per group than the device (NVIDIA's driver
     * reports 256 for each kernel): halve the TS x TS tiles of naive and tiled until they fit,
     * unless OCLT_MATMUL_TUNE chose TS. */
    for (size_t fits = simple_kernels_limit(&dev, program);
         !override.value.ts && tuning.ts > 4 && (size_t)tuning.ts * tuning.ts > fits;
         fits = simple_kernels_limit(&dev, program)) {
        tuning.ts /= 2;
        if (tuning.wpt > tuning.ts) tuning.wpt = tuning.ts;
        if (tuning.width > tuning.ts) tuning.width = tuning.ts;
        printf("  tuning   TS=%d: the compiled naive and tiled kernels allow %zu work-items per "
               "group\n",
               tuning.ts, fits);
        clReleaseProgram(program);
        if (build_options(&dev, &tuning, &p, options, sizeof options)) goto release_buffers;
        printf("  build    %s\n", options);
        program = oclt_build_file(dev.context, dev.device, "matmul.cl", options);
        if (!program) goto release_buffers;
    }

    double peak = -1.0;
    if (opt.selected[FP32_PEAK]) {
        double ms = -1.0;
        /* The product's flop count; while that runs for less than 20 ms (a small problem, or a
         * fast device: launch and clock ramp-up would weigh), again with more work. */
        double mads = (double)p.m * (double)p.n * (double)p.k;
        oclt_status status = run_fp32_peak(&dev, &opt, program, mads, &ms, &peak);
        for (int round = 0; round < 3 && status == OCLT_PASS && ms > 0 && ms < 20.0; ++round) {
            mads *= fmin(64.0, ceil(20.0 / ms));
            status = run_fp32_peak(&dev, &opt, program, mads, &ms, &peak);
        }
        oclt_report_result(&report, "fp32_peak", p.text, ms, status == OCLT_FAIL ? -1.0 : peak,
                           "GFLOP/s", status,
                           "FMA chains: the product's flop count, or more to last 20 ms");
        if (status == OCLT_FAIL) peak = -1.0;
    }

    /* 4. The steps. */
    double naive_rate = -1.0, previous_rate = -1.0, best_rate = -1.0;
    int best = -1;
    for (int v = NAIVE; v <= DOUBLE_BUFFER_ASYNC; ++v) {
        if (!opt.selected[v]) continue;
        double ms = -1.0;
        char note[320] = "", setting[160] = "";
        oclt_status status =
            run_step(&dev, &opt, program, v, &tuning, &p, buffers, &ms, setting, sizeof setting);
        const double rate =
            ms > 0 && status != OCLT_FAIL && status != OCLT_SKIP ? gflops(&p, ms) : -1.0;
        describe_step(note, sizeof note, setting, v == NAIVE ? -1.0 : rate, naive_rate,
                      previous_rate, peak);
        oclt_report_result(&report, variants[v].name, p.text, status == OCLT_SKIP ? -1.0 : ms, rate,
                           "GFLOP/s", status, note);
        if (rate > 0) {
            if (v == NAIVE) naive_rate = rate;
            previous_rate = rate;
            if (rate > best_rate) best_rate = rate, best = v;
        }
    }

    /* 5. CLBlast, last: its first call compiles kernels, and it keeps a cache of them. */
    if (opt.selected[CLBLAST]) {
        double ms = -1.0;
        char note[320] = "", setting[160] = "";
        oclt_status status =
            run_clblast_step(&dev, &opt, &p, buffers, &ms, setting, sizeof setting);
        const double rate =
            ms > 0 && status != OCLT_FAIL && status != OCLT_SKIP ? gflops(&p, ms) : -1.0;
        describe_step(note, sizeof note, setting, rate, -1.0, -1.0, peak);
        oclt_report_result(&report, "clblast", p.text, status == OCLT_SKIP ? -1.0 : ms, rate,
                           "GFLOP/s", status, note);
        if (best >= 0 && rate > 0)
            printf("  best step: %s at %.2f GFLOP/s = %.2f x CLBlast (%.2f GFLOP/s)\n",
                   variants[best].name, best_rate, best_rate / rate, rate);
    }
    if (best >= 0 && peak > 0)
        printf(
            "  best step: %s at %.2f GFLOP/s = %.0f%% of the measured FP32 peak (%.2f GFLOP/s)\n",
            variants[best].name, best_rate, 100.0 * best_rate / peak, peak);
    rc = oclt_report_exit_code(&report);

#ifdef OCLT_HAVE_CLBLAST
    CLBlastClearCache(); /* releases the programs CLBlast built for this context */
#endif
    clReleaseProgram(program);
release_buffers:
    for (int i = 0; i < 3; ++i)
        if (buffers[i]) clReleaseMemObject(buffers[i]);
free_problem:
    free_problem(&p);
close_device:
    oclt_close_device(&dev);
    return rc;
}
