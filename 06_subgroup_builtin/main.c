/* Chapter 06: work-group and sub-group reductions, chosen at run time from what the device
 * supports.
 *
 * The lesson, top to bottom:
 *   1. ask the device what it supports, with the queries of OpenCL 1.x, 2.x and 3.0, and decide
 *      which variants can run (and say why the others cannot);
 *   2. write the operation and the type into the kernel source (as the Khronos SDK reduce
 *      sample does) and build one program per variant, with a -cl-std the device lists;
 *   3. reduce n values to one: in every pass each work-group folds its share into one partial,
 *      until a single value is left;
 *   4. check the result against the CPU and report GB/s.
 */
#include "oclt.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    LOCAL_TREE,
    WORK_GROUP_REDUCE,
    SUB_GROUP_REDUCE,
    INTEL_SUB_GROUP,
    NV_WARP_SHUFFLE,
    NV_WARP_EMULATED,
    VARIANT_COUNT
};

static const oclt_variant_info variants[VARIANT_COUNT] = {
    {"local_tree", "local-memory tree, a barrier per step (portable fallback)", 1},
    {"work_group_reduce", "work_group_reduce_<op> (OpenCL C 2.0, or 3.0 with the feature)", 1},
    {"sub_group_reduce", "sub_group_reduce_<op>, sub-group totals met in local memory", 1},
    {"intel_sub_group", "sub_group_reduce_<op> with intel_reqd_sub_group_size fixing the width", 1},
    {"nv_warp_shuffle", "warp shuffles through inline PTX (NVIDIA's OpenCL only)", 1},
    {"nv_warp_emulated", "nv_warp_shuffle's code, shuffle emulated in local memory (a check)", 0},
};

/* The kernel each variant compiles, and the -D that selects it in subgroup_reduce.cl. */
static const char *const kernel_names[VARIANT_COUNT] = {
    "reduce_local_tree",      "reduce_work_group", "reduce_sub_group",
    "reduce_intel_sub_group", "reduce_nv_warp",    "reduce_nv_warp"};
static const char *const variant_defines[VARIANT_COUNT] = {
    "VARIANT_LOCAL_TREE",      "VARIANT_WORK_GROUP_REDUCE", "VARIANT_SUB_GROUP_REDUCE",
    "VARIANT_INTEL_SUB_GROUP", "VARIANT_NV_WARP_SHUFFLE",   "VARIANT_NV_WARP_EMULATED"};

static const char *const types[] = {"float", "int", NULL};
static const char *const ops[] = {"sum", "min", NULL};
enum { TYPE_FLOAT, TYPE_INT };
enum { OP_SUM, OP_MIN };

static const oclt_cli_spec spec = {
    .chapter = "06_subgroup_builtin",
    .summary = "work-group and sub-group reductions chosen from what the device supports",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 24},
    .default_reps = 10,
    .variants = variants,
    .variant_count = VARIANT_COUNT,
    .extra_options = OCLT_OPT_TYPE | OCLT_OPT_OP | OCLT_OPT_LOCAL,
    .types = types,
    .ops = ops,
};

#define DEFAULT_LOCAL 256
#define MAX_N         (1ull << 31) /* the kernels index with uint (see the check in main) */
#define MAX_PASSES    40           /* each pass at least halves the count: 32 suffice */

/* ---- Tuning: host-chosen defines, overridable by the environment ------------------------- */

/* OCLT_SUBGROUP_TUNE="VEC=4,UNROLL=4,GROUPS_PER_CU=4,ORDER=interleaved,SUB_GROUP=16" (any
 * subset); what it leaves out is chosen by device type in default_tuning. */
typedef enum { ORDER_AUTO, ORDER_INTERLEAVED, ORDER_BLOCKED } sweep_order;
typedef struct {
    int vec;           /* elements per load: 1, 2, 4, 8 or 16 */
    int unroll;        /* loads issued before any is used: 1..16 */
    int groups_per_cu; /* first-pass work-groups per compute unit: 1..4096 */
    sweep_order order; /* how a work-item walks the input */
    int sub_group;     /* intel_sub_group width; 0: chosen in plan_variants */
} tuning;

static int parse_tuning(const char *text, tuning *tune) {
    memset(tune, 0, sizeof *tune); /* 0: default for the device */
    if (!text) return 0;
    const char *item = text;
    while (*item) {
        size_t len = strcspn(item, ",");
        const char *equals = memchr(item, '=', len);
        char key[32] = "", word[32] = "";
        long value = -1;
        if (equals && (size_t)(equals - item) < sizeof key &&
            (size_t)(item + len - equals - 1) < sizeof word) {
            memcpy(key, item, (size_t)(equals - item));
            key[equals - item] = '\0';
            memcpy(word, equals + 1, (size_t)(item + len - equals - 1));
            word[item + len - equals - 1] = '\0';
            char *end = NULL;
            value = strtol(word, &end, 10);
            if (*end != '\0' || end == word) value = -1;
        }
        int ok = 1;
        if (strcmp(key, "VEC") == 0) {
            ok = value == 1 || value == 2 || value == 4 || value == 8 || value == 16;
            tune->vec = (int)value;
        } else if (strcmp(key, "UNROLL") == 0) {
            ok = value >= 1 && value <= 16;
            tune->unroll = (int)value;
        } else if (strcmp(key, "GROUPS_PER_CU") == 0) {
            ok = value >= 1 && value <= 4096;
            tune->groups_per_cu = (int)value;
        } else if (strcmp(key, "ORDER") == 0) {
            ok = strcmp(word, "interleaved") == 0 || strcmp(word, "blocked") == 0;
            tune->order = word[0] == 'b' ? ORDER_BLOCKED : ORDER_INTERLEAVED;
        } else if (strcmp(key, "SUB_GROUP") == 0) {
            ok = value >= 1 && value <= 4096;
            tune->sub_group = (int)value;
        } else {
            return oclt_usage_error(&spec,
                                    "OCLT_SUBGROUP_TUNE item '%.*s' is not KEY=VALUE with KEY "
                                    "one of VEC, UNROLL, GROUPS_PER_CU, ORDER, SUB_GROUP",
                                    (int)len, item);
        }
        if (!ok)
            return oclt_usage_error(&spec,
                                    "OCLT_SUBGROUP_TUNE '%.*s' is out of range (VEC: 1, 2, 4, 8 "
                                    "or 16; UNROLL: 1..16; GROUPS_PER_CU, SUB_GROUP: 1..4096; "
                                    "ORDER: interleaved or blocked)",
                                    (int)len, item);
        item += len + (item[len] == ',');
    }
    return 0;
}

