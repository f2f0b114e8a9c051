/* Chapter 06: the shape of the sweep (OCLT_SUBGROUP_TUNE, defaults by device type), the
 * device limits the work-group size must respect, and the passes that follow from both. */
#include "ch06.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LOCAL 256

/* One KEY=VALUE item of OCLT_SUBGROUP_TUNE; returns 1 if its value is in range, 0 if not,
 * -1 for an unknown key. */
static int set_item(const char *key, const char *word, long value, tuning *tune) {
    if (strcmp(key, "VEC") == 0) {
        tune->vec = (int)value;
        return value == 1 || value == 2 || value == 4 || value == 8 || value == 16;
    }
    if (strcmp(key, "UNROLL") == 0) {
        tune->unroll = (int)value;
        return value >= 1 && value <= 16;
    }
    if (strcmp(key, "GROUPS_PER_CU") == 0) {
        tune->groups_per_cu = (int)value;
        return value >= 1 && value <= 4096;
    }
    if (strcmp(key, "ORDER") == 0) {
        tune->order = word[0] == 'b' ? ORDER_BLOCKED : ORDER_INTERLEAVED;
        return strcmp(word, "interleaved") == 0 || strcmp(word, "blocked") == 0;
    }
    if (strcmp(key, "SUB_GROUP") == 0) {
        tune->sub_group = (int)value;
        return value >= 1 && value <= 4096;
    }
    return -1;
}

int parse_tuning(const oclt_cli_spec *spec, const char *text, tuning *tune) {
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
            char *end = NULL; /* digits only: strtol would take a sign or leading spaces */
            value = isdigit((unsigned char)word[0]) ? strtol(word, &end, 10) : -1;
            if (value >= 0 && *end != '\0') value = -1;
        }
        const int ok = set_item(key, word, value, tune);
        if (ok < 0)
            return oclt_usage_error(spec,
                                    "OCLT_SUBGROUP_TUNE item '%.*s' is not KEY=VALUE with KEY "
                                    "one of VEC, UNROLL, GROUPS_PER_CU, ORDER, SUB_GROUP",
                                    (int)len, item);
        if (!ok)
            return oclt_usage_error(spec,
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
void default_tuning(const oclt_device *dev, tuning *tune) {
    const int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    if (!tune->vec) tune->vec = cpu ? 16 : 4;
    if (!tune->unroll) tune->unroll = cpu ? 1 : 4;
    if (!tune->groups_per_cu) tune->groups_per_cu = cpu ? 1 : 4;
    if (tune->order == ORDER_AUTO) tune->order = cpu ? ORDER_BLOCKED : ORDER_INTERLEAVED;
}

int choose_local_size(const oclt_cli_spec *spec, const oclt_device *dev, const tuning *tune,
                      size_t requested, size_t element_size, size_t *local) {
    size_t device_max = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    size_t item_max[3] = {0, 0, 0};
    OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max,
                               item_max, NULL));
    if (item_max[0] && item_max[0] < device_max) device_max = item_max[0];
    if (requested > device_max)
        return oclt_usage_error(spec,
                                "--local %zu exceeds the device's limit of %zu work-items "
                                "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES[0])",
                                requested, device_max);
    *local = requested;
    if (!requested) /* the largest power of two up to DEFAULT_LOCAL that the device allows */
        for (*local = 1; *local * 2 <= device_max && *local * 2 <= DEFAULT_LOCAL;) *local *= 2;
    const cl_ulong local_mem = oclt_device_ulong(dev->device, CL_DEVICE_LOCAL_MEM_SIZE);
    const cl_ulong needed = (cl_ulong)*local * (element_size + sizeof(cl_uint));
    if (needed > local_mem)
        return oclt_usage_error(spec,
                                "--local %zu needs %llu bytes of local memory; the device has "
                                "%llu (CL_DEVICE_LOCAL_MEM_SIZE)",
                                *local, (unsigned long long)needed, (unsigned long long)local_mem);
    const cl_uint align_bits = oclt_device_uint(dev->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    if ((size_t)align_bits < (size_t)tune->vec * element_size * 8)
        return oclt_usage_error(spec,
                                "OCLT_SUBGROUP_TUNE VEC=%d needs buffers aligned to %zu bytes; "
                                "the device promises %u (CL_DEVICE_MEM_BASE_ADDR_ALIGN)",
                                tune->vec, (size_t)tune->vec * element_size, align_bits / 8);
    return 0;
}

/* First pass: enough work-groups to cover n with per_item loads each, at most max_groups
 * (the grid-stride loop covers the rest). Later passes do the same on the partials. Every
 * pass at least halves the count, so the loop ends. */
void plan_passes(size_t n, size_t local, size_t per_item, size_t max_groups, pass_plan *plan) {
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
