/* Chapter 04: parallel reduction, from the naive tree to one launch at the speed of memory.
 *
 * The lesson, top to bottom:
 *   1. set up: the device, the work-group size its limits allow, the program (reduce.cl);
 *   2. data: whole numbers >= 1, so that a lost element always changes the sum;
 *   3. kernels: two reference reads (stream_read, strided_read), reduce0 .. reduce7 and the
 *      advanced variants, each run as passes until one value is left;
 *   4. check every result against the exact sum;
 *   5. report two times per variant: the device's (events, all passes) and the user's (a host
 *      clock from the first enqueue to the scalar on the host), with GB/s of input for both.
 * Timing loops are in bench.c, the tuning of the sweep in tuning.c, device probes in probe.c.
 */
#include "reduce.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const oclt_variant_info variants[VARIANT_COUNT] = {
    {"stream_read", "reference: reduce6's loads alone, one sum per work-item (the bandwidth)", 1},
    {"strided_read", "reference: the same loads in the order this device does not want", 1},
    {"reduce0", "interleaved addressing, divergent branching (lid % (2*i) == 0)", 1},
    {"reduce1", "interleaved addressing, strided index, no divergence (bank conflicts)", 1},
    {"reduce2", "sequential addressing, no bank conflicts", 1},
    {"reduce3", "first add during the global load: half the work-groups", 1},
    {"reduce4", "the last six tree steps unrolled (barriers kept: portable)", 1},
    {"reduce5", "completely unrolled for the compile-time group size BLOCK_SIZE", 1},
    {"reduce6", "cascading: many elements per work-item in registers, then the tree", 1},
    {"reduce7", "one launch: the last group (atomic ticket) adds the partials", 1},
    {"reduce3_async", "reduce3 loading through async_work_group_copy (Khronos sample)", 1},
    {"reduce6_warp", "advanced, NVIDIA: reduce6 with a bar.warp.sync tail (inline PTX)", 1},
    {"reduce6_subgroup", "advanced: reduce6 with a sub_group_barrier tail (sub-groups)", 1},
    {"reduce4_racy", "counter-example: warp-synchronous tail without sync (a data race)", 0},
};

const variant_plan plans[VARIANT_COUNT] = {
    [STREAM_READ] = {SWEEP, 0, 0, 0},
    [STRIDED_READ] = {SWEEP, 0, 0, 0},
    [REDUCE0] = {ONE_PER_ITEM, 1, 1, 0},
    [REDUCE1] = {ONE_PER_ITEM, 1, 1, 0},
    [REDUCE2] = {ONE_PER_ITEM, 1, 1, 0},
    [REDUCE3] = {PAIR_PER_ITEM, 1, 1, 0},
    [REDUCE4] = {PAIR_PER_ITEM, 1, 1, 0},
    [REDUCE5] = {PAIR_PER_ITEM, 0, 1, 0},
    [REDUCE6] = {SWEEP, 0, 1, 0},
    [REDUCE7] = {SWEEP, 0, 1, 1},
    [REDUCE3_ASYNC] = {PAIR_PER_ITEM, 0, 1, 0},
    [REDUCE6_WARP] = {SWEEP, 0, 1, 0},
    [REDUCE6_SUBGROUP] = {SWEEP, 0, 1, 0},
    [REDUCE4_RACY] = {PAIR_PER_ITEM, 1, 1, 0},
};

static const char *const types[] = {"float", "int", "double", NULL};
static const size_t type_sizes[] = {sizeof(cl_float), sizeof(cl_int), sizeof(cl_double)};

static const oclt_cli_spec spec = {
    .chapter = "04_reduction_naive_to_cascade",
    .summary = "sum of n elements: reduce0 (naive tree) .. reduce7 (one launch), against the "
               "streaming-read bandwidth",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 26},
    .default_reps = 5,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
    .extra_options = OCLT_OPT_TYPE | OCLT_OPT_LOCAL,
    .types = types,
};

/* The kernels index with 32-bit unsigned ints; n < 2^31 keeps every index and index + stride
 * below 2^32, and lets the int inputs be chosen so that no sum overflows. */
#define MAX_ELEMENTS 0x7FFFFFFFu

/* ---- 1. Set up: the work-group size ------------------------------------------------------ */

