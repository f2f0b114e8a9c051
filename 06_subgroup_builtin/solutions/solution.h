/* Chapter 06 solutions: what both worked exercises share. They reuse the chapter's own
 * kernels (subgroup_reduce.cl) with a different operation written in front, exactly as main.c
 * does, and launch one kernel that leaves the result in one element. */
#ifndef CH06_SOLUTION_H
#define CH06_SOLUTION_H

#include "oclt.h"

/* Parses the command line, checks --size (at most max_n) and opens the device. Returns
 * OCLT_CONTINUE, or the exit code to return from main. */
int solution_open(const oclt_cli_spec *spec, int argc, char **argv, size_t max_n, oclt_options *opt,
                  oclt_device *dev);

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
