/* Kernel sources, program builds with their logs, and kernel launches with diagnostics. */
#ifndef OCLT_PROGRAM_H
#define OCLT_PROGRAM_H

#include "errors.h"

#include <CL/cl.h>
#include <stddef.h>

/* A chapter's .cl files, embedded at build time by oclt_add_chapter() in CMake. */
typedef struct {
    const char *name; /* file name, e.g. "reduce.cl" */
    const char *text;
    size_t length;
} oclt_embedded_file;

extern const oclt_embedded_file oclt_embedded_kernels[];
extern const size_t oclt_embedded_kernel_count;

/* The text of a kernel file: DIR/name when the environment sets OCLT_KERNEL_DIR=DIR (so you
 * can edit kernels without rebuilding), else the copy embedded in the program. Returns a
 * malloc'ed, NUL-terminated string, or NULL after printing why. */
char *oclt_kernel_source(const char *name);

/* NULL when OCLT_KERNEL_DIR is unset, or names a folder holding every kernel file the program
 * embeds; else the first file it lacks (cli.c refuses such a run before any work). */
const char *oclt_kernel_dir_missing(void);

/* Builds source text for one device. On failure prints the options and the full build log of
 * every device, and returns NULL. `label` names the source in messages (e.g. "reduce.cl"). */
cl_program oclt_build_source(cl_context context, cl_device_id device, const char *source,
                             const char *label, const char *options);

/* oclt_kernel_source + oclt_build_source. */
cl_program oclt_build_file(cl_context context, cl_device_id device, const char *name,
                           const char *options);

/* Prints the build log of every device of the program, its size queried at run time. */
void oclt_print_build_logs(cl_program program, const char *options);

/* clCreateKernel, reporting the kernel name on failure. */
cl_kernel oclt_create_kernel(cl_program program, const char *name);

/* clEnqueueNDRangeKernel; on CL_INVALID_WORK_GROUP_SIZE/ITEM_SIZE it also says which limit the
 * local size broke (device max, the kernel's CL_KERNEL_WORK_GROUP_SIZE, max work-item sizes,
 * a global size that is not a multiple of the local size). `label` names the launch. */
cl_int oclt_enqueue_kernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                           const size_t *global, const size_t *local, cl_uint wait_count,
                           const cl_event *wait_list, cl_event *event, const char *label);
/* The same with a global offset (NULL: none). */
cl_int oclt_enqueue_kernel_at(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                              const size_t *offset, const size_t *global, const size_t *local,
                              cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                              const char *label);

/* Sets a kernel argument by value: OCLT_ARG(kernel, 0, buffer). */
#define OCLT_ARG(kernel, index, value)                                                             \
    oclt_check(clSetKernelArg((kernel), (index), sizeof(value), &(value)),                         \
               "clSetKernelArg(" #kernel ", " #index ", " #value ")", __FILE__, __LINE__)

#endif
