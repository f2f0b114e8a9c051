/* Chapter 01, section 2: what the program, kernel and context queries report about a program
 * built from source: kernel names, context, source, binaries, argument info, work-group limits,
 * reference counts. */
#include "platform_query.h"

#include <stdio.h>
#include <stdlib.h>

static void print_binaries(cl_program program) {
    cl_uint device_count = 0;
    if (OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof device_count,
                                    &device_count, NULL)) ||
        device_count == 0)
        return;
    printf("  CL_PROGRAM_NUM_DEVICES       %u\n", device_count);
    size_t *sizes = calloc(device_count, sizeof *sizes);
    unsigned char **binaries = calloc(device_count, sizeof *binaries);
    if (!sizes || !binaries ||
        OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, device_count * sizeof *sizes,
                                    sizes, NULL)))
        goto release_arrays;
    for (cl_uint d = 0; d < device_count; ++d)
        if (!(binaries[d] = malloc(sizes[d] ? sizes[d] : 1))) goto release_binaries;
    if (OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, device_count * sizeof *binaries,
                                    binaries, NULL)))
        goto release_binaries;
    for (cl_uint d = 0; d < device_count; ++d) {
        printf("  CL_PROGRAM_BINARY_SIZES[%u]   %zu bytes\n", d, sizes[d]);
        printf("  CL_PROGRAM_BINARIES[%u]       first bytes: ", d);
        for (size_t i = 0; i < sizes[d] && i < 16; ++i) printf("%02x ", binaries[d][i]);
        printf(" \"");
        for (size_t i = 0; i < sizes[d] && i < 16; ++i)
            putchar(binaries[d][i] >= 32 && binaries[d][i] < 127 ? binaries[d][i] : '.');
        printf("\"\n      ^ what the driver keeps after compiling, in its own format (PoCL: a "
               "\"poclbin\" archive; NVIDIA: PTX text); chapter 03 reloads it\n");
    }
release_binaries:
    for (cl_uint d = 0; d < device_count; ++d) free(binaries[d]);
release_arrays:
    free(binaries);
    free(sizes);
}

static const char *address_name(cl_kernel_arg_address_qualifier q) {
    switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        return "__global";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return "__local";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return "__constant";
    default:
        return "__private";
    }
}

static void print_kernel(cl_kernel kernel, cl_device_id device) {
    char name[128] = "";
    cl_uint arg_count = 0;
    OCLT_CHECK(clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
    OCLT_CHECK(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof arg_count, &arg_count, NULL));
    printf("\n  kernel %s: CL_KERNEL_NUM_ARGS %u\n", name, arg_count);
    for (cl_uint a = 0; a < arg_count; ++a) {
        cl_kernel_arg_address_qualifier address = 0;
        cl_kernel_arg_type_qualifier type_qualifier = 0;
        char type_name[128] = "?", arg_name[128] = "?";
        cl_int err = clGetKernelArgInfo(kernel, a, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address,
                                        &address, NULL);
        if (err == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) {
            printf("    argument info not available (build with -cl-kernel-arg-info)\n");
            break;
        }
        if (OCLT_CHECK_ERR(err, "clGetKernelArgInfo(CL_KERNEL_ARG_ADDRESS_QUALIFIER)") ||
            OCLT_CHECK(clGetKernelArgInfo(kernel, a, CL_KERNEL_ARG_TYPE_QUALIFIER,
                                          sizeof type_qualifier, &type_qualifier, NULL)) ||
            OCLT_CHECK(clGetKernelArgInfo(kernel, a, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name,
                                          type_name, NULL)) ||
            OCLT_CHECK(
                clGetKernelArgInfo(kernel, a, CL_KERNEL_ARG_NAME, sizeof arg_name, arg_name, NULL)))
            break;
        printf("    arg %u: %-10s %s%s%s%s %s\n", a, address_name(address),
               type_qualifier & CL_KERNEL_ARG_TYPE_CONST ? "const " : "",
               type_qualifier & CL_KERNEL_ARG_TYPE_VOLATILE ? "volatile " : "", type_name,
               type_qualifier & CL_KERNEL_ARG_TYPE_RESTRICT ? " restrict" : "", arg_name);
    }
    size_t work_group = 0, multiple = 0;
    cl_ulong local_bytes = 0, private_bytes = 0;
    OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof work_group, &work_group, NULL));
    OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device,
                                        CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                        sizeof multiple, &multiple, NULL));
    OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE,
                                        sizeof local_bytes, &local_bytes, NULL));
    OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE,
                                        sizeof private_bytes, &private_bytes, NULL));
    printf("    CL_KERNEL_WORK_GROUP_SIZE                     %zu  (this kernel's limit on this "
           "device; may be below the device max)\n",
           work_group);
    printf(
        "    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE  %zu  (a performance hint: local sizes "
        "that are multiples of it may run faster)\n",
        multiple);
    printf("    CL_KERNEL_LOCAL_MEM_SIZE                      %llu bytes  (local memory in use, "
           "including __local arguments set so far)\n",
           (unsigned long long)local_bytes);
    printf("    CL_KERNEL_PRIVATE_MEM_SIZE                    %llu bytes  (per work-item "
           "private memory)\n",
           (unsigned long long)private_bytes);
    /* The largest global size: defined only for built-in kernels and custom devices; for a
     * kernel built from source on any other device the spec makes it CL_INVALID_VALUE. */
    size_t global_max[3] = {0, 0, 0};
    const cl_int err = clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_GLOBAL_WORK_SIZE,
                                                sizeof global_max, global_max, NULL);
    if (err == CL_SUCCESS)
        printf("    CL_KERNEL_GLOBAL_WORK_SIZE                    %zu x %zu x %zu  (answered, "
               "though the spec asks it only of built-in kernels and custom devices)\n",
               global_max[0], global_max[1], global_max[2]);
    else if (err == CL_INVALID_VALUE)
        printf("    CL_KERNEL_GLOBAL_WORK_SIZE                    refused (CL_INVALID_VALUE), as "
               "the spec says: only built-in kernels and custom devices answer it\n");
    else
        OCLT_CHECK_ERR(err, "clGetKernelWorkGroupInfo(CL_KERNEL_GLOBAL_WORK_SIZE)");
}

