/* Chapter 05: what the chapter's files share. main.c is the lesson; the other files hold what
 * is not: the check (verify.c), timing (bench.c), the FP32 peak (peak.c), the library
 * baselines (baselines.c), the tile sizes (tuning.c), the builds (build.c) and a driver
 * workaround (workarounds.c). */
#ifndef MATMUL_H
#define MATMUL_H

#include "oclt.h"
#include "tuning.h"

#include <stddef.h>

/* ---- The problem: C = A * B, A is M x K, B is K x N, C is M x N, row-major float ----------- */

typedef struct {
    size_t m, n, k;
    char text[64];              /* "MxNxK" for the output and the CSV */
    float *a, *b, *c;           /* host copies; c receives each result */
    cl_mem a_buf, b_buf, c_buf; /* the device's copies */
} matmul_problem;

double matmul_gflops(const matmul_problem *p, double ms); /* 2MNK / time */

/* ---- A step: one kernel, and how its block of C maps onto work-items ----------------------- */

/* A work-group computes a block_rows x block_cols block of C with local[0] x local[1]
 * work-items (dimension 0 along the columns of C). The NDRange covers C with whole groups:
 * ceil(N / block_cols) * local[0] by ceil(M / block_rows) * local[1]. */
typedef struct {
    size_t block_rows, block_cols;
    size_t local[2];
    char params[128]; /* the tile sizes the step uses, for its note: "TS=32 WPT=8" */
} matmul_geometry;

/* A step launched by its own function rather than matmul_enqueue_step (split_k: two kernels and
 * a workspace; whole_tiles: two kernels; padded: copies, then its kernel): the function waits
 * and returns the device time of all its kernels in *ms. */
typedef cl_int (*matmul_step_runner)(const oclt_device *dev, cl_kernel kernel,
                                     const matmul_geometry *g, const matmul_problem *p,
                                     const matmul_tuning *tuning, double *ms);

typedef struct matmul_step {
    const char *name;   /* --variant name and CSV variant */
    const char *kernel; /* kernel function, signature (int M, int N, int K, A, B, C) */
    const char *file;   /* kernel file, built once per run with the tuning as -D defines */
    matmul_geometry (*geometry)(const matmul_tuning *tuning);
    /* NULL, or a reason why this device cannot run the step (the step is then a SKIP) */
    const char *(*unsupported)(const oclt_device *dev, const matmul_tuning *tuning);
    const char *description; /* one line for --list-variants */
    matmul_step_runner run;  /* NULL: one launch by matmul_enqueue_step */
    /* Up to two more kernels the step may launch with the same work-groups (NULL: none) */
    const char *also[2];
} matmul_step;

extern const matmul_step matmul_steps[];
extern const size_t matmul_step_count;

/* Sets the kernel's arguments (M, N, K, A, B, C) and enqueues it on the step's NDRange. */
cl_int matmul_enqueue_step(const oclt_device *dev, cl_kernel kernel, const char *label,
                           const matmul_geometry *g, const matmul_problem *p, cl_event *done);

/* ---- Checking (verify.c) -------------------------------------------------------------------- */

typedef enum { MATMUL_CHECK_NONE, MATMUL_CHECK_FULL, MATMUL_CHECK_RANDOMIZED } matmul_check_method;

/* Everything a result is compared with: prepared once from A and B, then used for every step
 * (and every candidate of a tuner) by matmul_verify. */
typedef struct {
    matmul_check_method method;
    int whole_numbers;    /* inputs are whole numbers: every product and partial sum exact */
    int magnitude;        /* whole numbers: |a|, |b| in [1, magnitude] */
    int double_exact;     /* RANDOMIZED: every sum of C*r and A*(B*r) is exact in double */
    double *expected;     /* FULL: C in double, M*N */
    double *tolerance;    /* FULL: per element */
    int vectors;          /* RANDOMIZED: Freivalds vectors r, entries +-[1, 1024] */
    double *r;            /* vectors x N */
    double *abr;          /* vectors x M: A*(B*r) in double */
    double *row_bound;    /* vectors x M: |(C*r - A*(B*r))_i| allowed before C*r is known */
    size_t samples;       /* RANDOMIZED: elements checked exactly (rows, columns, corners) */
    size_t *sample_index; /* i*N + j */
    double *sample_expected, *sample_tolerance;
} matmul_check;

/* The check for this problem: --no-check gives NONE; OCLT_MATMUL_CHECK=full|randomized
 * forces one; else FULL up to MATMUL_FULL_CHECK_LIMIT multiply-adds and 2^26 elements of C,
 * RANDOMIZED above.
 * Returns 0, or OCLT_EXIT_USAGE after one line on stderr (a bad OCLT_MATMUL_CHECK). */