/* Defaults by device type (as chapter 04's reduce6). A GPU: 16-byte loads, 4 in flight per
 * work-item, interleaved (coalesced) order, and 4 work-groups of 256 per compute unit, which
 * stay resident together on an NVIDIA SM up to 64 registers per work-item: one wave, no tail
 * of late work-groups. A CPU runs a work-group as a loop on one core: one cache line per load,
 * blocked order (each work-item streams its own chunk), one work-group per core. */
static void default_tuning(const oclt_device *dev, tuning *tune) {
    const int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    if (!tune->vec) tune->vec = cpu ? 16 : 4;
    if (!tune->unroll) tune->unroll = cpu ? 1 : 4;
    if (!tune->groups_per_cu) tune->groups_per_cu = cpu ? 1 : 4;
    if (tune->order == ORDER_AUTO) tune->order = cpu ? ORDER_BLOCKED : ORDER_INTERLEAVED;
}

/* ---- 1. What the device supports --------------------------------------------------------- */

/* clGetKernelSubGroupInfo and the KHR extension function have the same signature. */
typedef cl_int(CL_API_CALL *sub_group_info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info,
                                               size_t, const void *, size_t, void *, size_t *);

typedef struct {
    char platform_version[160], device_version[160], c_version_text[160];
    int c_versions[16]; /* OpenCL C versions the device accepts, 120 = 1.2 */
    size_t c_version_count;
    int c_versions_from_3_0; /* listed by CL_DEVICE_OPENCL_C_ALL_VERSIONS (else implied) */
    int feature_subgroups, feature_collectives; /* OpenCL C 3.0 features */
    int api_collectives;                        /* 3.0 query: 1, 0, or -1 (no such query) */
    cl_uint max_sub_groups;                     /* 2.1+ query; meaningful when known */
    int max_sub_groups_known;
    int khr_subgroups, intel_subgroups, intel_required_size, nv_attribute_query;
    size_t intel_sizes[16];
    size_t intel_size_count;
    int nvidia;
    cl_uint warp_size; /* 0: not reported */
    cl_uint compute_units;
    sub_group_info_fn sub_group_info; /* core 2.1 or the KHR extension, or NULL */
    const char *sub_group_info_source;
} capabilities;

static int lists_c_version(const capabilities *caps, int version) {
    for (size_t i = 0; i < caps->c_version_count; ++i)
        if (caps->c_versions[i] == version) return 1;
    return 0;
}

static void query_capabilities(const oclt_device *dev, capabilities *caps) {
    memset(caps, 0, sizeof *caps);
    cl_device_id device = dev->device;
    char *text = oclt_platform_string(dev->platform, CL_PLATFORM_VERSION);
    snprintf(caps->platform_version, sizeof caps->platform_version, "%s", text ? text : "?");
    free(text);
    text = oclt_device_string(device, CL_DEVICE_VERSION);
    snprintf(caps->device_version, sizeof caps->device_version, "%s", text ? text : "?");
    free(text);
    text = oclt_device_string(device, CL_DEVICE_OPENCL_C_VERSION);
    snprintf(caps->c_version_text, sizeof caps->c_version_text, "%s", text ? text : "?");
    int c_version = oclt_parse_version(text);
    free(text);

    /* OpenCL C versions: 3.0 lists them all; before 3.0 a device accepts its
     * CL_DEVICE_OPENCL_C_VERSION and every earlier one. */
    size_t size = 0;
    if (dev->device_version >= 300 &&
        clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) == CL_SUCCESS &&
        size > 0) {
        cl_name_version *all = malloc(size);
        if (all && !OCLT_CHECK(
                       clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, all, NULL))) {
            for (size_t i = 0; i < size / sizeof *all && caps->c_version_count < 16; ++i)
                caps->c_versions[caps->c_version_count++] =
                    (int)CL_VERSION_MAJOR(all[i].version) * 100 +
                    (int)CL_VERSION_MINOR(all[i].version) * 10;
            caps->c_versions_from_3_0 = 1;
        }
        free(all);
    }
    if (!caps->c_versions_from_3_0) {
        static const int known[] = {100, 110, 120, 200};
        for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
            if (known[i] <= c_version) caps->c_versions[caps->c_version_count++] = known[i];
    }

    /* OpenCL C 3.0 optional features and the matching API query. */
    if (dev->device_version >= 300 &&
        clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) == CL_SUCCESS &&
        size > 0) {
        cl_name_version *features = malloc(size);
        if (features &&
            !OCLT_CHECK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, size, features, NULL)))
            for (size_t i = 0; i < size / sizeof *features; ++i) {
                if (strcmp(features[i].name, "__opencl_c_subgroups") == 0)
                    caps->feature_subgroups = 1;
                if (strcmp(features[i].name, "__opencl_c_work_group_collective_functions") == 0)
                    caps->feature_collectives = 1;
            }
        free(features);
    }
    caps->api_collectives = -1;
    cl_bool collectives = CL_FALSE;
    if (dev->device_version >= 300 &&
        clGetDeviceInfo(device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                        sizeof collectives, &collectives, NULL) == CL_SUCCESS)
        caps->api_collectives = collectives == CL_TRUE;
    if (dev->device_version >= 210 &&
        clGetDeviceInfo(device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof caps->max_sub_groups,
                        &caps->max_sub_groups, NULL) == CL_SUCCESS)
        caps->max_sub_groups_known = 1;

    caps->khr_subgroups = oclt_device_has_extension(device, "cl_khr_subgroups");
    caps->intel_subgroups = oclt_device_has_extension(device, "cl_intel_subgroups");
    caps->intel_required_size =
        oclt_device_has_extension(device, "cl_intel_required_subgroup_size");
    if (caps->intel_required_size &&
        clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, NULL, &size) == CL_SUCCESS &&
        size <= sizeof caps->intel_sizes &&
        clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, size, caps->intel_sizes, NULL) ==
            CL_SUCCESS)
        caps->intel_size_count = size / sizeof(size_t);

    char *vendor = oclt_platform_string(dev->platform, CL_PLATFORM_VENDOR);
    caps->nvidia = (vendor && strstr(vendor, "NVIDIA")) || strstr(dev->platform_name, "NVIDIA");
    free(vendor);
    caps->nv_attribute_query = oclt_device_has_extension(device, "cl_nv_device_attribute_query");
    if (caps->nv_attribute_query)
        caps->warp_size = oclt_device_uint(device, CL_DEVICE_WARP_SIZE_NV);
    caps->compute_units = oclt_device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);

    /* clGetKernelSubGroupInfo is core from 2.1 (platform and device); before that it is an
     * extension function that must be looked up by name. */
    if (dev->platform_version >= 210 && dev->device_version >= 210) {
        caps->sub_group_info = clGetKernelSubGroupInfo;
        caps->sub_group_info_source = "clGetKernelSubGroupInfo (2.1 core)";
    } else if (caps->khr_subgroups) {
        caps->sub_group_info = (sub_group_info_fn)clGetExtensionFunctionAddressForPlatform(
            dev->platform, "clGetKernelSubGroupInfoKHR");
        caps->sub_group_info_source = caps->sub_group_info ? "clGetKernelSubGroupInfoKHR" : NULL;
    }
}

