/* Chapter 05's tuning: the tile and work sizes passed to matmul.cl as -D defines, their defaults
 * for a device, the OCLT_MATMUL_TUNE override ("TSM=128,TSN=128,TSK=16,WPTM=8,WPTN=8") and the
 * checks of every constraint the kernels state. */
#ifndef MATMUL_TUNING_H
#define MATMUL_TUNING_H

#include "oclt.h"

#include <stddef.h>

typedef struct {
    int ts, wpt, width;                 /* tiled, more_work, vector */
    int tsm, tsn, tsk, wptm, wptn, vwn; /* reg2d, double_buffer, double_buffer_async */
    /* warp_tiled, split_k (matmul_advanced.cl; defaults by device and size: autotune.c) */
    int bm, bn, bk, tm, tn, vw, wim, win, group_m, split_k, fma_rows;
} matmul_tuning;

#define MATMUL_TUNE_ENV "OCLT_MATMUL_TUNE"

/* The most slices of K split_k may use: its workspace holds SPLIT_K partial copies of C. */
#define MATMUL_MAX_SPLIT_K 256

/* Keys set by OCLT_MATMUL_TUNE (0 = not given). Parsed before any OpenCL work. */
typedef struct {
    matmul_tuning value;
    const char *text; /* the variable as given, NULL when unset */
} matmul_tuning_override;

/* Reads OCLT_MATMUL_TUNE: comma-separated KEY=VALUE with keys TS WPT WIDTH TSM TSN TSK WPTM WPTN
 * VWN and whole values 1..1024. Returns 0, or OCLT_EXIT_USAGE after one line on stderr. */
int matmul_read_tuning_override(const oclt_cli_spec *spec, matmul_tuning_override *override);

/* The device's limits that the tuning must respect. */
typedef struct {
    int is_cpu;
    size_t max_work_group;     /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_item[2];        /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0..1] */
    cl_ulong local_mem;        /* CL_DEVICE_LOCAL_MEM_SIZE */
    size_t preferred_multiple; /* CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, 1 if unknown */
    cl_uint compute_units;     /* CL_DEVICE_MAX_COMPUTE_UNITS */
} matmul_device_limits;

/* Returns 0, or -1 when a query failed (the error printed): the limits would refuse every
 * tuning, which is an OpenCL failure, not a bad command line. */
int matmul_query_limits(const oclt_device *dev, matmul_device_limits *limits);

/* Defaults for the device, then the override on top; every constraint checked. Returns 0;
 * OCLT_EXIT_USAGE after one line on stderr naming the constraint the override breaks; or
 * OCLT_EXIT_SKIP after a SKIP line on stdout when even the smallest defaults do not fit the
 * device (nothing the user gave is wrong). */
int matmul_choose_tuning(const oclt_cli_spec *spec, const matmul_device_limits *limits,
                         const matmul_tuning_override *override, matmul_tuning *tuning);

/* Local memory (bytes) used by the tiles of each kernel family. */
size_t matmul_local_bytes_tiled(const matmul_tuning *t);
size_t matmul_local_bytes_vector(const matmul_tuning *t);
size_t matmul_local_bytes_double_buffer(const matmul_tuning *t);

/* The field of `t` that KEY (as in OCLT_MATMUL_TUNE: "BM", "TSK", ...) sets; NULL if none. */
int *matmul_tuning_field(matmul_tuning *t, const char *key);

/* The keys of the advanced steps (BM ... FMA_ROWS), in the order they are printed and cached. */
#define MATMUL_ADVANCED_KEY_COUNT 11
extern const char *const matmul_advanced_keys[];

/* The first constraint the tuning breaks on this device, as a phrase in `why`; NULL when all
 * hold (the tuner uses it to skip impossible candidates before building them). */
const char *matmul_broken_constraint(const matmul_tuning *t, const matmul_device_limits *limits,
                                     char *why, size_t size);
size_t matmul_local_bytes_warp_tiled(const matmul_tuning *t);

/* "TS=16 WPT=8 WIDTH=4 TSM=128 ..." for the output. */
void matmul_format_tuning(const matmul_tuning *t, char *out, size_t size);
/* The same as build options: "-DTS=16 -DWPT=8 ...". A key added to the table in tuning.c
 * (with its field here and its constraint in broken_constraint) reaches every kernel file. */
void matmul_format_defines(const matmul_tuning *t, char *out, size_t size);

#endif
