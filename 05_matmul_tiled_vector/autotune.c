/* Chapter 05's tuning of the advanced steps (warp_tiled to tail_split) by device and problem size:
 *   - a built-in table of parameters tuned on known devices (like CLBlast's database);
 *   - a per-user cache that --tune writes, keyed by device name, driver version and size class
 *     ($XDG_CACHE_HOME/opencl-tutorial/matmul_tune.txt, or ~/.cache/...);
 *   - --tune itself: every candidate of a search space built, timed and checked on this device,
 *     the fastest correct one kept.
 * Keys given in OCLT_MATMUL_TUNE win over all three. */
#include "matmul.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The parameters of the advanced steps, as text ("BM=128,BN=64,...") -------------------- */

static int *advanced_field(matmul_tuning *t, size_t k) {
    return matmul_tuning_field(t, matmul_advanced_keys[k]);
}

static void format_advanced(const matmul_tuning *t, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT && used < size; ++k)
        used += (size_t)snprintf(out + used, size - used, "%s%s=%d", k ? "," : "",
                                 matmul_advanced_keys[k], *advanced_field((matmul_tuning *)t, k));
}

/* Reads "KEY=VALUE,..." (every advanced key exactly once) into t. NULL, or what is wrong.
 * FMA_ROWS may be missing: lines written before it existed were tuned with the order it now
 * calls 4. */
static const char *parse_advanced(const char *text, matmul_tuning *t) {
    int seen[MATMUL_ADVANCED_KEY_COUNT] = {0};
    const char *item = text;
    for (;;) {
        const size_t len = strcspn(item, ",");
        const char *equals = memchr(item, '=', len);
        if (!equals) return "an item is not KEY=VALUE";
        size_t k = 0;
        while (k < MATMUL_ADVANCED_KEY_COUNT &&
               !(strlen(matmul_advanced_keys[k]) == (size_t)(equals - item) &&
                 strncmp(matmul_advanced_keys[k], item, equals - item) == 0))
            ++k;
        if (k == MATMUL_ADVANCED_KEY_COUNT) return "unknown key";
        if (seen[k]) return "a key appears twice";
        char *end = NULL; /* digits only: strtol would also take spaces and a sign */
        const long value = isdigit((unsigned char)equals[1]) ? strtol(equals + 1, &end, 10) : 0;
        if (end != item + len || value < 1 || value > 1024) return "a value is not 1..1024";
        *advanced_field(t, k) = (int)value;
        seen[k] = 1;
        if (item[len] == '\0') break;
        item += len + 1;
    }
    for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT; ++k) {
        if (seen[k]) continue;
        if (strcmp(matmul_advanced_keys[k], "FMA_ROWS") != 0) return "a key is missing";
        t->fma_rows = 4;
    }
    return NULL;
}

/* ---- Size classes: which problems share a tuning -------------------------------------------- */

/* small, medium and large by the number of outputs (what the work-groups share out), and deep
 * for few outputs over a long K (where split-K pays); "-odd" when K or N is not a multiple of 4. */
static const char *size_class(const matmul_problem *p) {
    /* Rows of A or B that cannot be read as aligned float4 take another code path: a class of
     * their own ("large-odd"). */
    const int odd = p->k % 4 != 0 || p->n % 4 != 0;
    const double outputs = (double)p->m * (double)p->n;
    if (outputs <= (double)(1u << 22) && (double)p->k >= 16.0 * sqrt(outputs))
        return odd ? "deep-odd" : "deep";
    if (outputs <= (double)(1u << 21)) return odd ? "small-odd" : "small";
    if (outputs <= (double)(1u << 23)) return odd ? "medium-odd" : "medium";
    return odd ? "large-odd" : "large";
}

/* The deep classes ("deep", "deep-odd"), where split_k makes the work-groups. */
static int is_deep(const char *size_class) {
    return !strncmp(size_class, "deep", 4);
}

/* ---- The built-in table: parameters tuned on known devices ---------------------------------- */

