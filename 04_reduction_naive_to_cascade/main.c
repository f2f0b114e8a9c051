/* Chapter 04: parallel reduction, from the naive tree to the cascaded kernel that runs at the
 * speed of memory.
 *
 * The lesson, top to bottom:
 *   1. set up: the device, the work-group size, how the unrolled tail synchronises on this
 *      device (warp barrier, sub-group barrier or work-group barrier), the cascade's tuning;
 *   2. data: random inputs and a compensated double-precision CPU sum;
 *   3. kernels: two reference reads (stream_read, strided_read) and reduce0 .. reduce6, each
 *      run as passes on the device until one value is left;
 *   4. check every result against the CPU, with a bound that follows from the pass structure;
 *   5. report time, GB/s, speedups and the share of the streaming bandwidth.
 */
#include "oclt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Variants ---------------------------------------------------------------------------- */

enum {
    STREAM_READ,
    STRIDED_READ,
    REDUCE0,
    REDUCE1,
    REDUCE2,
    REDUCE3,
    REDUCE4,
    REDUCE5,
    REDUCE6,
    REDUCE4_RACY,
    VARIANT_COUNT
};

static const oclt_variant_info variants[VARIANT_COUNT] = {
    {"stream_read", "reference: reduce6's sweep alone, one sum per work-item (the bandwidth)", 1},
    {"strided_read", "reference: the same sweep in the order this device does not want", 1},
    {"reduce0", "interleaved addressing, divergent branching (lid % (2*i) == 0)", 1},
    {"reduce1", "interleaved addressing, strided index, no divergence (bank conflicts)", 1},
    {"reduce2", "sequential addressing, no bank conflicts", 1},
    {"reduce3", "first add during the global load: half the work-groups", 1},
    {"reduce4", "last steps unrolled with a warp/sub-group sync (or barriers)", 1},
    {"reduce5", "completely unrolled for the compile-time group size BLOCK_SIZE", 1},
    {"reduce6", "cascading: grid-stride vector loads, then the unrolled tree", 1},
    {"reduce4_racy", "counter-example: warp-synchronous tail without sync (a data race)", 0},
};

/* How a variant's kernel reads its input: one element per work-item, a pair, or a grid-stride
 * sweep with a fixed number of groups. The reference reads run one pass and leave one partial
 * sum per work-item; the reductions leave one per group and run again until one is left. */
typedef enum { ONE_PER_ITEM, PAIR_PER_ITEM, SWEEP } load_shape;

static const struct {
    load_shape shape;
    int local_arg; /* takes its scratch as a __local argument sized at run time */
    int reduces;   /* passes until one value remains */
} plans[VARIANT_COUNT] = {
    [STREAM_READ] = {SWEEP, 0, 0},     [STRIDED_READ] = {SWEEP, 0, 0},
    [REDUCE0] = {ONE_PER_ITEM, 1, 1},  [REDUCE1] = {ONE_PER_ITEM, 1, 1},
    [REDUCE2] = {ONE_PER_ITEM, 1, 1},  [REDUCE3] = {PAIR_PER_ITEM, 1, 1},
    [REDUCE4] = {PAIR_PER_ITEM, 1, 1}, [REDUCE5] = {PAIR_PER_ITEM, 0, 1},
    [REDUCE6] = {SWEEP, 0, 1},         [REDUCE4_RACY] = {PAIR_PER_ITEM, 1, 1},
};

enum { TYPE_FLOAT, TYPE_INT, TYPE_DOUBLE };
static const char *const types[] = {"float", "int", "double", NULL};
static const size_t type_sizes[] = {sizeof(cl_float), sizeof(cl_int), sizeof(cl_double)};
static const char *const identities[] = {"0.0f", "0", "0.0"};

static const oclt_cli_spec spec = {
    .chapter = "04_reduction_naive_to_cascade",
    .summary = "sum of n elements: reduce0 (naive tree) .. reduce6 (cascaded), against the "
               "streaming-read bandwidth",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 26},
    .default_reps = 5,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
    .extra_options = OCLT_OPT_TYPE | OCLT_OPT_LOCAL,
    .types = types,
};

/* The kernels index with 32-bit unsigned ints; n < 2^31 keeps every index and every
 * index + stride below 2^32, and lets the int inputs be chosen so that no sum overflows. */
#define MAX_ELEMENTS 0x7FFFFFFFu
#define MAX_PASSES   64

/* ---- 1. Set up: tuning, lock-step width, program --------------------------------------- */

/* reduce6's shape: elements per load, loads in flight, groups per compute unit. Chosen from the
 * device type; OCLT_REDUCE_TUNE="VEC=4,UNROLL=4,GROUPS_PER_CU=32,SYNC=auto" overrides any of
 * them (SYNC: auto|barrier|subgroup|ptx forces the tail's synchronisation). */
typedef enum { SYNC_AUTO, SYNC_BARRIER, SYNC_SUB_GROUP, SYNC_WARP_PTX } sync_mode;
static const char *const sync_names[] = {"auto", "barrier", "subgroup", "ptx"};