static size_t power_of_two_below(size_t limit) {
    size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

/* --local checked against the device's limits (a usage error names the one it breaks), or the
 * largest power of two up to 256 that they allow. Returns OCLT_CONTINUE, or the exit code. */
static int choose_group_size(const oclt_device *dev, size_t asked, size_t elem_size,
                             size_t *local) {
    size_t item_max[3] = {0, 0, 0};
    const size_t device_max = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    const cl_ulong local_mem = oclt_device_ulong(dev->device, CL_DEVICE_LOCAL_MEM_SIZE);
    if (OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max,
                                   item_max, NULL)))
        return OCLT_EXIT_FAIL;
    if (asked > device_max)
        return oclt_usage_error(&spec,
                                "--local %zu exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE %zu of %s",
                                asked, device_max, dev->device_name);
    if (asked > item_max[0])
        return oclt_usage_error(&spec,
                                "--local %zu exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES[0] %zu of %s",
                                asked, item_max[0], dev->device_name);
    /* reduce3_async keeps 2 * BLOCK_SIZE elements in local memory */
    if (2 * asked * elem_size > local_mem)
        return oclt_usage_error(&spec,
                                "--local %zu needs %zu bytes of local memory but %s has %llu "
                                "(CL_DEVICE_LOCAL_MEM_SIZE)",
                                asked, 2 * asked * elem_size, dev->device_name,
                                (unsigned long long)local_mem);
    size_t limit = device_max < item_max[0] ? device_max : item_max[0];
    if (limit > local_mem / (2 * elem_size)) limit = (size_t)(local_mem / (2 * elem_size));
    *local = asked ? asked : power_of_two_below(limit < 256 ? limit : 256);
    if (*local >= 2) return OCLT_CONTINUE;
    fprintf(stderr, "%s allows groups of 1 only: a reduction step needs 2 work-items\n",
            dev->device_name);
    return OCLT_EXIT_SKIP;
}

/* ---- 1. Set up: the program, for this group size or the smaller one its kernels allow ----- */

static int build_for_group_size(const oclt_device *dev, const capabilities *caps,
                                const oclt_options *opt, size_t *local, const tuning *tune,
                                cl_program *program) {
    *program = build_reduce_program(dev, caps, opt->type, *local, tune);
    size_t kernel_max =
        *program ? kernel_group_limit(dev, caps, *program, opt->selected, *local) : 0;
    if (!*program) return OCLT_EXIT_FAIL;
    if (*local <= kernel_max) return OCLT_CONTINUE;
    clReleaseProgram(*program);
    *program = NULL;
    if (opt->local)
        return oclt_usage_error(&spec,
                                "--local %zu exceeds CL_KERNEL_WORK_GROUP_SIZE %zu (the smallest "
                                "of the selected kernels on %s)",
                                opt->local, kernel_max, dev->device_name);
    *local = power_of_two_below(kernel_max);
    if (*local >= 2) *program = build_reduce_program(dev, caps, opt->type, *local, tune);
    return *program ? OCLT_CONTINUE : OCLT_EXIT_FAIL;
}

/* ---- 2. Data and the exact sum ------------------------------------------------------------ */

/* Whole numbers in [1, 8] for float and double, in [1, r] for int with r * n < 2^31: every
 * element is >= 1, so a lost one always lowers the sum, and the int64 sum is exact. While the
 * total stays below 2^24 (float) or 2^53 (double) every partial sum is exact in any order. */
static int64_t fill_input(void *host, int type, size_t n, uint64_t seed) {
    oclt_rng rng;
    oclt_rng_seed(&rng, seed);
    if (type == TYPE_FLOAT) oclt_fill_float_whole(&rng, host, n, 1, 8);
    if (type == TYPE_DOUBLE) oclt_fill_double_whole(&rng, host, n, 1, 8);
    if (type == TYPE_INT) {
        size_t range = 0x7FFFFFFF / n;
        oclt_fill_int(&rng, host, n, 1, (int32_t)(range < 1000 ? range : 1000));
    }
    int64_t sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += type == TYPE_FLOAT ? (int64_t)((const float *)host)[i]
               : type == TYPE_INT ? ((const int32_t *)host)[i]
                                  : (int64_t)((const double *)host)[i];
    return sum;
}