/* The first row whose `device` is a substring of CL_DEVICE_NAME and whose size class begins the
 * problem's class ("large" serves "large-odd" when no "large-odd" row comes first) wins.
 * docs/05_matmul_tiled_vector.md gives the figures behind each row. */
static const struct {
    const char *device, *size_class, *params;
} tuned[] = {
    /* NVIDIA H200, driver 580.159.04, 2026-11-24: small, medium, large: --tune (quick, timing
     * whole_tiles) at 1024^3, 2048^3 and 4096^3, then the winners against the earlier rows in
     * two interleaved rounds; large-odd: --tune timing padded at 4097^3 (twice, the same
     * winner), then against the earlier row (128x64) in two interleaved rounds; deep: five
     * blocks at 4 to 128 slices, at 256x256x65536 and 1024x1024x16384 (the large row's block
     * with one round of slices was best at both). 2026-11-25, with FMA_ROWS in the search:
     * medium, large and large-odd searched again the same way (2048^3, 4096^3, 4097^3), the
     * large row then against four others in two interleaved rounds; small and deep kept
     * FMA_ROWS=4 (the earlier code), which was as fast or faster in two interleaved rounds. A
     * deep row's SPLIT_K is the fewest slices: the host raises it to the count that fills the
     * rounds of work-groups (fill_rounds_split). */
    {"NVIDIA H200", "small",
     "BM=64,BN=128,BK=16,TM=8,TN=8,VW=4,WIM=4,WIN=8,GROUP_M=8,SPLIT_K=1,FMA_ROWS=4"},
    {"NVIDIA H200", "medium",
     "BM=256,BN=128,BK=8,TM=16,TN=8,VW=4,WIM=8,WIN=4,GROUP_M=8,SPLIT_K=1,FMA_ROWS=2"},
    {"NVIDIA H200", "large-odd",
     "BM=64,BN=128,BK=16,TM=8,TN=8,VW=4,WIM=4,WIN=8,GROUP_M=8,SPLIT_K=1,FMA_ROWS=1"},
    {"NVIDIA H200", "large",
     "BM=256,BN=128,BK=8,TM=16,TN=8,VW=4,WIM=8,WIN=4,GROUP_M=8,SPLIT_K=1,FMA_ROWS=2"},
    {"NVIDIA H200", "deep",
     "BM=256,BN=128,BK=8,TM=16,TN=8,VW=4,WIM=4,WIN=8,GROUP_M=8,SPLIT_K=1,FMA_ROWS=4"},
    /* PoCL 3.1 on 2 cores of an AVX-512 CPU (the development machine), 2026-11-24: --tune at
     * 1024^3, then BK 8, 16, 64 in two interleaved rounds (16 best); deep: 2 slices beat 1 by
     * 11% in two of three interleaved rounds at 256x256x16384 (8 blocks, 2 cores), lost 3% in
     * the third. */
    {"skylake-avx512", "small",
     "BM=64,BN=128,BK=16,TM=8,TN=32,VW=16,WIM=1,WIN=1,GROUP_M=1,SPLIT_K=1,FMA_ROWS=4"},
    {"skylake-avx512", "medium",
     "BM=64,BN=128,BK=16,TM=8,TN=32,VW=16,WIM=1,WIN=1,GROUP_M=1,SPLIT_K=1,FMA_ROWS=4"},
    {"skylake-avx512", "large",
     "BM=64,BN=128,BK=16,TM=8,TN=32,VW=16,WIM=1,WIN=1,GROUP_M=1,SPLIT_K=1,FMA_ROWS=4"},
    {"skylake-avx512", "deep",
     "BM=64,BN=128,BK=16,TM=8,TN=32,VW=16,WIM=1,WIN=1,GROUP_M=1,SPLIT_K=2,FMA_ROWS=4"},
};

/* The blocks of C: work-groups per slice of K. */
static double blocks_of_c(const matmul_problem *p, const matmul_tuning *t) {
    return ceil((double)p->m / t->bm) * ceil((double)p->n / t->bn);
}