static const char *yes_no(int value) {
    return value ? "yes" : "no";
}

static void print_capabilities(const capabilities *caps, const oclt_device *dev) {
    char text[256] = "";
    printf("\nWhat the device reports\n");
    printf("  %-50s %s\n", "CL_PLATFORM_VERSION", caps->platform_version);
    printf("  %-50s %s\n", "CL_DEVICE_VERSION", caps->device_version);
    for (size_t i = 0; i < caps->c_version_count; ++i) {
        char one[16];
        snprintf(one, sizeof one, "%s%d.%d", i ? " " : "", caps->c_versions[i] / 100,
                 caps->c_versions[i] / 10 % 10);
        strncat(text, one, sizeof text - strlen(text) - 1);
    }
    printf("  %-50s %s\n", "CL_DEVICE_OPENCL_C_VERSION", caps->c_version_text);
    if (caps->c_versions_from_3_0)
        printf("  %-50s %s\n", "CL_DEVICE_OPENCL_C_ALL_VERSIONS", text);
    else
        printf("  %-50s %s (before 3.0: the version above and older)\n",
               "OpenCL C versions accepted", text);
    if (dev->device_version >= 300) {
        printf("  %-50s %s\n", "feature __opencl_c_work_group_collective_functions",
               yes_no(caps->feature_collectives));
        printf("  %-50s %s\n", "feature __opencl_c_subgroups", yes_no(caps->feature_subgroups));
        printf("  %-50s %s\n", "CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT",
               caps->api_collectives < 0 ? "(query failed)" : yes_no(caps->api_collectives));
    } else {
        printf("  %-50s %s\n", "OpenCL C 3.0 features", "(a 3.0 query; this is a 1.x/2.x device)");
    }
    if (caps->max_sub_groups_known)
        snprintf(text, sizeof text, "%u", caps->max_sub_groups);
    else
        snprintf(text, sizeof text, "(a 2.1+ query; this is a %d.%d device)",
                 dev->device_version / 100, dev->device_version / 10 % 10);
    printf("  %-50s %s\n", "CL_DEVICE_MAX_NUM_SUB_GROUPS", text);
    printf("  %-50s %s\n", "extension cl_khr_subgroups", yes_no(caps->khr_subgroups));
    printf("  %-50s %s\n", "extension cl_intel_subgroups", yes_no(caps->intel_subgroups));
    printf("  %-50s %s\n", "extension cl_intel_required_subgroup_size",
           yes_no(caps->intel_required_size));
    if (caps->intel_required_size) {
        text[0] = '\0';
        for (size_t i = 0; i < caps->intel_size_count; ++i) {
            char one[24];
            snprintf(one, sizeof one, "%s%zu", i ? " " : "", caps->intel_sizes[i]);
            strncat(text, one, sizeof text - strlen(text) - 1);
        }
        printf("  %-50s %s\n", "CL_DEVICE_SUB_GROUP_SIZES_INTEL",
               caps->intel_size_count ? text : "(query failed)");
    }
    printf("  %-50s %s\n", "kernel sub-group query",
           caps->sub_group_info_source ? caps->sub_group_info_source : "none");
    printf("  %-50s %s\n", "NVIDIA platform (CL_PLATFORM_VENDOR)", yes_no(caps->nvidia));
    if (caps->warp_size)
        snprintf(text, sizeof text, "%u", caps->warp_size);
    else
        snprintf(text, sizeof text, "(no cl_nv_device_attribute_query)");
    printf("  %-50s %s\n", "CL_DEVICE_WARP_SIZE_NV", text);
}

/* ---- 2. Which variants the device can run, and how to build them ------------------------- */

typedef struct {
    int usable;    /* the device (and --local) allow it */
    char why[200]; /* what enables it, or what is missing */
    char std[24];  /* "-cl-std=CL3.0", or "" for the compiler's default (1.x) */
    size_t width;  /* intel_sub_group: the forced sub-group width */
    cl_program program;
    cl_kernel kernel;
    size_t sub_group_size, sub_group_count; /* from the kernel query; 0: unknown */
    size_t compile_width;     /* intel_sub_group: CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL */
    cl_int compile_width_err; /* ... and the error code of that query */
} variant_plan;

