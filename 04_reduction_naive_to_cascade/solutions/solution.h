/* Chapter 04 solutions: the set-up both share (command line, device, program). */
#ifndef CH04_SOLUTION_H
#define CH04_SOLUTION_H

#include "oclt.h"

typedef struct {
    oclt_cli_spec spec;
    oclt_options opt;
    oclt_device dev;
    cl_program program;
    oclt_report report;
} solution;

/* What one solution needs from the set-up. */
typedef struct {
    const char *name, *summary;
    size_t default_size;
    size_t max_size;        /* the largest --size; 0: 2^31-1 (the kernels index with int) */
    const char *max_reason; /* why max_size, for its usage error */
    int inputs;             /* how many buffers of --size 32-bit elements must fit the device */
    const char *file;       /* the kernels, built with -DBLOCK_SIZE=local */
    size_t local;
    int group_order; /* 1: the kernel hands data between work-groups as reduce7 does */
} solution_plan;

/* Parses the command line (--size, --seed, -p/-d), refuses a --size above max_size before any
 * work, opens the device, refuses a --size whose inputs do not fit it, and builds the kernels.
 * With group_order they are built with reduce7's order (C11_ATOMICS and the -cl-std, or
 * NVIDIA_GPU_FENCE), and a device with neither is a SKIP. Returns OCLT_CONTINUE, or the exit code
 * (the device is closed then). */
int solution_setup(solution *s, int argc, char **argv, const solution_plan *plan);
cl_mem solution_buffer(const solution *s, size_t bytes, void *host);
/* Reports the one result line and returns the exit code; releases the program and device. */
int solution_finish(solution *s, const char *variant, oclt_status status);

#endif