typedef enum { ORDER_AUTO, ORDER_INTERLEAVED, ORDER_BLOCKED } sweep_order;
static const char *const order_names[] = {"auto", "interleaved", "blocked"};

typedef struct {
    unsigned vec, unroll, groups_per_cu; /* 0: not given, chosen from the device */
    sweep_order order;
    sync_mode sync;
} tuning;

static int parse_tuning(const char *text, tuning *tune) {
    memset(tune, 0, sizeof *tune);
    if (!text || !*text) return 0;
    const char *item = text;
    while (*item) {
        size_t len = strcspn(item, ",");
        char key[32] = "", value[32] = "";
        const char *eq = memchr(item, '=', len);
        if (!eq || eq == item || (size_t)(eq - item) >= sizeof key ||
            len - (size_t)(eq - item) - 1 >= sizeof value || len - (size_t)(eq - item) < 2)
            return oclt_usage_error(&spec,
                                    "OCLT_REDUCE_TUNE '%s': expected NAME=VALUE items, e.g. "
                                    "VEC=4,UNROLL=4,GROUPS_PER_CU=32,SYNC=auto",
                                    text);
        memcpy(key, item, (size_t)(eq - item));
        memcpy(value, eq + 1, len - (size_t)(eq - item) - 1);
        char *end = NULL;
        unsigned long number = strtoul(value, &end, 10);
        int numeric = value[0] >= '0' && value[0] <= '9' && *end == '\0';
        if (strcmp(key, "VEC") == 0) {
            if (!numeric ||
                !(number == 1 || number == 2 || number == 4 || number == 8 || number == 16))
                return oclt_usage_error(&spec, "OCLT_REDUCE_TUNE: VEC=%s must be 1, 2, 4, 8 or 16",
                                        value);
            tune->vec = (unsigned)number;
        } else if (strcmp(key, "UNROLL") == 0) {
            if (!numeric || !(number == 1 || number == 2 || number == 4 || number == 8))
                return oclt_usage_error(&spec, "OCLT_REDUCE_TUNE: UNROLL=%s must be 1, 2, 4 or 8",
                                        value);
            tune->unroll = (unsigned)number;
        } else if (strcmp(key, "GROUPS_PER_CU") == 0) {
            if (!numeric || number < 1 || number > 4096)
                return oclt_usage_error(
                    &spec, "OCLT_REDUCE_TUNE: GROUPS_PER_CU=%s must be between 1 and 4096", value);
            tune->groups_per_cu = (unsigned)number;
        } else if (strcmp(key, "ORDER") == 0) {
            int found = -1;
            for (int o = 0; o < 3; ++o)
                if (strcmp(value, order_names[o]) == 0) found = o;
            if (found < 0)
                return oclt_usage_error(
                    &spec, "OCLT_REDUCE_TUNE: ORDER=%s must be auto, interleaved or blocked",
                    value);
            tune->order = (sweep_order)found;
        } else if (strcmp(key, "SYNC") == 0) {
            int found = -1;
            for (int s = 0; s < 4; ++s)
                if (strcmp(value, sync_names[s]) == 0) found = s;
            if (found < 0)
                return oclt_usage_error(
                    &spec, "OCLT_REDUCE_TUNE: SYNC=%s must be auto, barrier, subgroup or ptx",
                    value);
            tune->sync = (sync_mode)found;
        } else {
            return oclt_usage_error(&spec,
                                    "OCLT_REDUCE_TUNE: unknown name '%s' (known: VEC, UNROLL, "
                                    "GROUPS_PER_CU, ORDER, SYNC)",
                                    key);
        }
        item += len;
        if (*item == ',') ++item;
    }
    return 0;
}

/* Defaults by device type. A GPU wants the interleaved order (coalesced), 16-byte loads (one
 * transaction per lane), several in flight, and enough groups that every compute unit stays
 * full while the last ones finish (~4 waves of 8 groups of 256). A CPU runs a work-group as a
 * loop on one core: the blocked order (each work-item streams its own chunk), one cache line
 * per load, one group per core. */
static void default_tuning(const oclt_device *dev, size_t elem_size, tuning *tune) {
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    if (!tune->vec) tune->vec = (unsigned)((gpu ? 16 : 64) / elem_size);
    if (tune->vec > 16) tune->vec = 16;
    if (!tune->unroll) tune->unroll = gpu ? 4 : 1;
    if (!tune->groups_per_cu) tune->groups_per_cu = gpu ? 32 : 1;
    if (tune->order == ORDER_AUTO) tune->order = gpu ? ORDER_INTERLEAVED : ORDER_BLOCKED;
}

/* How the unrolled tail of reduce4/5/6 synchronises: the lock-step width and the primitive. */
typedef struct {
    sync_mode mode; /* SYNC_BARRIER, SYNC_SUB_GROUP or SYNC_WARP_PTX */
    size_t width;   /* LOCKSTEP */
    char why[256];
} lockstep;

