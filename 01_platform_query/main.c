/* Chapter 01: what OpenCL can see on this machine.
 *
 * The lesson, top to bottom:
 *   1. every platform (an installed driver) and every device it offers, with the properties
 *      that later chapters use to size their kernels;
 *   2. on the chosen device: a context, a program built from source, and what the program,
 *      kernel and context queries report about it;
 *   3. the device's built-in kernels, where it has any;
 *   4. the two kernels run on random data and checked against the CPU.
 */
#include "oclt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oclt_variant_info variants[] = {
    {"scale_shift", "y = a*x + b + table[i%4]: global, constant and private memory", 1},
    {"group_sum", "per-work-group sums through a __local argument and barriers", 1},
};

static const oclt_cli_spec spec = {
    .chapter = "01_platform_query",
    .summary = "list platforms and devices, query a program and its kernels, run two kernels",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 20},
    .default_reps = 5,
    .variants = variants,
    .variant_count = sizeof variants / sizeof variants[0],
};

/* ---- 1. Platforms and devices ------------------------------------------------------------ */

/* The first time a property is printed, a one-line explanation follows it. */
static int explain = 1;

static void row(const char *label, const char *value, const char *why) {
    printf("    %-34s %s\n", label, value);
    if (explain && why) printf("    %-34s   ^ %s\n", "", why);
}

static void format_bytes(char *out, size_t size, cl_ulong bytes) {
    if (bytes >= (1ull << 30))
        snprintf(out, size, "%llu (%.2f GiB)", (unsigned long long)bytes,
                 (double)bytes / (1ull << 30));
    else if (bytes >= (1ull << 20))
        snprintf(out, size, "%llu (%.2f MiB)", (unsigned long long)bytes,
                 (double)bytes / (1ull << 20));
    else
        snprintf(out, size, "%llu (%.2f KiB)", (unsigned long long)bytes, (double)bytes / 1024.0);
}

/* Queries that older devices may not know: a failure is shown, not treated as an error. */
static int query(cl_device_id device, cl_device_info param, size_t size, void *value) {
    return clGetDeviceInfo(device, param, size, value, NULL) == CL_SUCCESS;
}

static void print_wrapped_list(const char *label, const char *list, const char *why) {
    printf("    %-34s", label);
    size_t column = 38;
    const char *p = list;
    int any = 0;
    while (p && *p) {
        while (*p == ' ' || *p == ';') ++p;
        size_t len = strcspn(p, " ;");
        if (len == 0) break;
        if (column + len + 1 > 100) {
            printf("\n    %-34s", "");
            column = 38;
        }
        printf(" %.*s", (int)len, p);
        column += len + 1;
        p += len;
        any = 1;
    }
    printf("%s\n", any ? "" : " (none)");
    if (explain && why) printf("    %-34s   ^ %s\n", "", why);
}

static void print_bytes_row(cl_device_id device, cl_device_info param, const char *label,
                            const char *why) {
    char text[64];
    format_bytes(text, sizeof text, oclt_device_ulong(device, param));
    row(label, text, why);
}

static void print_uint_row(cl_device_id device, cl_device_info param, const char *label,
                           const char *unit, const char *why) {
    char text[64];
    snprintf(text, sizeof text, "%u%s", oclt_device_uint(device, param), unit);
    row(label, text, why);
}

static void print_fp_support(cl_device_id device) {
    char text[128];
    cl_device_fp_config fp64 = 0, fp16 = 0;
    int has64 = query(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64) && fp64 != 0;
    int has16 = oclt_device_has_extension(device, "cl_khr_fp16") &&
                query(device, CL_DEVICE_HALF_FP_CONFIG, sizeof fp16, &fp16);
    snprintf(text, sizeof text, "%s", has64 ? "yes (cl_khr_fp64 / __opencl_c_fp64)" : "no");
    row("double precision (fp64)", text, "double in kernels; chapter 04's double variant needs it");
    snprintf(text, sizeof text, "%s", has16 ? "yes (cl_khr_fp16)" : "no");
    row("half precision (fp16)", text, "half arithmetic in kernels (storage-only half is core)");
}