/* How full the rounds of work-groups are: a grid of G groups on U compute units runs in
 * ceil(G / U) rounds at one group per unit at a time, so it keeps G / (ceil(G / U) * U) of the
 * units busy. (A GPU may hold several groups per unit; the last round is then as partly empty.)
 * At 3000^3 on the H200 the large row's 256 x 128 blocks make 288 groups for 132 units: 73%. */
static double round_fill(const matmul_problem *p, const matmul_tuning *t, cl_uint units) {
    const double groups = blocks_of_c(p, t) * t->split_k;
    return units ? groups / (ceil(groups / units) * units) : 1.0;
}

/* Split-K in the deep class: the slices that finish soonest. S slices of B blocks make B * S
 * work-groups, which run in ceil(B * S / units) rounds at one group per compute unit; each round
 * lasts a slice's ceil(k-steps / S) k-steps, plus about SLICE_START_END for the slice's start
 * and end (the first tile's load, which nothing hides, and the store of its partial C). The
 * fewest slices of the least time wins, within MAX_SPLIT_ROUNDS rounds, at most
 * MATMUL_MAX_SPLIT_K and at most the k-steps. On the H200 (132 units, the 256 x 128 block):
 * 66 slices for 2 blocks (one round), 33 for 8 (two), 4 for 32 (one), 9 for 100 (seven rounds
 * of a ninth of K, where one slice takes one whole round and leaves 32 units idle). */
#define SLICE_START_END  4 /* k-steps; an estimate: it only decides near-ties */
#define MAX_SPLIT_ROUNDS 8 /* as far as the sweeps of step 9 measured */
static int fill_rounds_split(const matmul_problem *p, const matmul_tuning *t, cl_uint units) {
    const double blocks = blocks_of_c(p, t), k_steps = ceil((double)p->k / t->bk);
    int best = 1;
    double best_time = -1.0;
    for (int s = 1; units && s <= MATMUL_MAX_SPLIT_K && s <= k_steps; ++s) {
        const double rounds = ceil(blocks * s / units);
        if (s > 1 && rounds > MAX_SPLIT_ROUNDS) break;
        const double time = rounds * (ceil(k_steps / s) + SLICE_START_END);
        if (best_time < 0 || time < best_time) best = s, best_time = time;
    }
    return best;
}

/* Below this fill, another row of the device's table that fills the rounds better by at least
 * MIN_FILL_GAIN is taken instead of the size class's row. */
#define LOW_FILL      0.9
#define MIN_FILL_GAIN 0.05

/* Row i of the table, over `base`, if it is for this device and keeps every constraint there.
 * A row that does not parse is a mistake in this file: said on stderr, never used. */
static int device_row(size_t i, const oclt_device *dev, const matmul_device_limits *limits,
                      const matmul_tuning *base, matmul_tuning *row) {
    char why[256];
    *row = *base;
    if (!strstr(dev->device_name, tuned[i].device)) return 0;
    const char *wrong = parse_advanced(tuned[i].params, row);
    if (wrong) {
        fprintf(stderr, "05_matmul_tiled_vector: built-in table row %zu (%s, %s) ignored: %s\n", i,
                tuned[i].device, tuned[i].size_class, wrong);
        return 0;
    }
    return !matmul_broken_constraint(row, limits, why, sizeof why);
}

/* ---- The cache ------------------------------------------------------------------------------ */

/* $XDG_CACHE_HOME/opencl-tutorial/matmul_tune.txt, else $HOME/.cache/...; 0 when neither is set. */
static int cache_path(char *path, size_t size, char *dir, size_t dir_size) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(dir, dir_size, "%s/opencl-tutorial", xdg);
    else if (home && *home)
        snprintf(dir, dir_size, "%s/.cache/opencl-tutorial", home);
    else
        return 0;
    snprintf(path, size, "%s/matmul_tune.txt", dir);
    return 1;
}

typedef struct {
    char device[256], driver[128];
    const char *size_class;
} cache_key;

