/* Chapter 05's tuning: defaults for a device, the OCLT_MATMUL_TUNE override, and the checks of
 * every constraint that matmul.cl states next to its defines. */
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *key;
    size_t offset;
} tuning_key;

static const tuning_key keys[] = {
    {"TS", offsetof(matmul_tuning, ts)},           {"WPT", offsetof(matmul_tuning, wpt)},
    {"WIDTH", offsetof(matmul_tuning, width)},     {"TSM", offsetof(matmul_tuning, tsm)},
    {"TSN", offsetof(matmul_tuning, tsn)},         {"TSK", offsetof(matmul_tuning, tsk)},
    {"WPTM", offsetof(matmul_tuning, wptm)},       {"WPTN", offsetof(matmul_tuning, wptn)},
    {"VWN", offsetof(matmul_tuning, vwn)},         {"BM", offsetof(matmul_tuning, bm)},
    {"BN", offsetof(matmul_tuning, bn)},           {"BK", offsetof(matmul_tuning, bk)},
    {"TM", offsetof(matmul_tuning, tm)},           {"TN", offsetof(matmul_tuning, tn)},
    {"VW", offsetof(matmul_tuning, vw)},           {"WIM", offsetof(matmul_tuning, wim)},
    {"WIN", offsetof(matmul_tuning, win)},         {"GROUP_M", offsetof(matmul_tuning, group_m)},
    {"SPLIT_K", offsetof(matmul_tuning, split_k)}, {"FMA_ROWS", offsetof(matmul_tuning, fma_rows)},
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

const char *const matmul_advanced_keys[] = {"BM",  "BN",  "BK",      "TM",      "TN",      "VW",
                                            "WIM", "WIN", "GROUP_M", "SPLIT_K", "FMA_ROWS"};
_Static_assert(sizeof matmul_advanced_keys / sizeof *matmul_advanced_keys ==
                   MATMUL_ADVANCED_KEY_COUNT,
               "MATMUL_ADVANCED_KEY_COUNT counts matmul_advanced_keys");

static int is_advanced_key(const char *key) {
    for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT; ++k)
        if (!strcmp(matmul_advanced_keys[k], key)) return 1;
    return 0;
}

static int *field(matmul_tuning *t, size_t k) {
    return (int *)((char *)t + keys[k].offset);
}

int *matmul_tuning_field(matmul_tuning *t, const char *key) {
    for (size_t k = 0; k < KEY_COUNT; ++k)
        if (strcmp(keys[k].key, key) == 0) return field(t, k);
    return NULL;
}

int matmul_read_tuning_override(const oclt_cli_spec *spec, matmul_tuning_override *override) {
    memset(override, 0, sizeof *override);
    const char *text = getenv(MATMUL_TUNE_ENV);
    if (!text || !*text) return 0;
    override->text = text;
    const char *item = text;
    for (;;) {
        size_t len = strcspn(item, ",");
        const char *equals = memchr(item, '=', len);
        if (!equals)
            return oclt_usage_error(spec,
                                    "%s='%s': '%.*s' is not KEY=VALUE (keys: TS WPT WIDTH "
                                    "TSM TSN TSK WPTM WPTN VWN BM BN BK TM TN VW WIM WIN GROUP_M "
                                    "SPLIT_K FMA_ROWS)",
                                    MATMUL_TUNE_ENV, text, (int)len, item);
        size_t key_len = (size_t)(equals - item);
        size_t k = 0;
        while (k < KEY_COUNT &&
               !(strlen(keys[k].key) == key_len && strncmp(keys[k].key, item, key_len) == 0))
            ++k;
        if (k == KEY_COUNT)
            return oclt_usage_error(spec,
                                    "%s: unknown key '%.*s' (keys: TS WPT WIDTH TSM TSN "
                                    "TSK WPTM WPTN VWN BM BN BK TM TN VW WIM WIN GROUP_M "
                                    "SPLIT_K FMA_ROWS)",
                                    MATMUL_TUNE_ENV, (int)key_len, item);
        char digits[16];
        size_t value_len = len - key_len - 1;
        long value = -1;
        if (value_len > 0 && value_len < sizeof digits) {
            memcpy(digits, equals + 1, value_len);
            digits[value_len] = '\0';
            char *end = NULL;
            if (digits[0] >= '0' && digits[0] <= '9') value = strtol(digits, &end, 10);
            if (!end || *end != '\0') value = -1;
        }
        if (value < 1 || value > 1024)
            return oclt_usage_error(spec, "%s: %s='%.*s' must be a whole number from 1 to 1024",
                                    MATMUL_TUNE_ENV, keys[k].key, (int)value_len, equals + 1);
        *field(&override->value, k) = (int)value;
        if (item[len] == '\0') break;
        item += len + 1;
    }
    return 0;
}