static void print_c_versions_and_features(cl_device_id device, int device_version) {
    char *c_version = oclt_device_string(device, CL_DEVICE_OPENCL_C_VERSION);
    row("OpenCL C version (highest 1.x/2.x)", c_version ? c_version : "?",
        "the kernel language; pass -cl-std=CL<x.y> only for a version listed here");
    free(c_version);
    if (device_version < 300) return;
    size_t size = 0;
    char text[1024] = "";
    if (clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) == CL_SUCCESS &&
        size) {
        cl_name_version *all = malloc(size);
        if (all && query(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, all))
            for (size_t i = 0; i < size / sizeof *all; ++i) {
                char one[32];
                snprintf(one, sizeof one, "%s%u.%u", i ? " " : "", CL_VERSION_MAJOR(all[i].version),
                         CL_VERSION_MINOR(all[i].version));
                strncat(text, one, sizeof text - strlen(text) - 1);
            }
        free(all);
    }
    row("OpenCL C versions (3.0 query)", text,
        "every language version the compiler accepts (CL_DEVICE_OPENCL_C_ALL_VERSIONS)");
    text[0] = '\0';
    if (clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) == CL_SUCCESS &&
        size) {
        cl_name_version *features = malloc(size);
        if (features && query(device, CL_DEVICE_OPENCL_C_FEATURES, size, features))
            for (size_t i = 0; i < size / sizeof *features; ++i) {
                strncat(text, features[i].name, sizeof text - strlen(text) - 1);
                strncat(text, " ", sizeof text - strlen(text) - 1);
            }
        free(features);
    }
    print_wrapped_list("OpenCL C 3.0 features", text,
                       "optional 3.0 language features, e.g. __opencl_c_subgroups");
}

static void print_collectives(cl_device_id device, int device_version) {
    char text[256];
    cl_uint max_sub_groups = 0;
    int has_query = device_version >= 210 && query(device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                                                   sizeof max_sub_groups, &max_sub_groups);
    snprintf(text, sizeof text, "%s%s%s; max sub-groups per work-group: %s",
             oclt_device_has_extension(device, "cl_khr_subgroups") ? "cl_khr_subgroups " : "",
             oclt_device_has_extension(device, "cl_intel_subgroups") ? "cl_intel_subgroups " : "",
             max_sub_groups > 0 ? "supported" : "not supported",
             has_query ? (max_sub_groups ? "" : "0") : "(not reported)");
    if (has_query && max_sub_groups) {
        char count[16];
        snprintf(count, sizeof count, "%u", max_sub_groups);
        strncat(text, count, sizeof text - strlen(text) - 1);
    }
    row("sub-groups", text, "groups of work-items that run together (a SIMD width, a warp)");
    cl_bool collectives = CL_FALSE;
    int known =
        device_version >= 300 && query(device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                                       sizeof collectives, &collectives);
    row("work-group collective functions",
        known ? (collectives ? "yes" : "no") : (device_version >= 200 ? "yes (2.x core)" : "no"),
        "work_group_reduce_add() and friends (chapter 06)");
}

static void print_queue_properties(cl_device_id device) {
    cl_command_queue_properties props = 0;
    char text[128];
    query(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props);
    snprintf(text, sizeof text, "out-of-order: %s, profiling: %s",
             props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE ? "yes" : "no",
             props & CL_QUEUE_PROFILING_ENABLE ? "yes" : "no");
    row("host queue properties", text,
        "out-of-order queues run independent commands concurrently (chapter 03)");
    char resolution[64];
    snprintf(resolution, sizeof resolution, "%zu ns",
             oclt_device_size(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION));
    row("profiling timer resolution", resolution, "the tick of event timestamps");
}

static const char *local_mem_type_name(cl_device_local_mem_type type) {
    return type == CL_LOCAL    ? "dedicated (on-chip)"
           : type == CL_GLOBAL ? "global (emulated)"
                               : "none";
}

