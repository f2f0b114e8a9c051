/* Chapter 06: what the device supports (the queries of OpenCL 1.x, 2.x and 3.0, and the
 * vendor extensions), and which variants that enables, with the reason for each. */
#include "ch06.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lists_c_version(const capabilities *caps, int version) {
    for (size_t i = 0; i < caps->c_version_count; ++i)
        if (caps->c_versions[i] == version) return 1;
    return 0;
}

void query_capabilities(const oclt_device *dev, capabilities *caps) {
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
    caps->feature_subgroups = oclt_device_has_c_feature(dev, "__opencl_c_subgroups");
    caps->feature_collectives =
        oclt_device_has_c_feature(dev, "__opencl_c_work_group_collective_functions");
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

void print_capabilities(const capabilities *caps, const oclt_device *dev) {
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

/* A sub-group width the device offers (CL_DEVICE_SUB_GROUP_SIZES_INTEL) that divides local. */
static int offers_width(const capabilities *caps, size_t width, size_t local) {
    for (size_t i = 0; i < caps->intel_size_count; ++i)
        if (caps->intel_sizes[i] == width && local % width == 0) return 1;
    return 0;
}

void plan_variants(const capabilities *caps, const oclt_device *dev, size_t local,
                   const tuning *tune, variant_plan *plans) {
    variant_plan *p = &plans[LOCAL_TREE];
    p->usable = 1;
    snprintf(p->why, sizeof p->why, "local memory and barriers: every OpenCL device");

    /* The last group reads the others' partials: that needs an order between work-groups,
     * which OpenCL 1.2 does not give (common/device.h: oclt_device_group_order). Built with the
     * newest OpenCL C the device lists, so that a compiler with device-scope atomics uses them. */
    p = &plans[SINGLE_PASS];
    const oclt_group_order order = oclt_device_group_order(dev);
    p->usable = order != OCLT_GROUP_ORDER_NONE;
    p->gpu_fence = order == OCLT_GROUP_ORDER_NVIDIA;
    if (lists_c_version(caps, 300))
        snprintf(p->std, sizeof p->std, "-cl-std=CL3.0");
    else if (lists_c_version(caps, 200))
        snprintf(p->std, sizeof p->std, "-cl-std=CL2.0");
    snprintf(p->why, sizeof p->why, "%s",
             order == OCLT_GROUP_ORDER_C11 ? "device-scope acquire/release atomics"
             : p->gpu_fence ? "NVIDIA: a GPU-scope fence (PTX membar.gl) around 1.x atomics"
                            : "no order between work-groups: needs OpenCL C 2.0 atomics, or 3.0 "
                              "with device-scope acquire/release (OpenCL 1.2 promises none)");

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
        p->missing_feature = 1;
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
        p->missing_feature = 1;
        snprintf(p->why, sizeof p->why, "%s",
                 caps->khr_subgroups
                     ? "has cl_khr_subgroups with OpenCL C 1.x only (Clang offers its built-ins "
                       "from OpenCL C 2.0)"
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
        p->missing_feature = 1;
        snprintf(p->why, sizeof p->why,
                 "needs cl_intel_subgroups and cl_intel_required_subgroup_size");
    } else if (caps->intel_size_count == 0) {
        p->missing_feature = 1;
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

    /* Driver workaround (docs/appendix_driver_quirks.md): PoCL 6.0 aborts the whole process
     * when a kernel with work-group or sub-group functions runs in work-groups of 1 or 2
     * (its compiled kernel lacks __pocl_work_group_alloca). A SKIP with the reason instead. */
    if (strstr(dev->platform_name, "Portable Computing Language") && local < 4)
        for (int v = WORK_GROUP_REDUCE; v <= INTEL_SUB_GROUP; ++v)
            if (plans[v].usable) {
                plans[v].usable = 0;
                snprintf(plans[v].why, sizeof plans[v].why,
                         "PoCL aborts on work-group and sub-group functions in work-groups of %zu "
                         "(seen on 6.0): use --local 4 or more",
                         local);
            }
}

void query_sub_groups(const capabilities *caps, const oclt_device *dev, int v, size_t local,
                      variant_plan *plan) {
    if ((v != SUB_GROUP_REDUCE && v != INTEL_SUB_GROUP) || !caps->sub_group_info) return;
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
        plan->compile_width_err =
            caps->sub_group_info(plan->kernel, dev->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL,
                                 0, NULL, sizeof plan->compile_width, &plan->compile_width, NULL);
}

void print_plans(const capabilities *caps, const variant_plan *plans,
                 const oclt_variant_info *variants, size_t local) {
    printf("\nVariants this enables\n");
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        const variant_plan *p = &plans[v];
        printf("  %-18s %-4s %s\n", variants[v].name, p->usable ? "yes" : "no", p->why);
        if (p->options[0]) printf("  %-18s      build options: %s\n", "", p->options);
        if (p->sub_group_size)
            printf("  %-18s      kernel query for a work-group of %zu: %zu sub-group%s of up to "
                   "%zu\n",
                   "", local, p->sub_group_count, p->sub_group_count == 1 ? "" : "s",
                   p->sub_group_size);
        if (v == INTEL_SUB_GROUP && p->kernel && caps->sub_group_info) {
            if (p->compile_width_err == CL_SUCCESS)
                printf("  %-18s      CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: %zu\n", "",
                       p->compile_width);
            else
                printf("  %-18s      CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: not answered (%s)\n",
                       "", oclt_error_name(p->compile_width_err));
        }
    }
}

void print_shape(const char *source, size_t local, size_t kernel_limit, const tuning *tune,
                 const pass_plan *passes) {
    printf("\nOperation and type, prepended to subgroup_reduce.cl:\n");
    for (const char *line = source; *line && strncmp(line, "#line", 5) != 0;) {
        size_t len = strcspn(line, "\n");
        printf("    %.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
    printf("Shape: work-groups of %zu", local);
    if (kernel_limit)
        printf(" (a kernel allows only %zu: CL_KERNEL_WORK_GROUP_SIZE)", kernel_limit);
    printf(
        ", VEC=%d UNROLL=%d GROUPS_PER_CU=%d ORDER=%s (OCLT_SUBGROUP_TUNE), %d pass%s:", tune->vec,
        tune->unroll, tune->groups_per_cu, tune->order == ORDER_BLOCKED ? "blocked" : "interleaved",
        passes->count, passes->count == 1 ? "" : "es");
    for (int p = 0; p < passes->count; ++p)
        printf(" %zu -> %zu%s", passes->n[p], passes->groups[p],
               p + 1 < passes->count ? "," : "\n");
}