static int has_c_feature(const oclt_device *dev, const char *name) {
    size_t size = 0;
    if (dev->device_version < 300 ||
        clGetDeviceInfo(dev->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) != CL_SUCCESS ||
        size == 0)
        return 0;
    cl_name_version *features = malloc(size);
    int found = 0;
    if (features && clGetDeviceInfo(dev->device, CL_DEVICE_OPENCL_C_FEATURES, size, features,
                                    NULL) == CL_SUCCESS)
        for (size_t i = 0; i < size / sizeof *features; ++i)
            if (strcmp(features[i].name, name) == 0) found = 1;
    free(features);
    return found;
}

static int has_fp64(const oclt_device *dev) {
    return oclt_device_has_extension(dev->device, "cl_khr_fp64") ||
           has_c_feature(dev, "__opencl_c_fp64");
}

/* The -cl-std option sub-groups need, or NULL when the device has none: OpenCL C 3.0 with the
 * __opencl_c_subgroups feature, or cl_khr_subgroups on OpenCL C 2.x. The size query is core in
 * OpenCL 2.1, so older platforms are treated as having none. */
static const char *sub_group_std(const oclt_device *dev) {
    if (dev->platform_version < 210 || dev->device_version < 210) return NULL;
    if (dev->c_version >= 300 && has_c_feature(dev, "__opencl_c_subgroups")) return "-cl-std=CL3.0";
    if (dev->c_version >= 200 && oclt_device_has_extension(dev->device, "cl_khr_subgroups"))
        return "-cl-std=CL2.0";
    return NULL;
}

typedef struct {
    int type;
    size_t local;
    tuning tune;
    lockstep lock;
} build_config;

static cl_program build_program(const oclt_device *dev, const build_config *c) {
    char options[512];
    int n = snprintf(options, sizeof options,
                     "-DT=%s -DIDENTITY=%s -DBLOCK_SIZE=%zu -DLOCKSTEP=%zu -DVEC=%u -DUNROLL=%u "
                     "-DBLOCKED=%d",
                     types[c->type], identities[c->type], c->local, c->lock.width, c->tune.vec,
                     c->tune.unroll, c->tune.order == ORDER_BLOCKED);
    if (c->type == TYPE_DOUBLE)
        n += snprintf(options + n, sizeof options - (size_t)n, " -DUSE_FP64");
    if (c->lock.mode == SYNC_WARP_PTX)
        n += snprintf(options + n, sizeof options - (size_t)n, " -DSYNC_WARP_PTX");
    if (c->lock.mode == SYNC_SUB_GROUP)
        snprintf(options + n, sizeof options - (size_t)n, " -DSYNC_SUB_GROUP %s",
                 sub_group_std(dev));
    return oclt_build_file(dev->context, dev->device, "reduce.cl", options);
}

/* CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE of one kernel for the launched group size. */
static size_t sub_group_size(const oclt_device *dev, cl_program program, const char *name,
                             size_t local) {
    size_t width = 0;
    cl_kernel kernel = oclt_create_kernel(program, name);
    if (!kernel) return 0;
    if (OCLT_CHECK(clGetKernelSubGroupInfo(kernel, dev->device,
                                           CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                           &local, sizeof width, &width, NULL)))
        width = 0;
    clReleaseKernel(kernel);
    return width;
}

/* Decides the tail's synchronisation for this device and group size and builds the program
 * for it. NVIDIA: warp 32 with bar.warp.sync (inline PTX). Sub-groups: their size, measured on
 * the built kernels, with sub_group_barrier. Otherwise (or when the choice does not fit):
 * work-group barriers, which are always correct. Returns the program, or NULL. */