static const char *cache_type_name(cl_device_mem_cache_type type) {
    return type == CL_READ_WRITE_CACHE  ? "read/write"
           : type == CL_READ_ONLY_CACHE ? "read-only"
                                        : "none";
}

static void print_device(cl_device_id device) {
    char text[256];
    char *version = oclt_device_string(device, CL_DEVICE_VERSION);
    int device_version = oclt_parse_version(version);
    char *name = oclt_device_string(device, CL_DEVICE_NAME);
    char *vendor = oclt_device_string(device, CL_DEVICE_VENDOR);
    char *driver = oclt_device_string(device, CL_DRIVER_VERSION);
    cl_device_type type = 0;
    query(device, CL_DEVICE_TYPE, sizeof type, &type);

    row("name", name ? name : "?", NULL);
    snprintf(text, sizeof text, "%s%s%s", type & CL_DEVICE_TYPE_GPU ? "GPU " : "",
             type & CL_DEVICE_TYPE_CPU ? "CPU " : "",
             type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator " : "");
    row("type", text, "the default device is the first GPU, else the first device");
    row("vendor", vendor ? vendor : "?", NULL);
    row("driver version", driver ? driver : "?", NULL);
    row("device version", version ? version : "?",
        "the API level of the device: 2.0+ calls are used only where this allows");
    print_c_versions_and_features(device, device_version);

    print_uint_row(device, CL_DEVICE_MAX_COMPUTE_UNITS, "max compute units", "",
                   "independent cores (SMs, CUs, CPU threads); each runs whole work-groups");
    print_uint_row(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, "max clock frequency", " MHz", NULL);
    snprintf(text, sizeof text, "%zu", oclt_device_size(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    row("max work-group size", text,
        "most work-items in one work-group (a kernel may allow fewer)");
    size_t dims = oclt_device_uint(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    size_t item_sizes[8] = {0};
    if (dims > 8) dims = 8;
    query(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), item_sizes);
    text[0] = '\0';
    for (size_t d = 0; d < dims; ++d) {
        char one[32];
        snprintf(one, sizeof one, "%s%zu", d ? " x " : "", item_sizes[d]);
        strncat(text, one, sizeof text - strlen(text) - 1);
    }
    row("max work-item sizes", text, "limit on the local size in each dimension");
    /* The preferred multiple is a kernel property; it is shown with the kernel queries below.
     * Devices of OpenCL 3.0 also report a device-wide value. */
    size_t multiple = 0;
    if (device_version >= 300 &&
        query(device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple, &multiple)) {
        snprintf(text, sizeof text, "%zu", multiple);
        row("preferred work-group size multiple", text,
            "local sizes that are multiples of this fill the SIMD lanes (warp = 32 on NVIDIA)");
    }

    cl_device_local_mem_type local_type = CL_NONE;
    query(device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof local_type, &local_type);
    row("local memory type", local_mem_type_name(local_type),
        "dedicated: on-chip scratchpad; global: emulated in ordinary memory (CPUs)");
    print_bytes_row(device, CL_DEVICE_LOCAL_MEM_SIZE, "local memory size",
                    "__local bytes one work-group may use");
    print_bytes_row(device, CL_DEVICE_GLOBAL_MEM_SIZE, "global memory size", NULL);
    cl_device_mem_cache_type cache_type = CL_NONE;
    query(device, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, sizeof cache_type, &cache_type);
    row("global memory cache type", cache_type_name(cache_type), NULL);
    print_bytes_row(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, "global memory cache size",
                    "last-level cache in front of global memory");
    print_uint_row(device, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, "global memory cache line",
                   " bytes", NULL);
    print_bytes_row(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "max memory allocation",
                    "largest single buffer; --size is checked against it");
    print_bytes_row(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, "max constant buffer size",
                    "__constant arguments must fit here (64 KiB on many GPUs)");
    print_uint_row(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, "base address alignment", " bits",
                   "sub-buffer origins must be multiples of this (chapter 02)");
    print_uint_row(device, CL_DEVICE_ADDRESS_BITS, "address bits", "", NULL);
    print_fp_support(device);
    print_collectives(device, device_version);
    print_queue_properties(device);
    char *builtins = oclt_device_string(device, CL_DEVICE_BUILT_IN_KERNELS);
    print_wrapped_list("built-in kernels", builtins,
                       "kernels the driver provides without source (see section 3)");
    char *extensions = oclt_device_string(device, CL_DEVICE_EXTENSIONS);
    print_wrapped_list("extensions", extensions, "optional features this device offers");
    free(builtins);
    free(extensions);
    free(version);
    free(name);
    free(vendor);
    free(driver);
    explain = 0;
}

/* Called after oclt_open_device, which has already dealt with a machine without platforms. */
static int print_all_platforms(void) {
    cl_uint platform_count = 0;
    cl_platform_id platforms[16];
    if (OCLT_CHECK(clGetPlatformIDs(16, platforms, &platform_count))) return OCLT_EXIT_FAIL;
    if (platform_count > 16) platform_count = 16;
    printf("1. Platforms and devices (%u platform%s)\n", platform_count,
           platform_count == 1 ? "" : "s");
    static const struct {
        cl_platform_info param;
        const char *label;
    } platform_rows[] = {{CL_PLATFORM_NAME, "name"},
                         {CL_PLATFORM_VENDOR, "vendor"},
                         {CL_PLATFORM_VERSION, "version"},
                         {CL_PLATFORM_PROFILE, "profile"}};
    for (cl_uint p = 0; p < platform_count; ++p) {
        printf("\nplatform %u\n", p);
        for (size_t i = 0; i < sizeof platform_rows / sizeof platform_rows[0]; ++i) {
            char *text = oclt_platform_string(platforms[p], platform_rows[i].param);
            row(platform_rows[i].label, text ? text : "?",
                i == 3 ? "FULL_PROFILE: the whole specification; EMBEDDED_PROFILE: a subset"
                       : NULL);
            free(text);
        }
        char *extensions = oclt_platform_string(platforms[p], CL_PLATFORM_EXTENSIONS);
        print_wrapped_list("extensions", extensions, NULL);
        free(extensions);
        cl_uint device_count = 0;
        cl_device_id devices[32];
        cl_int err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 32, devices, &device_count);
        if (err == CL_DEVICE_NOT_FOUND)
            device_count = 0;
        else if (OCLT_CHECK_ERR(err, "clGetDeviceIDs"))
            return OCLT_EXIT_FAIL;
        if (device_count > 32) device_count = 32;
        for (cl_uint d = 0; d < device_count; ++d) {
            printf("\n  platform %u, device %u\n", p, d);
            print_device(devices[d]);
        }
    }
    return OCLT_CONTINUE;
}

/* ---- 2. Program, kernel and context queries ---------------------------------------------- */

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
    printf("    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE  %zu  (choose local sizes that are "
           "multiples of it)\n",
           multiple);
    printf("    CL_KERNEL_LOCAL_MEM_SIZE                      %llu bytes  (local memory in use, "
           "including __local arguments set so far)\n",
           (unsigned long long)local_bytes);
    printf("    CL_KERNEL_PRIVATE_MEM_SIZE                    %llu bytes  (per work-item "
           "private memory)\n",
           (unsigned long long)private_bytes);
}

/* CL_PROGRAM_REFERENCE_COUNT (0 after printing the error, should the query fail). */
static cl_uint program_refs(cl_program program) {
    cl_uint count = 0;
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof count, &count, NULL));
    return count;
}

