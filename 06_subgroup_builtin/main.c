/* Chapter 06: work-group and sub-group reductions, chosen at run time from what the device
 * supports.
 *
 * The lesson, top to bottom:
 *   1. ask the device what it supports (probe.c: the queries of OpenCL 1.x, 2.x and 3.0 and
 *      the vendor extensions) and decide which variants can run, saying why the others cannot;
 *   2. write the operation and the type into the kernel source (as the Khronos SDK reduce
 *      sample does) and build one program per variant, with a -cl-std the device lists;
 *   3. reduce n values to one: each pass folds every work-group's share into one partial,
 *      until one value is left (single_pass: the last work-group finishes, one launch);
 *   4. check the result against the CPU, and report kernel time and end-to-end time.
 * The device setup (platform, context, queue) is chapter 01's, through common/. */
#include "ch06.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oclt_variant_info variants[VARIANT_COUNT] = {
    {"local_tree", "local-memory tree, a barrier per step (portable fallback)", 1},
    {"single_pass", "local_tree in one launch: the last work-group adds the partials", 1},
    {"work_group_reduce", "work_group_reduce_<op> (OpenCL C 2.0, or 3.0 with the feature)", 1},
    {"sub_group_reduce", "sub_group_reduce_<op>, sub-group totals met in local memory", 1},
    {"intel_sub_group", "sub_group_reduce_<op> with intel_reqd_sub_group_size fixing the width", 1},
    {"nv_warp_shuffle", "warp shuffles through inline PTX (NVIDIA's OpenCL only)", 1},
    {"nv_warp_emulated", "nv_warp_shuffle's code, shuffle emulated in local memory (a check)", 0},
};

/* The kernel each variant compiles, and the -D that selects it in subgroup_reduce.cl. */
static const char *const kernel_names[VARIANT_COUNT] = {
    "reduce_local_tree",      "reduce_single_pass", "reduce_work_group", "reduce_sub_group",
    "reduce_intel_sub_group", "reduce_nv_warp",     "reduce_nv_warp"};
static const char *const variant_defines[VARIANT_COUNT] = {
    "VARIANT_LOCAL_TREE",       "VARIANT_SINGLE_PASS",     "VARIANT_WORK_GROUP_REDUCE",
    "VARIANT_SUB_GROUP_REDUCE", "VARIANT_INTEL_SUB_GROUP", "VARIANT_NV_WARP_SHUFFLE",
    "VARIANT_NV_WARP_EMULATED"};

static const char *const types[] = {"float", "int", NULL};
static const char *const ops[] = {"sum", "min", NULL};

static const oclt_cli_spec spec = {
    .chapter = "06_subgroup_builtin",
    .summary = "work-group and sub-group reductions chosen from what the device supports",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 24},
    .default_reps = 10,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
    .extra_options = OCLT_OPT_TYPE | OCLT_OPT_OP | OCLT_OPT_LOCAL,
    .types = types,
    .ops = ops,
};

/* The kernels index with uint, and an int sum of n ones must fit in an int32. */
#define MAX_N ((1ull << 31) - 1)

/* Everything the steps share. */
typedef struct {
    oclt_options opt;
    oclt_device dev;
    tuning tune;
    size_t n, local;
    size_t kernel_limit; /* the smallest kernel limit below the default group; 0: none */
    size_t fitted_limit; /* the limit fit_groups fitted the groups to; 0: none */
    capabilities caps;
    variant_plan plans[VARIANT_COUNT];
    pass_plan passes;
    char *source;
    reduction buffers;
    void *input, *partial_poison;
} lesson;

/* ---- 2. The operation written into the source, one program per variant ------------------- */