/* A sub-group width the device offers (CL_DEVICE_SUB_GROUP_SIZES_INTEL) that divides local. */
static int offers_width(const capabilities *caps, size_t width, size_t local) {
    for (size_t i = 0; i < caps->intel_size_count; ++i)
        if (caps->intel_sizes[i] == width && local % width == 0) return 1;
    return 0;
}

static void plan_variants(const capabilities *caps, const oclt_device *dev, size_t local,
                          const tuning *tune, variant_plan *plans) {
    variant_plan *p = &plans[LOCAL_TREE];
    p->usable = 1;
    snprintf(p->why, sizeof p->why, "local memory and barriers: every OpenCL device");

    p = &plans[WORK_GROUP_REDUCE];
    if (lists_c_version(caps, 300) && caps->feature_collectives && caps->api_collectives != 0) {
        p->usable = 1;
        snprintf(p->std, sizeof p->std, "-cl-std=CL3.0");
        snprintf(p->why, sizeof p->why, "%s",
                 "OpenCL C 3.0 with __opencl_c_work_group_collective_functions");
    } else if (lists_c_version(caps, 200)) {
        p->usable = 1;
        snprintf(p->std, sizeof p->std, "-cl-std=CL2.0");
        snprintf(p->why, sizeof p->why, "OpenCL C 2.0 (work-group functions are core there)");
    } else {
        snprintf(p->why, sizeof p->why, "%s",
                 lists_c_version(caps, 300)
                     ? "no OpenCL C 2.0, and 3.0 without __opencl_c_work_group_collective_functions"
                     : "needs OpenCL C 2.0 or 3.0; the device has OpenCL C 1.x only");
    }

    p = &plans[SUB_GROUP_REDUCE];
    if (lists_c_version(caps, 300) && caps->feature_subgroups) {
        p->usable = 1;
        snprintf(p->std, sizeof p->std, "-cl-std=CL3.0");
        snprintf(p->why, sizeof p->why, "OpenCL C 3.0 with __opencl_c_subgroups");
    } else if (lists_c_version(caps, 200) && caps->khr_subgroups) {
        p->usable = 1;
        snprintf(p->std, sizeof p->std, "-cl-std=CL2.0");
        snprintf(p->why, sizeof p->why, "OpenCL C 2.0 with cl_khr_subgroups");
    } else {
        snprintf(p->why, sizeof p->why, "%s",
                 caps->khr_subgroups
                     ? "has cl_khr_subgroups, but its built-ins need OpenCL C 2.0 or 3.0"
                     : "neither OpenCL C 3.0 with __opencl_c_subgroups nor cl_khr_subgroups");
    }

    /* The width: the one OCLT_SUBGROUP_TUNE names, else the first of 16, 32, 8 (the SIMD
     * widths of Intel GPUs; 16 floats fill an AVX-512 register) the device offers, else the
     * widest it offers; it must divide the work-group. */
    p = &plans[INTEL_SUB_GROUP];
    size_t width = 0;
    if (tune->sub_group) {
        if (offers_width(caps, (size_t)tune->sub_group, local)) width = (size_t)tune->sub_group;
    } else {
        static const size_t preferred[] = {16, 32, 8};
        for (size_t k = 0; k < 3 && !width; ++k)
            if (offers_width(caps, preferred[k], local)) width = preferred[k];
        for (size_t i = 0; i < caps->intel_size_count && !width; ++i)
            if (offers_width(caps, caps->intel_sizes[i], local) && caps->intel_sizes[i] > width)
                width = caps->intel_sizes[i];
    }
    if (!caps->intel_subgroups || !caps->intel_required_size) {
        snprintf(p->why, sizeof p->why,
                 "needs cl_intel_subgroups and cl_intel_required_subgroup_size");
    } else if (caps->intel_size_count == 0) {
        snprintf(p->why, sizeof p->why, "the device reports no CL_DEVICE_SUB_GROUP_SIZES_INTEL");
    } else if (!width && tune->sub_group) {
        snprintf(p->why, sizeof p->why,
                 "SUB_GROUP=%d (OCLT_SUBGROUP_TUNE) is not an offered width dividing %zu",
                 tune->sub_group, local);
    } else if (!width) {
        snprintf(p->why, sizeof p->why, "no offered sub-group width divides the work-group of %zu",
                 local);
    } else {
        p->usable = 1;
        p->width = width;
        /* The intel built-ins exist in every OpenCL C version; use the newest listed. */
        if (lists_c_version(caps, 300))
            snprintf(p->std, sizeof p->std, "-cl-std=CL3.0");
        else if (lists_c_version(caps, 200))
            snprintf(p->std, sizeof p->std, "-cl-std=CL2.0");
        snprintf(p->why, sizeof p->why,
                 "cl_intel_subgroups + cl_intel_required_subgroup_size, width %zu", width);
    }

    /* A warp-synchronous shuffle needs whole warps: a work-group of at least 32. */
    const int whole_warps = local >= 32 && local % 32 == 0;
    p = &plans[NV_WARP_SHUFFLE];
    if (!caps->nvidia || !(dev->type & CL_DEVICE_TYPE_GPU)) {
        snprintf(p->why, sizeof p->why, "not an NVIDIA GPU: inline PTX is NVIDIA-only");
    } else if (caps->warp_size && caps->warp_size != 32) {
        snprintf(p->why, sizeof p->why, "CL_DEVICE_WARP_SIZE_NV is %u, the kernel assumes 32",
                 caps->warp_size);
    } else if (!whole_warps) {
        snprintf(p->why, sizeof p->why, "needs a work-group of whole warps (--local >= 32)");
    } else {
        p->usable = 1;
        snprintf(p->why, sizeof p->why, "NVIDIA GPU: inline PTX shfl.sync.down.b32, warp 32");
    }
    p = &plans[NV_WARP_EMULATED];
    p->usable = whole_warps;
    snprintf(p->why, sizeof p->why, "%s",
             whole_warps ? "shuffle emulated in local memory: any device (runs when named)"
                         : "needs a work-group of whole warps (--local >= 32)");
}

