/* cl_fake_device: makes the OpenCL device here look like a more limited one, so that the code
 * for such devices runs on any implementation. Preloaded like the leak checker:
 *
 *   LD_PRELOAD=build/lib/libcl_fake_device.so OCLT_FAKE_KERNEL_WORK_GROUP_SIZE=16 build/bin/...
 *
 * OCLT_FAKE_KERNEL_WORK_GROUP_SIZE=n: every kernel allows at most n work-items per group, as
 *   NVIDIA's driver 580 reports 256 for every kernel where CL_DEVICE_MAX_WORK_GROUP_SIZE is 1024.
 *   clGetKernelWorkGroupInfo answers CL_KERNEL_WORK_GROUP_SIZE with the smaller of the driver's
 *   value and n, and clEnqueueNDRangeKernel refuses a group of more than n work-items with
 *   CL_INVALID_WORK_GROUP_SIZE, as the specification requires for the kernel's own limit
 *   (NVIDIA's driver does not: docs/appendix_driver_quirks.md), so a launch the program did not
 *   fit to the kernel fails.
 * OCLT_FAKE_EMBEDDED_NO_FMA=1: CL_DEVICE_PROFILE answers "EMBEDDED_PROFILE", and
 *   CL_DEVICE_SINGLE_FP_CONFIG leaves out CL_FP_FMA and gives CL_FP_ROUND_TO_ZERO instead of
 *   CL_FP_ROUND_TO_NEAREST (the embedded profile's minimum allows either): a device on which
 *   the OpenCL C specification allows mad() any error. (The device itself still rounds to
 *   nearest: a check made for round-toward-zero must pass there too.)
 * OCLT_FAKE_NO_PARTITION_EQUALLY=1: CL_DEVICE_PARTITION_PROPERTIES leaves out
 *   CL_DEVICE_PARTITION_EQUALLY, so that a program must partition by counts (or not at all);
 *   clCreateSubDevices still reaches the real device.
 * Without these variables (or with 0) every call passes through unchanged. */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* The libOpenCL function this library stands in front of; stops with a message where there is
 * none (a program that loads libOpenCL privately with dlopen is out of reach of LD_PRELOAD). */
static void *real_function(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (!function) {
        fprintf(stderr, "cl_fake_device: no %s after this library (is libOpenCL linked?)\n", name);
        abort();
    }
    return function;
}

static size_t setting(const char *name) {
    const char *text = getenv(name);
    return text ? (size_t)strtoull(text, NULL, 10) : 0;
}

EXPORT cl_int clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                       cl_kernel_work_group_info name, size_t size, void *value,
                                       size_t *size_ret) {
    typedef cl_int (*real_t)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *,
                             size_t *);
    const real_t real = (real_t)real_function("clGetKernelWorkGroupInfo");
    const cl_int err = real(kernel, device, name, size, value, size_ret);
    const size_t cap = setting("OCLT_FAKE_KERNEL_WORK_GROUP_SIZE");
    if (err == CL_SUCCESS && cap && name == CL_KERNEL_WORK_GROUP_SIZE && value &&
        size >= sizeof(size_t) && *(size_t *)value > cap)
        *(size_t *)value = cap;
    return err;
}

EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint wait_count,
                                     const cl_event *wait_list, cl_event *event) {
    typedef cl_int (*real_t)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cl_event *, cl_event *);
    const real_t real = (real_t)real_function("clEnqueueNDRangeKernel");
    const size_t cap = setting("OCLT_FAKE_KERNEL_WORK_GROUP_SIZE");
    if (cap && local && dims >= 1 && dims <= 3) {
        size_t items = 1;
        for (cl_uint d = 0; d < dims; ++d) items *= local[d];
        if (items > cap) return CL_INVALID_WORK_GROUP_SIZE;
    }
    return real(queue, kernel, dims, offset, global, local, wait_count, wait_list, event);
}

EXPORT cl_int clGetDeviceInfo(cl_device_id device, cl_device_info name, size_t size, void *value,
                              size_t *size_ret) {
    typedef cl_int (*real_t)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    const real_t real = (real_t)real_function("clGetDeviceInfo");
    if (name == CL_DEVICE_PARTITION_PROPERTIES && setting("OCLT_FAKE_NO_PARTITION_EQUALLY")) {
        cl_device_partition_property kinds[16] = {0};
        size_t bytes = 0, kept = 0;
        const cl_int err = real(device, name, sizeof kinds, kinds, &bytes);
        if (err != CL_SUCCESS) return err;
        for (size_t i = 0; i < bytes / sizeof kinds[0]; ++i)
            if (kinds[i] != CL_DEVICE_PARTITION_EQUALLY) kinds[kept++] = kinds[i];
        if (!kept) kinds[kept++] = 0; /* none: the list is one 0 */
        if (value && size < kept * sizeof kinds[0]) return CL_INVALID_VALUE;
        if (value) memcpy(value, kinds, kept * sizeof kinds[0]);
        if (size_ret) *size_ret = kept * sizeof kinds[0];
        return CL_SUCCESS;
    }
    if (!setting("OCLT_FAKE_EMBEDDED_NO_FMA")) return real(device, name, size, value, size_ret);
    if (name == CL_DEVICE_PROFILE) {
        static const char profile[] = "EMBEDDED_PROFILE";
        if (value && size < sizeof profile) return CL_INVALID_VALUE;
        if (value) memcpy(value, profile, sizeof profile);
        if (size_ret) *size_ret = sizeof profile;
        return CL_SUCCESS;
    }
    const cl_int err = real(device, name, size, value, size_ret);
    if (err == CL_SUCCESS && name == CL_DEVICE_SINGLE_FP_CONFIG && value &&
        size >= sizeof(cl_device_fp_config))
        *(cl_device_fp_config *)value =
            (*(cl_device_fp_config *)value &
             ~(cl_device_fp_config)(CL_FP_FMA | CL_FP_ROUND_TO_NEAREST)) |
            CL_FP_ROUND_TO_ZERO;
    return err;
}