static char *operation_source(int op, int type, int vec, const char *file_text) {
    const char *t = types[type];
    char vector_type[16];
    snprintf(vector_type, sizeof vector_type, vec == 1 ? "%s" : "%s%d", t, vec);
    const char *op_def = op == OP_SUM         ? "((a) + (b))"
                         : type == TYPE_FLOAT ? "fmin(a, b)"
                                              : "min(a, b)";
    const char *identity = op == OP_SUM ? (type == TYPE_FLOAT ? "0.0f" : "0")
                                        : (type == TYPE_FLOAT ? "INFINITY" : "INT_MAX");
    const char *builtin = op == OP_SUM ? "add" : "min";
    char header[1024];
    int length = snprintf(header, sizeof header,
                          "/* prepended by main.c: --op %s --type %s */\n"
                          "#define T %s\n#define TV %s\n#define AS_T as_%s\n"
                          "#define OP(a, b) %s\n#define IDENTITY %s\n"
                          "#define WORK_GROUP_REDUCE work_group_reduce_%s\n"
                          "#define SUB_GROUP_REDUCE sub_group_reduce_%s\n",
                          ops[op], t, t, vector_type, t, op_def, identity, builtin, builtin);
    size_t total = (size_t)length + strlen("#line 1\n") + strlen(file_text) + 1;
    char *source = malloc(total);
    if (source) snprintf(source, total, "%s#line 1\n%s", header, file_text);
    return source;
}

/* Builds every selected variant the device can run. Returns 0, or exit 2 when --local is
 * above a kernel's own limit (registers, local memory: known only after the build). Without
 * --local, a kernel below the default group is noted in kernel_limit (see fit_groups). */
static int build_variants(lesson *L) {
    const tuning *t = &L->tune;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        variant_plan *p = &L->plans[v];
        if (!L->opt.selected[v] || !p->usable) continue;
        int used = snprintf(p->options, sizeof p->options,
                            "%s%s-D %s -D LOCAL_SIZE=%zu -D VEC=%d -D UNROLL=%d -D BLOCKED=%d",
                            p->std, p->std[0] ? " " : "", variant_defines[v], L->local, t->vec,
                            t->unroll, t->order == ORDER_BLOCKED);
        if (v == INTEL_SUB_GROUP)
            snprintf(p->options + used, sizeof p->options - (size_t)used, " -D SUB_GROUP_WIDTH=%zu",
                     p->width);
        if (v == NV_WARP_SHUFFLE)
            snprintf(p->options + used, sizeof p->options - (size_t)used, " -D USE_NV_SHUFFLE");
        if (p->gpu_fence)
            snprintf(p->options + used, sizeof p->options - (size_t)used, " -D NVIDIA_GPU_FENCE");
        p->program = oclt_build_source(L->dev.context, L->dev.device, L->source,
                                       "subgroup_reduce.cl", p->options);
        p->kernel = p->program ? oclt_create_kernel(p->program, kernel_names[v]) : NULL;
        size_t kernel_max = 0;
        p->build_failed =
            !p->kernel ||
            OCLT_CHECK(clGetKernelWorkGroupInfo(p->kernel, L->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
                                                sizeof kernel_max, &kernel_max, NULL));
        if (p->build_failed) continue;
        if (kernel_max < L->local && L->opt.local)
            return oclt_usage_error(&spec,
                                    "--local %zu exceeds %s's limit of %zu work-items "
                                    "(CL_KERNEL_WORK_GROUP_SIZE)",
                                    L->local, variants[v].name, kernel_max);
        if (kernel_max < L->local) {
            if (!L->kernel_limit || kernel_max < L->kernel_limit) L->kernel_limit = kernel_max;
            p->usable = 0;
            snprintf(p->why, sizeof p->why,
                     "the kernel allows at most %zu work-items (CL_KERNEL_WORK_GROUP_SIZE): try "
                     "--local %zu",
                     kernel_max, kernel_max);
        }
        query_sub_groups(&L->caps, &L->dev, v, L->local, p);
    }
    return 0;
}

/* ---- 3. Passes: each work-group folds its share into one partial ------------------------- */

/* The passes and their work-group counts come from plan_passes (tuning.c). Every variant but
 * single_pass launches one kernel per pass, reading the partials the pass before wrote. */