/* The operation and the type, written into the source ahead of subgroup_reduce.cl. */
static char *operation_source(int op, int type, int vec, const char *file_text) {
    const char *t = types[type];
    char vector_type[16];
    snprintf(vector_type, sizeof vector_type, vec == 1 ? "%s" : "%s%d", t, vec);
    const char *op_def = op == OP_SUM         ? "((a) + (b))"
                         : type == TYPE_FLOAT ? "fmin(a, b)"
                                              : "min(a, b)";
    const char *identity = op == OP_SUM ? (type == TYPE_FLOAT ? "0.0f" : "0")
                                        : (type == TYPE_FLOAT ? "INFINITY" : "INT_MAX");
    const char *builtin = op == OP_SUM ? "add" : "min";
    char header[1024];
    int length = snprintf(header, sizeof header,
                          "/* prepended by main.c: --op %s --type %s */\n"
                          "#define T %s\n#define TV %s\n#define AS_T as_%s\n"
                          "#define OP(a, b) %s\n#define IDENTITY %s\n"
                          "#define WORK_GROUP_REDUCE work_group_reduce_%s\n"
                          "#define SUB_GROUP_REDUCE sub_group_reduce_%s\n",
                          ops[op], t, t, vector_type, t, op_def, identity, builtin, builtin);
    size_t total = (size_t)length + strlen("#line 1\n") + strlen(file_text) + 1;
    char *source = malloc(total);
    if (source) snprintf(source, total, "%s#line 1\n%s", header, file_text);
    return source;
}

/* Builds one variant; returns 0, or 1 after printing why the build failed. */
static int build_variant(const oclt_device *dev, const capabilities *caps, int v,
                         variant_plan *plan, const char *source, size_t local, const tuning *tune,
                         char *options, size_t options_size) {
    int written = snprintf(options, options_size,
                           "%s%s-D %s -D LOCAL_SIZE=%zu -D VEC=%d -D UNROLL=%d -D BLOCKED=%d",
                           plan->std, plan->std[0] ? " " : "", variant_defines[v], local, tune->vec,
                           tune->unroll, tune->order == ORDER_BLOCKED);
    if (v == INTEL_SUB_GROUP && written > 0 && (size_t)written < options_size)
        snprintf(options + written, options_size - (size_t)written, " -D SUB_GROUP_WIDTH=%zu",
                 plan->width);
    if (v == NV_WARP_SHUFFLE && written > 0 && (size_t)written < options_size)
        snprintf(options + written, options_size - (size_t)written, " -D USE_NV_SHUFFLE");
    plan->program =
        oclt_build_source(dev->context, dev->device, source, "subgroup_reduce.cl", options);
    if (!plan->program) return 1;
    plan->kernel = oclt_create_kernel(plan->program, kernel_names[v]);
    if (!plan->kernel) return 1;
    /* How the compiler split the work-group into sub-groups (2.1 core or the KHR extension),
     * and for intel_sub_group the width the attribute asked for. */
    if ((v == SUB_GROUP_REDUCE || v == INTEL_SUB_GROUP) && caps->sub_group_info) {
        size_t size = 0, count = 0;
        if (!OCLT_CHECK(caps->sub_group_info(plan->kernel, dev->device,
                                             CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                             &local, sizeof size, &size, NULL)) &&
            !OCLT_CHECK(caps->sub_group_info(plan->kernel, dev->device,
                                             CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local,
                                             &local, sizeof count, &count, NULL))) {
            plan->sub_group_size = size;
            plan->sub_group_count = count;
        }
        if (v == INTEL_SUB_GROUP)
            plan->compile_width_err = caps->sub_group_info(
                plan->kernel, dev->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                sizeof plan->compile_width, &plan->compile_width, NULL);
    }
    return 0;
}

/* ---- 3. Passes: each work-group folds its share into one partial ------------------------- */

typedef struct {
    int count;
    size_t n[MAX_PASSES];      /* values read by the pass */
    size_t groups[MAX_PASSES]; /* work-groups = values written */
} pass_plan;

/* First pass: enough work-groups to cover n with per_item loads each, at most max_groups
 * (the grid-stride loop covers the rest). Later passes do the same on the partials. Every
 * pass at least halves the count, so the loop ends. */
static void plan_passes(size_t n, size_t local, size_t per_item, size_t max_groups,
                        pass_plan *plan) {
    size_t per_group = local * per_item < 2 ? 2 : local * per_item;
    plan->count = 0;
    do {
        size_t groups = (n + per_group - 1) / per_group;
        if (groups > max_groups) groups = max_groups;
        plan->n[plan->count] = n;
        plan->groups[plan->count] = groups;
        ++plan->count;
        n = groups;
    } while (n > 1);
}

static size_t log2_ceil(size_t x) {
    size_t bits = 0;
    while (((size_t)1 << bits) < x) ++bits;
    return bits;
}

/* The most additions any input term passes through on its way to the result (see
 * oclt_sum_error_bound), following the kernels step by step. Built-in collectives add in an
 * order the implementation chooses, so m values there count as a chain of m - 1. */
static size_t rounding_chain(int v, const pass_plan *plan, size_t local, const tuning *tune,
                             const variant_plan *vp) {
    size_t chain = 0;
    for (int p = 0; p < plan->count; ++p) {
        size_t global = plan->groups[p] * local, n = plan->n[p];
        size_t vectors = n / (size_t)tune->vec, tail = n % (size_t)tune->vec;
        chain += (vectors + global - 1) / global /* the grid-stride loop, one accumulator */
                 + (size_t)tune->vec - 1         /* the lanes of a vector */
                 + (tail + global - 1) / global; /* the tail */
        /* The widest sub-group any query or the attribute names (a wider one only lengthens
         * the chain, so the bound stays safe if a query is wrong). */
        size_t s = vp->sub_group_size > vp->width ? vp->sub_group_size : vp->width;
        if (s == 0) s = local;
        size_t sub_groups = (local + s - 1) / s;
        switch (v) {
        case LOCAL_TREE:
            chain += log2_ceil(local);
            break;
        case WORK_GROUP_REDUCE:
            chain += local - 1;
            break;
        case SUB_GROUP_REDUCE:
        case INTEL_SUB_GROUP:
            chain += 2 * (s - 1) + (sub_groups + s - 1) / s;
            break;
        default: /* the warp shuffles: 5 steps, the strided fold of warp totals, 5 steps */
            chain += 10 + (local / 32 + 31) / 32;
            break;
        }
    }
    return chain;
}

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    size_t local;
    const pass_plan *plan;
    cl_mem input, partial[2], result;
    size_t element_size, partial_bytes;
    const void *partial_poison; /* partial_bytes of OCLT_POISON_WORD */
} reduction;

