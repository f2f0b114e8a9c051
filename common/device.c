/* Platform and device choice, context and queue creation, and small device queries. */
#include "device.h"
#include "errors.h"
#include "os.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

static const char *no_platform_hint =
    "no OpenCL platform found: install a driver (Debian/Ubuntu: sudo apt-get install "
    "pocl-opencl-icd) and check /etc/OpenCL/vendors for its .icd file (or OCL_ICD_VENDORS)";

/* Platforms, or 0 after printing the hint when there are none. */
static cl_uint get_platforms(cl_platform_id *platforms) {
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &count);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && count == 0)) {
        fprintf(stderr, "%s\n", no_platform_hint);
        return 0;
    }
    if (OCLT_CHECK_ERR(err, "clGetPlatformIDs")) return 0;
    return count < MAX_PLATFORMS ? count : MAX_PLATFORMS;
}

/* Devices of every type on one platform; a platform with none gives 0. */
static cl_uint get_devices(cl_platform_id platform, cl_device_id *devices) {
    cl_uint count = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &count);
    if (err == CL_DEVICE_NOT_FOUND) return 0;
    if (OCLT_CHECK_ERR(err, "clGetDeviceIDs")) return 0;
    return count < MAX_DEVICES ? count : MAX_DEVICES;
}