static int print_program_queries(const oclt_device *dev, cl_program program) {
    printf("\n2. Program, kernel and context queries on %s\n", dev->device_name);
    char names[512] = "";
    size_t kernel_count = 0;
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof kernel_count, &kernel_count,
                                NULL));
    OCLT_CHECK(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
    printf("  CL_PROGRAM_NUM_KERNELS       %zu\n  CL_PROGRAM_KERNEL_NAMES      %s\n", kernel_count,
           names);
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

/* ---- 3. Built-in kernels ----------------------------------------------------------------- */

static int print_built_in_kernels(const oclt_device *dev) {
    printf("\n3. Built-in kernels\n");
    char *names = oclt_device_string(dev->device, CL_DEVICE_BUILT_IN_KERNELS);
    if (!names || names[0] == '\0') {
        printf("  none on this device (CL_DEVICE_BUILT_IN_KERNELS is empty)\n");
        free(names);
        return OCLT_EXIT_OK;
    }
    cl_int err = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBuiltInKernels(dev->context, 1, &dev->device, names, &err);
    free(names);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithBuiltInKernels")) return OCLT_EXIT_FAIL;
    printf("  clCreateProgramWithBuiltInKernels: created, no source needed\n");
    /* The specification hands out the kernels of such a program at once (clBuildProgram on it
     * is CL_INVALID_OPERATION); PoCL wants it built first. So: ask for the kernels, and build
     * only when the driver says the program is not executable yet. Some drivers list built-in
     * kernels they cannot instantiate (Debian's PoCL 3.1 on a CPU): say so and go on. */
    cl_uint count = 0;
    err = clCreateKernelsInProgram(program, 0, NULL, &count);
    if (err == CL_INVALID_PROGRAM_EXECUTABLE) {
        err = clBuildProgram(program, 1, &dev->device, NULL, NULL, NULL);
        if (err != CL_SUCCESS) {
            printf("  clBuildProgram on them: %s (%d): this driver lists built-in kernels it "
                   "cannot provide\n",
                   oclt_error_name(err), (int)err);
            clReleaseProgram(program);
            return OCLT_EXIT_OK;
        }
        err = clCreateKernelsInProgram(program, 0, NULL, &count);
    }
    cl_kernel *kernels = NULL;
    if (!OCLT_CHECK_ERR(err, "clCreateKernelsInProgram(built-in kernels)") && count > 0 &&
        (kernels = calloc(count, sizeof *kernels)) &&
        !OCLT_CHECK(clCreateKernelsInProgram(program, count, kernels, NULL))) {
        printf("  clCreateKernelsInProgram: %u kernels\n", count);
        for (cl_uint k = 0; k < count; ++k) {
            char name[128] = "";
            cl_uint args = 0;
            if (!OCLT_CHECK(clGetKernelInfo(kernels[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name,
                                            NULL)) &&
                !OCLT_CHECK(
                    clGetKernelInfo(kernels[k], CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL)))
                printf("    %-48s %u arguments\n", name, args);
            clReleaseKernel(kernels[k]);
        }
    }
    free(kernels);
    clReleaseProgram(program);
    return OCLT_EXIT_OK;
}

/* ---- 4. Run and check -------------------------------------------------------------------- */

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    size_t global, local;
    cl_mem output;
    size_t output_bytes;
} launch;

/* One timed launch on a poisoned output. */
static cl_int run_once(void *context, double *ms) {
    launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->output, l->output_bytes);
    if (err) return err;
    err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 1, &l->global, &l->local, 0, NULL, &done,
                              "chapter 01 kernel");
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) *ms = oclt_event_ms(done);
    clReleaseEvent(done);
    return err;
}

