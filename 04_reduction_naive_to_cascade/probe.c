/* Chapter 04: what the device can build (fp64, C11 atomics, sub-groups, inline PTX), the build
 * options, and the per-variant reasons to SKIP. */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenCL C 2.x has sub-groups through cl_khr_subgroups and acquire/release atomics at device
 * scope built in; OpenCL C 3.0 makes both optional features. Sub-group queries on the host are
 * core from OpenCL 2.1. */
void probe_capabilities(const oclt_device *dev, int type, capabilities *caps) {
    const int c = dev->c_version;
    memset(caps, 0, sizeof *caps);
    caps->fp64 = oclt_device_has_extension(dev->device, "cl_khr_fp64") ||
                 oclt_device_has_c_feature(dev, "__opencl_c_fp64");
    caps->nvidia = strstr(dev->platform_name, "NVIDIA") != NULL;
    caps->sub_groups =
        dev->platform_version >= 210 && dev->device_version >= 210 &&
        ((c >= 300 && oclt_device_has_c_feature(dev, "__opencl_c_subgroups")) ||
         (c >= 200 && c < 300 && oclt_device_has_extension(dev->device, "cl_khr_subgroups")));
    /* reduce7 needs an order between work-groups: device-scope acquire/release (C11 atomics),
     * or NVIDIA's GPU-scope fence in inline PTX; OpenCL 1.2 itself promises none. Without C11
     * atomics a double partial moves with 64-bit atomics. */
    const oclt_group_order order = oclt_device_group_order(dev);
    caps->c11_atomics = order == OCLT_GROUP_ORDER_C11;
    caps->reduce7_fence = order == OCLT_GROUP_ORDER_NVIDIA;
    caps->reduce7 = (caps->c11_atomics || caps->reduce7_fence) &&
                    (type != TYPE_DOUBLE || caps->c11_atomics ||
                     oclt_device_has_extension(dev->device, "cl_khr_int64_base_atomics"));
    if (caps->sub_groups || caps->c11_atomics)
        caps->cl_std = c >= 300 ? "-cl-std=CL3.0" : "-cl-std=CL2.0";
}

static const char *const type_names[] = {"float", "int", "double"};
static const char *const identities[] = {"0.0f", "0", "0.0"};

cl_program build_reduce_program(const oclt_device *dev, const capabilities *caps, int type,
                                size_t local, const tuning *tune) {
    char options[512], vector[16];
    if (tune->vec == 1)
        snprintf(vector, sizeof vector, "%s", type_names[type]);
    else
        snprintf(vector, sizeof vector, "%s%u", type_names[type], tune->vec);
    snprintf(options, sizeof options,
             "-DT=%s -DIDENTITY=%s -DBLOCK_SIZE=%zu -DTV=%s -DVEC=%u -DUNROLL=%u "
             "-DBLOCKED=%d%s%s%s%s%s%s "
             "%s",
             type_names[type], identities[type], local, vector, tune->vec, tune->unroll,
             tune->blocked, type == TYPE_DOUBLE ? " -DUSE_FP64" : "",
             caps->c11_atomics ? " -DC11_ATOMICS" : "",
             caps->reduce7_fence ? " -DNVIDIA_GPU_FENCE" : "",
             caps->nvidia && local >= 32 ? " -DNVIDIA_WARP_SYNC" : "",
             caps->sub_groups ? " -DSUB_GROUPS" : "", caps->reduce7 ? "" : " -DWITHOUT_REDUCE7",
             caps->cl_std ? caps->cl_std : "");
    return oclt_build_file(dev->context, dev->device, "reduce.cl", options);
}

/* How reduce6_subgroup's groups of `local` items split into sub-groups: the widest sub-group
 * (CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE) and how many there are
 * (CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE). Returns 0 after an error. */
static int sub_group_shape(const oclt_device *dev, cl_program program, size_t local, size_t *width,
                           size_t *count) {
    cl_kernel kernel = oclt_create_kernel(program, "reduce6_subgroup");
    if (!kernel) return 0;
    const int ok =
        !OCLT_CHECK(clGetKernelSubGroupInfo(kernel, dev->device,
                                            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                            &local, sizeof *width, width, NULL)) &&
        !OCLT_CHECK(clGetKernelSubGroupInfo(kernel, dev->device,
                                            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local,
                                            &local, sizeof *count, count, NULL));
    clReleaseKernel(kernel);
    return ok;
}

const char *variant_unavailable(const oclt_device *dev, const capabilities *caps,
                                cl_program program, int v, size_t local) {
    if (v == REDUCE7 && !caps->c11_atomics && !caps->reduce7_fence)
        return "needs an order between work-groups: OpenCL C 2.0 atomics, or 3.0 with "
               "__opencl_c_atomic_order_acq_rel and __opencl_c_atomic_scope_device (or NVIDIA's "
               "GPU-scope fence); OpenCL 1.2 promises none";
    if (v == REDUCE7 && !caps->reduce7)
        return "double without C11 atomics needs cl_khr_int64_base_atomics for the partials";
    if (v == REDUCE4_RACY && local < 64)
        return "the classic tail reads s[lid + 32]: needs --local >= 64";
    if (v == REDUCE6_WARP && !caps->nvidia)
        return "inline PTX (bar.warp.sync): NVIDIA platforms only; reduce6 is its portable twin";
    if (v == REDUCE6_WARP && local < 32) return "needs --local >= 32, a whole warp";
    if (v == REDUCE6_SUBGROUP && !caps->sub_groups)
        return "needs sub-groups (cl_khr_subgroups, or OpenCL C 3.0 __opencl_c_subgroups); reduce6 "
               "is its portable twin";
    if (v == REDUCE6_SUBGROUP) {
        size_t width = 0, count = 0;
        if (!sub_group_shape(dev, program, local, &width, &count) || width < 1 ||
            (width & (width - 1)) != 0)
            return "the sub-group size of this kernel is not a power of two";
        /* Sub-group 0 finishes the `width` values the tree leaves. Only the last sub-group may
         * be narrower than the others (API 3.2.1); run only where every one is full, a
         * stricter condition that costs nothing. */
        if (count * width != local)
            return "the sub-groups of this kernel are not all full for this --local";
    }
    return NULL;
}

size_t kernel_group_limit(const oclt_device *dev, const capabilities *caps, cl_program program,
                          const int *selected, size_t local) {
    size_t limit = SIZE_MAX;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        /* the advanced kernels exist only where build_reduce_program compiled them */
        if (!selected[v] || (v == REDUCE6_WARP && !(caps->nvidia && local >= 32)) ||
            (v == REDUCE6_SUBGROUP && !caps->sub_groups) || (v == REDUCE7 && !caps->reduce7))
            continue;
        size_t value = 0;
        cl_kernel kernel = oclt_create_kernel(program, variants[v].name);
        if (!kernel ||
            OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                sizeof value, &value, NULL)))
            value = 0;
        if (kernel) clReleaseKernel(kernel);
        if (value < limit) limit = value;
    }
    return limit;
}