int enqueue_reduction(const reduction *r, cl_event *events) {
    cl_command_queue queue = r->dev->queue;
    cl_kernel k = r->kernel;
    if (r->variant == SINGLE_PASS) { /* one launch: every work-group of the first pass */
        const size_t global = r->plan->groups[0] * r->local;
        const cl_uint count = (cl_uint)r->plan->n[0];
        if (OCLT_ARG(k, 0, r->input) || OCLT_ARG(k, 1, r->partial[0]) ||
            OCLT_ARG(k, 2, r->ticket) || OCLT_ARG(k, 3, r->result) || OCLT_ARG(k, 4, count) ||
            oclt_enqueue_kernel(queue, k, 1, &global, &r->local, 0, NULL, &events[0],
                                "single_pass"))
            return -1;
        return 1;
    }
    const int last = r->plan->count - 1;
    for (int p = 0; p <= last; ++p) { /* pass p reads what pass p - 1 wrote */
        cl_mem in = p == 0 ? r->input : r->partial[(p - 1) % 2];
        cl_mem out = p == last ? r->result : r->partial[p % 2];
        const cl_uint count = (cl_uint)r->plan->n[p];
        const size_t global = r->plan->groups[p] * r->local;
        if (OCLT_ARG(k, 0, in) || OCLT_ARG(k, 1, out) || OCLT_ARG(k, 2, count) ||
            oclt_enqueue_kernel(queue, k, 1, &global, &r->local, 0, NULL, &events[p],
                                "reduction pass"))
            return -1;
    }
    return last + 1;
}

/* ---- 4. Inputs, the CPU's answer, and the check ------------------------------------------ */

typedef struct {
    scalar exact;   /* int: the result; float min: the result */
    double sum;     /* float sum: exact in double (whole numbers) */
    double sum_abs; /* float sum: sum of |x|, for the error bound */
} reference;

/* Inputs chosen so that the check cannot hide a lost element:
 *  - sums: whole numbers in [1, hi]. Every element is at least 1, so a lost one moves the sum.
 *    int: hi = INT32_MAX / n, so no partial sum can overflow; the check is exact. float:
 *    hi = 16, lower for large n so that the total stays below 2^24: then every partial sum
 *    is exact in any order and the tolerance is 0 (oclt_whole_sum_tolerance); above 2^24 it
 *    is the rounding bound, still far below the loss of 1 element in 8.
 *  - min: every value is >= 2 except a 1 at the last index. min is exact (it returns one of
 *    the inputs), so any other value fails. The planted 1 catches a lost last element (an
 *    off-by-one bound, a dropped tail or last work-group) and a padding of 0 instead of the
 *    identity; a lost element elsewhere leaves the min as it is: the sum tests catch those. */
static void fill_input(oclt_rng *rng, int op, int type, void *data, size_t n, reference *ref) {
    size_t float_hi = ((size_t)1 << 24) / n; /* n * hi <= 2^24 */
    float_hi = float_hi > 16 ? 16 : float_hi < 2 ? 2 : float_hi;
    const int32_t hi = type == TYPE_INT ? (int32_t)(INT32_MAX / (int64_t)n) : (int32_t)float_hi;
    if (type == TYPE_INT && op == OP_SUM) oclt_fill_int(rng, data, n, 1, hi);
    if (type == TYPE_INT && op == OP_MIN) oclt_fill_int(rng, data, n, 2, 1 << 30);
    if (type == TYPE_FLOAT && op == OP_SUM) oclt_fill_float_whole(rng, data, n, 1, hi);
    if (type == TYPE_FLOAT && op == OP_MIN) oclt_fill_float(rng, data, n, 2.0f, 3.0f);
    if (op == OP_MIN && type == TYPE_INT) ((int32_t *)data)[n - 1] = 1;
    if (op == OP_MIN && type == TYPE_FLOAT) ((float *)data)[n - 1] = 1.0f;
    int64_t int_sum = 0;
    ref->sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        int_sum += type == TYPE_INT ? ((int32_t *)data)[i] : 0;
        ref->sum += type == TYPE_FLOAT ? ((float *)data)[i] : 0.0;
    }
    ref->sum_abs = ref->sum; /* every input is positive */
    if (type == TYPE_INT) ref->exact.i = op == OP_SUM ? (int32_t)int_sum : 1;
    if (type == TYPE_FLOAT) ref->exact.f = 1.0f;
    const char *kind = type == TYPE_INT ? "ints" : op == OP_SUM ? "whole floats" : "floats";
    const int32_t top = op == OP_SUM ? hi : type == TYPE_INT ? 1 << 30 : 3;
    printf("\n  input    %zu random %s in [%d, %d]%s\n", n, kind, op == OP_SUM ? 1 : 2, top,
           op == OP_MIN ? ", and a 1 at the last index" : "");
}

