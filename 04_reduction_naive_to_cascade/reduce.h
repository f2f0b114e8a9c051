/* Chapter 04: what main.c shares with the files that keep the harness out of the lesson:
 * tuning.c (OCLT_REDUCE_TUNE and the per-device defaults), probe.c (what the device can build),
 * bench.c (passes, timing, end-to-end clock). */
#ifndef REDUCE_H
#define REDUCE_H

#include "oclt.h"

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
    REDUCE7,
    REDUCE3_ASYNC,
    REDUCE6_WARP,
    REDUCE6_SUBGROUP,
    REDUCE4_RACY,
    VARIANT_COUNT
};
extern const oclt_variant_info variants[VARIANT_COUNT];

/* How a variant's kernel reads its input (one element per work-item, a pair, or a sweep by a
 * fixed number of groups), whether it takes its scratch as a __local argument, and whether it
 * reduces (passes until one value is left) or is a reference read (one pass, one partial per
 * work-item, added on the host). reduce7 is a single launch. */
typedef enum { ONE_PER_ITEM, PAIR_PER_ITEM, SWEEP } load_shape;
typedef struct {
    load_shape shape;
    int local_arg, reduces, single_launch;
} variant_plan;
extern const variant_plan plans[VARIANT_COUNT];

enum { TYPE_FLOAT, TYPE_INT, TYPE_DOUBLE };

/* ---- tuning.c: reduce6/reduce7's shape ---- */
typedef struct {
    unsigned vec, unroll, groups_per_cu; /* 0: not given, chosen from the device */
    int blocked;                         /* -1: not given */
} tuning;
/* OCLT_REDUCE_TUNE="VEC=4,UNROLL=4,GROUPS_PER_CU=32,ORDER=interleaved": 0, or a usage error. */
int parse_tuning(const oclt_cli_spec *spec, const char *text, tuning *tune);
void default_tuning(const oclt_device *dev, size_t elem_size, tuning *tune);

/* ---- probe.c: what this device can build ---- */
typedef struct {
    int fp64, nvidia, sub_groups, c11_atomics;
    int reduce7_fence;  /* reduce7 orders its partials with NVIDIA's GPU-scope fence */
    int reduce7;        /* reduce7 is built: an order between groups, atomics for its partials */
    const char *cl_std; /* "-cl-std=CL2.0"/"CL3.0" when sub-groups or C11 atomics need it */
} capabilities;
void probe_capabilities(const oclt_device *dev, int type, capabilities *caps);
cl_program build_reduce_program(const oclt_device *dev, const capabilities *caps, int type,
                                size_t local, const tuning *tune);
/* Why variant v cannot run here (a SKIP note), or NULL. */
const char *variant_unavailable(const oclt_device *dev, const capabilities *caps,
                                cl_program program, int v, size_t local);
/* The smallest CL_KERNEL_WORK_GROUP_SIZE among the selected kernels this program has. */
size_t kernel_group_limit(const oclt_device *dev, const capabilities *caps, cl_program program,
                          const int *selected, size_t local);

/* ---- bench.c: passes and timing ---- */
#define MAX_PASSES 64
typedef struct {
    size_t count;  /* elements this pass reads */
    size_t groups; /* work-groups it launches: one partial sum each */
} pass_plan;
typedef struct {
    size_t local, max_groups; /* max_groups: compute units x GROUPS_PER_CU */
    unsigned vec, unroll;
} geometry;

size_t plan_passes(int v, size_t n, const geometry *g, pass_plan *passes);
size_t sweep_groups(const geometry *g, size_t count);
size_t addition_chain(int v, const geometry *g, const pass_plan *passes, size_t count);

/* The end-to-end path: a queue without profiling, and a pinned (CL_MEM_ALLOC_HOST_PTR, mapped)
 * place for the scalar, as a program that only wants the sum would use. */
typedef struct {
    cl_command_queue queue;
    cl_mem pinned;
    void *scalar;
} e2e_path;
cl_int e2e_open(const oclt_device *dev, e2e_path *path);
void e2e_close(e2e_path *path);

typedef struct {
    const oclt_device *dev;
    const e2e_path *e2e;
    cl_kernel kernel;
    int variant;
    pass_plan passes[MAX_PASSES];
    size_t pass_count, local, elem_size;
    cl_mem input, partial[2], tickets;
    size_t partial_bytes;
    const void *poison;
    int reps;
    double kernel_ms, e2e_ms; /* medians: device time of all passes; first enqueue -> scalar */
    double *pass_ms, *e2e_calls;
    int calls;
} launch;

/* The buffer pass p writes (ping-pong: a pass never writes what it reads); reduce7 writes
 * partial[0] and keeps its per-group partials in partial[1]. */
cl_mem pass_output(const launch *l, size_t p);
/* One warm-up and l->reps timed runs end to end, then the same on the profiling queue; fills
 * e2e_ms and kernel_ms (medians) and pass_ms. */
cl_int measure(launch *l);
void print_passes(const launch *l);

#endif
