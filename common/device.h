/* Choosing a platform and device, and opening a context and a profiling queue on it. */
#ifndef OCLT_DEVICE_H
#define OCLT_DEVICE_H

#include "cli.h"

#include <CL/cl.h>
#include <stdio.h>

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in-order, CL_QUEUE_PROFILING_ENABLE */
    char platform_name[256];
    char device_name[256];
    char driver_version[128];
    cl_device_type type;
    int platform_version; /* "OpenCL 3.0 ..." -> 300 */
    int device_version;
    int c_version;       /* highest OpenCL C version the device lists, e.g. 120 or 300 */
    cl_ulong max_alloc;  /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    cl_ulong global_mem; /* CL_DEVICE_GLOBAL_MEM_SIZE */
} oclt_device;

/* Lists every platform and device with the indices -p/-d accept. Returns OCLT_EXIT_OK, or
 * OCLT_EXIT_SKIP with the fix-it hint when there is no platform. */
int oclt_list_devices(FILE *out);

/* Finds the platform and device named by -p/-d (or OCLT_PLATFORM/OCLT_DEVICE):
 *   -p P   platform index or case-insensitive substring of the platform name;
 *   -d D   device index (within -p's platform, or across all platforms as --devices numbers
 *          them) or case-insensitive substring of the device name.
 * Default: the first GPU on any platform, else the first device.
 * Returns OCLT_CONTINUE, OCLT_EXIT_SKIP (no platform/device at all, with the hint), or
 * OCLT_EXIT_USAGE (no match: one line naming what is available). */
int oclt_choose_device(const oclt_cli_spec *spec, const char *platform_choice,
                       const char *device_choice, cl_platform_id *platform, cl_device_id *device);

/* --devices, device choice, then a context and a profiling in-order queue. Returns
 * OCLT_CONTINUE on success (dev is filled), else the exit code to return from main. */
int oclt_open_device(const oclt_cli_spec *spec, const oclt_options *opt, oclt_device *dev);
void oclt_close_device(oclt_device *dev);

/* oclt_open_device with dev->queue created with `queue_properties` instead of
 * CL_QUEUE_PROFILING_ENABLE (e.g. 0 for a device that rejects profiling queues; check
 * CL_DEVICE_QUEUE_PROPERTIES first). */
int oclt_open_device_with_queue(const oclt_cli_spec *spec, const oclt_options *opt,
                                oclt_device *dev, cl_command_queue_properties queue_properties);

/* A command queue, through clCreateCommandQueueWithProperties where platform and device are
 * OpenCL 2.0 or newer, else through the 1.2 clCreateCommandQueue. */
cl_command_queue oclt_create_queue(cl_context context, cl_device_id device,
                                   cl_command_queue_properties properties, cl_int *err);

/* "OpenCL 3.0 CUDA" -> 300; 0 when the text is not of that form. */
int oclt_parse_version(const char *text);

/* Device queries. Strings are malloc'ed (caller frees), or NULL after printing the error. */
char *oclt_device_string(cl_device_id device, cl_device_info param);
char *oclt_platform_string(cl_platform_id platform, cl_platform_info param);
cl_ulong oclt_device_ulong(cl_device_id device, cl_device_info param); /* cl_ulong params */
size_t oclt_device_size(cl_device_id device, cl_device_info param);    /* size_t params */
cl_uint oclt_device_uint(cl_device_id device, cl_device_info param);   /* cl_uint/bool params */
int oclt_device_has_extension(cl_device_id device, const char *name);
/* 1 when an OpenCL 3.0 device lists the OpenCL C feature `name` (CL_DEVICE_OPENCL_C_FEATURES). */
int oclt_device_has_c_feature(const oclt_device *dev, const char *name);

/* How one work-group can read, in the same launch, what other work-groups wrote before they
 * took an atomic ticket (the "last group" of chapters 04 and 06). OpenCL 1.2 gives "no
 * guarantees of memory consistency between different work-groups executing a kernel", so a
 * kernel needs one of:
 *   OCLT_GROUP_ORDER_C11     release/acquire atomics at device scope: OpenCL C 2.x, or 3.0
 *                            with __opencl_c_atomic_order_acq_rel and
 *                            __opencl_c_atomic_scope_device (build with that -cl-std);
 *   OCLT_GROUP_ORDER_NVIDIA  NVIDIA's platform: a GPU-scope fence in inline PTX (membar.gl)
 *                            around 1.x atomics, by NVIDIA's memory model;
 *   OCLT_GROUP_ORDER_NONE    neither: the kernel is not offered. */
typedef enum {
    OCLT_GROUP_ORDER_NONE,
    OCLT_GROUP_ORDER_C11,
    OCLT_GROUP_ORDER_NVIDIA
} oclt_group_order;
oclt_group_order oclt_device_group_order(const oclt_device *dev);

/* a * b, or the largest cl_ulong when the product overflows (so that limit checks fail safely). */
cl_ulong oclt_mul_size(cl_ulong a, cl_ulong b);

/* Usage error (exit 2) when one buffer of `bytes` exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE or
 * all buffers together (`total`) exceed the global memory. Returns 0 when they fit. */
int oclt_require_memory(const oclt_cli_spec *spec, const oclt_device *dev, cl_ulong bytes,
                        cl_ulong total, const char *what);

/* Usage error (exit 2) when the host's arrays (`host_bytes`) exceed the machine's physical
 * memory, together with the buffers (`buffer_bytes`) where the device is a CPU, whose buffers
 * live in that same memory. Otherwise the system may kill the run part-way, without a word.
 * Returns 0 when they fit, or when the system does not say how much memory it has. The limit is
 * the machine's memory, or on Linux a smaller cgroup limit (a container's). */
int oclt_require_host_memory(const oclt_cli_spec *spec, const oclt_device *dev, cl_ulong host_bytes,
                             cl_ulong buffer_bytes, const char *what);

#endif
