/* Chapter 02: sub-buffers (views into a parent buffer) and mapping (host pointers into a
 * buffer). Both come with rules the device enforces or silently relies on. */
#include "ch02.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test data transform of buffers.cl, computed on the host: a*x + b mod 2^32. */
static uint32_t scale_add(uint32_t x, uint32_t a, uint32_t b) {
    return a * x + b;
}

/* ---- 6. Sub-buffers -------------------------------------------------------------------------- */

#define SUB_BUFFERS 3

oclt_status demo_sub_buffers(ch02 *c) {
    const oclt_device *dev = c->dev;
    /* Origins must be multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN (given in bits). Sizes need
     * not be: each sub-buffer is one alignment unit plus 3 words, so kernels see odd counts.
     * A unit of at least 16 bytes keeps the three apart and inside the parent (every real
     * device aligns to 64 bytes or more). */
    size_t unit = c->base_align < 4 ? 4 : c->base_align;
    while (unit < 16) unit *= 2;
    const size_t origin_units[SUB_BUFFERS] = {0, 2, 5};
    const size_t sub_bytes = unit + 3 * sizeof(uint32_t);
    const size_t parent_bytes = 7 * unit, parent_words = parent_bytes / sizeof(uint32_t);
    static const uint32_t a[SUB_BUFFERS] = {3u, 2654435761u, 40503u}, b[SUB_BUFFERS] = {1, 7, 11};
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem parent = NULL, sub[SUB_BUFFERS] = {NULL, NULL, NULL}, misaligned = NULL;
    uint32_t *data = malloc(parent_bytes), *expected = malloc(parent_bytes);
    cl_kernel kernel = oclt_create_kernel(c->buffers, "scale_add_in_place");
    if (!data || !expected || !kernel) goto release_host;

    printf("\n  sub_buffers: CL_DEVICE_MEM_BASE_ADDR_ALIGN = %u bits = %u bytes; parent of %zu "
           "bytes\n",
           c->base_align * 8, c->base_align, parent_bytes);
    fill_words(&c->rng, data, parent_words);
    memcpy(expected, data, parent_bytes);
    parent = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, parent_bytes,
                            data, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(parent)")) goto release_host;

    /* Flags 0: the sub-buffer inherits the parent's access flags (it may also narrow them,
     * e.g. CL_MEM_READ_ONLY on a READ_WRITE parent, never widen them). */
    for (int s = 0; s < SUB_BUFFERS; ++s) {
        cl_buffer_region region = {origin_units[s] * unit, sub_bytes};
        sub[s] = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        if (OCLT_CHECK_ERR(err, "clCreateSubBuffer")) goto release_subs;
        cl_mem associated = NULL;
        size_t offset = 0, size = 0;
        if (OCLT_CHECK(clGetMemObjectInfo(sub[s], CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated,
                                          &associated, NULL)) ||
            OCLT_CHECK(clGetMemObjectInfo(sub[s], CL_MEM_OFFSET, sizeof offset, &offset, NULL)) ||
            OCLT_CHECK(clGetMemObjectInfo(sub[s], CL_MEM_SIZE, sizeof size, &size, NULL)))
            goto release_subs;
        int info_ok = associated == parent && offset == region.origin && size == region.size;
        wrong += !info_ok;
        printf("    sub-buffer %d: origin %5zu (= %zu x %zu), %zu bytes; clGetMemObjectInfo: "
               "parent %s, offset %zu, size %zu%s\n",
               s, region.origin, origin_units[s], unit, region.size,
               associated == parent ? "ok" : "WRONG", offset, size, info_ok ? "" : "  X");
    }

    /* An origin that is not a multiple of the alignment must be refused. */
    if (c->base_align > 4) {
        cl_buffer_region region = {unit + 4, sub_bytes};
        printf("    origin %zu is not a multiple of %u:\n", region.origin, c->base_align);
        misaligned = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        expect_refusal("clCreateSubBuffer", err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
        if (misaligned) clReleaseMemObject(misaligned); /* made by a lenient implementation */
    }

    /* A kernel on each sub-buffer: inside the kernel, word 0 is the sub-buffer's first word.
     * The parent and its sub-buffers must never be written while another command uses them
     * (the docs' list of undefined behaviours); here the queue is in order, so no two of
     * these commands overlap, and the sub-buffers are disjoint. The rule bites with an
     * out-of-order queue or several queues. */
    const cl_uint sub_words = (cl_uint)(sub_bytes / sizeof(uint32_t));
    for (int s = 0; s < SUB_BUFFERS; ++s) {
        if (OCLT_ARG(kernel, 0, sub[s]) || OCLT_ARG(kernel, 1, a[s]) || OCLT_ARG(kernel, 2, b[s]) ||
            OCLT_ARG(kernel, 3, sub_words) ||
            launch_1d(c, kernel, sub_words, "scale_add_in_place(sub-buffer)"))
            goto release_subs;
        const size_t first = origin_units[s] * unit / sizeof(uint32_t);
        for (size_t i = first; i < first + sub_words; ++i)
            expected[i] = scale_add(data[i], a[s], b[s]);
    }

    /* The parent sees every change, and nothing between the sub-buffers moved. */
    oclt_poison_host(data, parent_bytes);
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, parent, CL_TRUE, 0, parent_bytes, data, 0, NULL, NULL)))
        goto release_subs;
    size_t bad = compare_words("parent", data, expected, parent_words);
    printf("    read through the parent: %s\n",
           bad ? "differs from the CPU's picture"
               : "the three regions transformed, the gaps between them untouched");
    status = status_of(wrong + bad);