/* The largest power of two not above limit (limit >= 1). */
static size_t power_of_two_below(size_t limit) {
    size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

static oclt_status run_scale_shift(const oclt_device *dev, const oclt_options *opt,
                                   cl_program program, oclt_rng *rng, double *ms) {
    const size_t n = opt->size[0];
    const float a = 1.5f, b = -0.25f;
    const cl_uint n32 = (cl_uint)n;
    oclt_status status = OCLT_FAIL;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *expected = malloc(n * sizeof *expected);
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_kernel kernel = NULL;
    cl_int err = CL_SUCCESS;
    if (!x || !y || !expected) goto release_host;
    oclt_fill_float(rng, x, n, -1.0f, 1.0f);
    static const float table[4] = {0.0f, 0.25f, 0.5f, 0.75f};
    for (size_t i = 0; i < n; ++i) expected[i] = (double)a * x[i] + b + table[i % 4];

    x_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                           &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_host;
    y_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n * sizeof *y, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_x;
    if (!(kernel = oclt_create_kernel(program, "scale_shift"))) goto release_y;
    if (OCLT_ARG(kernel, 0, x_buf) || OCLT_ARG(kernel, 1, y_buf) || OCLT_ARG(kernel, 2, a) ||
        OCLT_ARG(kernel, 3, b) || OCLT_ARG(kernel, 4, n32))
        goto release_kernel;
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        goto release_kernel;
    /* 64 work-items per group, or fewer where the kernel allows fewer. The global size is
     * rounded up to whole groups; the kernel guards i < n. */
    const size_t local = power_of_two_below(kernel_max < 64 ? kernel_max : 64);
    launch l = {dev, kernel, (n + local - 1) / local * local, local, y_buf, n * sizeof *y};
    if (oclt_time_median(run_once, &l, opt->reps, ms)) goto release_kernel;
    if (!opt->check) {
        status = OCLT_UNCHECKED;
        goto release_kernel;
    }
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, y_buf, CL_TRUE, 0, n * sizeof *y, y, 0, NULL, NULL)))
        goto release_kernel;
    /* One multiply and two adds in float: a few units of rounding of the largest term. */
    status =
        oclt_compare_float("y", y, expected, NULL, 4 * 0x1.0p-24 * 2.5, n) ? OCLT_FAIL : OCLT_PASS;