static oclt_status check_result(const lesson *L, int v, const char *label, scalar got,
                                const reference *ref, char *note, size_t note_size) {
    if (L->opt.type == TYPE_INT)
        return oclt_compare_int(label, &got.i, &ref->exact.i, 1) ? OCLT_FAIL : OCLT_PASS;
    double expected = ref->exact.f, tolerance = 0.0; /* min is exact */
    if (L->opt.op == OP_SUM) {
        expected = ref->sum;
        size_t chain = rounding_chain(v, &L->passes, L->local, &L->tune, &L->plans[v]);
        tolerance = oclt_whole_sum_tolerance(24, chain, ref->sum_abs);
        double error = (double)got.f - expected;
        size_t used = strlen(note);
        snprintf(note + used, note_size - used, ", error %.2g, tolerance %.2g%s",
                 error < 0 ? -error : error, tolerance,
                 oclt_sum_check_too_weak(tolerance, ref->sum_abs)
                     ? ": a loss of 1/8 would pass, UNCHECKED"
                     : "");
    }
    if (oclt_compare_float(label, &got.f, &expected, NULL, tolerance, 1)) return OCLT_FAIL;
    return L->opt.op == OP_SUM && oclt_sum_check_too_weak(tolerance, ref->sum_abs) ? OCLT_UNCHECKED
                                                                                   : OCLT_PASS;
}

/* ---- The steps --------------------------------------------------------------------------- */

/* The shape: work-group size within the device's limits (`requested`, or 0 for the default),
 * and the passes. */
static int plan_shape(lesson *L, size_t requested) {
    int rc = choose_local_size(&spec, &L->dev, &L->tune, requested, sizeof(float), &L->local);
    if (rc) return rc;
    query_capabilities(&L->dev, &L->caps);
    plan_variants(&L->caps, &L->dev, L->local, &L->tune, L->plans);
    const size_t cus = L->caps.compute_units ? L->caps.compute_units : 1;
    plan_passes(L->n, L->local, (size_t)L->tune.vec * (size_t)L->tune.unroll,
                cus * (size_t)L->tune.groups_per_cu, &L->passes);
    /* fold_interleaved computes i + (UNROLL - 1) * stride in uint: only a VEC=1 tuning near
     * n = 2^31 could pass 2^32. */
    if (L->n / (size_t)L->tune.vec + (size_t)L->tune.unroll * L->passes.groups[0] * L->local >
        UINT32_MAX)
        return oclt_usage_error(&spec,
                                "--size %zu with VEC=%d UNROLL=%d: the kernels' uint index would "
                                "pass 2^32 (raise VEC in OCLT_SUBGROUP_TUNE)",
                                L->n, L->tune.vec, L->tune.unroll);
    return oclt_require_memory(&spec, &L->dev, (cl_ulong)L->n * sizeof(float),
                               (cl_ulong)(L->n + 2 * L->passes.groups[0] + 2) * sizeof(float),
                               "--size");
}