#define MATMUL_CHECK_ENV        "OCLT_MATMUL_CHECK"
#define MATMUL_FULL_CHECK_LIMIT ((double)(1u << 31))
int matmul_choose_check(const oclt_cli_spec *spec, const oclt_options *opt, const matmul_problem *p,
                        matmul_check_method *method);

/* The full check's bound takes round-to-nearest (u = 2^-24). A device without
 * CL_FP_ROUND_TO_NEAREST (the embedded profile allows round-toward-zero) gets the RANDOMIZED
 * check instead, whose whole numbers are exact in any rounding mode; OCLT_MATMUL_CHECK=full
 * there is a usage error. Returns 0, OCLT_EXIT_USAGE or OCLT_EXIT_FAIL (a failed query). */
int matmul_check_for_device(const oclt_cli_spec *spec, const oclt_device *dev,
                            matmul_check_method *method);

/* Usage error (exit 2) when A, B or C exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE, or A, b_copies
 * copies of B and C together exceed the global memory, or the host's copies of them (and the
 * full check's arrays) with a CPU device's buffers exceed the machine's memory. Returns 0 when
 * they fit. */
int matmul_require_memory(const oclt_cli_spec *spec, const oclt_device *dev,
                          const matmul_problem *p, int b_copies);

/* Fills A and B with the inputs the method needs (seeded), then prepares the check. Returns 0
 * or -1 (out of host memory). Prints one "check" line saying what will be compared. */
int matmul_prepare_check(matmul_check *chk, matmul_check_method method, matmul_problem *p,
                         uint64_t seed);

/* Compares a result (M*N floats on the host) with the prepared check; NONE gives UNCHECKED.
 * Prints the first mismatches on stderr. `what` names the result in those lines. */
oclt_status matmul_verify(const matmul_check *chk, const matmul_problem *p, const float *c,
                          const char *what);

void matmul_free_check(matmul_check *chk);

/* ---- Timing (bench.c) ----------------------------------------------------------------------- */

/* Runs a step: its kernel from the program, SKIP where the step or the compiled kernel cannot
 * run here (why in `note`), else a warm-up and `reps` timed runs, each on a C poisoned with
 * NaN, timed by the kernel's profiling event; *ms is the median. C is left on the device. */
oclt_status matmul_time_step(const oclt_device *dev, cl_program program, const matmul_step *step,
                             const matmul_tuning *tuning, const matmul_problem *p, int reps,
                             double *ms, char *note, size_t note_size);

/* Reads C back into p->c and verifies it. */
oclt_status matmul_read_and_verify(const oclt_device *dev, const matmul_check *chk,
                                   matmul_problem *p, const char *what);

/* "setting; x2.2 naive, x2.35 previous, 48% of peak" (each part only where known). */
void matmul_describe(char *note, size_t size, const char *setting, double rate, double naive_rate,
                     double previous_rate, double peak);

/* ---- The device's FP32 peak (peak.c) and the library baselines (baselines.c) ---------------- */

/* fp32_peak: FMA chains on at least the product's flop count, longer while a run lasts under
 * 20 ms; checks its own result. Fills *ms and *rate (GFLOP/s). */
oclt_status matmul_fp32_peak(const oclt_device *dev, cl_program program, const matmul_problem *p,
                             int reps, double *ms, double *rate);
int matmul_peak_width(const oclt_device *dev); /* lanes of fp32_peak's vector type */

/* CLBlastSgemm on the same queue and buffers, and OpenBLAS's cblas_sgemm on the host copies;
 * timed by the host clock (warm-up, then the median of reps), checked by matmul_verify. SKIP
 * with the reason when the library was not found at build time. */
oclt_status matmul_clblast(const oclt_device *dev, const matmul_check *chk, matmul_problem *p,
                           int reps, double *ms, char *note, size_t note_size);
oclt_status matmul_openblas(const matmul_check *chk, matmul_problem *p, int reps, double *ms,
                            char *note, size_t note_size);
void matmul_release_baselines(void); /* CLBlast's cache of programs for this context */

/* ---- Builds (build.c) and the driver workaround (workarounds.c) ----------------------------- */

/* The program of each kernel file, built once per run with matmul_build_options. */
#define MATMUL_MAX_FILES 4
typedef struct {
    const char *file[MATMUL_MAX_FILES];
    cl_program program[MATMUL_MAX_FILES];
    char options[512];
} matmul_programs;

/* The tuning, and three facts of the problem and device, as -D defines. Returns 0 or -1. */
int matmul_build_options(const oclt_device *dev, const matmul_tuning *t, const matmul_problem *p,
                         char *options, size_t size);
/* The program for `file` (built at the first request, printing its build line), NULL after a
 * build failure (its log printed). */