release_kernel:
    clReleaseKernel(kernel);
release_y:
    clReleaseMemObject(y_buf);
release_x:
    clReleaseMemObject(x_buf);
release_host:
    free(x);
    free(y);
    free(expected);
    return status;
}

static oclt_status run_group_sum(const oclt_device *dev, const oclt_options *opt,
                                 cl_program program, oclt_rng *rng, double *ms) {
    const size_t n = opt->size[0];
    const cl_uint n32 = (cl_uint)n;
    oclt_status status = OCLT_FAIL;
    cl_mem in_buf = NULL, partial_buf = NULL;
    int32_t *in = malloc(n * sizeof *in), *partial = NULL, *expected = NULL;
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = oclt_create_kernel(program, "group_sum");
    if (!kernel || !in) goto release_host;
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        goto release_host;
    const size_t local = power_of_two_below(kernel_max < 256 ? kernel_max : 256);
    const size_t groups = (n + local - 1) / local;
    partial = malloc(groups * sizeof *partial);
    expected = calloc(groups, sizeof *expected);
    if (!partial || !expected) goto release_host;
    oclt_fill_int(rng, in, n, -1000, 1000);
    for (size_t i = 0; i < n; ++i) expected[i / local] += in[i];

    in_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                            in, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(in)")) goto release_host;
    partial_buf =
        clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, groups * sizeof *partial, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(partial)")) goto release_in;
    /* A __local argument: a size and a NULL pointer; each work-group gets its own copy. */
    if (OCLT_ARG(kernel, 0, in_buf) || OCLT_ARG(kernel, 1, partial_buf) ||
        OCLT_CHECK(clSetKernelArg(kernel, 2, local * sizeof(cl_int), NULL)) ||
        OCLT_ARG(kernel, 3, n32))
        goto release_partial;
    launch l = {dev, kernel, groups * local, local, partial_buf, groups * sizeof *partial};
    if (oclt_time_median(run_once, &l, opt->reps, ms)) goto release_partial;
    if (!opt->check) {
        status = OCLT_UNCHECKED;
        goto release_partial;
    }
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, partial_buf, CL_TRUE, 0,
                                       groups * sizeof *partial, partial, 0, NULL, NULL)))
        goto release_partial;
    status = oclt_compare_int("partial", partial, expected, groups) ? OCLT_FAIL : OCLT_PASS;
release_partial:
    clReleaseMemObject(partial_buf);
