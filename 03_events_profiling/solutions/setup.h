/* Chapter 03 solutions: the set-up both solutions share (device, program, data), so that each
 * solution file holds only what its exercise asks for. Chapter 01 writes these steps out. */
#ifndef CH03_SOLUTION_SETUP_H
#define CH03_SOLUTION_SETUP_H

#include "oclt.h"

#include <stdint.h>

/* The command line of both solutions: --size (default 2^20 elements), --seed, -p/-d; no
 * --no-check, since each solution's verdict is its check. */
#define SOLUTION_SPEC(name, text)                                                                  \
    {                                                                                              \
        .chapter = (name), .summary = (text), .size_kind = OCLT_SIZE_COUNT,                        \
        .default_size = {1u << 20}, .default_reps = 1,                                             \
        .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_CSV | OCLT_OMIT_NO_CHECK                        \
    }

/* Both solutions compute y = SOLUTION_A * x + SOLUTION_B. */
#define SOLUTION_A 3
#define SOLUTION_B (-7)

typedef struct {
    oclt_options opt;
    oclt_device dev; /* context and an in-order profiling queue */
    cl_program program;
    cl_kernel affine_map; /* y = a*x + b over n ints, from the chapter's events.cl */
    cl_mem x_buf, y_buf;
    int32_t *x, *y; /* host: random x in [-1000, 1000], y read back */
    size_t n;
} solution;

/* Parses the command line and makes everything in `s`: x is written to x_buf, y_buf and y are
 * poisoned, and affine_map's arguments are set for y = A*x + B over all n elements (a launch
 * picks its part with a global offset). Returns OCLT_CONTINUE, or the exit code to return
 * (after `solution_close`). */
int solution_open(solution *s, const oclt_cli_spec *spec, int argc, char **argv);
void solution_close(solution *s);

/* Mismatches of y against A*x + B. */
size_t solution_check(const solution *s);

#endif
