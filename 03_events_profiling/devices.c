/* Chapter 03: more than one context, more than one device.
 *   multi_context  two contexts on one device: separate worlds that only the host can join;
 *   multi_device   several devices in one context: one queue each, shared buffers, events
 *                  that cross from one device's queue to another's.
 */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- multi_context ---------------------------------------------------------------------------
 * Buffers, programs, kernels, queues and events belong to one context. Two contexts (two
 * libraries that each made their own, or two platforms) share nothing: an event of one cannot
 * be in a wait list of the other (CL_INVALID_CONTEXT), and data moves only through the host.
 * So the host is the join: it waits for context A's result, then hands it to context B. */
void scenario_multi_context(lesson *L) {
    const size_t n = L->n;
    oclt_status status = OCLT_FAIL;
    double ms = -1.0;
    size_t failures = 0;
    cl_context context_b = NULL;
    cl_program program_b = NULL;
    chain_setup a = {0}, b = {0}; /* a in the lesson's context A, b in context B */
    chain_events ev_a = {0}, ev_b = {0};
    cl_event wrong = NULL;
    cl_int err = CL_SUCCESS;
    /* Context A is the lesson's; context B is a second one on the same device. */
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                          (cl_context_properties)L->dev->platform, 0};
    context_b = clCreateContext(properties, 1, &L->dev->device, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext (context B)")) goto release;
    char name_a[300], name_b[300];
    snprintf(name_a, sizeof name_a, "%s (context A)", L->dev->device_name);
    snprintf(name_b, sizeof name_b, "%s (context B)", L->dev->device_name);
    /* Nothing crosses: context B needs its own program, kernel, queue and buffers. */
    if (!(program_b = lesson_build(L, context_b, 1, &L->dev->device, NULL)) ||
        chain_open(L, &a, L->dev->context, L->program, "affine_map", n,
                   trace_device(&L->trace, name_a), "context A") ||
        chain_open(L, &b, context_b, program_b, "affine_map", n, trace_device(&L->trace, name_b),
                   "context B"))
        goto release;

    /* B's chain does not start with chain_start, which poisons A's output on the device. */
    oclt_poison_host(b.y, n * sizeof(int32_t));
    if (oclt_poison_buffer(b.queue, b.y_buf, n * sizeof(int32_t)) || OCLT_CHECK(clFinish(b.queue)))
        goto release;
    double start = oclt_now_ms();
    /* Context A: u = A*x + B, read back to the host (into a.y). */
    if (chain_start(L, &a, NULL, &ev_a) || OCLT_CHECK(clFlush(a.queue))) goto release;
    /* The tempting shortcut: let context B wait for context A's event. Refused. */
    err = clEnqueueMarkerWithWaitList(b.queue, 1, &ev_a.read, &wrong);
    printf("    context B waiting on an event of context A: %s (%d)%s\n", oclt_error_name(err),
           (int)err,
           err == CL_INVALID_CONTEXT ? ", as the specification requires"
                                     : "; the specification requires CL_INVALID_CONTEXT");
    if (err == CL_SUCCESS) clWaitForEvents(1, &wrong);
    /* The host is the bridge: wait for A's data, then give it to B. */
    if (OCLT_CHECK(clWaitForEvents(1, &ev_a.read))) goto release;
    if (enqueue_chain(L, b.queue, b.kernel, b.x_buf, b.y_buf, a.y, b.y, n, AFFINE_A2, AFFINE_B2,
                      NULL, &ev_b) ||
        OCLT_CHECK(clWaitForEvents(1, &ev_b.read)))
        goto release;
    ms = oclt_now_ms() - start;
    printf("    context A computed u, the host waited and carried u to context B, which "
           "computed y (%.3f ms host time)\n",
           ms);
    failures += check_affine(L, "u (context A)", a.x, a.y, n, AFFINE_A, AFFINE_B);
    failures += check_affine(L, "y (context B)", a.y, b.y, n, AFFINE_A2, AFFINE_B2);
    if (trace_chain(L, &ev_a, a.track, " (context A)") ||
        trace_chain(L, &ev_b, b.track, " (context B)"))
        goto release;
    status = verdict(L, failures);
release:
    release_chain(&ev_a);
    release_chain(&ev_b);
    if (wrong) clReleaseEvent(wrong);
    chain_close(&b);
    chain_close(&a);
    if (program_b) clReleaseProgram(program_b);
    if (context_b) clReleaseContext(context_b);
    oclt_report_result(L->report, "multi_context", L->size_text, ms, -1.0, NULL, status,
                       "host ms: context A, host hand-over, context B");
}

