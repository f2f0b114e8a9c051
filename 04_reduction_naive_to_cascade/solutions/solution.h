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

/* Parses the command line (--size, --seed, -p/-d), opens the device and builds `file` with
 * -DBLOCK_SIZE=local. Returns OCLT_CONTINUE, or the exit code (the device is closed then). */
int solution_setup(solution *s, int argc, char **argv, const char *name, const char *summary,
                   size_t default_size, const char *file, size_t local);
cl_mem solution_buffer(const solution *s, size_t bytes, void *host);
/* Reports the one result line and returns the exit code; releases the program and device. */
int solution_finish(solution *s, const char *variant, oclt_status status);

#endif