/* One timed reduction: poison every output, run the passes, add up their kernel times.
 * The partials are poisoned with a write rather than oclt_poison_buffer's fill: Oclgrind 21.10
 * then reports values that later passes read from a filled buffer as uninitialized, even
 * after a kernel wrote them. */
static cl_int run_reduction(void *context, double *ms) {
    reduction *r = context;
    cl_command_queue queue = r->dev->queue;
    cl_int err = oclt_poison_buffer(queue, r->result, r->element_size);
    for (int i = 0; i < 2 && !err; ++i)
        err = OCLT_CHECK(clEnqueueWriteBuffer(queue, r->partial[i], CL_TRUE, 0, r->partial_bytes,
                                              r->partial_poison, 0, NULL, NULL));
    cl_event events[MAX_PASSES] = {NULL};
    const int last = r->plan->count - 1;
    for (int p = 0; p <= last && !err; ++p) {
        cl_mem in = p == 0 ? r->input : r->partial[(p - 1) % 2];
        cl_mem out = p == last ? r->result : r->partial[p % 2];
        const cl_uint count = (cl_uint)r->plan->n[p];
        const size_t global = r->plan->groups[p] * r->local;
        if (OCLT_ARG(r->kernel, 0, in) || OCLT_ARG(r->kernel, 1, out) ||
            OCLT_ARG(r->kernel, 2, count)) {
            err = CL_INVALID_KERNEL_ARGS;
            break;
        }
        err = oclt_enqueue_kernel(queue, r->kernel, 1, &global, &r->local, 0, NULL, &events[p],
                                  "reduction pass");
    }
    /* The kernel time of all passes (START to END of each, added up), as chapter 04 counts it,
     * so the two chapters' GB/s compare; the launch gap between passes is not kernel time. */
    if (!err) err = OCLT_CHECK(clWaitForEvents(1, &events[last]));
    double total = 0.0;
    for (int p = 0; p <= last && !err; ++p) {
        const double pass_ms = oclt_event_ms(events[p]);
        if (pass_ms < 0) err = CL_PROFILING_INFO_NOT_AVAILABLE;
        total += pass_ms;
    }
    if (!err) *ms = total;
    if (err) clFinish(queue);
    for (int p = 0; p <= last; ++p)
        if (events[p]) clReleaseEvent(events[p]);
    return err;
}

/* ---- 4. Inputs and the CPU reference ----------------------------------------------------- */

typedef struct {
    int32_t exact_int; /* int: the exact result */
    double exact_real; /* float: the result in double precision */
    double sum_abs;    /* float sum: sum of |x|, for the error bound */
} reference;

/* int sum: |x| <= INT32_MAX / n, so no partial sum can overflow and the check is exact.
 * min: values in [1, 2) or [1, 2^30], so an identity or padding of 0 would show. */
static void fill_input(oclt_rng *rng, int op, int type, void *data, size_t n, reference *ref) {
    if (type == TYPE_INT) {
        int32_t *x = data;
        int32_t range = (int32_t)(INT32_MAX / (int64_t)n);
        if (op == OP_SUM)
            oclt_fill_int(rng, x, n, -range, range);
        else
            oclt_fill_int(rng, x, n, 1, 1 << 30);
        int64_t sum = 0;
        int32_t lowest = INT32_MAX;
        for (size_t i = 0; i < n; ++i) {
            sum += x[i];
            if (x[i] < lowest) lowest = x[i];
        }
        ref->exact_int = op == OP_SUM ? (int32_t)sum : lowest;
        printf("  input    %zu random ints in [%d, %d]\n", n, op == OP_SUM ? -range : 1,
               op == OP_SUM ? range : 1 << 30);
    } else {
        float *x = data;
        oclt_fill_float(rng, x, n, op == OP_SUM ? -1.0f : 1.0f, op == OP_SUM ? 1.0f : 2.0f);
        double sum = 0.0, sum_abs = 0.0, lowest = x[0];
        for (size_t i = 0; i < n; ++i) {
            sum += x[i];
            sum_abs += x[i] < 0 ? -(double)x[i] : x[i];
            if (x[i] < lowest) lowest = x[i];
        }
        ref->exact_real = op == OP_SUM ? sum : lowest;
        ref->sum_abs = sum_abs;
        printf("  input    %zu random floats in [%s)\n", n, op == OP_SUM ? "-1, 1" : "1, 2");
    }
}

/* ---- 5. Run and check one variant ------------------------------------------------------- */

/* Times the passes (a warm-up, then the median of --reps), reads the result and compares it
 * with the CPU's. The note gets the shape, and for float sums the error and its bound. */
