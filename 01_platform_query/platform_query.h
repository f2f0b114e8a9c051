/* Chapter 01: the parts that main.c calls but that are not the lesson's own steps. */
#ifndef PLATFORM_QUERY_H
#define PLATFORM_QUERY_H

#include "oclt.h"

/* device_properties.c: section 1, every platform and device with its properties. Returns
 * OCLT_CONTINUE, or OCLT_EXIT_FAIL after printing the failed call. */
int print_all_platforms(void);

/* device_properties.c: the chosen device's values that compare_clinfo.sh and
 * docs/results/collect.sh read (CL_DEVICE_NAME, ..., clpeak/clinfo indices). */
void print_chosen_device(const oclt_device *dev);

/* program_queries.c: section 2, clGetProgramInfo, clCreateKernelsInProgram, clGetKernelInfo,
 * clGetKernelArgInfo, clGetKernelWorkGroupInfo, reference counts and clGetContextInfo.
 * Returns OCLT_EXIT_OK or OCLT_EXIT_FAIL. */
int print_program_queries(const oclt_device *dev, cl_program program);

/* builtin_kernels.c: section 3, clCreateProgramWithBuiltInKernels where the device lists any. */
int print_built_in_kernels(const oclt_device *dev);

/* One launch of a 1- or 2-D NDRange on a poisoned output, for oclt_time_median (main.c). */
typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    cl_uint dims;
    size_t global[2], local[2]; /* local[0] == 0: the driver chooses */
    const size_t *offset;       /* NULL: no global offset */
    cl_mem output;
    size_t output_bytes;
    const char *label; /* names the launch in error messages */
} launch;
cl_int run_once(void *launch, double *ms);

/* build_options.c: the same kernel built with each build option in turn; prints what each
 * changes in the result (bits that differ from the default build, error against the bound)
 * and in time. PASS when every build is within the bound. */
oclt_status run_build_options(const oclt_device *dev, const oclt_options *opt, oclt_rng *rng,
                              double *ms);

#endif