/* ---- multi_device ---------------------------------------------------------------------------
 * One context can hold several devices: every buffer and program is shared, each device gets
 * its own queue, and an event of one device's queue may appear in the wait list of another's.
 * The problem is split into sub-buffers (one region of one buffer per device), each device
 * computes its part, and a marker on the first queue that waits for every device's last
 * command joins them. The devices: every device of the chosen platform of the chosen device's
 * type, if there are several; else the chosen device cut into sub-devices by device fission
 * (clCreateSubDevices, CL_DEVICE_PARTITION_EQUALLY, or BY_COUNTS where only that is offered:
 * groups of compute units that act as devices); else there is nothing to show and the
 * scenario is skipped. */

#define MAX_DEVICES 8

typedef struct {
    cl_device_id ids[MAX_DEVICES];
    cl_uint count;
    int sub_devices; /* made by fission: released with clReleaseDevice */
    char how[160];   /* one line on where they came from */
} device_set;

/* Sub-devices made by fission, released by main() last of all through release_sub_devices().
 * PoCL 3.1 tells the host that a command is complete before its worker thread has released
 * the command's event; that event holds its queue, and the queue its sub-device, but PoCL 3.1
 * does not keep the sub-device alive for them: released right after its queue, a sub-device
 * can be freed under the worker thread (a crash a few times in a thousand; PoCL 6 is fixed). */
static cl_device_id held[2 * MAX_DEVICES];
static cl_uint held_count;

static void hold_sub_devices(const device_set *set) {
    for (cl_uint d = 0; d < set->count && held_count < 2 * MAX_DEVICES; ++d)
        held[held_count++] = set->ids[d];
}

void release_sub_devices(void) {
    for (cl_uint d = 0; d < held_count; ++d) clReleaseDevice(held[d]);
    held_count = 0;
}

/* Fills `set`; returns 0, or -1 with `why` set when there is no second device to use. */
static int find_devices(const lesson *L, device_set *set, char *why, size_t why_size) {
    memset(set, 0, sizeof *set);
    cl_uint count = 0;
    const cl_device_type type = L->dev->type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                                CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM);
    cl_int err = clGetDeviceIDs(L->dev->platform, type, MAX_DEVICES, set->ids, &count);
    if (err == CL_SUCCESS && count > 1) {
        set->count = count < MAX_DEVICES ? count : MAX_DEVICES;
        snprintf(set->how, sizeof set->how, "%u devices of the platform's %s type", set->count,
                 type & CL_DEVICE_TYPE_GPU ? "GPU" : "chosen");
        return 0;
    }
    /* One device: can it be partitioned, equally or by counts? */
    cl_device_partition_property kinds[8] = {0};
    size_t kinds_size = 0;
    int equally = 0, by_counts = 0;
    if (L->dev->device_version >= 120 &&
        clGetDeviceInfo(L->dev->device, CL_DEVICE_PARTITION_PROPERTIES, sizeof kinds, kinds,
                        &kinds_size) == CL_SUCCESS)
        for (size_t i = 0; i < kinds_size / sizeof kinds[0]; ++i) {
            equally |= kinds[i] == CL_DEVICE_PARTITION_EQUALLY;
            by_counts |= kinds[i] == CL_DEVICE_PARTITION_BY_COUNTS;
        }
    cl_uint units = oclt_device_uint(L->dev->device, CL_DEVICE_MAX_COMPUTE_UNITS);
    if (!equally && !by_counts) {
        snprintf(why, why_size,
                 "one device, and it cannot be partitioned (CL_DEVICE_PARTITION_PROPERTIES has "
                 "neither CL_DEVICE_PARTITION_EQUALLY nor CL_DEVICE_PARTITION_BY_COUNTS)");
        return -1;
    }
    if (units < 2) {
        snprintf(why, why_size, "one device with one compute unit: nothing to partition");
        return -1;
    }
    /* Two sub-devices of half the compute units each: asked as equal parts where the device
     * offers that, else as a list of two counts. */
    const cl_device_partition_property half = (cl_device_partition_property)(units / 2);
    const cl_device_partition_property equal_halves[] = {CL_DEVICE_PARTITION_EQUALLY, half, 0},
                                       counted_halves[] = {
                                           CL_DEVICE_PARTITION_BY_COUNTS, half, half,
                                           CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    const char *kind = equally ? "CL_DEVICE_PARTITION_EQUALLY" : "CL_DEVICE_PARTITION_BY_COUNTS";
    err = clCreateSubDevices(L->dev->device, equally ? equal_halves : counted_halves, MAX_DEVICES,
                             set->ids, &count);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "clCreateSubDevices(%s, %u) failed: %s", kind, units / 2,
                 oclt_error_name(err));
        return -1;
    }
    set->count = count < MAX_DEVICES ? count : MAX_DEVICES;
    for (cl_uint i = set->count; i < count; ++i) clReleaseDevice(set->ids[i]);
    set->sub_devices = 1;
    snprintf(set->how, sizeof set->how,
             "device fission%s: %u sub-devices of %u compute unit(s) each, cut from %u",
             equally ? "" : " by counts", set->count, units / 2, units);
    return 0;
}