static void make_key(const oclt_device *dev, const matmul_problem *p, cache_key *key) {
    snprintf(key->device, sizeof key->device, "%s", dev->device_name);
    snprintf(key->driver, sizeof key->driver, "%s", dev->driver_version);
    key->size_class = size_class(p);
    /* Tabs and newlines separate the cache's fields and lines. */
    for (char *c = key->device; *c; ++c)
        if (*c == '\t' || *c == '\n') *c = ' ';
    for (char *c = key->driver; *c; ++c)
        if (*c == '\t' || *c == '\n') *c = ' ';
}

/* A cache line: device TAB driver TAB size class TAB parameters TAB GFLOP/s measured. Returns 1
 * when it matches `key` and its parameters parse into t and fit the device; 0 when it is for
 * another key; -1 when it is corrupt (`why` says how). */
static int read_cache_line(char *line, const cache_key *key, const matmul_device_limits *limits,
                           matmul_tuning *t, char *why, size_t why_size) {
    char *field[5];
    int fields = 0;
    for (char *s = line; s; ++fields) { /* split at every tab; count the fields */
        if (fields < 5) field[fields] = s;
        s = strchr(s, '\t');
        if (s) *s++ = '\0';
    }
    if (fields != 5) {
        snprintf(why, why_size, "%d tab-separated fields, expected 5", fields);
        return -1;
    }
    char *end = NULL;
    const double rate = strtod(field[4], &end);
    if (end == field[4] || *end || !(rate > 0)) {
        snprintf(why, why_size, "GFLOP/s '%s' is not a positive number", field[4]);
        return -1;
    }
    matmul_tuning candidate = *t;
    const char *bad = parse_advanced(field[3], &candidate);
    if (bad) {
        snprintf(why, why_size, "parameters '%s': %s", field[3], bad);
        return -1;
    }
    if (strcmp(field[0], key->device) || strcmp(field[1], key->driver) ||
        strcmp(field[2], key->size_class))
        return 0;
    char reason[256];
    if (matmul_broken_constraint(&candidate, limits, reason, sizeof reason)) {
        snprintf(why, why_size, "%s", reason);
        return -1;
    }
    *t = candidate;
    return 1;
}

/* The cached parameters for this key into t: 1 found, 0 not. Corrupt lines: one line each on
 * stderr, then ignored. */
static int read_cache(const cache_key *key, const matmul_device_limits *limits, matmul_tuning *t,
                      char *path, size_t path_size) {
    char dir[1024];
    if (!cache_path(path, path_size, dir, sizeof dir)) return 0;
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    char line[2048];
    int found = 0;
    for (int number = 1; fgets(line, sizeof line, file); ++number) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        char why[320];
        const int match = read_cache_line(line, key, limits, t, why, sizeof why);
        if (match < 0)
            fprintf(stderr, "05_matmul_tiled_vector: %s line %d ignored: %s\n", path, number, why);
        if (match > 0) found = 1; /* the last matching line wins */
    }
    fclose(file);
    return found;
}

/* Rewrites the cache with this key's line replaced (or appended). Returns 0 or -1. */
static int write_cache(const cache_key *key, const matmul_tuning *t, double rate, char *path,
                       size_t path_size) {
    char dir[1024], parent[1024];
    if (!cache_path(path, path_size, dir, sizeof dir)) return -1;
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash) *slash = '\0';
    if (slash && *parent && oclt_os_make_directory(parent)) return -1;
    if (oclt_os_make_directory(dir)) return -1;
    char temp[1100];
    snprintf(temp, sizeof temp, "%s.new", path);
    FILE *out = fopen(temp, "w");
    if (!out) return -1;
    fprintf(out, "# opencl-tutorial chapter 05, written by --tune: device, driver, size class, "
                 "parameters, GFLOP/s (tab-separated)\n");
    FILE *in = fopen(path, "r");
    char line[2048], copy[2048];
    while (in && fgets(line, sizeof line, in)) {
        if (line[0] == '#') continue;
        snprintf(copy, sizeof copy, "%s", line);
        copy[strcspn(copy, "\r\n")] = '\0';
        char *tab1 = strchr(copy, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        char *tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
        if (tab3) *tab1 = *tab2 = *tab3 = '\0';
        if (tab3 && !strcmp(copy, key->device) && !strcmp(tab1 + 1, key->driver) &&
            !strcmp(tab2 + 1, key->size_class))
            continue;                       /* replaced below */
        const size_t length = strlen(line); /* 0 for a line that starts with a NUL byte */
        if (length == 0) continue;
        fputs(line, out);
        if (line[length - 1] != '\n') fputc('\n', out); /* a last line without one */
    }
    if (in) fclose(in);
    char params[256];
    format_advanced(t, params, sizeof params);
    fprintf(out, "%s\t%s\t%s\t%s\t%.1f\n", key->device, key->driver, key->size_class, params, rate);
    if (fclose(out) || rename(temp, path)) return -1;
    return 0;
}