/* ---- 2. Data on the device: the input, two partial buffers, reduce7's ticket counter ----- */

typedef struct {
    cl_mem input, partial[2], tickets;
    void *poison; /* written over the partials before every run */
    e2e_path e2e; /* bench.c: the queue and pinned scalar of the end-to-end runs */
} buffers;

static cl_int create_buffers(const oclt_device *dev, void *host, size_t input_bytes,
                             size_t partial_bytes, buffers *b) {
    cl_int err = CL_SUCCESS;
    cl_uint zero = 0; /* reduce7's last group resets the counter to 0 after every launch */
    b->input = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, input_bytes,
                              host, &err);
    if (!err)
        b->tickets = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    sizeof zero, &zero, &err);
    for (int k = 0; k < 2 && !err; ++k)
        b->partial[k] = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, partial_bytes, NULL, &err);
    /* Poison from host memory, not clEnqueueFillBuffer: see docs/appendix_driver_quirks.md. */
    b->poison = err ? NULL : malloc(partial_bytes);
    if (b->poison) oclt_poison_host(b->poison, partial_bytes);
    if (!err && !b->poison) err = CL_OUT_OF_HOST_MEMORY;
    if (OCLT_CHECK_ERR(err, "clCreateBuffer")) return err;
    return e2e_open(dev, &b->e2e);
}

static void release_buffers(buffers *b) {
    cl_mem all[] = {b->input, b->partial[0], b->partial[1], b->tickets};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        if (all[k]) clReleaseMemObject(all[k]);
    free(b->poison);
    e2e_close(&b->e2e);
}

/* ---- 4. Check ------------------------------------------------------------------------------ */

/* Reads the result (one value, or one partial per work-item for the reference reads, added on
 * the host) and compares it with the exact sum: equal for int, and for float/double within
 * oclt_whole_sum_tolerance (0 while the total is exactly representable). A tolerance so wide
 * that a loss of 1/8 of the input would pass makes the result UNCHECKED, not PASS. */
static oclt_status check_sum(const launch *l, const geometry *g, int type, int64_t exact,
                             char *detail, size_t detail_size) {
    const size_t last = l->pass_count - 1;
    size_t count = plans[l->variant].reduces ? 1 : l->passes[last].groups * l->local;
    void *host = malloc(count * l->elem_size);
    if (!host || OCLT_CHECK(clEnqueueReadBuffer(l->dev->queue, pass_output(l, last), CL_TRUE, 0,
                                                count * l->elem_size, host, 0, NULL, NULL))) {
        free(host);
        return OCLT_FAIL;
    }
    double got = 0.0;    /* the partials of a reference read sum exactly in double (< 2^53) */
    int64_t got_int = 0; /* 64 bits: a wrong kernel's partials must not overflow the sum */
    for (size_t i = 0; i < count; ++i) {
        if (type == TYPE_INT) got_int += ((const int32_t *)host)[i];
        if (type == TYPE_FLOAT) got += ((const float *)host)[i];
        if (type == TYPE_DOUBLE) got += ((const double *)host)[i];
    }
    free(host);
    if (type == TYPE_INT) {
        if (got_int < INT32_MIN || got_int > INT32_MAX) {
            fprintf(stderr, "  sum = %lld, outside int32 (expected %lld)\n", (long long)got_int,
                    (long long)exact);
            return OCLT_FAIL;
        }
        int32_t got32 = (int32_t)got_int, expected = (int32_t)exact;
        return oclt_compare_int("sum", &got32, &expected, 1) ? OCLT_FAIL : OCLT_PASS;
    }
    const double want = (double)exact;
    const size_t chain = addition_chain(l->variant, g, l->passes, l->pass_count);
    const double tolerance = oclt_whole_sum_tolerance(type == TYPE_FLOAT ? 24 : 53, chain, want);
    const int weak = oclt_sum_check_too_weak(tolerance, want);
    snprintf(detail, detail_size, "      error %.3g, tolerance %.3g (chain of %zu additions)%s\n",
             fabs(got - want), tolerance, chain,
             weak ? ": a loss of 1/8 of the input would pass, so UNCHECKED (a larger --local "
                    "shortens the chain; --type double rounds finer)"
                  : "");
    if (oclt_compare_double("sum", &got, &want, NULL, tolerance, 1)) return OCLT_FAIL;
    return weak ? OCLT_UNCHECKED : OCLT_PASS;
}