int matmul_query_limits(const oclt_device *dev, matmul_device_limits *limits) {
    size_t items[3] = {0, 0, 0}; /* left at 0 if the query fails */
    const cl_int err = OCLT_CHECK(
        clGetDeviceInfo(dev->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL));
    limits->is_cpu = (dev->type & CL_DEVICE_TYPE_CPU) && !(dev->type & CL_DEVICE_TYPE_GPU);
    limits->max_work_group = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    limits->max_item[0] = items[0];
    limits->max_item[1] = items[1];
    limits->local_mem = oclt_device_ulong(dev->device, CL_DEVICE_LOCAL_MEM_SIZE);
    limits->compute_units = oclt_device_uint(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS);
    /* A device-wide value from OpenCL 3.0 on (kernels report their own after the build); only
     * a hint, so a device that does not answer gets 1. */
    size_t multiple = 0;
    if (dev->device_version >= 300 &&
        clGetDeviceInfo(dev->device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple,
                        &multiple, NULL) != CL_SUCCESS)
        multiple = 0;
    limits->preferred_multiple = multiple ? multiple : 1;
    /* Each of these is at least 1 on any device; 0 means its query failed. */
    return err || !limits->max_work_group || !limits->local_mem || !limits->compute_units ? -1 : 0;
}

size_t matmul_local_bytes_tiled(const matmul_tuning *t) {
    return 2u * (size_t)t->ts * (size_t)t->ts * sizeof(float);
}

size_t matmul_local_bytes_vector(const matmul_tuning *t) {
    return ((size_t)t->ts * t->ts + (size_t)t->ts * (t->ts + t->width)) * sizeof(float);
}

/* Two buffers of an A tile (TSK rows of TSM + 4 floats: APAD = one float4) and a B tile. */
size_t matmul_local_bytes_double_buffer(const matmul_tuning *t) {
    return 2u * (size_t)t->tsk * (size_t)(t->tsm + 4 + t->tsn) * sizeof(float);
}

/* Two buffers of the warp_tiled step's A tile (BK rows of BM floats, no padding) and B tile. */
size_t matmul_local_bytes_warp_tiled(const matmul_tuning *t) {
    return 2u * (size_t)t->bk * (size_t)(t->bm + t->bn) * sizeof(float);
}

/* The first constraint of warp_tiled the tuning breaks, as a phrase; NULL when all hold. */
static const char *broken_warp_tiled(const matmul_tuning *t, const matmul_device_limits *limits,
                                     char *why, size_t size);

/* warp_tiled and split_k before autotune.c picks by device and size (its table, the cache of
 * --tune): GPUs a 128 x 128 block of 256 items, 8 x 8 each, warps of 8 x 4 items; CPUs the
 * register block of double_buffer, one "warp" per item. A device with less local memory or
 * smaller work-groups gets the first smaller block that fits it. */
static void default_warp_tiled(const matmul_device_limits *limits, matmul_tuning *t) {
    static const int blocks[][8] = {/* BM, BN, BK, TM, TN, VW, WIM, WIN */
                                    {128, 128, 16, 8, 8, 4, 8, 4}, {128, 128, 8, 8, 8, 4, 8, 4},
                                    {64, 64, 16, 8, 8, 4, 4, 2},   {64, 64, 8, 8, 8, 4, 4, 2},
                                    {32, 32, 8, 8, 8, 4, 4, 4},    {16, 16, 4, 4, 4, 4, 4, 4}};
    char why[256];
    t->group_m = 8, t->split_k = 1, t->fma_rows = 4;
    if (limits->is_cpu) {
        t->bm = 64, t->bn = 128, t->bk = 16, t->tm = 8, t->tn = 32, t->vw = 16;
        t->wim = t->win = 1;
        if (!broken_warp_tiled(t, limits, why, sizeof why)) return;
    }
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b) {
        const int *v = blocks[b];
        t->bm = v[0], t->bn = v[1], t->bk = v[2], t->tm = v[3], t->tn = v[4], t->vw = v[5];
        t->wim = v[6], t->win = v[7];
        if (!broken_warp_tiled(t, limits, why, sizeof why)) return;
    }
}