static oclt_status run_and_check(const oclt_device *dev, const oclt_options *opt, int v,
                                 const variant_plan *plan, const tuning *tune,
                                 const pass_plan *passes, const reduction *buffers,
                                 const reference *ref, const char *label, double *ms, char *note,
                                 size_t note_size) {
    reduction r = *buffers;
    r.kernel = plan->kernel;
    const size_t n = passes->n[0], local = r.local;
    int written = snprintf(note, note_size, "%d pass%s, %zu work-group%s of %zu", passes->count,
                           passes->count == 1 ? "" : "es", passes->groups[0],
                           passes->groups[0] == 1 ? "" : "s", local);
    if (oclt_time_median(run_reduction, &r, opt->reps, ms) != CL_SUCCESS) return OCLT_FAIL;
    if (!opt->check) return OCLT_UNCHECKED;
    union {
        float f;
        int32_t i;
    } got;
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, r.result, CL_TRUE, 0, r.element_size, &got, 0,
                                       NULL, NULL)))
        return OCLT_FAIL;
    if (opt->type == TYPE_INT)
        return oclt_compare_int(label, &got.i, &ref->exact_int, 1) ? OCLT_FAIL : OCLT_PASS;
    double bound = 0.0; /* min is exact: it picks one of the inputs */
    if (opt->op == OP_SUM) {
        size_t chain = rounding_chain(v, passes, local, tune, plan);
        bound = oclt_sum_error_bound(FLT_EPSILON / 2, chain, ref->sum_abs) +
                oclt_sum_error_bound(DBL_EPSILON / 2, n, ref->sum_abs);
        double error = (double)got.f - ref->exact_real;
        snprintf(note + written, note_size - (size_t)written, ", error %.2g, bound %.2g",
                 error < 0 ? -error : error, bound);
    }
    return oclt_compare_float(label, &got.f, &ref->exact_real, NULL, bound, 1) ? OCLT_FAIL
                                                                               : OCLT_PASS;
}