/* ---- Picking the parameters for a run ------------------------------------------------------- */

static char picked_from[1600] = "not picked";

int matmul_pick_advanced(const oclt_cli_spec *spec, const oclt_options *opt, const oclt_device *dev,
                         const matmul_problem *p, const matmul_tuning_override *override,
                         matmul_tuning *tuning) {
    if (opt->tune && !opt->check)
        return oclt_usage_error(spec, "--tune checks every candidate: drop --no-check");
    matmul_device_limits limits;
    if (matmul_query_limits(dev, &limits)) return OCLT_EXIT_FAIL;
    cache_key key;
    make_key(dev, p, &key);
    matmul_tuning picked = *tuning;
    char path[1100] = "", source[1300] = "defaults";
    const int from_cache = read_cache(&key, &limits, &picked, path, sizeof path);
    if (from_cache) {
        snprintf(source, sizeof source, "tuned here (cache %s)", path);
    } else {
        const matmul_tuning base = picked;
        matmul_tuning row;
        int found = 0;
        for (size_t i = 0; i < sizeof tuned / sizeof tuned[0] && !found; ++i) {
            if (strncmp(tuned[i].size_class, key.size_class, strlen(tuned[i].size_class)) ||
                !device_row(i, dev, &limits, &base, &row))
                continue;
            picked = row, found = 1;
            snprintf(source, sizeof source, "built-in table, %s", tuned[i].device);
        }
        /* A row whose blocks leave the last round of work-groups mostly empty gives way to the
         * device's row (of any class, without split-K) that fills the rounds best; not in the
         * deep class, whose split-K rows are there to make more work-groups. */
        const cl_uint units = limits.compute_units;
        const double fill = round_fill(p, &picked, units);
        const int may_switch = found && fill < LOW_FILL && !is_deep(key.size_class);
        double best_fill = fill;
        for (size_t i = 0; may_switch && i < sizeof tuned / sizeof tuned[0]; ++i) {
            if (!device_row(i, dev, &limits, &base, &row) || row.split_k != 1 ||
                is_deep(tuned[i].size_class))
                continue;
            const double row_fill = round_fill(p, &row, units);
            if (row_fill < fill + MIN_FILL_GAIN || row_fill <= best_fill) continue;
            picked = row, best_fill = row_fill;
            snprintf(source, sizeof source,
                     "built-in table, %s, row %s: its work-groups fill %.0f%% of their rounds on "
                     "%u compute units, the %s row's %.0f%%",
                     tuned[i].device, tuned[i].size_class, 100.0 * best_fill, units, key.size_class,
                     100.0 * fill);
        }
    }
    /* OCLT_MATMUL_TUNE's keys win. */
    for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT; ++k) {
        const int given = *advanced_field((matmul_tuning *)&override->value, k);
        if (given) *advanced_field(&picked, k) = given;
    }
    /* The deep class's slices fit the problem, the block and the device: the row's SPLIT_K,
     * raised to the count that fills the rounds of work-groups; unless the cache (whose SPLIT_K
     * was timed) or OCLT_MATMUL_TUNE gave them. */
    char slices[192] = "";
    if (is_deep(key.size_class) && !from_cache && !override->value.split_k) {
        const int row_split = picked.split_k;
        const int fill = fill_rounds_split(p, &picked, limits.compute_units);
        picked.split_k = fill > row_split ? fill : row_split;
        snprintf(slices, sizeof slices,
                 "; SPLIT_K=%d: the row's %d, or the slices that fill the rounds of work-groups "
                 "on %u compute units (%d) if more",
                 picked.split_k, row_split, limits.compute_units, fill);
    }
    char why[256];
    if (matmul_broken_constraint(&picked, &limits, why, sizeof why))
        return oclt_usage_error(spec, "%s='%s': %s", MATMUL_TUNE_ENV,
                                override->text ? override->text : "", why);
    /* split_k's workspace holds SPLIT_K copies of C: one buffer, so within the largest
     * allocation. A given SPLIT_K that does not fit is refused; a picked one is lowered. */
    const cl_ulong max_alloc = oclt_device_ulong(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    const cl_ulong c_bytes = (cl_ulong)p->m * p->n * sizeof(float);
    if (override->value.split_k && (cl_ulong)picked.split_k * c_bytes > max_alloc)
        return oclt_usage_error(spec,
                                "%s='%s': SPLIT_K=%d needs a workspace of %llu bytes, above "
                                "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu)",
                                MATMUL_TUNE_ENV, override->text, picked.split_k,
                                (unsigned long long)((cl_ulong)picked.split_k * c_bytes),
                                (unsigned long long)max_alloc);
    while (picked.split_k > 1 && (cl_ulong)picked.split_k * c_bytes > max_alloc) --picked.split_k;
    *tuning = picked;
    char params[256];
    format_advanced(tuning, params, sizeof params);
    snprintf(picked_from, sizeof picked_from, "%s for size class %s (%s%s%s)", params,
             key.size_class, source, override->text ? ", then " MATMUL_TUNE_ENV : "", slices);
    return 0;
}