/* Defaults. GPUs: 32 x 32 tiles for the simple kernels (1024 items where allowed), WPT so that
 * more_work's groups stay a multiple of the preferred work-group multiple (a warp, a wavefront),
 * and the well-known 128 x 128 block per group of 256 items, each an 8 x 8 register block of
 * float4 pieces, 16 deep if two buffers fit in local memory. CPUs (a work-group runs as a loop
 * on one core, local memory is ordinary cached memory): vectors of 16 floats (one AVX-512
 * register), and 4 x 64 per item, 16 vector accumulators fed per k by one float4 of A (4
 * broadcasts) and 4 vectors of B, in a 64 x 256 block of 64 items; deep k-steps (128), since
 * each barrier ends a loop over the group's items. 4 x 64 beat 8 x 32 (8 broadcasts and 2
 * vectors per k) by about 1.3x on PoCL 3.1, AVX-512 (docs/05_matmul_tiled_vector.md). */
static void default_tuning(const matmul_device_limits *limits, matmul_tuning *t) {
    if (limits->is_cpu) {
        *t = (matmul_tuning){.ts = 32,
                             .wpt = 8,
                             .width = 16,
                             .tsm = 64,
                             .tsn = 256,
                             .tsk = 128,
                             .wptm = 4,
                             .wptn = 64,
                             .vwn = 16};
        /* 324 KiB for double_buffer's two buffers: shallower where local memory is smaller
         * (TSK/4 vectors of each tile per item still whole). */
        while (t->tsk > 8 && matmul_local_bytes_double_buffer(t) > limits->local_mem) t->tsk /= 2;
        default_warp_tiled(limits, t);
        return;
    }
    t->ts = 32;
    while (t->ts > 4 &&
           ((size_t)t->ts * t->ts > limits->max_work_group || (size_t)t->ts > limits->max_item[0] ||
            (size_t)t->ts > limits->max_item[1] || matmul_local_bytes_tiled(t) > limits->local_mem))
        t->ts /= 2;
    t->wpt = 8;
    while (t->wpt > 1 &&
           (t->wpt > t->ts || (size_t)(t->ts * (t->ts / t->wpt)) % limits->preferred_multiple != 0))
        t->wpt /= 2;
    t->width = 4;
    t->tsm = t->tsn = limits->max_work_group >= 256 ? 128 : 64;
    t->wptm = t->wptn = 8;
    t->vwn = 4;
    t->tsk = 16;
    if (matmul_local_bytes_double_buffer(t) > limits->local_mem) t->tsk = 8;
    if (matmul_local_bytes_double_buffer(t) > limits->local_mem) t->tsm = t->tsn = 64;
    /* Smaller groups where the device allows fewer than (64/8)^2 = 64 items. */
    while (t->tsm > 16 &&
           (size_t)(t->tsm / t->wptm) * (size_t)(t->tsn / t->wptn) > limits->max_work_group)
        t->tsm /= 2, t->tsn /= 2;
    default_warp_tiled(limits, t);
}

static int is_power_of_two(int x) {
    return x > 0 && (x & (x - 1)) == 0;
}

