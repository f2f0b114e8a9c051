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

/* Parses the command line (--size, --seed, -p/-d), refuses a --size above max_size (with
 * max_reason, or 2^31-1 when max_size is 0) before any work, opens the device, refuses a --size
 * whose `inputs` buffers of 32-bit elements do not fit it, and builds `file` with
 * -DBLOCK_SIZE=local. With group_order, the kernel hands data between work-groups as reduce7
 * does: it is built with reduce7's order (C11_ATOMICS and the -cl-std, or NVIDIA_GPU_FENCE), and
 * a device with neither is a SKIP. Returns OCLT_CONTINUE, or the exit code (the device is closed
 * then). */
int solution_setup(solution *s, int argc, char **argv, const char *name, const char *summary,
                   size_t default_size, size_t max_size, const char *max_reason, int inputs,
                   const char *file, size_t local, int group_order);
cl_mem solution_buffer(const solution *s, size_t bytes, void *host);
/* Reports the one result line and returns the exit code; releases the program and device. */
int solution_finish(solution *s, const char *variant, oclt_status status);

#endif