const char *matmul_advanced_source(void) {
    return picked_from;
}

/* ---- --tune --------------------------------------------------------------------------------- */

#define MAX_CANDIDATES 8192

/* --tune's slices of K in the deep class, for candidate c of the block in t: the slices that
 * fill the rounds at one group per compute unit, twice as many (for devices that run several
 * groups per unit at once), none, and half as many. */
static int deep_split(const matmul_problem *p, const matmul_tuning *t, cl_uint units, int c) {
    const int fill = fill_rounds_split(p, t, units);
    const int splits[] = {fill, 2 * fill, 1, fill / 2};
    const int split = splits[c] > MATMUL_MAX_SPLIT_K ? MATMUL_MAX_SPLIT_K : splits[c];
    return split < 1 ? 1 : split;
}

/* The search space: quick (a few minutes on a 2-core CPU) or wide. Candidates that break a
 * constraint on this device are left out before any build. */
/* 1 when OCLT_MATMUL_TUNE sets one of the advanced keys. */
static int overrides_advanced(const matmul_tuning_override *override) {
    for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT; ++k)
        if (*advanced_field((matmul_tuning *)&override->value, k)) return 1;
    return 0;
}

static int make_candidates(const matmul_device_limits *limits, const matmul_tuning *base,
                           const matmul_tuning_override *override, const matmul_problem *p,
                           int wide, matmul_tuning *out) {
    static const int gpu_blocks[][4] = {/* BM, BN, TM, TN */
                                        {64, 64, 8, 8},    {128, 64, 8, 8},   {64, 128, 8, 8},
                                        {128, 128, 8, 8},  {128, 128, 16, 8}, {256, 128, 16, 8},
                                        {128, 256, 8, 16}, {64, 64, 4, 4},    {128, 64, 16, 4}};
    static const int cpu_blocks[][4] = {{64, 128, 8, 32},  {32, 128, 4, 64}, {64, 64, 8, 16},
                                        {128, 128, 8, 32}, {64, 64, 16, 16}, {32, 256, 8, 32},
                                        {128, 64, 16, 16}, {16, 128, 4, 32}};
    static const int gpu_warps[][2] = {{8, 4}, {4, 8}, {2, 16}, {16, 2}};
    /* split-K only where few outputs leave the device idle: small (none or 2 slices) and deep
     * (per block: the slices that fill the rounds, twice as many, none, and half as many). */
    const char *cls = size_class(p);
    const int deep = is_deep(cls);
    const int split_count = deep ? (wide ? 4 : 3) : !strncmp(cls, "small", 5) ? 2 : 1;
    const int block_count = limits->is_cpu ? (wide ? 8 : 4) : (wide ? 9 : 7);
    const int warp_count = limits->is_cpu ? 1 : wide ? 4 : 2;
    const int bks[] = {8, 16, 32, 64, 128}, groups[] = {8, 1, 4, 16};
    const int group_count = wide ? 4 : limits->is_cpu ? 2 : 1;
    /* The order of one k's multiply-adds: 4, 2 or 1 rows per vector of B (GPUs; on the CPU
     * only in the wide space). */
    const int fma_rows[] = {4, 2, 1}, order_count = wide || !limits->is_cpu ? 3 : 1;
    int n = 0;
    for (int b = 0; b < block_count; ++b)
        for (int w = 0; w < warp_count; ++w)
            for (int kk = 0; kk < 5; ++kk)
                for (int s = 0; s < split_count; ++s)
                    for (int g = 0; g < group_count * order_count; ++g) {
                        const int *blk = limits->is_cpu ? cpu_blocks[b] : gpu_blocks[b];
                        matmul_tuning t = *base;
                        t.bm = blk[0], t.bn = blk[1], t.tm = blk[2], t.tn = blk[3];
                        t.bk = bks[kk];
                        t.vw = limits->is_cpu ? 16 : 4;
                        if (t.tn < t.vw) t.vw = t.tn;
                        t.wim = limits->is_cpu ? 1 : gpu_warps[w][0];
                        t.win = limits->is_cpu ? 1 : gpu_warps[w][1];
                        t.group_m = groups[g % group_count];
                        t.fma_rows = fma_rows[g / group_count];
                        t.split_k = deep ? deep_split(p, &t, limits->compute_units, s) : s + 1;
                        int repeated = 0; /* a deep split already tried with this block */
                        for (int e = 0; deep && e < s; ++e)
                            repeated |= deep_split(p, &t, limits->compute_units, e) == t.split_k;
                        if (repeated) continue;
                        /* GPUs: k-steps of 8 or 16 (32 only in the wide space); CPUs: 16 to
                         * 64 (8 and 128 only in the wide space). */
                        if (!limits->is_cpu && t.bk > (wide ? 32 : 16)) continue;
                        if (limits->is_cpu && !wide && (t.bk < 16 || t.bk > 64)) continue;
                        /* OCLT_MATMUL_TUNE's keys win here too: the search covers the rest. */
                        for (size_t k = 0; k < MATMUL_ADVANCED_KEY_COUNT; ++k) {
                            const int given = *advanced_field((matmul_tuning *)&override->value, k);
                            if (given) *advanced_field(&t, k) = given;
                        }
                        char why[256];
                        if (matmul_broken_constraint(&t, limits, why, sizeof why)) continue;
                        int seen = 0; /* the same candidate once the override is applied */
                        for (int e = 0; e < n && !seen; ++e) seen = !memcmp(&out[e], &t, sizeof t);
                        if (!seen && n < MAX_CANDIDATES) out[n++] = t;
                    }
    return n;
}

