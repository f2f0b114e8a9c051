/* Error names and fix-it hints for OpenCL status codes. */
#include "errors.h"

#include <stdio.h>

/* Every negative status code of the OpenCL 3.0 headers (cl.h, cl_ext.h, cl_gl.h, cl_egl.h,
 * cl_d3d*.h, cl_dx9_*.h, cl_va_api_*.h), up to the 2024 headers of Debian 13. Values shared by two
 * extensions list both names. tests/error_names checks this table against the installed headers. */
static const struct {
    cl_int code;
    const char *name;
} error_table[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1006, "CL_INVALID_D3D11_DEVICE_KHR"},
    {-1007, "CL_INVALID_D3D11_RESOURCE_KHR"},
    {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR/CL_INVALID_DX9_DEVICE_INTEL"},
    {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR/CL_INVALID_DX9_RESOURCE_INTEL"},
    {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR/CL_DX9_RESOURCE_ALREADY_ACQUIRED_INTEL"},
    {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR/CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL"},
    {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL"},
    {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
    {-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1126, "CL_CANCELLED_IMG"}, /* newer headers (2024) */
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
};

size_t oclt_error_table_size(void) {
    return sizeof error_table / sizeof error_table[0];
}

cl_int oclt_error_table_code(size_t i) {
    return i < oclt_error_table_size() ? error_table[i].code : CL_SUCCESS;
}

const char *oclt_error_name(cl_int err) {
    for (size_t i = 0; i < oclt_error_table_size(); ++i)
        if (error_table[i].code == err) return error_table[i].name;
    return "unknown OpenCL error";
}

const char *oclt_error_hint(cl_int err) {
    switch (err) {
    case CL_PLATFORM_NOT_FOUND_KHR:
        return "no OpenCL platform is installed: install a driver such as pocl-opencl-icd "
               "(CPU) or your GPU vendor's, and check that /etc/OpenCL/vendors holds its .icd "
               "file (or that OCL_ICD_VENDORS points at one)";
    case CL_DEVICE_NOT_FOUND:
        return "the platform has no device of the requested type: list them with --devices";
    case CL_DEVICE_NOT_AVAILABLE:
        return "the device exists but is in use or switched off (another process, or a "
               "compute-mode setting)";
    case CL_COMPILER_NOT_AVAILABLE:
        return "this platform cannot compile OpenCL C source (no online compiler)";
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
        return "the kernel source did not compile: the build log above says where";
    case CL_LINK_PROGRAM_FAILURE:
        return "linking failed: the link log above names the missing or duplicate symbol";
    case CL_INVALID_BUILD_OPTIONS:
    case CL_INVALID_COMPILER_OPTIONS:
    case CL_INVALID_LINKER_OPTIONS:
        return "an option is unknown to this compiler (e.g. a -cl-std the device does not list)";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "the local size breaks a limit: device max work-group size, the kernel's "
               "CL_KERNEL_WORK_GROUP_SIZE, a reqd_work_group_size attribute, or a global size that "
               "is not a multiple of the local size (allowed only with non-uniform groups, in a "
               "program built with -cl-std=CL2.0 or later)";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "a local size exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES in that dimension";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "a global size is zero or exceeds what the device can address";
    case CL_OUT_OF_RESOURCES:
        return "the device ran out of something (registers, local memory, queue slots); on "
               "NVIDIA this is usually an out-of-bounds access in a kernel: reproduce on PoCL "
               "or under oclgrind";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "the device could not allocate the buffer: use a smaller --size (see "
               "CL_DEVICE_MAX_MEM_ALLOC_SIZE and CL_DEVICE_GLOBAL_MEM_SIZE with --devices)";
    case CL_OUT_OF_HOST_MEMORY:
        return "the host ran out of memory: use a smaller --size";
    case CL_INVALID_BUFFER_SIZE:
        return "a buffer size is zero or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE";
    case CL_PROFILING_INFO_NOT_AVAILABLE:
        return "the queue was created without CL_QUEUE_PROFILING_ENABLE, or the event has not "
               "completed";
    case CL_INVALID_KERNEL_ARGS:
        return "a kernel argument was not set before the launch";
    case CL_INVALID_ARG_SIZE:
        return "clSetKernelArg got a size that does not match the kernel's parameter type";
    case CL_INVALID_QUEUE_PROPERTIES:
        return "the device does not support a requested queue property (out-of-order or "
               "profiling)";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET:
        return "a sub-buffer origin must be a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits)";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "an event this command waited on ended with an error status";
    case CL_INVALID_BINARY:
        return "the program binary was built for another device or is corrupted: rebuild "
               "from source";
    case CL_MEM_COPY_OVERLAP:
        return "the source and destination of a copy inside one buffer (or two sub-buffers of "
               "one buffer) overlap: copy through a second buffer";
    case CL_IMAGE_FORMAT_MISMATCH:
        return "the two images of a copy have different image formats";
    case CL_IMAGE_FORMAT_NOT_SUPPORTED:
        return "the device does not support this image format with these flags: list the "
               "supported ones with clGetSupportedImageFormats";
    case CL_MAP_FAILURE:
        return "the region could not be mapped into the host's address space: map a smaller "
               "region";
    case CL_LINKER_NOT_AVAILABLE:
        return "this device has no linker (an embedded-profile device, which then has no "
               "compiler either): load a program binary built for it elsewhere";
    case CL_DEVICE_PARTITION_FAILED:
        return "the partition was valid but this device cannot be split further";
    case CL_INVALID_DEVICE_PARTITION_COUNT:
        return "the partition asks for more sub-devices than CL_DEVICE_PARTITION_MAX_SUB_DEVICES, "
               "or more compute units than the device has";
    case CL_KERNEL_ARG_INFO_NOT_AVAILABLE:
        return "argument names and qualifiers are kept only for a program built from source "
               "with -cl-kernel-arg-info";
    case CL_INVALID_VALUE:
        return "an argument has a value the call does not accept (a flag, a size of 0, an "
               "offset + size past the end, a NULL pointer): see the call's list of errors in "
               "the OpenCL API specification";
    case CL_INVALID_DEVICE_TYPE:
        return "not a valid CL_DEVICE_TYPE_* value";
    case CL_INVALID_PLATFORM:
        return "the platform is not one that clGetPlatformIDs returned";
    case CL_INVALID_DEVICE:
        return "the device is not valid, or not one of the context's or the program's devices";
    case CL_INVALID_CONTEXT:
        return "the context is not valid, or the objects of one call come from different "
               "contexts";
    case CL_INVALID_COMMAND_QUEUE:
        return "the queue is not valid (released, or NULL)";
    case CL_INVALID_HOST_PTR:
        return "host_ptr does not match the flags: CL_MEM_USE_HOST_PTR and CL_MEM_COPY_HOST_PTR "
               "need one, the other flags need NULL";
    case CL_INVALID_MEM_OBJECT:
        return "a memory object is not valid (released, or NULL), or of the wrong kind (a buffer "
               "where an image is needed, or the reverse)";
    case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR:
        return "the cl_image_format is not valid (its channel order and data type do not go "
               "together)";
    case CL_INVALID_IMAGE_SIZE:
        return "an image size is beyond the device's limit (CL_DEVICE_IMAGE2D_MAX_WIDTH and the "
               "like)";
    case CL_INVALID_IMAGE_DESCRIPTOR:
        return "the cl_image_desc is not valid (its type, sizes, pitches or mip levels)";
    case CL_INVALID_SAMPLER:
        return "the sampler is not valid, or a sampler argument was given something else";
    case CL_INVALID_PROGRAM:
        return "the program is not valid (released, or NULL)";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "the program has no built executable for the device: build it, and read the "
               "build log, before creating kernels from it";
    case CL_INVALID_KERNEL_NAME:
        return "the program has no __kernel of that name: check the name in the .cl file";
    case CL_INVALID_KERNEL_DEFINITION:
        return "the kernel's parameters differ between the devices the program was built for";
    case CL_INVALID_KERNEL:
        return "the kernel is not valid (released, or NULL)";
    case CL_INVALID_ARG_INDEX:
        return "the argument index is past the kernel's last parameter (they count from 0)";
    case CL_INVALID_ARG_VALUE:
        return "the value does not suit the parameter: a __local parameter takes a size and a "
               "NULL value, a buffer parameter a pointer to a cl_mem (or NULL)";
    case CL_INVALID_WORK_DIMENSION:
        return "work_dim must be between 1 and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS (at least 3)";
    case CL_INVALID_GLOBAL_OFFSET:
        return "a global offset plus its global size overflows size_t (or, on OpenCL 1.0, an "
               "offset was given at all)";
    case CL_INVALID_EVENT_WAIT_LIST:
        return "the wait list and its count disagree (a list with a count of 0, or NULL with a "
               "count), or it holds an event that is not valid";
    case CL_INVALID_EVENT:
        return "an event is not valid (released, or never created: not returned by a command "
               "or by clCreateUserEvent)";
    case CL_INVALID_OPERATION:
        return "the call is not allowed here: the device lacks what it needs (images, a "
               "feature, a property), or an object is in the wrong state; see the call's list "
               "of errors in the OpenCL API specification";
    case CL_INVALID_GL_OBJECT:
        return "the OpenGL object is not valid for sharing with this context";
    case CL_INVALID_MIP_LEVEL:
        return "clCreateFromGLTexture: the mip level is outside the levels the OpenGL texture "
               "defines";
    case CL_INVALID_PROPERTY:
        return "a properties list holds a name or value the call does not support, or one name "
               "twice";
    case CL_INVALID_PIPE_SIZE:
        return "a pipe's packet size is 0 or above CL_DEVICE_PIPE_MAX_PACKET_SIZE, or it holds "
               "no packets";
    case CL_INVALID_DEVICE_QUEUE:
        return "a queue argument of a kernel is not a valid on-device queue";
    case CL_INVALID_SPEC_ID:
        return "the specialization constant's id is not in the program's SPIR-V module";
    case CL_MAX_SIZE_RESTRICTION_EXCEEDED:
        return "an argument is larger than a limit the kernel's language sets for it (such as "
               "SPIR-V's MaxByteOffset)";
    default:
        return NULL;
    }
}

const char *oclt_execution_status_name(cl_int status) {
    switch (status) {
    case CL_QUEUED:
        return "CL_QUEUED";
    case CL_SUBMITTED:
        return "CL_SUBMITTED";
    case CL_RUNNING:
        return "CL_RUNNING";
    case CL_COMPLETE:
        return "CL_COMPLETE";
    default:
        return oclt_error_name(status);
    }
}

cl_int oclt_check(cl_int err, const char *call, const char *file, int line) {
    if (err == CL_SUCCESS) return CL_SUCCESS;
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, oclt_error_name(err),
            (int)err);
    const char *hint = oclt_error_hint(err);
    if (hint) fprintf(stderr, "  hint: %s\n", hint);
    return err;
}