/* The input, the partials of two passes (ping-pong), single_pass's ticket, the result. */
static int make_buffers(lesson *L, oclt_rng *rng, reference *ref) {
    const size_t bytes = L->n * sizeof(float), partial_bytes = L->passes.groups[0] * sizeof(float);
    L->input = malloc(bytes);
    L->partial_poison = malloc(partial_bytes);
    if (!L->input || !L->partial_poison) return fprintf(stderr, "out of host memory\n"), 1;
    oclt_poison_host(L->partial_poison, partial_bytes);
    fill_input(rng, L->opt.op, L->opt.type, L->input, L->n, ref);
    reduction *r = &L->buffers;
    *r = (reduction){.dev = &L->dev,
                     .local = L->local,
                     .plan = &L->passes,
                     .element_size = sizeof(float),
                     .partial_bytes = partial_bytes,
                     .partial_poison = L->partial_poison};
    const cl_uint zero = 0;
    cl_int err = CL_SUCCESS;
    r->input = clCreateBuffer(L->dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                              L->input, &err);
    for (int i = 0; i < 2 && !err; ++i)
        r->partial[i] =
            clCreateBuffer(L->dev.context, CL_MEM_READ_WRITE, partial_bytes, NULL, &err);
    if (!err)
        r->ticket = clCreateBuffer(L->dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof zero, (void *)&zero, &err);
    if (!err)
        r->result = clCreateBuffer(L->dev.context, CL_MEM_READ_WRITE, sizeof(float), NULL, &err);
    return OCLT_CHECK_ERR(err, "clCreateBuffer") ? 1 : 0;
}

/* Each selected variant: SKIP with the reason, or run, time, check and report. */
static void run_variants(lesson *L, const reference *ref, oclt_report *report) {
    const int require_subgroups =
        getenv("OCLT_REQUIRE_SUBGROUPS") && strcmp(getenv("OCLT_REQUIRE_SUBGROUPS"), "1") == 0;
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", L->n);
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        const variant_plan *p = &L->plans[v];
        if (!L->opt.selected[v]) continue;
        char label[64], note[320];
        snprintf(label, sizeof label, "%s/%s/%s", variants[v].name, ops[L->opt.op],
                 types[L->opt.type]);
        if (!p->usable || p->build_failed) {
            /* CI on PoCL 6 sets OCLT_REQUIRE_SUBGROUPS=1: there only the NVIDIA ones may skip. */
            int required = require_subgroups && v <= INTEL_SUB_GROUP;
            snprintf(note, sizeof note, "%s%s%s", required ? "OCLT_REQUIRE_SUBGROUPS=1: " : "",
                     p->build_failed ? "build failed (log above)" : p->why,
                     p->missing_feature && v >= WORK_GROUP_REDUCE && v <= INTEL_SUB_GROUP
                         ? "; run it on PoCL 6: ./run.sh --pocl6"
                         : "");
            oclt_report_result_e2e(report, label, size_text, -1.0, -1.0, -1.0, "GB/s",
                                   required || p->build_failed ? OCLT_FAIL : OCLT_SKIP, note);
            continue;
        }
        reduction r = L->buffers;
        r.variant = v;
        r.kernel = p->kernel;
        const int launches = v == SINGLE_PASS ? 1 : L->passes.count;
        snprintf(note, sizeof note, "%d launch%s, %zu work-group%s of %zu", launches,
                 launches == 1 ? "" : "es", L->passes.groups[0],
                 L->passes.groups[0] == 1 ? "" : "s", L->local);
        double kernel_ms = -1.0, e2e_ms = -1.0;
        scalar got;
        oclt_status status = OCLT_FAIL;
        if (measure_reduction(&r, L->opt.reps, &kernel_ms, &e2e_ms, &got) == CL_SUCCESS)
            status = L->opt.check ? check_result(L, v, label, got, ref, note, sizeof note)
                                  : OCLT_UNCHECKED;
        const double gbps = kernel_ms > 0 ? (double)L->n * sizeof(float) / (kernel_ms * 1e6) : -1;
        oclt_report_result_e2e(report, label, size_text, kernel_ms, e2e_ms, gbps, "GB/s", status,
                               note);
    }
}