static const matmul_step *find_step(const char *name) {
    for (size_t s = 0; s < matmul_step_count; ++s)
        if (strcmp(matmul_steps[s].name, name) == 0) return &matmul_steps[s];
    return NULL;
}

/* One candidate: built, timed, checked. It is timed as padded, the fastest step that takes these
 * parameters at any shape (where every block is whole already, whole_tiles alone), or as
 * split_k for SPLIT_K > 1. Returns its GFLOP/s, or a negative number when it failed to build or
 * run, or computed a wrong C. */
static double try_candidate(const oclt_device *dev, const oclt_options *opt, matmul_problem *p,
                            const matmul_check *chk, const matmul_tuning *t, char *why,
                            size_t why_size) {
    const matmul_step *step = find_step(t->split_k > 1 ? "split_k" : "padded");
    if (!step) {
        snprintf(why, why_size, "no such step");
        return -1.0;
    }
    matmul_programs programs = {0};
    double rate = -1.0, ms = -1.0;
    if (matmul_build_options(dev, t, p, programs.options, sizeof programs.options)) return -1.0;
    cl_program program = matmul_program(&programs, dev, step->file);
    char note[256] = "";
    const int reps = opt->reps < 3 ? opt->reps : 3;
    oclt_status status = matmul_time_step(dev, program, step, t, p, reps, &ms, note, sizeof note);
    if (status == OCLT_PASS) status = matmul_read_and_verify(dev, chk, p, "C (tuning candidate)");
    if (status == OCLT_PASS && ms > 0)
        rate = matmul_gflops(p, ms);
    else
        snprintf(why, why_size, "%s", status == OCLT_SKIP ? note : "wrong result or failed run");
    matmul_release_programs(&programs);
    return rate;
}