release_subs:
    for (int s = SUB_BUFFERS - 1; s >= 0; --s)
        if (sub[s]) clReleaseMemObject(sub[s]);
    clReleaseMemObject(parent);
release_host:
    if (kernel) clReleaseKernel(kernel);
    free_all(data, expected);
    report_demo_n(c, "sub_buffers", parent_bytes, status, NULL);
    return status;
}

/* ---- 7. Mapping ------------------------------------------------------------------------------ */

/* CL_MEM_MAP_COUNT (0 after printing the error, should the query fail). */
static cl_uint map_count(cl_mem buffer) {
    cl_uint count = 0;
    OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_MAP_COUNT, sizeof count, &count, NULL));
    return count;
}

/* Unmap and wait: the unmap is a command like any other and completes later. */
static cl_int unmap_and_wait(cl_command_queue queue, cl_mem buffer, void *mapped) {
    cl_event done = NULL;
    cl_int err = OCLT_CHECK(clEnqueueUnmapMemObject(queue, buffer, mapped, 0, NULL, &done));
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    clReleaseEvent(done);
    return err;
}

/* Wall and event time of one blocking map for reading, against the event time of a read of the
 * same bytes (a transfer that surely moves them) and a memcpy of them: a map that moves no data
 * takes a fraction of the read. Printed, never checked. */
static cl_int time_map_against_read(ch02 *c, cl_mem buffer, size_t bytes, const char *what) {
    cl_event mapped_event = NULL, read_event = NULL;
    cl_int err = CL_SUCCESS;
    void *copy = malloc(bytes);
    if (!copy) return CL_OUT_OF_HOST_MEMORY;
    memset(copy, 0, bytes); /* touched first: page faults are not part of a memcpy */
    err = OCLT_CHECK(
        clEnqueueReadBuffer(c->dev->queue, buffer, CL_TRUE, 0, bytes, copy, 0, NULL, &read_event));
    const double read_ms = err ? -1.0 : oclt_event_ms(read_event);
    if (read_event) clReleaseEvent(read_event);
    if (err) goto release_copy;
    double start = oclt_now_ms();
    void *mapped = clEnqueueMapBuffer(c->dev->queue, buffer, CL_TRUE, CL_MAP_READ, 0, bytes, 0,
                                      NULL, &mapped_event, &err);
    double map_ms = oclt_now_ms() - start;
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(timed)")) goto release_copy;
    start = oclt_now_ms();
    memcpy(copy, mapped, bytes);
    double memcpy_ms = oclt_now_ms() - start;
    int copied = memcmp(copy, mapped, bytes) == 0; /* also keeps the memcpy from being elided */
    err = unmap_and_wait(c->dev->queue, buffer, mapped);
    /* The profile once the map is complete: the unmap after it has finished (in-order queue). */
    const double event_ms = err ? -1.0 : oclt_event_ms(mapped_event);
    if (!err && event_ms < 0.0) err = CL_PROFILING_INFO_NOT_AVAILABLE; /* printed by the call */
    char size_text[32];
    format_bytes(size_text, sizeof size_text, bytes);
    /* The event is the device's time for the map command; the wall time adds the queue's
     * round trip, which on a CPU device is most of it. */
    if (!err)
        printf("    %-22s map(READ) of %s: %7.1f us wall, %7.1f us event; a read of it: %7.1f us"
               " event, a memcpy: %7.1f us\n      -> %s\n",
               what, size_text, map_ms * 1e3, event_ms * 1e3, read_ms * 1e3, memcpy_ms * 1e3,
               !copied ? "the copy differs from the mapping (?)"
               : event_ms < read_ms / 4
                   ? "the map moved no data: zero-copy"
                   : "the map took about as long as a read: it copied the data");
    clReleaseEvent(mapped_event);
release_copy:
    free(copy);
    return err;
}