/* Steps 1 to 7 (TS ... VWN). */
static const char *broken_simple_steps(const matmul_tuning *t, const matmul_device_limits *limits,
                                       char *why, size_t size) {
    const long rtsm = t->wptm ? t->tsm / t->wptm : 0, rtsn = t->wptn ? t->tsn / t->wptn : 0;
    const long threads = rtsm * rtsn;
    if (t->ts % t->wpt)
        snprintf(why, size,
                 "TS=%d must be divisible by WPT=%d (more_work, vector: each "
                 "work-item computes WPT of a tile's TS rows)",
                 t->ts, t->wpt);
    else if (!is_power_of_two(t->width) || t->width < 2 || t->width > 16)
        snprintf(why, size, "WIDTH=%d must be 2, 4, 8 or 16 (vector: a floatn type)", t->width);
    else if (t->ts % t->width)
        snprintf(why, size,
                 "TS=%d must be divisible by WIDTH=%d (vector: a tile row is TS/WIDTH "
                 "vectors)",
                 t->ts, t->width);
    else if (t->wptm % 4 || t->wptn % 4)
        snprintf(why, size,
                 "WPTM=%d and WPTN=%d must be multiples of 4 (register blocks are "
                 "read as float4)",
                 t->wptm, t->wptn);
    else if (t->vwn != 4 && t->vwn != 8 && t->vwn != 16)
        snprintf(why, size, "VWN=%d must be 4, 8 or 16 (a floatn type)", t->vwn);
    else if (t->wptn % t->vwn)
        snprintf(why, size,
                 "WPTN=%d must be divisible by VWN=%d (a register block row is WPTN/VWN "
                 "vectors)",
                 t->wptn, t->vwn);
    else if (t->tsm % t->wptm)
        snprintf(why, size, "TSM=%d must be divisible by WPTM=%d", t->tsm, t->wptm);
    else if (t->tsn % t->wptn)
        snprintf(why, size, "TSN=%d must be divisible by WPTN=%d", t->tsn, t->wptn);
    else if ((long)t->tsk * t->tsm / 4 % threads)
        snprintf(why, size,
                 "TSK*TSM/4=%ld float4 of the A tile must divide evenly among "
                 "(TSM/WPTM)*(TSN/WPTN)=%ld work-items",
                 (long)t->tsk * t->tsm / 4, threads);
    else if ((long)t->tsk * t->tsn / t->vwn % threads)
        snprintf(why, size,
                 "TSK*TSN/VWN=%ld vectors of the B tile must divide evenly among "
                 "(TSM/WPTM)*(TSN/WPTN)=%ld work-items",
                 (long)t->tsk * t->tsn / t->vwn, threads);
    else if ((size_t)t->ts * t->ts > limits->max_work_group ||
             (size_t)t->ts > limits->max_item[0] || (size_t)t->ts > limits->max_item[1])
        snprintf(why, size,
                 "TS=%d: a TSxTS work-group (tiled) of %d items exceeds the device's "
                 "limits (max work-group size %zu, max item sizes %zu x %zu)",
                 t->ts, t->ts * t->ts, limits->max_work_group, limits->max_item[0],
                 limits->max_item[1]);
    else if ((size_t)threads > limits->max_work_group || (size_t)rtsn > limits->max_item[0] ||
             (size_t)rtsm > limits->max_item[1])
        snprintf(why, size,
                 "(TSN/WPTN)x(TSM/WPTM)=%ldx%ld work-items exceed the device's limits "
                 "(max work-group size %zu, max item sizes %zu x %zu)",
                 rtsn, rtsm, limits->max_work_group, limits->max_item[0], limits->max_item[1]);
    else if (matmul_local_bytes_tiled(t) > limits->local_mem ||
             matmul_local_bytes_vector(t) > limits->local_mem)
        snprintf(why, size,
                 "TS=%d, WIDTH=%d: the tiles need %zu bytes of local memory, the "
                 "device has %llu",
                 t->ts, t->width, matmul_local_bytes_vector(t),
                 (unsigned long long)limits->local_mem);
    else if (matmul_local_bytes_double_buffer(t) > limits->local_mem)
        snprintf(why, size,
                 "TSK*(TSM+4+TSN)*2 floats = %zu bytes of local memory for two "
                 "buffers, the device has %llu",
                 matmul_local_bytes_double_buffer(t), (unsigned long long)limits->local_mem);
    else
        return NULL;
    return why;
}

const char *matmul_broken_constraint(const matmul_tuning *t, const matmul_device_limits *limits,
                                     char *why, size_t size) {
    if (broken_simple_steps(t, limits, why, size)) return why;
    return broken_warp_tiled(t, limits, why, size);
}

