/* cl_kernel_limit: makes every kernel allow fewer work-items per group than the device does, as
 * NVIDIA's driver 580 does (CL_KERNEL_WORK_GROUP_SIZE = 256 for every kernel, where
 * CL_DEVICE_MAX_WORK_GROUP_SIZE is 1024), so that the code paths that meet such a kernel run on
 * any implementation:
 *
 *   LD_PRELOAD=build/lib/libcl_kernel_limit.so OCLT_KERNEL_WORK_GROUP_LIMIT=64 build/bin/...
 *
 * clGetKernelWorkGroupInfo answers CL_KERNEL_WORK_GROUP_SIZE with the smaller of the driver's
 * value and the limit. clEnqueueNDRangeKernel refuses a group of more work-items than the limit
 * with CL_INVALID_WORK_GROUP_SIZE, as the specification requires for the kernel's own limit
 * (NVIDIA's driver does not: docs/appendix_driver_quirks.md), so a launch the program did not
 * fit to the kernel fails here. Without the variable, or with 0, every call passes through. */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static size_t limit(void) {
    const char *text = getenv("OCLT_KERNEL_WORK_GROUP_LIMIT");
    return text ? (size_t)strtoull(text, NULL, 10) : 0;
}

EXPORT cl_int clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                       cl_kernel_work_group_info name, size_t size, void *value,
                                       size_t *size_ret) {
    typedef cl_int (*real_t)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *,
                             size_t *);
    const real_t real = (real_t)dlsym(RTLD_NEXT, "clGetKernelWorkGroupInfo");
    const cl_int err = real(kernel, device, name, size, value, size_ret);
    const size_t cap = limit();
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
    const real_t real = (real_t)dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
    const size_t cap = limit();
    if (cap && local && dims >= 1 && dims <= 3) {
        size_t items = 1;
        for (cl_uint d = 0; d < dims; ++d) items *= local[d];
        if (items > cap) return CL_INVALID_WORK_GROUP_SIZE;
    }
    return real(queue, kernel, dims, offset, global, local, wait_count, wait_list, event);
}