static cl_program choose_lockstep_and_build(const oclt_device *dev, build_config *c) {
    lockstep *lock = &c->lock;
    const int nvidia = strstr(dev->platform_name, "NVIDIA") != NULL;
    const char *sub_groups = sub_group_std(dev);
    sync_mode want = c->tune.sync;
    /* On a CPU a sub-group barrier buys nothing over a work-group barrier (PoCL runs a group's
     * work-items as one loop and splits it at either), so auto keeps the simpler one there. */
    const int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    if (want == SYNC_AUTO)
        want = nvidia ? SYNC_WARP_PTX : sub_groups && !cpu ? SYNC_SUB_GROUP : SYNC_BARRIER;

    if (want == SYNC_WARP_PTX && c->local >= 32) {
        lock->mode = SYNC_WARP_PTX;
        lock->width = 32;
        snprintf(lock->why, sizeof lock->why,
                 "NVIDIA platform: warp of 32, bar.warp.sync (inline PTX) between steps");
        cl_program program = build_program(dev, c);
        if (program) return program;
        printf("  inline PTX did not build (log above): falling back to work-group barriers\n");
        snprintf(lock->why, sizeof lock->why,
                 "NVIDIA, but the inline PTX did not build: work-group barriers");
    } else if (want == SYNC_SUB_GROUP) {
        /* The sub-group size belongs to the compiled kernel: build, measure, rebuild with it,
         * and keep it only if every tail kernel still reports the same size. */
        lock->mode = SYNC_SUB_GROUP;
        lock->width = 2;
        cl_program probe = build_program(dev, c);
        if (!probe) return NULL;
        size_t width = sub_group_size(dev, probe, "reduce4", c->local);
        clReleaseProgram(probe);
        /* A sub-group as wide as a warp or wavefront is a lock-step unit worth using; one that
         * spans the whole group (PoCL 6) is a work-group barrier by another name, and PoCL
         * takes minutes to compile the tail unrolled that wide. SYNC=subgroup forces it. */
        const size_t widest = c->tune.sync == SYNC_SUB_GROUP ? c->local : 64;
        if (width >= 2 && (width & (width - 1)) == 0 && width <= c->local && width <= widest) {
            lock->width = width;
            cl_program program = build_program(dev, c);
            if (!program) return NULL;
            static const char *const tails[] = {"reduce4", "reduce5", "reduce6"};
            int same = 1;
            for (int k = 0; k < 3; ++k)
                same = same && sub_group_size(dev, program, tails[k], c->local) == width;
            if (same) {
                snprintf(lock->why, sizeof lock->why,
                         "sub-groups of %zu work-items (%s), sub_group_barrier between steps",
                         width, sub_groups);
                return program;
            }
            clReleaseProgram(program);
            snprintf(lock->why, sizeof lock->why,
                     "sub-group size differs between kernels: work-group barriers");
        } else {
            snprintf(lock->why, sizeof lock->why,
                     "sub-groups of %zu work-items are no lock-step unit (a power of two, 2..%zu): "
                     "work-group barriers",
                     width, widest < c->local ? widest : c->local);
        }
    }
    if (want == SYNC_WARP_PTX && c->local < 32)
        snprintf(lock->why, sizeof lock->why,
                 "NVIDIA, but --local %zu is smaller than a warp: work-group barriers", c->local);
    else if (want == SYNC_BARRIER)
        snprintf(lock->why, sizeof lock->why,
                 c->tune.sync == SYNC_BARRIER ? "forced by OCLT_REDUCE_TUNE: work-group barriers"
                 : sub_groups && cpu
                     ? "a CPU device: sub-group barriers would cost the same, so work-group "
                       "barriers between the unrolled steps (SYNC=subgroup forces them)"
                     : "no warp or sub-group primitive on this device: work-group barriers "
                       "between the unrolled steps");
    lock->mode = SYNC_BARRIER;
    lock->width = 32;
    return build_program(dev, c);
}

/* The largest power of two not above limit (limit >= 1). */
static size_t power_of_two_below(size_t limit) {
    size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

/* The smallest CL_KERNEL_WORK_GROUP_SIZE among the kernels this run launches. */
static size_t kernel_group_limit(const oclt_device *dev, cl_program program, const int *selected) {
    size_t limit = SIZE_MAX;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!selected[v]) continue;
        cl_kernel kernel = oclt_create_kernel(program, variants[v].name);
        size_t value = 0;
        if (!kernel ||
            OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                sizeof value, &value, NULL)))
            value = 0;
        if (kernel) clReleaseKernel(kernel);
        if (value < limit) limit = value;
    }
    return limit;
}

/* ---- 2. Data and the CPU reference ------------------------------------------------------ */

typedef struct {
    double sum, sum_abs; /* float/double: Neumaier-compensated sum and sum of |x| */
    int64_t int_sum;     /* int: exact */
} reference;

/* Neumaier's compensated sum: the error is about one rounding of the result, whatever n. */
typedef struct {
    double sum, compensation;
} compensated;

static void add_compensated(compensated *c, double x) {
    double t = c->sum + x;
    if (fabs(c->sum) >= fabs(x))
        c->compensation += (c->sum - t) + x;
    else
        c->compensation += (x - t) + c->sum;
    c->sum = t;
}

/* Sum of `count` elements of the given type, compensated (or exact for int). */
static reference sum_on_host(const void *data, int type, size_t count) {
    reference r = {0.0, 0.0, 0};
    compensated c = {0.0, 0.0};
    for (size_t i = 0; i < count; ++i) {
        if (type == TYPE_INT) {
            r.int_sum += ((const int32_t *)data)[i];
            continue;
        }
        double x = type == TYPE_FLOAT ? ((const float *)data)[i] : ((const double *)data)[i];
        add_compensated(&c, x);
        r.sum_abs += fabs(x);
    }
    r.sum = c.sum + c.compensation;
    return r;
}

/* ---- 3. Passes ------------------------------------------------------------------------ */

typedef struct {
    size_t count;  /* elements this pass reads */
    size_t groups; /* work-groups it launches: one partial sum each */
} pass_plan;

typedef struct {
    size_t local, max_groups; /* max_groups: compute units x GROUPS_PER_CU */
    unsigned vec, unroll;
} geometry;

static size_t div_up(size_t a, size_t b) {
    return (a + b - 1) / b;
}

