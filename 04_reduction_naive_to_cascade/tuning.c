/* Chapter 04: the shape of reduce6/reduce7's loads, from the device type or OCLT_REDUCE_TUNE. */
#include "reduce.h"

#include <stdlib.h>
#include <string.h>

static int tuning_error(const oclt_cli_spec *spec, const char *key, const char *value,
                        const char *rule) {
    return oclt_usage_error(spec, "OCLT_REDUCE_TUNE: %s=%s must be %s", key, value, rule);
}

int parse_tuning(const oclt_cli_spec *spec, const char *text, tuning *tune) {
    memset(tune, 0, sizeof *tune);
    tune->blocked = -1;
    if (!text || !*text) return 0;
    for (const char *item = text; *item;) {
        size_t len = strcspn(item, ",");
        char key[32] = "", value[32] = "";
        const char *eq = memchr(item, '=', len);
        if (!eq || eq == item || (size_t)(eq - item) >= sizeof key ||
            len - (size_t)(eq - item) - 1 >= sizeof value || len - (size_t)(eq - item) < 2)
            return oclt_usage_error(spec,
                                    "OCLT_REDUCE_TUNE '%s': expected NAME=VALUE items, e.g. "
                                    "VEC=4,UNROLL=4,GROUPS_PER_CU=32,ORDER=interleaved",
                                    text);
        memcpy(key, item, (size_t)(eq - item));
        memcpy(value, eq + 1, len - (size_t)(eq - item) - 1);
        char *end = NULL;
        unsigned long number = strtoul(value, &end, 10);
        int numeric = value[0] >= '0' && value[0] <= '9' && *end == '\0';
        int power_of_two = numeric && number && (number & (number - 1)) == 0;
        if (strcmp(key, "VEC") == 0) {
            if (!power_of_two || number > 16)
                return tuning_error(spec, key, value, "1, 2, 4, 8 or 16");
            tune->vec = (unsigned)number;
        } else if (strcmp(key, "UNROLL") == 0) {
            if (!power_of_two || number > 8) return tuning_error(spec, key, value, "1, 2, 4 or 8");
            tune->unroll = (unsigned)number;
        } else if (strcmp(key, "GROUPS_PER_CU") == 0) {
            if (!numeric || number < 1 || number > 4096)
                return tuning_error(spec, key, value, "between 1 and 4096");
            tune->groups_per_cu = (unsigned)number;
        } else if (strcmp(key, "ORDER") == 0) {
            if (strcmp(value, "auto") && strcmp(value, "interleaved") && strcmp(value, "blocked"))
                return tuning_error(spec, key, value, "auto, interleaved or blocked");
            tune->blocked = strcmp(value, "auto") == 0 ? -1 : strcmp(value, "blocked") == 0;
        } else {
            return oclt_usage_error(spec,
                                    "OCLT_REDUCE_TUNE: unknown name '%s' (known: VEC, UNROLL, "
                                    "GROUPS_PER_CU, ORDER)",
                                    key);
        }
        item += len;
        if (*item == ',') ++item;
    }
    return 0;
}

/* A GPU wants the interleaved order (coalesced), 16-byte loads (one transaction per lane),
 * several in flight, and enough groups to fill every compute unit: 16 per compute unit. On the
 * H200, 8 to 64 groups per compute unit with unrolls of 2 to 8 read 2^28 floats at about the
 * same speed (within the noise between runs); 16 keeps reduce7's list of partials short. A CPU
 * runs a work-group as a loop on one core: the blocked order (each work-item streams its own
 * chunk), one cache line per load, one group per core. */
void default_tuning(const oclt_device *dev, size_t elem_size, tuning *tune) {
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    if (!tune->vec) tune->vec = (unsigned)((gpu ? 16 : 64) / elem_size);
    if (tune->vec > 16) tune->vec = 16;
    if (!tune->unroll) tune->unroll = gpu ? 4 : 1;
    if (!tune->groups_per_cu) tune->groups_per_cu = gpu ? 16 : 1;
    if (tune->blocked < 0) tune->blocked = !gpu;
}