char *oclt_device_string(cl_device_id device, cl_device_info param) {
    size_t size = 0;
    if (OCLT_CHECK(clGetDeviceInfo(device, param, 0, NULL, &size))) return NULL;
    char *text = malloc(size + 1);
    if (!text) return NULL;
    if (OCLT_CHECK(clGetDeviceInfo(device, param, size, text, NULL))) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

char *oclt_platform_string(cl_platform_id platform, cl_platform_info param) {
    size_t size = 0;
    if (OCLT_CHECK(clGetPlatformInfo(platform, param, 0, NULL, &size))) return NULL;
    char *text = malloc(size + 1);
    if (!text) return NULL;
    if (OCLT_CHECK(clGetPlatformInfo(platform, param, size, text, NULL))) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

cl_ulong oclt_device_ulong(cl_device_id device, cl_device_info param) {
    cl_ulong value = 0;
    OCLT_CHECK(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

size_t oclt_device_size(cl_device_id device, cl_device_info param) {
    size_t value = 0;
    OCLT_CHECK(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

cl_uint oclt_device_uint(cl_device_id device, cl_device_info param) {
    cl_uint value = 0;
    OCLT_CHECK(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

int oclt_device_has_extension(cl_device_id device, const char *name) {
    char *extensions = oclt_device_string(device, CL_DEVICE_EXTENSIONS);
    int found = 0;
    size_t len = strlen(name);
    for (const char *p = extensions; p && (p = strstr(p, name)) != NULL; p += len) {
        int starts = p == extensions || p[-1] == ' ';
        int ends = p[len] == '\0' || p[len] == ' ';
        if (starts && ends) {
            found = 1;
            break;
        }
    }
    free(extensions);
    return found;
}

int oclt_parse_version(const char *text) {
    int major = 0, minor = 0;
    if (!text) return 0;
    if (sscanf(text, "OpenCL C %d.%d", &major, &minor) == 2 ||
        sscanf(text, "OpenCL %d.%d", &major, &minor) == 2)
        return major * 100 + minor * 10;
    return 0;
}

static int contains_ignoring_case(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; ++haystack) {
        size_t i = 0;
        while (i < n && haystack[i] &&
               tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n) return 1;
    }
    return n == 0;
}

static int is_index(const char *text, unsigned long *index) {
    if (!isdigit((unsigned char)text[0])) return 0;
    char *end = NULL;
    *index = strtoul(text, &end, 10);
    return *end == '\0';
}

static const char *type_name(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return "GPU";
    if (type & CL_DEVICE_TYPE_CPU) return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (type & CL_DEVICE_TYPE_CUSTOM) return "custom";
    return "other";
}

int oclt_list_devices(FILE *out) {
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint platform_count = get_platforms(platforms);
    if (platform_count == 0) return OCLT_EXIT_SKIP;
    unsigned global_index = 0;
    for (cl_uint p = 0; p < platform_count; ++p) {
        char *name = oclt_platform_string(platforms[p], CL_PLATFORM_NAME);
        char *version = oclt_platform_string(platforms[p], CL_PLATFORM_VERSION);
        fprintf(out, "platform %u: %s (%s)\n", p, name ? name : "?", version ? version : "?");
        free(name);
        free(version);
        cl_device_id devices[MAX_DEVICES];
        cl_uint device_count = get_devices(platforms[p], devices);
        if (device_count == 0) fprintf(out, "  (no devices)\n");
        for (cl_uint d = 0; d < device_count; ++d, ++global_index) {
            char *dev_name = oclt_device_string(devices[d], CL_DEVICE_NAME);
            char *dev_version = oclt_device_string(devices[d], CL_DEVICE_VERSION);
            cl_device_type type = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            fprintf(out, "  device %u (-p %u -d %u, or -d %u): %s [%s, %s]\n", d, p, d,
                    global_index, dev_name ? dev_name : "?", type_name(type),
                    dev_version ? dev_version : "?");
            free(dev_name);
            free(dev_version);
        }
    }
    return OCLT_EXIT_OK;
}

/* "0: name, 1: name" of every device in the candidate platforms, for error messages. */
static void print_available(FILE *out, cl_platform_id *platforms, cl_uint count) {
    unsigned index = 0;
    for (cl_uint p = 0; p < count; ++p) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint n = get_devices(platforms[p], devices);
        for (cl_uint d = 0; d < n; ++d, ++index) {
            char *name = oclt_device_string(devices[d], CL_DEVICE_NAME);
            fprintf(out, "%s%u: %s", index ? ", " : "", index, name ? name : "?");
            free(name);
        }
    }
}

int oclt_choose_device(const oclt_cli_spec *spec, const char *platform_choice,
                       const char *device_choice, cl_platform_id *platform, cl_device_id *device) {
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint platform_count = get_platforms(platforms);
    if (platform_count == 0) return OCLT_EXIT_SKIP;

    /* Narrow the candidate platforms to the one -p names. */
    cl_platform_id *candidates = platforms;
    cl_uint candidate_count = platform_count;
    if (platform_choice) {
        unsigned long index = 0;
        int found = -1;
        if (is_index(platform_choice, &index)) {
            if (index < platform_count) found = (int)index;
        } else {
            for (cl_uint p = 0; p < platform_count && found < 0; ++p) {
                char *name = oclt_platform_string(platforms[p], CL_PLATFORM_NAME);
                char *vendor = oclt_platform_string(platforms[p], CL_PLATFORM_VENDOR);
                if ((name && contains_ignoring_case(name, platform_choice)) ||
                    (vendor && contains_ignoring_case(vendor, platform_choice)))
                    found = (int)p;
                free(name);
                free(vendor);
            }
        }
        if (found < 0) {
            fprintf(stderr, "%s: no platform matches '%s' (available: ", spec->chapter,
                    platform_choice);
            for (cl_uint p = 0; p < platform_count; ++p) {
                char *name = oclt_platform_string(platforms[p], CL_PLATFORM_NAME);
                fprintf(stderr, "%s%u: %s", p ? ", " : "", p, name ? name : "?");
                free(name);
            }
            fputs(")\n", stderr);
            return OCLT_EXIT_USAGE;
        }
        candidates = &platforms[found];
        candidate_count = 1;
    }

    /* Walk the candidates' devices in --devices order. */
    unsigned long wanted_index = 0;
    int by_index = device_choice && is_index(device_choice, &wanted_index);
    unsigned index = 0;
    int have_first = 0;
    for (int want_gpu = 1; want_gpu >= 0; --want_gpu) {
        index = 0;
        for (cl_uint p = 0; p < candidate_count; ++p) {
            cl_device_id devices[MAX_DEVICES];
            cl_uint n = get_devices(candidates[p], devices);
            for (cl_uint d = 0; d < n; ++d, ++index) {
                cl_device_type type = 0;
                clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
                int match = 0;
                if (by_index) {
                    match = index == wanted_index;
                } else if (device_choice) {
                    char *name = oclt_device_string(devices[d], CL_DEVICE_NAME);
                    match = name && contains_ignoring_case(name, device_choice);
                    free(name);
                } else {
                    match = !want_gpu || (type & CL_DEVICE_TYPE_GPU);
                }
                if (match) {
                    *platform = candidates[p];
                    *device = devices[d];
                    return OCLT_CONTINUE;
                }
                have_first = 1;
            }
        }
        if (device_choice) break; /* a named device is not retried as "any device" */
    }
    if (!have_first) {
        fprintf(stderr, "%s: the chosen platform has no OpenCL device\n", spec->chapter);
        return OCLT_EXIT_SKIP;
    }
    fprintf(stderr, "%s: no device matches '%s' (available: ", spec->chapter, device_choice);
    print_available(stderr, candidates, candidate_count);
    fputs(")\n", stderr);
    return OCLT_EXIT_USAGE;
}

cl_command_queue oclt_create_queue(cl_context context, cl_device_id device,
                                   cl_command_queue_properties properties, cl_int *err) {
    cl_platform_id platform = NULL;
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    char *platform_version = oclt_platform_string(platform, CL_PLATFORM_VERSION);
    char *device_version = oclt_device_string(device, CL_DEVICE_VERSION);
    int modern =
        oclt_parse_version(platform_version) >= 200 && oclt_parse_version(device_version) >= 200;
    free(platform_version);
    free(device_version);
    if (modern) {
        cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
        return clCreateCommandQueueWithProperties(context, device, list, err);
    }
    return clCreateCommandQueue(context, device, properties, err);
}

static int highest_c_version(cl_device_id device, int device_version) {
    int best = 0;
    char *c_version = oclt_device_string(device, CL_DEVICE_OPENCL_C_VERSION);
    best = oclt_parse_version(c_version);
    free(c_version);
    if (device_version >= 300) {
        size_t size = 0;
        if (clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) ==
                CL_SUCCESS &&
            size > 0) {
            cl_name_version *all = malloc(size);
            if (all && clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, all, NULL) ==
                           CL_SUCCESS) {
                for (size_t i = 0; i < size / sizeof *all; ++i) {
                    int v = (int)CL_VERSION_MAJOR(all[i].version) * 100 +
                            (int)CL_VERSION_MINOR(all[i].version) * 10;
                    if (v > best) best = v;
                }
            }
            free(all);
        }
    }
    return best;
}

int oclt_open_device(const oclt_cli_spec *spec, const oclt_options *opt, oclt_device *dev) {
    return oclt_open_device_with_queue(spec, opt, dev, CL_QUEUE_PROFILING_ENABLE);
}

int oclt_open_device_with_queue(const oclt_cli_spec *spec, const oclt_options *opt,
                                oclt_device *dev, cl_command_queue_properties queue_properties) {
    memset(dev, 0, sizeof *dev);
    if (opt->list_devices) return oclt_list_devices(stdout);
    int rc = oclt_choose_device(spec, opt->platform, opt->device, &dev->platform, &dev->device);
    if (rc != OCLT_CONTINUE) return rc;

    char *text = oclt_platform_string(dev->platform, CL_PLATFORM_NAME);
    snprintf(dev->platform_name, sizeof dev->platform_name, "%s", text ? text : "?");
    free(text);
    text = oclt_platform_string(dev->platform, CL_PLATFORM_VERSION);
    dev->platform_version = oclt_parse_version(text);
    free(text);
    text = oclt_device_string(dev->device, CL_DEVICE_NAME);
    snprintf(dev->device_name, sizeof dev->device_name, "%s", text ? text : "?");
    free(text);
    text = oclt_device_string(dev->device, CL_DRIVER_VERSION);
    snprintf(dev->driver_version, sizeof dev->driver_version, "%s", text ? text : "?");
    free(text);
    text = oclt_device_string(dev->device, CL_DEVICE_VERSION);
    dev->device_version = oclt_parse_version(text);
    free(text);
    dev->c_version = highest_c_version(dev->device, dev->device_version);
    clGetDeviceInfo(dev->device, CL_DEVICE_TYPE, sizeof dev->type, &dev->type, NULL);
    dev->max_alloc = oclt_device_ulong(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    dev->global_mem = oclt_device_ulong(dev->device, CL_DEVICE_GLOBAL_MEM_SIZE);

    cl_int err = CL_SUCCESS;
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform,
                                          0};
    dev->context = clCreateContext(properties, 1, &dev->device, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext")) return OCLT_EXIT_FAIL;
    dev->queue = oclt_create_queue(dev->context, dev->device, queue_properties, &err);
    if (OCLT_CHECK_ERR(err, queue_properties & CL_QUEUE_PROFILING_ENABLE
                                ? "clCreateCommandQueue (profiling)"
                                : "clCreateCommandQueue")) {
        clReleaseContext(dev->context);
        dev->context = NULL;
        return OCLT_EXIT_FAIL;
    }
    return OCLT_CONTINUE;
}

void oclt_close_device(oclt_device *dev) {
    if (dev->queue) {
        clFinish(dev->queue);
        clReleaseCommandQueue(dev->queue);
    }
    if (dev->context) clReleaseContext(dev->context);
    dev->queue = NULL;
    dev->context = NULL;
}

static void print_bytes(char *out, size_t size, cl_ulong bytes) {
    if (bytes >= (1ull << 30))
        snprintf(out, size, "%.2f GiB", (double)bytes / (1ull << 30));
    else
        snprintf(out, size, "%.2f MiB", (double)bytes / (1ull << 20));
}

cl_ulong oclt_mul_size(cl_ulong a, cl_ulong b) {
    cl_ulong product = 0;
    return __builtin_mul_overflow(a, b, &product) ? (cl_ulong)-1 : product;
}

int oclt_require_memory(const oclt_cli_spec *spec, const oclt_device *dev, cl_ulong bytes,
                        cl_ulong total, const char *what) {
    char need[32], have[32];
    if (bytes > dev->max_alloc) {
        print_bytes(need, sizeof need, bytes);
        print_bytes(have, sizeof have, dev->max_alloc);
        return oclt_usage_error(spec,
                                "%s needs a %s buffer but %s allows at most %s per allocation "
                                "(CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller --size",
                                what, need, dev->device_name, have);
    }
    if (total > dev->global_mem) {
        print_bytes(need, sizeof need, total);
        print_bytes(have, sizeof have, dev->global_mem);
        return oclt_usage_error(spec,
                                "%s needs %s of buffers but %s has %s of global memory: use a "
                                "smaller --size",
                                what, need, dev->device_name, have);
    }
    return 0;
}

int oclt_require_host_memory(const oclt_cli_spec *spec, const oclt_device *dev, cl_ulong host_bytes,
                             cl_ulong buffer_bytes, const char *what) {
    const cl_ulong usable = oclt_os_usable_memory();
    const int shared = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    cl_ulong total = host_bytes;
    if (shared && __builtin_add_overflow(host_bytes, buffer_bytes, &total)) total = (cl_ulong)-1;
    if (!usable || total <= usable) return 0;
    char need[32], have[32];
    print_bytes(need, sizeof need, total);
    print_bytes(have, sizeof have, usable);
    return oclt_usage_error(spec,
                            "%s needs %s of host memory (%s) but only %s is available (the "
                            "machine's memory or its cgroup's limit): use a smaller --size",
                            what, need, shared ? "arrays and the CPU device's buffers" : "arrays",
                            have);
}

int oclt_device_has_c_feature(const oclt_device *dev, const char *name) {
    size_t size = 0;
    if (dev->device_version < 300 ||
        clGetDeviceInfo(dev->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) != CL_SUCCESS ||
        size == 0)
        return 0;
    cl_name_version *features = malloc(size);
    int found = 0;
    if (features && clGetDeviceInfo(dev->device, CL_DEVICE_OPENCL_C_FEATURES, size, features,
                                    NULL) == CL_SUCCESS)
        for (size_t i = 0; i < size / sizeof *features; ++i)
            if (strcmp(features[i].name, name) == 0) found = 1;
    free(features);
    return found;
}

oclt_group_order oclt_device_group_order(const oclt_device *dev) {
    const int c = dev->c_version;
    if ((c >= 200 && c < 300) ||
        (c >= 300 && oclt_device_has_c_feature(dev, "__opencl_c_atomic_order_acq_rel") &&
         oclt_device_has_c_feature(dev, "__opencl_c_atomic_scope_device")))
        return OCLT_GROUP_ORDER_C11;
    if (strstr(dev->platform_name, "NVIDIA")) return OCLT_GROUP_ORDER_NVIDIA;
    return OCLT_GROUP_ORDER_NONE;
}