/* Groups of a grid-stride pass over `count` elements: at most max_groups, and only as many as
 * give each work-item 8 unrolled iterations, so a pass over a few thousand partials is a
 * single group. */
static size_t sweep_groups(const geometry *g, size_t count) {
    size_t groups = div_up(count, g->local * g->vec * g->unroll * 8);
    return groups < 1 ? 1 : groups > g->max_groups ? g->max_groups : groups;
}

/* The passes of one variant: each turns `count` elements into `groups` partial sums, until one
 * is left (reduce*), or one pass leaving a partial per work-item (the reference reads). */
static size_t plan_passes(int v, size_t n, const geometry *g, pass_plan *passes) {
    size_t count = n, pass_count = 0;
    do {
        size_t groups = plans[v].shape == ONE_PER_ITEM    ? div_up(count, g->local)
                        : plans[v].shape == PAIR_PER_ITEM ? div_up(count, 2 * g->local)
                                                          : sweep_groups(g, count);
        passes[pass_count++] = (pass_plan){count, groups};
        count = groups;
    } while (plans[v].reduces && count > 1 && pass_count < MAX_PASSES);
    return pass_count;
}

static size_t log2_size(size_t x) {
    size_t k = 0;
    while (x > 1) x >>= 1, ++k;
    return k;
}

/* Elements one work-item of a sweep adds up in registers at most (its vectors, then its share
 * of the count % vec left-over elements; >= 1 as count >= 1), the same bound in both orders. */
static size_t sweep_items(const geometry *g, const pass_plan *p) {
    size_t vectors = p->count / g->vec, stride = p->groups * g->local;
    return g->vec * div_up(vectors, stride) + div_up(p->count % g->vec, stride);
}

/* The longest chain of additions any input element passes through (for the float bound): in a
 * pass, the adds in registers of one work-item (one fewer than its elements) plus the tree's
 * log2(local) levels; summed over the passes. */
static size_t addition_chain(int v, const geometry *g, const pass_plan *passes, size_t count) {
    size_t chain = 0, tree = log2_size(g->local);
    for (size_t p = 0; p < count; ++p) {
        size_t in_registers = 0; /* ONE_PER_ITEM: the element goes straight into the tree */
        if (plans[v].shape == PAIR_PER_ITEM) in_registers = 1;
        if (plans[v].shape == SWEEP) in_registers = sweep_items(g, &passes[p]) - 1;
        chain += in_registers + (plans[v].reduces ? tree : 0);
    }
    return chain;
}

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    int variant;
    const pass_plan *passes;
    size_t pass_count;
    size_t local, elem_size;
    cl_mem input, partial[2];
    size_t partial_bytes;
    const void *poison;
    double *pass_ms; /* [call][pass] */
    int calls, max_calls;
} launch;

/* The buffer that pass p writes (ping-pong: a pass never writes what it reads). */
static cl_mem pass_output(const launch *l, size_t p) {
    return l->partial[p % 2];
}

/* One measured run: poison both partial buffers, enqueue every pass, wait, and add up the
 * passes' device times. */
static cl_int run_passes(void *context, double *ms) {
    launch *l = context;
    cl_event events[MAX_PASSES];
    size_t enqueued = 0;
    cl_int err = CL_SUCCESS;
    for (int b = 0; b < 2 && !err; ++b)
        err = OCLT_CHECK(clEnqueueWriteBuffer(l->dev->queue, l->partial[b], CL_TRUE, 0,
                                              l->partial_bytes, l->poison, 0, NULL, NULL));
    for (size_t p = 0; p < l->pass_count && !err; ++p) {
        cl_mem in = p == 0 ? l->input : pass_output(l, p - 1), out = pass_output(l, p);
        cl_uint count = (cl_uint)l->passes[p].count;
        size_t global = l->passes[p].groups * l->local;
        if (OCLT_ARG(l->kernel, 0, in) || OCLT_ARG(l->kernel, 1, out) ||
            OCLT_ARG(l->kernel, 2, count)) {
            err = CL_INVALID_KERNEL_ARGS;
            break;
        }
        if (plans[l->variant].local_arg)
            err = OCLT_CHECK(clSetKernelArg(l->kernel, 3, l->local * l->elem_size, NULL));
        if (!err)
            err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 1, &global, &l->local, 0, NULL,
                                      &events[enqueued], variants[l->variant].name);
        if (!err) ++enqueued;
    }
    if (!err && enqueued) err = OCLT_CHECK(clWaitForEvents((cl_uint)enqueued, events));
    double total = 0.0;
    for (size_t p = 0; p < enqueued; ++p) {
        double t = err ? -1.0 : oclt_event_ms(events[p]);
        if (t < 0 && !err) err = CL_PROFILING_INFO_NOT_AVAILABLE;
        if (l->calls < l->max_calls) l->pass_ms[(size_t)l->calls * l->pass_count + p] = t;
        total += t;
        clReleaseEvent(events[p]);
    }
    ++l->calls;
    *ms = total;
    return err;
}