/* The largest power of two not above limit (limit >= 1). */
static size_t power_of_two_at_most(size_t limit) {
    size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

/* ---- The lesson -------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    tuning tune;
    rc = parse_tuning(getenv("OCLT_SUBGROUP_TUNE"), &tune);
    if (rc) return rc;
    const size_t n = opt.size[0];
    if (n > MAX_N)
        return oclt_usage_error(&spec, "--size %zu exceeds 2^31, the kernels' uint index limit", n);
    const size_t element_size = opt.type == TYPE_FLOAT ? sizeof(float) : sizeof(int32_t);
    const int require_subgroups =
        getenv("OCLT_REQUIRE_SUBGROUPS") && strcmp(getenv("OCLT_REQUIRE_SUBGROUPS"), "1") == 0;

    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    default_tuning(&dev, &tune);

    /* Device limits, before any work: the work-group size, its local memory, the buffers. */
    size_t device_max = oclt_device_size(dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    size_t item_max[3] = {0, 0, 0};
    OCLT_CHECK(clGetDeviceInfo(dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max, item_max,
                               NULL));
    if (item_max[0] && item_max[0] < device_max) device_max = item_max[0];
    size_t local = opt.local;
    if (local && local > device_max) {
        rc = oclt_usage_error(&spec,
                              "--local %zu exceeds the device's limit of %zu work-items "
                              "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES[0])",
                              local, device_max);
        goto close_device;
    }
    if (!local)
        local = power_of_two_at_most(device_max < DEFAULT_LOCAL ? device_max : DEFAULT_LOCAL);
    const cl_ulong local_mem = oclt_device_ulong(dev.device, CL_DEVICE_LOCAL_MEM_SIZE);
    const cl_ulong local_needed = (cl_ulong)local * (element_size + sizeof(cl_uint));
    if (local_needed > local_mem) {
        rc = oclt_usage_error(&spec,
                              "--local %zu needs %llu bytes of local memory; the device has %llu "
                              "(CL_DEVICE_LOCAL_MEM_SIZE)",
                              local, (unsigned long long)local_needed,
                              (unsigned long long)local_mem);
        goto close_device;
    }
    const cl_uint align_bits = oclt_device_uint(dev.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    if ((size_t)align_bits < (size_t)tune.vec * element_size * 8) {
        rc = oclt_usage_error(&spec,
                              "OCLT_SUBGROUP_TUNE VEC=%d needs buffers aligned to %zu bytes; the "
                              "device promises %u (CL_DEVICE_MEM_BASE_ADDR_ALIGN)",
                              tune.vec, (size_t)tune.vec * element_size, align_bits / 8);
        goto close_device;
    }

    /* 1. What the device supports, and 2. which variants that enables. */
    capabilities caps;
    query_capabilities(&dev, &caps);
    variant_plan plans[VARIANT_COUNT];
    memset(plans, 0, sizeof plans);
    plan_variants(&caps, &dev, local, &tune, plans);
    const size_t max_groups =
        (size_t)(caps.compute_units ? caps.compute_units : 1) * (size_t)tune.groups_per_cu;
    pass_plan passes;
    plan_passes(n, local, (size_t)tune.vec * (size_t)tune.unroll, max_groups, &passes);
    /* fold_input's interleaved loop computes i + (UNROLL - 1) * stride in uint, up to
     * n / VEC + UNROLL * stride - 1 in the first pass (the largest): only a VEC=1 tuning near
     * n = 2^31 could pass 2^32. */
    if (n / (size_t)tune.vec + (size_t)tune.unroll * passes.groups[0] * local > UINT32_MAX) {
        rc = oclt_usage_error(&spec,
                              "--size %zu with VEC=%d UNROLL=%d: the kernels' uint index would "
                              "pass 2^32 (raise VEC in OCLT_SUBGROUP_TUNE)",
                              n, tune.vec, tune.unroll);
        goto close_device;
    }
    rc = oclt_require_memory(&spec, &dev, (cl_ulong)n * element_size,
                             (cl_ulong)(n + 2 * passes.groups[0] + 1) * element_size, "--size");
    if (rc) goto close_device;

    /* Build every selected variant the device can run: the operation's source first. */
    char *file_text = oclt_kernel_source("subgroup_reduce.cl");
    char *source = file_text ? operation_source(opt.op, opt.type, tune.vec, file_text) : NULL;
    free(file_text);
    char options[VARIANT_COUNT][256];
    memset(options, 0, sizeof options);
    int build_failed[VARIANT_COUNT] = {0};
    if (!source) {
        rc = OCLT_EXIT_FAIL;
        goto release_programs;
    }
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!opt.selected[v] || !plans[v].usable) continue;
        build_failed[v] = build_variant(&dev, &caps, v, &plans[v], source, local, &tune, options[v],
                                        sizeof options[v]);
        if (build_failed[v]) continue;
        /* The kernel's own limit (registers, local memory) is known only now. */
        size_t kernel_max = 0;
        if (OCLT_CHECK(clGetKernelWorkGroupInfo(plans[v].kernel, dev.device,
                                                CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                                &kernel_max, NULL))) {
            build_failed[v] = 1;
        } else if (kernel_max < local) {
            if (opt.local) {
                rc = oclt_usage_error(&spec,
                                      "--local %zu exceeds %s's limit of %zu work-items "
                                      "(CL_KERNEL_WORK_GROUP_SIZE)",
                                      local, variants[v].name, kernel_max);
                goto release_programs;
            }
            plans[v].usable = 0;
            snprintf(plans[v].why, sizeof plans[v].why,
                     "the kernel allows at most %zu work-items (CL_KERNEL_WORK_GROUP_SIZE): try "
                     "--local %zu",
                     kernel_max, kernel_max);
        }
    }

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    print_capabilities(&caps, &dev);
    printf("\nVariants this enables\n");
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        printf("  %-18s %-4s %s\n", variants[v].name, plans[v].usable ? "yes" : "no", plans[v].why);
        if (options[v][0]) printf("  %-18s      build options: %s\n", "", options[v]);
        if (plans[v].sub_group_size)
            printf("  %-18s      kernel query for a work-group of %zu: %zu sub-group%s of up to "
                   "%zu\n",
                   "", local, plans[v].sub_group_count, plans[v].sub_group_count == 1 ? "" : "s",
                   plans[v].sub_group_size);
        if (v == INTEL_SUB_GROUP && plans[v].kernel && caps.sub_group_info) {
            if (plans[v].compile_width_err == CL_SUCCESS)
                printf("  %-18s      CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: %zu\n", "",
                       plans[v].compile_width);
            else
                printf("  %-18s      CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: not answered (%s)\n",
                       "", oclt_error_name(plans[v].compile_width_err));
        }
    }
    printf("\nOperation and type, prepended to subgroup_reduce.cl:\n");
    for (const char *line = source; *line && strncmp(line, "#line", 5) != 0;) {
        size_t len = strcspn(line, "\n");
        printf("    %.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
    printf("Shape: work-groups of %zu, VEC=%d UNROLL=%d GROUPS_PER_CU=%d ORDER=%s "
           "(OCLT_SUBGROUP_TUNE), %d pass%s:",
           local, tune.vec, tune.unroll, tune.groups_per_cu,
           tune.order == ORDER_BLOCKED ? "blocked" : "interleaved", passes.count,
           passes.count == 1 ? "" : "es");
    for (int p = 0; p < passes.count; ++p)
        printf(" %zu -> %zu%s", passes.n[p], passes.groups[p], p + 1 < passes.count ? "," : "\n");

    /* 3. Inputs, the CPU reference and the buffers. */
    printf("\n");
    void *input = malloc(n * element_size);
    const size_t partial_bytes = passes.groups[0] * element_size;
    void *partial_poison = malloc(partial_bytes);
    cl_mem input_buf = NULL, partial_buf[2] = {NULL, NULL}, result_buf = NULL;
    reference ref = {0, 0.0, 0.0};
    cl_int err = CL_SUCCESS;
    if (!input || !partial_poison) {
        fprintf(stderr, "out of host memory for %zu elements\n", n);
        rc = OCLT_EXIT_FAIL;
        goto release_host;
    }
    oclt_poison_host(partial_poison, partial_bytes);
    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    fill_input(&rng, opt.op, opt.type, input, n, &ref);
    input_buf = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               n * element_size, input, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(input)")) goto fail_buffers;
    for (int i = 0; i < 2; ++i) {
        partial_buf[i] = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, partial_bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(partial)")) goto fail_buffers;
    }
    result_buf = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, element_size, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(result)")) goto fail_buffers;

    /* 4. Run, check, report. */
    const reduction buffers = {.dev = &dev,
                               .local = local,
                               .plan = &passes,
                               .input = input_buf,
                               .partial = {partial_buf[0], partial_buf[1]},
                               .result = result_buf,
                               .element_size = element_size,
                               .partial_bytes = partial_bytes,
                               .partial_poison = partial_poison};
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", n);
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (!opt.selected[v]) continue;
        char label[64], note[256];
        snprintf(label, sizeof label, "%s/%s/%s", variants[v].name, ops[opt.op], types[opt.type]);
        if (!plans[v].usable) {
            /* CI on a device with sub-groups sets OCLT_REQUIRE_SUBGROUPS=1: then the portable
             * and built-in variants must run; only the NVIDIA ones may be skipped. */
            int required = require_subgroups && v <= INTEL_SUB_GROUP;
            snprintf(note, sizeof note, "%s%s", required ? "OCLT_REQUIRE_SUBGROUPS=1: " : "",
                     plans[v].why);
            oclt_report_result(&report, label, size_text, -1.0, -1.0, "GB/s",
                               required ? OCLT_FAIL : OCLT_SKIP, note);
            continue;
        }
        if (build_failed[v]) {
            oclt_report_result(&report, label, size_text, -1.0, -1.0, "GB/s", OCLT_FAIL,
                               "build failed (log above)");
            continue;
        }
        double ms = -1.0;
        oclt_status status = run_and_check(&dev, &opt, v, &plans[v], &tune, &passes, &buffers, &ref,
                                           label, &ms, note, sizeof note);
        const double gbps = ms > 0 ? (double)n * (double)element_size / (ms * 1e6) : -1.0;
        oclt_report_result(&report, label, size_text, ms, gbps, "GB/s", status, note);
    }
    rc = oclt_report_exit_code(&report);
    goto release_buffers;

fail_buffers:
    rc = OCLT_EXIT_FAIL;
release_buffers:
    if (result_buf) clReleaseMemObject(result_buf);
    for (int i = 0; i < 2; ++i)
        if (partial_buf[i]) clReleaseMemObject(partial_buf[i]);
    if (input_buf) clReleaseMemObject(input_buf);
release_host:
    free(input);
    free(partial_poison);
release_programs:
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        if (plans[v].kernel) clReleaseKernel(plans[v].kernel);
        if (plans[v].program) clReleaseProgram(plans[v].program);
    }
    free(source);
close_device:
    oclt_close_device(&dev);
    return rc;
}