/* ---- 3..5. One variant: passes, check, report ------------------------------------------- */

typedef struct {
    const oclt_options *opt;
    oclt_report *report;
    const geometry *geo;
    int type;
    size_t n;
    int64_t exact;
    double stream_gbps, previous_ms; /* for the notes: share of stream_read, step speedup */
} run_context;

static void report_variant(run_context *rc, const launch *l, oclt_status status) {
    char name[64], size[32], note[160] = "";
    const double bytes = (double)rc->n * (double)l->elem_size;
    const double gbps = l->kernel_ms > 0 ? bytes / (l->kernel_ms * 1e6) : -1.0;
    snprintf(name, sizeof name, "%s/%s", variants[l->variant].name, types[rc->type]);
    snprintf(size, sizeof size, "%zu", rc->n);
    int used = 0;
    if (l->variant == STREAM_READ) rc->stream_gbps = gbps;
    if (l->variant <= REDUCE7 && l->variant > REDUCE0 && rc->previous_ms > 0 && gbps > 0)
        used +=
            snprintf(note, sizeof note, "x%.2f vs previous step, ", rc->previous_ms / l->kernel_ms);
    if (l->variant <= REDUCE7 && l->variant >= REDUCE0) rc->previous_ms = l->kernel_ms;
    if (rc->stream_gbps > 0 && gbps > 0 && l->variant != STREAM_READ)
        used += snprintf(note + used, sizeof note - (size_t)used, "%.0f%% of stream_read",
                         100.0 * gbps / rc->stream_gbps);
    if (used >= 2 && note[used - 2] == ',') note[used - 2] = '\0';
    oclt_report_result_e2e(rc->report, name, size, l->kernel_ms, l->e2e_ms, gbps, "GB/s", status,
                           note[0] ? note : NULL);
}

static void run_variant(run_context *rc, launch *l, cl_program program) {
    oclt_status status = OCLT_FAIL;
    char detail[256] = "";
    l->pass_count = plan_passes(l->variant, rc->n, rc->geo, l->passes);
    l->kernel = oclt_create_kernel(program, variants[l->variant].name);
    if (l->kernel && !measure(l)) {
        status = rc->opt->check ? check_sum(l, rc->geo, rc->type, rc->exact, detail, sizeof detail)
                                : OCLT_UNCHECKED;
        report_variant(rc, l, status);
        print_passes(l);
        fputs(detail, stdout);
    } else {
        char name[64];
        snprintf(name, sizeof name, "%s/%s", variants[l->variant].name, types[rc->type]);
        oclt_report_result(rc->report, name, "", -1, -1, NULL, OCLT_FAIL, "did not run");
    }
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l->pass_ms);
    free(l->e2e_calls);
    l->pass_ms = l->e2e_calls = NULL;
}

/* ---- 5. Report: what the run is, then main --------------------------------------------- */

static int skip_all(const oclt_device *dev, const oclt_options *opt, const char *why) {
    oclt_report report;
    oclt_report_begin(&report, &spec, opt, dev);
    for (int v = 0; v < VARIANT_COUNT; ++v)
        if (opt->selected[v])
            oclt_report_result(&report, variants[v].name, "", -1, -1, NULL, OCLT_SKIP, why);
    return oclt_report_exit_code(&report);
}