cl_program matmul_program(matmul_programs *programs, const oclt_device *dev, const char *file);
void matmul_release_programs(matmul_programs *programs);

/* NVIDIA's driver allows 256 work-items per kernel whatever the device says: halves TS (the
 * TS x TS groups of naive and tiled) until the compiled kernels accept it, rebuilding, unless
 * OCLT_MATMUL_TUNE set TS. Returns 0 or -1. */
int matmul_fit_simple_tiles(const oclt_device *dev, const matmul_problem *p,
                            const matmul_tuning_override *override, matmul_tuning *tuning,
                            matmul_programs *programs);

/* ---- Advanced steps: the launches of split_k, whole_tiles, padded and tail_split, and the
 * tuning by device and size, the cache and --tune (autotune.c) ------------------------------- */

/* A step's launches end in matmul_wait_span: unless err is set, it waits for `last` and gives the
 * time from the start of `first` to the end of `last` (in-order queue); it releases both events
 * (either may be NULL, both may be the same one) and returns err or the first error it met. */
cl_int matmul_wait_span(cl_int err, cl_event first, cl_event last, double *ms);

/* split_k's launch (split_k.c): warp_tiled over SPLIT_K slices into a workspace, then
 * sum_slices. The enqueue form only enqueues, and hands the first and last command's events to
 * the caller (as does whole_tiles's). */
cl_int matmul_run_split_k(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                          const matmul_problem *p, const matmul_tuning *tuning, double *ms);
cl_int matmul_enqueue_split_k(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                              const matmul_problem *p, const matmul_tuning *tuning, cl_event *first,
                              cl_event *last);
/* whole_tiles's launch (whole_tiles.c): whole_tiles, then edge_tiles, on the same NDRange; each
 * only when the grid has blocks of its kind. */
cl_int matmul_run_whole_tiles(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                              const matmul_problem *p, const matmul_tuning *tuning, double *ms);
cl_int matmul_enqueue_whole_tiles(const oclt_device *dev, cl_kernel kernel,
                                  const matmul_geometry *g, const matmul_problem *p,
                                  const matmul_tuning *tuning, cl_event *first, cl_event *last);
/* tail_split's launch (tail_split.c): where the blocks of C leave a nearly empty last round of
 * work-groups, split_k on the last band(s) of block rows and whole_tiles on the others; else
 * whole_tiles alone. */
cl_int matmul_run_tail_split(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                             const matmul_problem *p, const matmul_tuning *tuning, double *ms);
/* padded's launch (padded.c): A and B copied into zero-padded buffers of whole blocks where they
 * are not (pad_copy), then padded_tiles on the padded sizes, storing the true C. */
cl_int matmul_run_padded(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                         const matmul_problem *p, const matmul_tuning *tuning, double *ms);

/* Device buffers kept from one run of a step to the next (workspace.c): padded's copies of A and B
 * and split_k's partial products. matmul_workspace returns the one for `use`, at least `bytes`
 * long, new and poisoned when there was none or it must grow; matmul_release_workspaces frees
 * them all (matmul_time_step calls it after each step). */
typedef enum {
    MATMUL_WORKSPACE_PADDED_A,
    MATMUL_WORKSPACE_PADDED_B,
    MATMUL_WORKSPACE_SLICES,
    MATMUL_WORKSPACES /* the count */
} matmul_workspace_use;
cl_int matmul_workspace(const oclt_device *dev, matmul_workspace_use use, size_t bytes,
                        cl_mem *out);
void matmul_release_workspaces(void);

/* The advanced steps' parameters (warp_tiled to tail_split) for this device and size: from the
 * cache that --tune writes, else from the built-in table of tuned devices, else tuning.c's
 * defaults; keys given in OCLT_MATMUL_TUNE always win. Prints where they came from. Returns 0,
 * OCLT_EXIT_USAGE after one line on stderr (also for --tune with --no-check: a tuner must check),
 * or OCLT_EXIT_FAIL when a device query failed. A corrupt cache line is reported on stderr and
 * ignored. */
int matmul_pick_advanced(const oclt_cli_spec *spec, const oclt_options *opt, const oclt_device *dev,
                         const matmul_problem *p, const matmul_tuning_override *override,
                         matmul_tuning *tuning);

/* What matmul_pick_advanced chose and where from, for the output. */
const char *matmul_advanced_source(void);

/* --tune: times padded (and split_k) with each candidate of the search space on this device
 * and problem, checks each result, keeps the fastest correct one in `tuning`, stores it in the
 * cache and rebuilds `programs` with it. Returns 0, or -1 when no candidate passed. */
int matmul_autotune(const oclt_device *dev, const oclt_options *opt, matmul_problem *p,
                    const matmul_check *chk, const matmul_tuning_override *override,
                    matmul_tuning *tuning, matmul_programs *programs);

#endif
