/* Chapter 05's driver workaround (docs/appendix_driver_quirks.md, chapter 05): a compiled kernel
 * may allow fewer work-items per group than the device. NVIDIA's driver 580 reports
 * CL_KERNEL_WORK_GROUP_SIZE = 256 for every kernel, even with reqd_work_group_size(32, 32, 1)
 * and CL_DEVICE_MAX_WORK_GROUP_SIZE = 1024, so the TS x TS groups of naive and tiled must shrink
 * there. */
#include "matmul.h"

#include <stdio.h>

/* The fewest work-items per group that the compiled naive and tiled kernels allow. */
static size_t simple_kernels_limit(const oclt_device *dev, cl_program program) {
    static const char *const names[] = {"naive", "tiled"};
    size_t limit = (size_t)-1;
    for (int i = 0; i < 2; ++i) {
        size_t max = 0;
        cl_kernel kernel = oclt_create_kernel(program, names[i]);
        if (kernel &&
            !OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                 sizeof max, &max, NULL)) &&
            max < limit)
            limit = max;
        if (kernel) clReleaseKernel(kernel);
    }
    return limit;
}

int matmul_fit_simple_tiles(const oclt_device *dev, const matmul_problem *p,
                            const matmul_tuning_override *override, matmul_tuning *tuning,
                            matmul_programs *programs) {
    cl_program program = matmul_program(programs, dev, "matmul.cl");
    if (!program) return -1;
    for (size_t fits = simple_kernels_limit(dev, program);
         !override->value.ts && tuning->ts > 4 && (size_t)tuning->ts * tuning->ts > fits;
         fits = simple_kernels_limit(dev, program)) {
        tuning->ts /= 2;
        if (tuning->wpt > tuning->ts) tuning->wpt = tuning->ts;
        if (tuning->width > tuning->ts) tuning->width = tuning->ts;
        printf("  tuning   TS=%d: the compiled naive and tiled kernels allow %zu work-items per "
               "group\n",
               tuning->ts, fits);
        matmul_release_programs(programs);
        if (matmul_build_options(dev, tuning, p, programs->options, sizeof programs->options))
            return -1;
        program = matmul_program(programs, dev, "matmul.cl");
        if (!program) return -1;
    }
    return 0;
}