oclt_status demo_map(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words, bytes = n * sizeof(uint32_t);
    const cl_uint n32 = (cl_uint)n;
    const uint32_t a = 2654435761u, b = 12345u;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem alloc_buf = NULL, use_buf = NULL;
    /* USE_HOST_PTR memory: page-aligned and a whole number of cache lines, which some
     * implementations need before they use it in place (Intel asks for 4096 and 64). */
    const size_t use_bytes = (bytes + 4095) / 4096 * 4096;
    uint32_t *input = malloc(bytes), *expected = malloc(bytes), *check = malloc(bytes);
    uint32_t *use_host = aligned_alloc(4096, use_bytes);
    cl_kernel kernel = oclt_create_kernel(c->buffers, "scale_add_in_place");
    if (!input || !expected || !check || !use_host || !kernel) goto release;
    fill_words(&c->rng, input, n);
    for (size_t i = 0; i < n; ++i) expected[i] = scale_add(input[i], a, b);
    if (OCLT_ARG(kernel, 1, a) || OCLT_ARG(kernel, 2, b) || OCLT_ARG(kernel, 3, n32)) goto release;

    printf("\n  map: %zu bytes; clEnqueueMapBuffer gives a host pointer into a buffer\n", bytes);
    alloc_buf =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(ALLOC_HOST_PTR)")) goto release;

    /* 1. Fill through a map. WRITE_INVALIDATE_REGION (OpenCL 1.2) says "I overwrite all of it":
     *    the driver need not fetch the old contents first. */
    const cl_map_flags fill_flags =
        dev->device_version >= 120 ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_WRITE;
    uint32_t *mapped = clEnqueueMapBuffer(dev->queue, alloc_buf, CL_TRUE, fill_flags, 0, bytes, 0,
                                          NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(WRITE_INVALIDATE_REGION)")) goto release;
    printf("    1. map(%s): map count %u (a debugging value)\n",
           fill_flags == CL_MAP_WRITE ? "WRITE" : "WRITE_INVALIDATE_REGION", map_count(alloc_buf));
    memcpy(mapped, input, bytes);
    if (unmap_and_wait(dev->queue, alloc_buf, mapped)) goto release;
    printf("       filled, unmapped (map count %u); only now may a kernel use the buffer\n",
           map_count(alloc_buf));

    /* 2. A kernel changes it; map for reading shows the kernel's result. */
    if (OCLT_ARG(kernel, 0, alloc_buf) || launch_1d(c, kernel, n, "scale_add_in_place(map)"))
        goto release;
    mapped = clEnqueueMapBuffer(dev->queue, alloc_buf, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL,
                                NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(READ)")) goto release;
    size_t bad = compare_words("map(READ) after the kernel", mapped, expected, n);
    wrong += bad;
    printf("    2. kernel, then map(READ): %s\n",
           bad ? "differs" : "the kernel's result, read in place");
    if (unmap_and_wait(dev->queue, alloc_buf, mapped)) goto release;

    /* 3. CL_MAP_WRITE of a sub-range: unlike INVALIDATE it shows the current contents, so a
     *    read-modify-write is fine. Change every other word of the middle half. */
    const size_t first = n / 4, range = n >= 2 ? n / 2 : n;
    mapped =
        clEnqueueMapBuffer(dev->queue, alloc_buf, CL_TRUE, CL_MAP_WRITE, first * sizeof(uint32_t),
                           range * sizeof(uint32_t), 0, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(WRITE, range)")) goto release;
    bad = compare_words("map(WRITE) contents", mapped, expected + first, range);
    for (size_t i = 0; i < range; i += 2) {
        mapped[i] = ~mapped[i]; /* mapped[0] is word `first` of the buffer */
        expected[first + i] = ~expected[first + i];
    }
    if (unmap_and_wait(dev->queue, alloc_buf, mapped)) goto release;
    oclt_poison_host(check, bytes);
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, alloc_buf, CL_TRUE, 0, bytes, check, 0, NULL, NULL)))
        goto release;
    bad += compare_words("after map(WRITE) of a range", check, expected, n);
    wrong += bad;
    printf("    3. map(WRITE) of words %zu..%zu: %s\n", first, first + range - 1,
           bad ? "differs" : "saw the current data; the edit landed, the rest did not move");

    /* 4. USE_HOST_PTR: the buffer's storage is our array, and every map must return a pointer
     *    into it (the specification says so). That is not "no copy": a discrete GPU keeps a
     *    device copy and copies into our array on map, out of it on unmap. New contents go in
     *    through a map too: after creation the array belongs to OpenCL until the release. */
    for (size_t i = 0; i < n; ++i) expected[i] = scale_add(input[i], a, b); /* step 3 edited it */
    oclt_poison_host(use_host, use_bytes);
    use_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, use_host,
                             &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(USE_HOST_PTR)")) goto release;
    mapped =
        clEnqueueMapBuffer(dev->queue, use_buf, CL_TRUE, fill_flags, 0, bytes, 0, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(USE_HOST_PTR, write)")) goto release;
    int ours = (void *)mapped == (void *)use_host;
    memcpy(mapped, input, bytes);
    if (unmap_and_wait(dev->queue, use_buf, mapped) || OCLT_ARG(kernel, 0, use_buf) ||
        launch_1d(c, kernel, n, "scale_add_in_place(USE_HOST_PTR)"))
        goto release;
    mapped = clEnqueueMapBuffer(dev->queue, use_buf, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL,
                                &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(USE_HOST_PTR, read)")) goto release;
    ours = ours && (void *)mapped == (void *)use_host;
    bad = compare_words("USE_HOST_PTR map", mapped, expected, n);
    wrong += bad + !ours;
    printf("    4. USE_HOST_PTR buffer, filled through a map, kernel, map(READ): %s\n"
           "       both maps returned %s %p\n",
           bad ? "data differs" : "the kernel's result",
           ours ? "our own array," : "ANOTHER pointer (the specification requires our array)",
           (void *)use_host);
    if (unmap_and_wait(dev->queue, use_buf, mapped)) goto release;

    /* 5. Did the maps move data? Compare a map with a read of the same bytes. */
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified,
                        NULL) == CL_SUCCESS)
        printf("    5. CL_DEVICE_HOST_UNIFIED_MEMORY: %s (%s)\n", unified ? "yes" : "no",
               unified ? "device and host share memory: a map can hand out the buffer itself"
                       : "separate memories: a map must copy to host memory and back");
    /* Below 1 MiB a copy from cache takes about as long as a map's fixed cost (PoCL: 0.3 us for
     * a memcpy of 64 KiB and for a map), and the comparison says nothing. */
    if (bytes < (1u << 20))
        printf("       (%zu bytes are too few to time a map against a read; try --size 1M)\n",
               bytes);
    else if (time_map_against_read(c, alloc_buf, bytes, "ALLOC_HOST_PTR buffer") ||
             time_map_against_read(c, use_buf, bytes, "USE_HOST_PTR buffer"))
        goto release;
    status = status_of(wrong);
release:
    if (alloc_buf) clReleaseMemObject(alloc_buf);
    release_host_backed(use_buf, use_host); /* frees use_host once the buffer is deleted */
    if (kernel) clReleaseKernel(kernel);
    free_all(input, expected, check);
    report_demo_n(c, "map", bytes, status, NULL);
    return status;
}
