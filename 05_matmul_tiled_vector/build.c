/* Chapter 05's builds: the tuning and three facts of the problem and the device as -D defines,
 * and one program per kernel file, built the first time a step asks for it. */
#include "matmul.h"

#include <stdio.h>
#include <string.h>

int matmul_build_options(const oclt_device *dev, const matmul_tuning *t, const matmul_problem *p,
                         char *options, size_t size) {
    /* Rows of B and C may be read and written as aligned VWN-vectors when N is a multiple of
     * VWN and buffers start on a boundary of that size (CL_DEVICE_MEM_BASE_ADDR_ALIGN, bits). */
    const int b_aligned =
        p->n % (size_t)t->vwn == 0 &&
        oclt_device_uint(dev->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 32u * (cl_uint)t->vwn;
    /* fma where the device fuses in hardware; else mad, which may be a multiply and an add. In
     * the embedded profile mad may have any error (OpenCL C, "Relative Error as ULPs"), so
     * there it is mul_add: a multiply and an add, each correctly rounded in every profile. */
    cl_device_fp_config fp_config = 0;
    if (OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp_config,
                                   &fp_config, NULL)))
        return -1;
    const int fused = (fp_config & CL_FP_FMA) && !(fp_config & CL_FP_SOFT_FLOAT);
    char profile[32] = "";
    if (OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_PROFILE, sizeof profile, profile, NULL)))
        return -1;
    const char *mad = fused ? "fma" : strcmp(profile, "EMBEDDED_PROFILE") == 0 ? "mul_add" : "mad";
    char peak_type[32] = "float", defines[384];
    const int width = matmul_peak_width(dev);
    if (width > 1) snprintf(peak_type, sizeof peak_type, "float%d", width);
    matmul_format_defines(t, defines, sizeof defines);
    snprintf(options, size, "%s -DB_ALIGNED=%d -DMAD=%s -DPEAK_TYPE=%s", defines, b_aligned, mad,
             peak_type);
    return 0;
}

/* NULL (once built and failed: the log was printed then) or the program. */
cl_program matmul_program(matmul_programs *programs, const oclt_device *dev, const char *file) {
    int slot = 0;
    while (slot < MATMUL_MAX_FILES && programs->file[slot] &&
           strcmp(programs->file[slot], file) != 0)
        ++slot;
    if (slot == MATMUL_MAX_FILES) {
        fprintf(stderr, "more than %d kernel files: raise MATMUL_MAX_FILES\n", MATMUL_MAX_FILES);
        return NULL;
    }
    if (!programs->file[slot]) {
        printf("  build    %s %s\n", file, programs->options);
        fflush(stdout);
        programs->program[slot] =
            oclt_build_file(dev->context, dev->device, file, programs->options);
        programs->file[slot] = file; /* a failed build is not tried again */
    }
    return programs->program[slot];
}

void matmul_release_programs(matmul_programs *programs) {
    for (int slot = 0; slot < MATMUL_MAX_FILES; ++slot) {
        if (programs->program[slot]) clReleaseProgram(programs->program[slot]);
        programs->program[slot] = NULL;
        programs->file[slot] = NULL;
    }
}
