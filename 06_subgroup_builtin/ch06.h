/* Chapter 06: what main.c (the lesson), probe.c (what the device supports), tuning.c (the
 * shape of the sweep and the device's limits) and bench.c (timing) share. */
#ifndef CH06_H
#define CH06_H

#include "oclt.h"

#include <stdint.h>

enum {
    LOCAL_TREE,
    SINGLE_PASS,
    WORK_GROUP_REDUCE,
    SUB_GROUP_REDUCE,
    INTEL_SUB_GROUP,
    NV_WARP_SHUFFLE,
    NV_WARP_EMULATED,
    VARIANT_COUNT
};
enum { TYPE_FLOAT, TYPE_INT };
enum { OP_SUM, OP_MIN };

#define MAX_PASSES 40 /* each pass at least halves the count: 32 suffice */

/* ---- tuning.c: OCLT_SUBGROUP_TUNE and the device's limits -------------------------------- */

typedef enum { ORDER_AUTO, ORDER_INTERLEAVED, ORDER_BLOCKED } sweep_order;
typedef struct {
    int vec;           /* elements per load: 1, 2, 4, 8 or 16 */
    int unroll;        /* loads issued before any is used: 1..16 */
    int groups_per_cu; /* first-pass work-groups per compute unit: 1..4096 */
    sweep_order order; /* how a work-item walks the input */
    int sub_group;     /* intel_sub_group width; 0: chosen in plan_variants */
} tuning;

/* Parses OCLT_SUBGROUP_TUNE="VEC=4,UNROLL=4,GROUPS_PER_CU=4,ORDER=interleaved,SUB_GROUP=16"
 * (any subset; text may be NULL). Returns 0, or exit 2 after one line on stderr. */
int parse_tuning(const oclt_cli_spec *spec, const char *text, tuning *tune);
/* Fills what OCLT_SUBGROUP_TUNE left out, by device type. */
void default_tuning(const oclt_device *dev, tuning *tune);
/* The work-group size (--local, or the largest power of two up to 256 the device allows),
 * checked against the device's work-group, local-memory and alignment limits. Returns 0, or
 * exit 2 after one line on stderr. */
int choose_local_size(const oclt_cli_spec *spec, const oclt_device *dev, const tuning *tune,
                      size_t requested, size_t element_size, size_t *local);

/* ---- probe.c: what the device supports, and which variants that enables ------------------ */

/* clGetKernelSubGroupInfo and the KHR extension function have the same signature. */
typedef cl_int(CL_API_CALL *sub_group_info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info,
                                               size_t, const void *, size_t, void *, size_t *);

typedef struct {
    char platform_version[160], device_version[160], c_version_text[160];
    int c_versions[16]; /* OpenCL C versions the device accepts, 120 = 1.2 */
    size_t c_version_count;
    int c_versions_from_3_0; /* listed by CL_DEVICE_OPENCL_C_ALL_VERSIONS (else implied) */
    int feature_subgroups, feature_collectives; /* OpenCL C 3.0 features */
    int api_collectives;                        /* 3.0 query: 1, 0, or -1 (no such query) */
    cl_uint max_sub_groups;                     /* 2.1+ query; meaningful when known */
    int max_sub_groups_known;
    int khr_subgroups, intel_subgroups, intel_required_size, nv_attribute_query;
    size_t intel_sizes[16];
    size_t intel_size_count;
    int nvidia;
    cl_uint warp_size; /* 0: not reported */
    cl_uint compute_units;
    sub_group_info_fn sub_group_info; /* core 2.1 or the KHR extension, or NULL */
    const char *sub_group_info_source;
} capabilities;

typedef struct {
    int usable;          /* the device (and --local) allow it */
    char why[200];       /* what enables it, or what is missing */
    int missing_feature; /* unusable because the device lacks a feature (not --local, a width) */
    char std[24];        /* "-cl-std=CL3.0", or "" for the compiler's default (1.x) */
    size_t width;        /* intel_sub_group: the forced sub-group width */
    int gpu_fence;       /* single_pass: NVIDIA's GPU-scope fence (-D NVIDIA_GPU_FENCE) */
    char options[256];
    cl_program program;
    cl_kernel kernel;
    int build_failed;
    size_t sub_group_size, sub_group_count; /* from the kernel query; 0: unknown */
    size_t compile_width;     /* intel_sub_group: CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL */
    cl_int compile_width_err; /* ... and the error code of that query */
} variant_plan;

void query_capabilities(const oclt_device *dev, capabilities *caps);
void print_capabilities(const capabilities *caps, const oclt_device *dev);
void plan_variants(const capabilities *caps, const oclt_device *dev, size_t local,
                   const tuning *tune, variant_plan *plans);
/* After a sub-group variant's build: how the compiler split the work-group. */
void query_sub_groups(const capabilities *caps, const oclt_device *dev, int v, size_t local,
                      variant_plan *plan);
void print_plans(const capabilities *caps, const variant_plan *plans,
                 const oclt_variant_info *variants, size_t local);

typedef struct {
    int count;
    size_t n[MAX_PASSES];      /* values read by the pass */
    size_t groups[MAX_PASSES]; /* work-groups = values written */
} pass_plan;

/* tuning.c: the passes of a reduction of n values, at most max_groups work-groups each. */
void plan_passes(size_t n, size_t local, size_t per_item, size_t max_groups, pass_plan *plan);

/* The operation written in front of the kernels, the work-group size, tuning and passes. */
void print_shape(const char *source, size_t local, size_t kernel_limit, const tuning *tune,
                 const pass_plan *passes);

/* ---- error_bound.c: the float sum's rounding chain --------------------------------------- */

/* The most additions any input passes through on its way to variant v's result. */
size_t rounding_chain(int v, const pass_plan *plan, size_t local, const tuning *tune,
                      const variant_plan *vp);

/* ---- main.c: the reduction, and bench.c: timing it --------------------------------------- */

typedef struct {
    const oclt_device *dev;
    int variant;
    cl_kernel kernel;
    size_t local;
    const pass_plan *plan;
    cl_mem input, partial[2], ticket, result;
    size_t element_size, partial_bytes;
    const void *partial_poison; /* partial_bytes of OCLT_POISON_WORD */
} reduction;

typedef union {
    float f;
    int32_t i;
} scalar;

/* main.c: enqueues one whole reduction (every pass, or single_pass's one launch), an event
 * per launch in events[]; returns how many launches were enqueued, or -1 on an error. */
int enqueue_reduction(const reduction *r, cl_event *events);

/* bench.c: a warm-up, then reps runs; the medians of the kernel time (all launches' events,
 * START to END, added up) and of the end-to-end time (host clock from the first enqueue until
 * the result is in host memory), and the result of the last run. */
cl_int measure_reduction(const reduction *r, int reps, double *kernel_ms, double *e2e_ms,
                         scalar *value);

#endif