/* ---- 4. Check --------------------------------------------------------------------------- */

typedef struct {
    oclt_status status;
    double error, bound; /* float/double only */
} check_result;

/* Reads the result (reductions: one value; reference reads: one partial per work-item, added on
 * the host) and compares it with the CPU reference. */
static check_result check_sum(const launch *l, const geometry *g, int type, const reference *ref,
                              size_t n) {
    check_result r = {OCLT_FAIL, 0.0, 0.0};
    const pass_plan *last = &l->passes[l->pass_count - 1];
    size_t count = plans[l->variant].reduces ? 1 : last->groups * l->local;
    void *host = malloc(count * l->elem_size);
    if (!host) return r;
    if (OCLT_CHECK(clEnqueueReadBuffer(l->dev->queue, pass_output(l, l->pass_count - 1), CL_TRUE, 0,
                                       count * l->elem_size, host, 0, NULL, NULL))) {
        free(host);
        return r;
    }
    reference got = sum_on_host(host, type, count);
    free(host);
    if (type == TYPE_INT) {
        int32_t value = (int32_t)got.int_sum, expected = (int32_t)ref->int_sum;
        r.status = oclt_compare_int("sum", &value, &expected, 1) ? OCLT_FAIL : OCLT_PASS;
        return r;
    }
    /* Device: gamma(chain) * sum|x| with the unit roundoff of the type. Reference and the host
     * sum of partials (compensated): a few roundings of the result in double each. */
    const double u = type == TYPE_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    size_t chain = addition_chain(l->variant, g, l->passes, l->pass_count);
    r.bound = oclt_sum_error_bound(u, chain, ref->sum_abs) + 4 * DBL_EPSILON * fabs(ref->sum) +
              4.0 * (double)(n + count) * DBL_EPSILON * DBL_EPSILON * ref->sum_abs;
    r.error = fabs(got.sum - ref->sum);
    /* A float result converts to double exactly; NaN (an unwritten, poisoned value) fails. */
    r.status =
        oclt_compare_double("sum", &got.sum, &ref->sum, NULL, r.bound, 1) ? OCLT_FAIL : OCLT_PASS;
    return r;
}

/* ---- 5. The lesson ---------------------------------------------------------------------- */

