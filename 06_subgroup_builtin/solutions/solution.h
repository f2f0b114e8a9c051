/* Chapter 06 solutions: what both worked exercises share. They reuse the chapter's own
 * kernels (subgroup_reduce.cl) with a different operation written in front, exactly as main.c
 * does, and launch one kernel that leaves the result in one element. */
#ifndef CH06_SOLUTION_H
#define CH06_SOLUTION_H

#include "oclt.h"

/* Parses the command line, checks --size (at most max_n), opens the device and checks that an
 * input of --size elements of element_bytes fits it (exit 2 if not). Returns OCLT_CONTINUE, or
 * the exit code to return from main (the device closed then). */
int solution_open(const oclt_cli_spec *spec, int argc, char **argv, size_t max_n,
                  size_t element_bytes, oclt_options *opt, oclt_device *dev);

/* subgroup_reduce.cl with `header` in front; NULL after printing why. */
char *solution_source(const char *header);

/* Builds `source` with `options` and creates kernel `name`; NULL after printing why. */
cl_kernel solution_kernel(const oclt_device *dev, const char *source, const char *options,
                          const char *name, cl_program *program);

/* The largest power of two <= 64 that the device and the kernel allow. */
size_t solution_local_size(const oclt_device *dev, cl_kernel kernel);

/* One launch of `groups` work-groups of `local`, waited for. */
cl_int solution_launch(const oclt_device *dev, cl_kernel kernel, size_t groups, size_t local);

#endif