int matmul_autotune(const oclt_device *dev, const oclt_options *opt, matmul_problem *p,
                    const matmul_check *chk, const matmul_tuning_override *override,
                    matmul_tuning *tuning, matmul_programs *programs) {
    matmul_device_limits limits;
    if (matmul_query_limits(dev, &limits)) return -1;
    matmul_tuning *candidates = calloc(MAX_CANDIDATES, sizeof *candidates);
    if (!candidates) return -1;
    int count = make_candidates(&limits, tuning, override, p, opt->tune == 2, candidates);
    if (opt->tune_limit && count > opt->tune_limit) count = opt->tune_limit;
    /* quick: stop starting candidates after 4 minutes; wide: no limit. */
    const double budget_ms = opt->tune == 2 ? -1.0 : 240e3, start = oclt_now_ms();
    cache_key key;
    make_key(dev, p, &key);
    printf("  tune     %d candidates for padded/split_k, size class %s, each built, timed "
           "and checked (%s)\n",
           count, key.size_class, opt->tune == 2 ? "wide" : "quick, at most 4 minutes");
    double best_rate = -1.0;
    int best = -1, tried = 0;
    for (int i = 0; i < count; ++i) {
        if (budget_ms > 0 && oclt_now_ms() - start > budget_ms) {
            printf("  tune     time budget spent after %d of %d candidates\n", tried, count);
            break;
        }
        char params[256], why[256] = "";
        format_advanced(&candidates[i], params, sizeof params);
        const double rate = try_candidate(dev, opt, p, chk, &candidates[i], why, sizeof why);
        ++tried;
        if (rate > best_rate) best_rate = rate, best = i;
        if (rate > 0)
            printf("  tune     [%d/%d] %s: %.1f GFLOP/s (best %.1f)\n", i + 1, count, params, rate,
                   best_rate);
        else
            printf("  tune     [%d/%d] %s: discarded (%s)\n", i + 1, count, params, why);
        fflush(stdout);
    }
    if (best < 0) {
        fprintf(stderr, "05_matmul_tiled_vector: --tune: no candidate ran and passed the check\n");
        free(candidates);
        return -1;
    }
    *tuning = candidates[best];
    free(candidates);
    char params[256], path[1100] = "";
    format_advanced(tuning, params, sizeof params);
    if (overrides_advanced(override)) { /* a narrowed search is not the device's best */
        printf("  tune     best %s: %.1f GFLOP/s; not saved in the cache: %s fixed some keys\n",
               params, best_rate, MATMUL_TUNE_ENV);
    } else {
        if (write_cache(&key, tuning, best_rate, path, sizeof path))
            fprintf(stderr, "05_matmul_tiled_vector: --tune: could not write the cache %s\n",
                    *path ? path : "(set XDG_CACHE_HOME or HOME)");
        printf("  tune     best %s: %.1f GFLOP/s; saved in %s for %s, driver %s, size class %s\n",
               params, best_rate, path, key.device, key.driver, key.size_class);
    }
    /* The steps of this run are built again with the winner. */
    matmul_release_programs(programs);
    return matmul_build_options(dev, tuning, p, programs->options, sizeof programs->options);
}