/* Median over the timed calls (the first call is the warm-up) of each pass's time. */
static void print_passes(const launch *l, int reps) {
    printf("      %zu pass%s (median ms):", l->pass_count, l->pass_count == 1 ? "" : "es");
    double *values = malloc((size_t)reps * sizeof *values);
    for (size_t p = 0; p < l->pass_count && values; ++p) {
        for (int r = 0; r < reps; ++r) values[r] = l->pass_ms[(size_t)(r + 1) * l->pass_count + p];
        printf("%s %.4f [%zu -> %zu]", p ? " +" : "", oclt_median(values, (size_t)reps),
               l->passes[p].count,
               plans[l->variant].reduces ? l->passes[p].groups : l->passes[p].groups * l->local);
        if (p == 5 && l->pass_count > 7) {
            printf(" + ... (%zu more)", l->pass_count - 6);
            break;
        }
    }
    putchar('\n');
    free(values);
}

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    const size_t n = opt.size[0];
    if (n > MAX_ELEMENTS)
        return oclt_usage_error(&spec,
                                "--size %zu is too large: at most 2^31-1 elements (the kernels "
                                "index with 32-bit unsigned ints)",
                                n);
    if (opt.local == 1)
        return oclt_usage_error(&spec, "--local 1 is too small: a reduction step needs at least 2 "
                                       "work-items per group");
    tuning tune;
    if (parse_tuning(getenv("OCLT_REDUCE_TUNE"), &tune)) return OCLT_EXIT_USAGE;

    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    const int type = opt.type;
    const size_t elem_size = type_sizes[type];

    /* Limits of this device for --local and the forced sync, before any build or buffer. */
    size_t item_max[3] = {0, 0, 0};
    const size_t device_max = oclt_device_size(dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    const cl_ulong local_mem = oclt_device_ulong(dev.device, CL_DEVICE_LOCAL_MEM_SIZE);
    const cl_uint compute_units = oclt_device_uint(dev.device, CL_DEVICE_MAX_COMPUTE_UNITS);
    if (OCLT_CHECK(clGetDeviceInfo(dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max,
                                   item_max, NULL))) {
        rc = OCLT_EXIT_FAIL;
        goto close_device;
    }
    if (opt.local > device_max) {
        rc = oclt_usage_error(&spec, "--local %zu exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE %zu of %s",
                              opt.local, device_max, dev.device_name);
        goto close_device;
    }
    if (opt.local > item_max[0]) {
        rc = oclt_usage_error(&spec,
                              "--local %zu exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES[0] %zu of %s",
                              opt.local, item_max[0], dev.device_name);
        goto close_device;
    }
    if (opt.local * elem_size > local_mem) {
        rc = oclt_usage_error(&spec,
                              "--local %zu needs %zu bytes of local memory but %s has %llu "
                              "(CL_DEVICE_LOCAL_MEM_SIZE)",
                              opt.local, opt.local * elem_size, dev.device_name,
                              (unsigned long long)local_mem);
        goto close_device;
    }

    /* What the device lacks for this run: every variant is a SKIP. */
    const char *missing = NULL;
    if (type == TYPE_DOUBLE && !has_fp64(&dev))
        missing = "double needs cl_khr_fp64 / __opencl_c_fp64";
    else if (tune.sync == SYNC_WARP_PTX && !strstr(dev.platform_name, "NVIDIA"))
        missing = "OCLT_REDUCE_TUNE SYNC=ptx needs an NVIDIA platform";
    else if (tune.sync == SYNC_SUB_GROUP && !sub_group_std(&dev))
        missing = "OCLT_REDUCE_TUNE SYNC=subgroup needs sub-groups (OpenCL 2.1+)";
    oclt_report report;
    char name[64], size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", n);
    if (missing) {
        oclt_report_begin(&report, &spec, &opt, &dev);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            if (!opt.selected[v]) continue;
            snprintf(name, sizeof name, "%s/%s", variants[v].name, types[type]);
            oclt_report_result(&report, name, size_text, -1, -1, NULL, OCLT_SKIP, missing);
        }
        rc = oclt_report_exit_code(&report);
        goto close_device;
    }

    /* ---- 1. Work-group size, tail synchronisation, program ---- */
    default_tuning(&dev, elem_size, &tune);
    build_config config = {type, opt.local, tune, {SYNC_BARRIER, 32, ""}};
    if (!config.local) {
        size_t limit = device_max < item_max[0] ? device_max : item_max[0];
        if (limit > local_mem / elem_size) limit = (size_t)(local_mem / elem_size);
        config.local = power_of_two_below(limit < 256 ? limit : 256);
        if (config.local < 2) {
            fprintf(stderr, "%s allows groups of 1 only: a reduction step needs 2 work-items\n",
                    dev.device_name);
            rc = OCLT_EXIT_SKIP;
            goto close_device;
        }
    }
    cl_program program = choose_lockstep_and_build(&dev, &config);
    if (!program) {
        rc = OCLT_EXIT_FAIL;
        goto close_device;
    }
    const size_t kernel_max = kernel_group_limit(&dev, program, opt.selected);
    if (config.local > kernel_max) {
        if (opt.local) {
            rc = oclt_usage_error(&spec,
                                  "--local %zu exceeds CL_KERNEL_WORK_GROUP_SIZE %zu (the smallest "
                                  "of the selected kernels on %s)",
                                  opt.local, kernel_max, dev.device_name);
            goto release_program;
        }
        clReleaseProgram(program);
        config.local = power_of_two_below(kernel_max);
        program = config.local >= 2 ? choose_lockstep_and_build(&dev, &config) : NULL;
        if (!program) {
            rc = OCLT_EXIT_FAIL;
            goto close_device;
        }
    }
    const size_t local = config.local;
    const geometry geo = {local, (size_t)compute_units * config.tune.groups_per_cu, config.tune.vec,
                          config.tune.unroll};

    /* Partial sums: the first pass writes the most (one per group, or one per work-item). */
    size_t partial_count = div_up(n, local);
    if (sweep_groups(&geo, n) * local > partial_count)
        partial_count = sweep_groups(&geo, n) * local;
    const size_t input_bytes = n * elem_size, partial_bytes = partial_count * elem_size;
    rc = oclt_require_memory(&spec, &dev, input_bytes, input_bytes + 2 * partial_bytes, "--size");
    if (rc) goto release_program;

    oclt_report_begin(&report, &spec, &opt, &dev);

    printf("  n        %zu %s (%.2f MiB)\n", n, types[type], (double)input_bytes / (1 << 20));
    printf("  local    %zu work-items per group%s\n", local,
           opt.local ? " (--local)" : " (min of 256 and the device's and kernels' limits)");
    printf("  tail     LOCKSTEP=%zu: %s\n", config.lock.width, config.lock.why);
    printf("  sweep    ORDER=%s VEC=%u UNROLL=%u GROUPS_PER_CU=%u -> at most %zu groups on %u "
           "compute units (OCLT_REDUCE_TUNE overrides)\n",
           order_names[config.tune.order], config.tune.vec, config.tune.unroll,
           config.tune.groups_per_cu, geo.max_groups, compute_units);

    /* ---- 2. Data ---- */
    cl_mem input = NULL, partial[2] = {NULL, NULL};
    void *poison = NULL;
    cl_int err = CL_SUCCESS;
    void *host = malloc(input_bytes);
    if (!host) {
        fprintf(stderr, "out of host memory for %zu bytes\n", input_bytes);
        rc = OCLT_EXIT_FAIL;
        goto release_program;
    }
    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    if (type == TYPE_FLOAT) oclt_fill_float(&rng, host, n, -1.0f, 1.0f);
    if (type == TYPE_DOUBLE) oclt_fill_double(&rng, host, n, -1.0, 1.0);
    if (type == TYPE_INT) {
        /* |x| <= INT32_MAX / n: no partial sum of any subset can overflow. */
        size_t range = 0x7FFFFFFF / n;
        int32_t r = (int32_t)(range < 1000 ? range : 1000);
        oclt_fill_int(&rng, host, n, -r, r);
    }
    reference ref = {0.0, 0.0, 0};
    if (opt.check) ref = sum_on_host(host, type, n);
    input = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, input_bytes, host,
                           &err);
    free(host);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(input)")) {
        rc = OCLT_EXIT_FAIL;
        goto release_program;
    }
    /* Partial sums, poisoned before every run. The poison is written from host memory rather
     * than with clEnqueueFillBuffer (oclt_poison_buffer): after a fill, Oclgrind 21.10's
     * --uninitialized check reports what the next kernel reads back as undefined. */
    poison = malloc(partial_bytes);
    if (!poison) {
        rc = OCLT_EXIT_FAIL;
        goto release_buffers;
    }
    oclt_poison_host(poison, partial_bytes);
    for (int b = 0; b < 2; ++b) {
        partial[b] = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, partial_bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(partial)")) {
            rc = OCLT_EXIT_FAIL;
            goto release_buffers;
        }
    }

    /* ---- 3..5. Each variant: passes, timing, check, report ---- */
    double stream_gbps = -1.0, reduce0_ms = -1.0, previous_ms = -1.0;
    const char *previous_name = NULL;
    printf("\n  %-22s %-14s %14s %19s\n", "variant", "n", "time (all passes)", "bandwidth");
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!opt.selected[v]) continue;
        snprintf(name, sizeof name, "%s/%s", variants[v].name, types[type]);
        if (v == REDUCE4_RACY && local < 64) {
            oclt_report_result(&report, name, size_text, -1, -1, NULL, OCLT_SKIP,
                               "the classic tail reads s[lid + 32]: needs --local >= 64");
            continue;
        }
        pass_plan passes[MAX_PASSES];
        launch l = {.dev = &dev,
                    .variant = v,
                    .passes = passes,
                    .pass_count = plan_passes(v, n, &geo, passes),
                    .local = local,
                    .elem_size = elem_size,
                    .input = input,
                    .partial = {partial[0], partial[1]},
                    .partial_bytes = partial_bytes,
                    .poison = poison,
                    .max_calls = opt.reps + 1};
        l.pass_ms = calloc((size_t)l.max_calls * l.pass_count, sizeof *l.pass_ms);
        l.kernel = oclt_create_kernel(program, variants[v].name);
        double ms = -1.0;
        oclt_status status = OCLT_FAIL;
        check_result check = {OCLT_UNCHECKED, 0.0, 0.0};
        if (l.pass_ms && l.kernel && !oclt_time_median(run_passes, &l, opt.reps, &ms)) {
            status = OCLT_UNCHECKED;
            if (opt.check) status = (check = check_sum(&l, &geo, type, &ref, n)).status;
        }
        double gbps = ms > 0 ? (double)input_bytes / (ms * 1e6) : -1.0;
        char note[160] = "";
        int used = 0;
        if (v == STREAM_READ && ms > 0) stream_gbps = gbps;
        if (plans[v].reduces && ms > 0) {
            if (previous_name && v != REDUCE4_RACY)
                used += snprintf(note + used, sizeof note - (size_t)used, "x%.2f vs %s, ",
                                 previous_ms / ms, previous_name);
            if (reduce0_ms > 0 && reduce0_ms != previous_ms)
                used += snprintf(note + used, sizeof note - (size_t)used, "x%.1f vs reduce0, ",
                                 reduce0_ms / ms);
            if (v == REDUCE0) reduce0_ms = ms;
            if (v != REDUCE4_RACY) previous_ms = ms, previous_name = variants[v].name;
        }
        if (stream_gbps > 0 && ms > 0 && v != STREAM_READ)
            used += snprintf(note + used, sizeof note - (size_t)used, "%.0f%% of stream_read, ",
                             100.0 * gbps / stream_gbps);
        if (used >= 2) note[used - 2] = '\0';
        oclt_report_result(&report, name, size_text, ms, gbps, "GB/s", status,
                           note[0] ? note : NULL);
        if (ms > 0) print_passes(&l, opt.reps);
        if (opt.check && type != TYPE_INT && ms > 0)
            printf("      error %.3g, bound %.3g (chain of %zu additions)\n", check.error,
                   check.bound, addition_chain(v, &geo, passes, l.pass_count));
        if (l.kernel) clReleaseKernel(l.kernel);
        free(l.pass_ms);
    }
    rc = oclt_report_exit_code(&report);

release_buffers:
    free(poison);
    for (int b = 0; b < 2; ++b)
        if (partial[b]) clReleaseMemObject(partial[b]);
    clReleaseMemObject(input);
release_program:
    clReleaseProgram(program);
close_device:
    oclt_close_device(&dev);
    return rc;
}