void scenario_multi_device(lesson *L) {
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    const int reps = L->opt->reps;
    oclt_status status = OCLT_FAIL;
    double ms = -1.0, used_devices = -1.0;
    size_t failures = 0;
    device_set set;
    char why[200] = ""; /* set when there is no second device: the scenario is skipped */
    int32_t *x = random_ints(L, n), *y = malloc(bytes);
    double *spans = malloc((size_t)reps * sizeof *spans);
    cl_context context = NULL;
    cl_program program = NULL;
    cl_command_queue queues[MAX_DEVICES] = {0};
    int tracks[MAX_DEVICES] = {0};
    cl_kernel kernels[MAX_DEVICES] = {0};
    cl_mem x_buf = NULL, y_buf = NULL, x_part[MAX_DEVICES] = {0}, y_part[MAX_DEVICES] = {0};
    chain_events ev[MAX_DEVICES];
    cl_event joined = NULL;
    size_t first[MAX_DEVICES + 1] = {0};
    cl_int err = CL_SUCCESS;
    memset(ev, 0, sizeof ev);
    set.count = 0;
    set.sub_devices = 0;
    if (!x || !y || !spans) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    if (find_devices(L, &set, why, sizeof why) != 0) goto release_host;
    printf("    %s\n", set.how);
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                          (cl_context_properties)L->dev->platform, 0};
    context = clCreateContext(properties, set.count, set.ids, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext (several devices)")) goto release_devices;
    /* One build for every device of the context. */
    if (!(program = lesson_build(L, context, set.count, set.ids, NULL))) goto release_context;

    /* Split points: sub-buffer origins must be multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN
     * (bits) on every device that uses them. */
    size_t align_bytes = 4;
    for (cl_uint d = 0; d < set.count; ++d) {
        size_t a = oclt_device_uint(set.ids[d], CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
        if (a > align_bytes) align_bytes = a;
    }
    const size_t align = align_bytes / sizeof(int32_t);
    first[set.count] = n;
    for (cl_uint d = 1; d < set.count; ++d) first[d] = d * n / set.count / align * align;
    /* Every device launches the same NDRange, that of the largest part; the kernel's guard
     * (i < n) idles the extra work-items of the smaller parts. Parts of different sizes would
     * compute the same, but launches of one kernel with different global sizes running at
     * once make PoCL 5.0 abort (docs/appendix_driver_quirks.md, chapter 03). */
    size_t launch_items = 0;
    for (cl_uint d = 0; d < set.count; ++d)
        if (first[d + 1] - first[d] > launch_items) launch_items = first[d + 1] - first[d];
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_program;
    y_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_buffers;
    used_devices = 0;
    for (cl_uint d = 0; d < set.count; ++d) {
        char *name = oclt_device_string(set.ids[d], CL_DEVICE_NAME);
        char label[192];
        snprintf(label, sizeof label, "%s %u: %s", set.sub_devices ? "sub-device" : "device", d,
                 name ? name : "?");
        free(name);
        int trace_dev = trace_device(&L->trace, label);
        queues[d] =
            lesson_queue(L, context, set.ids[d], 0, trace_dev, "multi-device queue", &tracks[d]);
        if (!queues[d] || !(kernels[d] = oclt_create_kernel(program, "affine_map")))
            goto release_parts;
        const size_t count = first[d + 1] - first[d];
        printf("      %s: elements %zu .. %zu (%zu)\n", label, first[d],
               count ? first[d + 1] - 1 : first[d], count);
        if (count == 0) continue; /* --size too small to give every device a part */
        used_devices += 1;
        const cl_buffer_region region = {first[d] * sizeof(int32_t), count * sizeof(int32_t)};
        x_part[d] =
            clCreateSubBuffer(x_buf, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        if (OCLT_CHECK_ERR(err, "clCreateSubBuffer(x)")) goto release_parts;
        y_part[d] = clCreateSubBuffer(y_buf, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION,
                                      &region, &err);
        if (OCLT_CHECK_ERR(err, "clCreateSubBuffer(y)")) goto release_parts;
    }

    for (int r = -1; r < reps; ++r) {
        oclt_poison_host(y, bytes);
        for (cl_uint d = 0; d < set.count; ++d)
            if (first[d + 1] > first[d] &&
                oclt_poison_buffer(queues[d], y_part[d],
                                   (first[d + 1] - first[d]) * sizeof(int32_t)))
                goto release_events;
        /* Timed on the host: separate devices stamp events with clocks of their own. */
        const double started = oclt_now_ms();
        for (cl_uint d = 0; d < set.count; ++d) {
            const size_t count = first[d + 1] - first[d];
            if (count == 0) continue;
            if (enqueue_chain_launching(L, queues[d], kernels[d], x_part[d], y_part[d],
                                        x + first[d], y + first[d], count, launch_items, AFFINE_A,
                                        AFFINE_B, NULL, &ev[d]) ||
                OCLT_CHECK(clFlush(queues[d])))
                goto release_events;
        }
        /* The join: one marker on the first queue that waits for every device's read. */
        cl_event reads[MAX_DEVICES];
        cl_uint read_count = 0;
        for (cl_uint d = 0; d < set.count; ++d)
            if (ev[d].read) reads[read_count++] = ev[d].read;
        if (OCLT_CHECK(clEnqueueMarkerWithWaitList(queues[0], read_count, reads, &joined)) ||
            OCLT_CHECK(clFlush(queues[0])) || OCLT_CHECK(clWaitForEvents(1, &joined)))
            goto release_events;
        if (r >= 0) spans[r] = oclt_now_ms() - started;
        failures += check_affine(L, "y", x, y, n, AFFINE_A, AFFINE_B);
        for (cl_uint d = 0; L->profiling && r >= 0 && d < set.count; ++d)
            if (ev[d].read && trace_chain(L, &ev[d], tracks[d], "")) goto release_events;
        for (cl_uint d = 0; d < set.count; ++d) release_chain(&ev[d]);
        clReleaseEvent(joined);
        joined = NULL;
    }
    ms = oclt_median(spans, (size_t)reps);
    status = verdict(L, failures);
release_events:
    for (cl_uint d = 0; d < set.count; ++d) release_chain(&ev[d]);
    if (joined) clReleaseEvent(joined);
release_parts:
    for (cl_uint d = 0; d < set.count; ++d) {
        if (x_part[d]) clReleaseMemObject(x_part[d]);
        if (y_part[d]) clReleaseMemObject(y_part[d]);
        if (kernels[d]) clReleaseKernel(kernels[d]);
        finish_and_release(queues[d]);
    }
    clReleaseMemObject(y_buf);
release_buffers:
    clReleaseMemObject(x_buf);
release_program:
    clReleaseProgram(program);
release_context:
    clReleaseContext(context);
release_devices:
    if (set.sub_devices) hold_sub_devices(&set);
release_host:
    free(x);
    free(y);
    free(spans);
    if (why[0])
        report_skip(L, "multi_device", why);
    else
        oclt_report_result(L->report, "multi_device", L->size_text, ms, used_devices, "devices",
                           status, "host ms from the first enqueue to the join");
}