release_in:
    clReleaseMemObject(in_buf);
release_host:
    if (kernel) clReleaseKernel(kernel);
    free(in);
    free(partial);
    free(expected);
    return status;
}

/* The platform and device indices of the chosen device, as clinfo and clpeak number them. */
static void print_indices(const oclt_device *dev) {
    cl_platform_id platforms[16];
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(16, platforms, &platform_count) != CL_SUCCESS) return;
    for (cl_uint p = 0; p < platform_count && p < 16; ++p) {
        cl_device_id devices[32];
        cl_uint device_count = 0;
        if (platforms[p] != dev->platform || clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 32,
                                                            devices, &device_count) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < device_count && d < 32; ++d)
            if (devices[d] == dev->device)
                printf("  clpeak/clinfo indices          -p %u -d %u\n", p, d);
    }
}

/* ---- The lesson -------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    /* Choose the device first (or just list them, for --devices) so that a bad -p/-d is a
     * usage error before any listing. */
    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    const cl_ulong bytes = oclt_mul_size(opt.size[0], sizeof(float));
    rc = oclt_require_memory(&spec, &dev, bytes, oclt_mul_size(bytes, 2), "--size");
    if (!rc && opt.size[0] > 0xFFFFFFFFu)
        rc =
            oclt_usage_error(&spec, "--size %zu does not fit the kernels' uint count", opt.size[0]);
    if (rc) goto close_device;

    rc = print_all_platforms();
    if (rc != OCLT_CONTINUE) goto close_device;

    /* -cl-kernel-arg-info keeps argument names and types for clGetKernelArgInfo. */
    const char *options = "-cl-kernel-arg-info";
    cl_program program = oclt_build_file(dev.context, dev.device, "query.cl", options);
    if (!program) {
        rc = OCLT_EXIT_FAIL;
        goto close_device;
    }
    rc = print_program_queries(&dev, program);
    if (rc == OCLT_EXIT_OK) rc = print_built_in_kernels(&dev);
    if (rc != OCLT_EXIT_OK) goto release_program;

    printf("\n4. Run and check\n");
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", opt.size[0]);
    const double bytes_moved[2] = {2.0 * opt.size[0] * sizeof(float),
                                   (double)opt.size[0] * sizeof(int32_t)};
    for (size_t v = 0; v < spec.variant_count; ++v) {
        if (!opt.selected[v]) continue;
        double ms = -1.0;
        oclt_status status = v == 0 ? run_scale_shift(&dev, &opt, program, &rng, &ms)
                                    : run_group_sum(&dev, &opt, program, &rng, &ms);
        oclt_report_result(&report, variants[v].name, size_text, ms,
                           ms > 0 ? bytes_moved[v] / (ms * 1e6) : -1.0, "GB/s", status, NULL);
    }
    rc = oclt_report_exit_code(&report);

    printf("\nChosen device (later chapters pick the same one by default):\n");
    printf("  CL_DEVICE_NAME                 %s\n", dev.device_name);
    printf("  CL_DEVICE_MAX_COMPUTE_UNITS    %u\n",
           oclt_device_uint(dev.device, CL_DEVICE_MAX_COMPUTE_UNITS));
    printf("  CL_DEVICE_MAX_WORK_GROUP_SIZE  %zu\n",
           oclt_device_size(dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    printf("  CL_DEVICE_LOCAL_MEM_SIZE       %llu\n",
           (unsigned long long)oclt_device_ulong(dev.device, CL_DEVICE_LOCAL_MEM_SIZE));
    printf("  CL_DEVICE_GLOBAL_MEM_SIZE      %llu\n", (unsigned long long)dev.global_mem);
    printf("  CL_DEVICE_TYPE                 %s\n", dev.type & CL_DEVICE_TYPE_GPU   ? "GPU"
                                                    : dev.type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                                                    : "other");
    print_indices(&dev);
release_program:
    clReleaseProgram(program);
close_device:
    oclt_close_device(&dev);
    return rc;
}