/* CL_PROGRAM_CONTEXT and CL_PROGRAM_SOURCE: where the program lives and the text it was built
 * from (for a program made from a binary, IL or built-in kernels: empty, or the source where
 * the driver kept it in the binary). */
static void print_program_origin(const oclt_device *dev, cl_program program) {
    cl_context context = NULL;
    size_t source_size = 0;
    if (OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL)) ||
        OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_SOURCE, 0, NULL, &source_size)))
        return;
    printf("  CL_PROGRAM_CONTEXT           %s\n",
           context == dev->context ? "the context it was created in (ours)" : "another context");
    char *source = malloc(source_size ? source_size : 1);
    if (!source ||
        OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_SOURCE, source_size, source, NULL))) {
        free(source);
        return;
    }
    size_t first_line = 0;
    while (first_line + 1 < source_size && source[first_line] != '\n') ++first_line;
    printf("  CL_PROGRAM_SOURCE            %zu bytes, beginning \"%.*s\"\n", source_size,
           (int)first_line, source);
    free(source);
}

/* CL_PROGRAM_REFERENCE_COUNT (0 after printing the error, should the query fail). */
static cl_uint program_refs(cl_program program) {
    cl_uint count = 0;
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof count, &count, NULL));
    return count;
}

int print_program_queries(const oclt_device *dev, cl_program program) {
    printf("\n2. Program, kernel and context queries on %s\n", dev->device_name);
    char names[512] = "";
    size_t kernel_count = 0;
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof kernel_count, &kernel_count,
                                NULL));
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
    printf("  CL_PROGRAM_NUM_KERNELS       %zu\n  CL_PROGRAM_KERNEL_NAMES      %s\n", kernel_count,
           names);
    print_program_origin(dev, program);
    print_binaries(program);

    /* clCreateKernelsInProgram: every kernel at once, without knowing the names. */
    cl_uint count = 0;
    if (OCLT_CHECK(clCreateKernelsInProgram(program, 0, NULL, &count))) return OCLT_EXIT_FAIL;
    cl_kernel *kernels = calloc(count, sizeof *kernels);
    if (!kernels) return OCLT_EXIT_FAIL;
    int rc = OCLT_EXIT_OK;
    if (OCLT_CHECK(clCreateKernelsInProgram(program, count, kernels, NULL))) {
        rc = OCLT_EXIT_FAIL;
        goto release_kernel_array;
    }
    printf("  clCreateKernelsInProgram     %u kernels\n", count);
    for (cl_uint k = 0; k < count; ++k) print_kernel(kernels[k], dev->device);
    for (cl_uint k = 0; k < count; ++k) clReleaseKernel(kernels[k]);

    /* Reference counts: every Retain must be matched by a Release. */
    const cl_uint before = program_refs(program);
    if (OCLT_CHECK(clRetainProgram(program))) {
        rc = OCLT_EXIT_FAIL;
        goto release_kernel_array;
    }
    const cl_uint retained = program_refs(program);
    if (OCLT_CHECK(clReleaseProgram(program))) {
        rc = OCLT_EXIT_FAIL;
        goto release_kernel_array;
    }
    const cl_uint released = program_refs(program);
    printf("\n  CL_PROGRAM_REFERENCE_COUNT   %u -> clRetainProgram -> %u -> clReleaseProgram -> %u"
           "\n      ^ an object is freed when its count reaches 0 (the count is for debugging "
           "only)\n",
           before, retained, released);

    cl_uint context_devices = 0, context_refs = 0;
    OCLT_CHECK(clGetContextInfo(dev->context, CL_CONTEXT_NUM_DEVICES, sizeof context_devices,
                                &context_devices, NULL));
    OCLT_CHECK(clGetContextInfo(dev->context, CL_CONTEXT_REFERENCE_COUNT, sizeof context_refs,
                                &context_refs, NULL));
    cl_context_properties properties[8] = {0};
    size_t properties_size = 0;
    OCLT_CHECK(clGetContextInfo(dev->context, CL_CONTEXT_PROPERTIES, sizeof properties, properties,
                                &properties_size));
    printf("  CL_CONTEXT_NUM_DEVICES       %u\n  CL_CONTEXT_REFERENCE_COUNT   %u  (ours, plus "
           "any the driver keeps for the queue and program: PoCL counts them, NVIDIA not)\n"
           "  CL_CONTEXT_PROPERTIES        %s\n",
           context_devices, context_refs,
           properties_size >= sizeof properties[0] && properties[0] == CL_CONTEXT_PLATFORM
               ? "CL_CONTEXT_PLATFORM = the chosen platform"
               : "(none)");
release_kernel_array:
    free(kernels);
    return rc;
}