static void release_variants(lesson *L) {
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (L->plans[v].kernel) clReleaseKernel(L->plans[v].kernel);
        if (L->plans[v].program) clReleaseProgram(L->plans[v].program);
        memset(&L->plans[v], 0, sizeof L->plans[v]);
    }
}

static void release(lesson *L) {
    reduction *r = &L->buffers;
    cl_mem all[] = {r->input, r->partial[0], r->partial[1], r->ticket, r->result};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i]) clReleaseMemObject(all[i]);
    release_variants(L);
    free(L->source);
    free(L->input);
    free(L->partial_poison);
}

/* A kernel may allow fewer work-items than the default group (registers, local memory: as on
 * some GPUs). Without --local, every variant is planned and built again for the largest power
 * of two that the smallest such kernel allows, as chapter 04 does; a kernel still below it
 * then stays unusable, with the reason printed. */
static int fit_groups(lesson *L) {
    size_t local = 1;
    while (local * 2 <= L->kernel_limit) local *= 2;
    release_variants(L);
    L->fitted_limit = L->kernel_limit;
    L->kernel_limit = 0;
    int rc = plan_shape(L, local);
    return rc ? rc : build_variants(L);
}

/* ---- The lesson -------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    static lesson L; /* zeroed: every handle starts NULL */
    int rc = oclt_parse_command_line(argc, argv, &spec, &L.opt);
    if (rc != OCLT_CONTINUE) return rc;
    rc = parse_tuning(&spec, getenv("OCLT_SUBGROUP_TUNE"), &L.tune);
    if (rc) return rc;
    L.n = L.opt.size[0];
    if (L.n > MAX_N)
        return oclt_usage_error(&spec,
                                "--size %zu exceeds 2^31 - 1 (the kernels' indices and an int "
                                "sum must fit)",
                                L.n);

    /* Set-up: the device (chapter 01's pipeline, in common/), its limits and the shape. */
    rc = oclt_open_device(&spec, &L.opt, &L.dev);
    if (rc != OCLT_CONTINUE) return rc;
    default_tuning(&L.dev, &L.tune);
    rc = plan_shape(&L, L.opt.local);
    if (rc) goto done;

    /* 1-2. What the device supports decides the variants; each is built with its options. */
    char *file_text = oclt_kernel_source("subgroup_reduce.cl");
    L.source = file_text ? operation_source(L.opt.op, L.opt.type, L.tune.vec, file_text) : NULL;
    free(file_text);
    rc = L.source ? build_variants(&L) : OCLT_EXIT_FAIL;
    if (!rc && L.kernel_limit) rc = fit_groups(&L);
    if (rc) goto done;

    oclt_report report;
    oclt_report_begin(&report, &spec, &L.opt, &L.dev);
    print_capabilities(&L.caps, &L.dev);
    print_plans(&L.caps, L.plans, variants, L.local);
    print_shape(L.source, L.local, L.fitted_limit, &L.tune, &L.passes);

    /* 3. Data: random inputs (seed printed), the CPU's answer, the buffers. */
    oclt_rng rng;
    oclt_rng_seed(&rng, L.opt.seed);
    reference ref;
    if (make_buffers(&L, &rng, &ref)) {
        rc = OCLT_EXIT_FAIL;
        goto done;
    }

    /* 4. Every variant: run (kernel and end-to-end time), check, report. */
    printf("\n  %-22s %-14s %14s %19s  %-30s check\n", "variant", "n", "kernel time", "kernel GB/s",
           "end-to-end time and GB/s");
    run_variants(&L, &ref, &report);
    rc = oclt_report_exit_code(&report);
done:
    release(&L);
    oclt_close_device(&L.dev);
    return rc;
}