/* warp_tiled (matmul_advanced.cl states the same constraints beside its defines). */
static const char *broken_warp_tiled(const matmul_tuning *t, const matmul_device_limits *limits,
                                     char *why, size_t size) {
    const long threads = t->tm && t->tn ? (long)(t->bm / t->tm) * (t->bn / t->tn) : 0;
    if (t->tm % 4 || t->bk % 4)
        snprintf(why, size, "TM=%d and BK=%d must be multiples of 4 (float4 reads of A)", t->tm,
                 t->bk);
    else if (t->vw != 4 && t->vw != 8 && t->vw != 16)
        snprintf(why, size, "VW=%d must be 4, 8 or 16 (a floatn type)", t->vw);
    else if (t->tn % t->vw)
        snprintf(why, size, "TN=%d must be divisible by VW=%d", t->tn, t->vw);
    else if (t->bm % (t->tm * t->wim) || t->bn % (t->tn * t->win))
        snprintf(why, size,
                 "BM=%d must be divisible by TM*WIM=%d and BN=%d by TN*WIN=%d (whole warp tiles)",
                 t->bm, t->tm * t->wim, t->bn, t->tn * t->win);
    else if (threads % ((long)t->wim * t->win))
        snprintf(why, size, "(BM/TM)*(BN/TN)=%ld work-items must be whole warps of WIM*WIN=%d",
                 threads, t->wim * t->win);
    else if ((long)t->bk * t->bm / 4 % threads || (long)t->bk * t->bn / t->vw % threads)
        snprintf(why, size,
                 "BK*BM/4=%ld and BK*BN/VW=%ld vectors must divide evenly among %ld work-items",
                 (long)t->bk * t->bm / 4, (long)t->bk * t->bn / t->vw, threads);
    else if ((size_t)threads > limits->max_work_group ||
             (size_t)(t->bn / t->tn) > limits->max_item[0] ||
             (size_t)(t->bm / t->tm) > limits->max_item[1])
        snprintf(why, size,
                 "(BN/TN)x(BM/TM)=%dx%d work-items exceed the device's limits (max work-group "
                 "size %zu)",
                 t->bn / t->tn, t->bm / t->tm, limits->max_work_group);
    else if (matmul_local_bytes_warp_tiled(t) > limits->local_mem)
        snprintf(why, size,
                 "BK*(BM+BN)*2 floats = %zu bytes of local memory for two buffers, the device "
                 "has %llu",
                 matmul_local_bytes_warp_tiled(t), (unsigned long long)limits->local_mem);
    else if (t->split_k > MATMUL_MAX_SPLIT_K)
        snprintf(why, size, "SPLIT_K=%d must be at most %d", t->split_k, MATMUL_MAX_SPLIT_K);
    else if (t->fma_rows != 4 && t->fma_rows != 2 && t->fma_rows != 1)
        snprintf(why, size, "FMA_ROWS=%d must be 4, 2 or 1 (rows of a float4 of A)", t->fma_rows);
    else
        return NULL;
    return why;
}

int matmul_choose_tuning(const oclt_cli_spec *spec, const matmul_device_limits *limits,
                         const matmul_tuning_override *override, matmul_tuning *tuning) {
    default_tuning(limits, tuning);
    /* The keys of steps 1-7 only: BM to FMA_ROWS go on top of the row the advanced steps use,
     * and are checked with it (autotune.c: matmul_pick_advanced), not against the defaults. */
    for (size_t k = 0; k < KEY_COUNT; ++k) {
        int value = *field((matmul_tuning *)&override->value, k);
        if (value && !is_advanced_key(keys[k].key)) *field(tuning, k) = value;
    }
    char why[256];
    if (!broken_simple_steps(tuning, limits, why, sizeof why)) return 0;
    if (override->text)
        return oclt_usage_error(spec, "%s='%s': %s", MATMUL_TUNE_ENV, override->text, why);
    /* Nothing the user gave is wrong: the device is smaller than the smallest default. */
    printf("%s: SKIP: the default tuning does not fit this device: %s (set %s to a smaller one)\n",
           spec->chapter, why, MATMUL_TUNE_ENV);
    return OCLT_EXIT_SKIP;
}

/* Every key as "<prefix>KEY=value", space-separated: "TS=32 WPT=8 ..." or "-DTS=32 -DWPT=8 ...". */
static void format_keys(const matmul_tuning *t, const char *prefix, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < KEY_COUNT && used < size; ++k)
        used += (size_t)snprintf(out + used, size - used, "%s%s%s=%d", k ? " " : "", prefix,
                                 keys[k].key, *field((matmul_tuning *)t, k));
}

void matmul_format_tuning(const matmul_tuning *t, char *out, size_t size) {
    format_keys(t, "", out, size);
}

void matmul_format_defines(const matmul_tuning *t, char *out, size_t size) {
    format_keys(t, "-D", out, size);
}
