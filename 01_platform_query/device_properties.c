/* Chapter 01, section 1: every platform and device, each property with a one-line explanation
 * the first time it is printed; and the chosen device's key values at the end of the run.
 * Properties that only newer devices report are asked only where the device version allows. */
#include "platform_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        "a 3.0 device lacking some optional feature must say 1.2 here; see the next row");
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

/* What a program can be built from besides OpenCL C source: SPIR-V (CL_DEVICE_IL_VERSION, 2.1+,
 * through clCreateProgramWithIL) and the older SPIR, LLVM IR loaded as a binary (cl_khr_spir). */
static void print_intermediate_languages(cl_device_id device, int device_version) {
    char text[256];
    char *il = device_version >= 210 ? oclt_device_string(device, CL_DEVICE_IL_VERSION) : NULL;
    const int spir = oclt_device_has_extension(device, "cl_khr_spir");
    snprintf(text, sizeof text, "%s%s%s", il && il[0] ? il : "no SPIR-V", spir ? "; SPIR" : "",
             spir ? " (cl_khr_spir)" : "");
    free(il);
    row("intermediate languages", text,
        "SPIR-V: clCreateProgramWithIL; SPIR (LLVM IR): a binary with -x spir (section 2)");
}

static void print_collectives(cl_device_id device, int device_version) {
    char text[256];
    cl_uint max_sub_groups = 0;
    int has_query = device_version >= 210 && query(device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                                                   sizeof max_sub_groups, &max_sub_groups);
    const int khr = oclt_device_has_extension(device, "cl_khr_subgroups");
    const int intel = oclt_device_has_extension(device, "cl_intel_subgroups");
    /* Before 2.1 there is no count to ask for: a listed extension is the answer. */
    const int supported = has_query ? max_sub_groups > 0 : khr || intel;
    snprintf(text, sizeof text, "%s%s%s; max sub-groups per work-group: %s",
             khr ? "cl_khr_subgroups " : "", intel ? "cl_intel_subgroups " : "",
             supported ? "supported" : "not supported",
             has_query ? (max_sub_groups ? "" : "0") : "(not reported)");
    if (has_query && max_sub_groups) {
        char count[16];
        snprintf(count, sizeof count, "%u", max_sub_groups);
        strncat(text, count, sizeof text - strlen(text) - 1);
    }
    row("sub-groups", text,
        "an implementation-chosen grouping of work-items (often a SIMD width, a warp)");
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
        "out-of-order queues may run independent commands concurrently (chapter 03)");
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
            "a hint: multiples of it fill the SIMD lanes (warp = 32 on NVIDIA)");
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
    print_uint_row(device, CL_DEVICE_ADDRESS_BITS, "address bits", "",
                   "the width of size_t, intptr_t and pointers in kernels (chapter 02)");
    print_fp_support(device);
    print_collectives(device, device_version);
    print_intermediate_languages(device, device_version);
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
int print_all_platforms(void) {
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

void print_chosen_device(const oclt_device *dev) {
    printf("\nChosen device (later chapters pick the same one by default):\n");
    printf("  CL_DEVICE_NAME                 %s\n", dev->device_name);
    printf("  CL_DEVICE_MAX_COMPUTE_UNITS    %u\n",
           oclt_device_uint(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS));
    printf("  CL_DEVICE_MAX_WORK_GROUP_SIZE  %zu\n",
           oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    printf("  CL_DEVICE_LOCAL_MEM_SIZE       %llu\n",
           (unsigned long long)oclt_device_ulong(dev->device, CL_DEVICE_LOCAL_MEM_SIZE));
    printf("  CL_DEVICE_GLOBAL_MEM_SIZE      %llu\n", (unsigned long long)dev->global_mem);
    printf("  CL_DEVICE_TYPE                 %s\n", dev->type & CL_DEVICE_TYPE_GPU   ? "GPU"
                                                    : dev->type & CL_DEVICE_TYPE_CPU ? "CPU"
                                                                                     : "other");
    print_indices(dev);
}