static void print_setup(const oclt_options *opt, const capabilities *caps, const tuning *tune,
                        const geometry *geo, int64_t exact, cl_uint compute_units) {
    printf("  n        %zu %s, whole numbers >= 1 (exact sum %lld)\n", opt->size[0],
           types[opt->type], (long long)exact);
    printf("  local    %zu work-items per group%s\n", geo->local, opt->local ? " (--local)" : "");
    printf("  sweep    ORDER=%s VEC=%u UNROLL=%u GROUPS_PER_CU=%u -> at most %zu groups on %u "
           "compute units (OCLT_REDUCE_TUNE overrides)\n",
           tune->blocked ? "blocked" : "interleaved", tune->vec, tune->unroll, tune->groups_per_cu,
           geo->max_groups, compute_units);
    printf("  reduce7  %s\n\n",
           !caps->reduce7      ? "not built on this device (its SKIP line says why)"
           : caps->c11_atomics ? "acq_rel atomic ticket (OpenCL C 2.0+ atomics)"
                               : "GPU-scope fence (PTX membar.gl) + atomic_inc ticket (NVIDIA)");
}

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    const size_t n = opt.size[0], elem_size = type_sizes[opt.type];
    if (n > MAX_ELEMENTS)
        return oclt_usage_error(&spec,
                                "--size %zu is too large: at most 2^31-1 elements (the "
                                "kernels index with 32-bit unsigned ints)",
                                n);
    if (opt.local == 1)
        return oclt_usage_error(&spec, "--local 1 is too small: a reduction step needs at least 2 "
                                       "work-items per group");
    tuning tune;
    if (parse_tuning(&spec, getenv("OCLT_REDUCE_TUNE"), &tune)) return OCLT_EXIT_USAGE;

    /* ---- 1. Set up: device, group size, program ---- */
    oclt_device dev;
    if ((rc = oclt_open_device(&spec, &opt, &dev)) != OCLT_CONTINUE) return rc;
    capabilities caps;
    probe_capabilities(&dev, opt.type, &caps);
    default_tuning(&dev, elem_size, &tune);
    size_t local = 0;
    cl_program program = NULL;
    buffers buf = {NULL, {NULL, NULL}, NULL, NULL, {NULL, NULL, NULL}};
    if (opt.type == TYPE_DOUBLE && !caps.fp64) {
        rc = skip_all(&dev, &opt, "double needs cl_khr_fp64 / __opencl_c_fp64");
        goto done;
    }
    if ((rc = choose_group_size(&dev, opt.local, elem_size, &local)) != OCLT_CONTINUE ||
        (rc = build_for_group_size(&dev, &caps, &opt, &local, &tune, &program)) != OCLT_CONTINUE)
        goto done;
    const cl_uint compute_units = oclt_device_uint(dev.device, CL_DEVICE_MAX_COMPUTE_UNITS);
    if (!compute_units) { /* the query failed (printed): the sweep cannot be sized */
        rc = OCLT_EXIT_FAIL;
        goto done;
    }
    const geometry geo = {local, (size_t)compute_units * tune.groups_per_cu, tune.vec, tune.unroll};
    size_t partial_count = (n + local - 1) / local; /* the first pass writes the most */
    if (sweep_groups(&geo, n) * local > partial_count)
        partial_count = sweep_groups(&geo, n) * local;
    if ((rc = oclt_require_memory(&spec, &dev, n * elem_size,
                                  n * elem_size + 2 * partial_count * elem_size, "--size")))
        goto done;

    /* ---- 2. Data ---- */
    void *host = malloc(n * elem_size);
    rc = OCLT_EXIT_FAIL;
    if (!host) goto done;
    const int64_t exact = fill_input(host, opt.type, n, opt.seed);
    cl_int err = create_buffers(&dev, host, n * elem_size, partial_count * elem_size, &buf);
    free(host);
    if (err) goto done;

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    print_setup(&opt, &caps, &tune, &geo, exact, compute_units);

    /* ---- 3..5. Each variant: passes, timing, check, report ---- */
    run_context ctx = {&opt, &report, &geo, opt.type, n, exact, -1.0, -1.0};
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!opt.selected[v]) continue;
        const char *why = variant_unavailable(&dev, &caps, program, v, local);
        launch l = {.dev = &dev,
                    .variant = v,
                    .local = local,
                    .elem_size = elem_size,
                    .input = buf.input,
                    .partial = {buf.partial[0], buf.partial[1]},
                    .tickets = buf.tickets,
                    .partial_bytes = partial_count * elem_size,
                    .poison = buf.poison,
                    .e2e = &buf.e2e,
                    .reps = opt.reps};
        if (why)
            oclt_report_result(&report, variants[v].name, "", -1, -1, NULL, OCLT_SKIP, why);
        else
            run_variant(&ctx, &l, program);
    }
    rc = oclt_report_exit_code(&report);
done:
    release_buffers(&buf);
    if (program) clReleaseProgram(program);
    oclt_close_device(&dev);
    return rc;
}
