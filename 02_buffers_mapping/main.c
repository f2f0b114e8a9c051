/* Chapter 02: buffers - every way to create, move, map and share buffer memory, each one
 * checked on random data, and what each way of moving data costs.
 *
 * The lesson, top to bottom (each step is a --variant with its own PASS/FAIL line):
 *   1. create_flags    clCreateBuffer's flags: who may access the memory, and where it comes
 *                      from (USE_, ALLOC_, COPY_HOST_PTR); clGetMemObjectInfo on each   (here)
 *   2. read_write      blocking and non-blocking clEnqueueWrite/ReadBuffer; clFinish and
 *                      clWaitForEvents; when the host may touch its memory again        (here)
 *   3. rect_2d         clEnqueueWrite/ReadBufferRect: a box inside a pitched 2-D array
 *   4. rect_3d         the same in 3-D; the offset formula on a concrete case  (rect_copy.c)
 *   5. copy            clEnqueueCopyBuffer and clEnqueueCopyBufferRect       (rect_copy.c)
 *   6. sub_buffers     views into a parent at aligned origins            (sub_buffer_map.c)
 *   7. map             clEnqueueMapBuffer / clEnqueueUnmapMemObject; zero-copy or staging
 *   8. address_spaces  global, constant, local and private memory in one kernel
 *   9. constant_memory __constant as an argument and at program scope, vs __global
 *                                                                    (constant_memory.c)
 *  10. image_bilinear  image2d_t + sampler: read_imagef's linear filter vs a buffer
 *                      interpolated by hand                                   (images.c)
 *  11. struct_layout   one struct, the same bytes on host and device
 *  12. vector_types    vector literals, swizzles, convert_*, as_*        (kernel_side.c)
 *  13. vector_literal_error  a literal with too few components must not build  (misuse.c)
 *  14. misuse          buffer misuse the specification answers with an error   (misuse.c)
 *  15. bandwidth       GB/s of eight ways to move data, 4 KiB to --size    (bandwidth.c)
 * Misuse whose result is undefined (a double release, a released buffer used) is described in
 * the docs page and never run. */
#include "ch02.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oclt_variant_info variants[] = {
    {"create_flags", "clCreateBuffer with each access and host-pointer flag; clGetMemObjectInfo",
     1},
    {"read_write", "blocking and non-blocking Write/ReadBuffer; clFinish, clWaitForEvents", 1},
    {"rect_2d", "Write/ReadBufferRect on a 2-D box with row pitches, vs a CPU copy", 1},
    {"rect_3d", "the same on a 3-D box: row and slice pitches, non-zero origins everywhere", 1},
    {"copy", "CopyBuffer and CopyBufferRect between device buffers", 1},
    {"sub_buffers", "clCreateSubBuffer at aligned origins, a kernel on each, read via the parent",
     1},
    {"map", "Map READ / WRITE / WRITE_INVALIDATE_REGION, unmap; zero-copy or staging copy", 1},
    {"address_spaces", "a kernel using global, constant, local (size + NULL) and private memory",
     1},
    {"constant_memory", "__constant argument and program-scope table vs the same via __global", 1},
    {"image_bilinear", "read_imagef with CLK_FILTER_LINEAR vs bilinear by hand from a buffer", 1},
    {"struct_layout", "a struct shared by host and kernel: static offset checks vs the kernel's",
     1},
    {"vector_types", "vector literals, swizzles, convert_<type>[_sat][_rtX], as_<type> vs C", 1},
    {"vector_literal_error", "a vector literal with too few components: the build must fail", 1},
    {"misuse", "misused buffers the specification answers with an error code", 1},
    {"bandwidth", "GB/s of 8 transfer methods from 4 KiB to --size bytes, every run verified", 1},
};

/* Same order as variants[]. */
static oclt_status (*const demos[])(ch02 *) = {
    demo_create_flags,
    demo_read_write,
    demo_rect_2d,
    demo_rect_3d,
    demo_copy,
    demo_sub_buffers,
    demo_map,
    demo_address_spaces,
    demo_constant_memory,
    demo_image_bilinear,
    demo_struct_layout,
    demo_vector_types,
    demo_vector_literal_error,
    demo_misuse,
    run_bandwidth,
};

/* --size is in bytes here: the largest transfer of the bandwidth sweep. The demonstrations use
 * buffers of min(--size, 1 MiB). The default is 256 MiB (the figure clpeak is compared with),
 * less where the device cannot allocate it. */
#define DEFAULT_LARGEST (256u << 20)
#define DEMO_BYTES      (1u << 20)

static const oclt_cli_spec spec = {
    .chapter = "02_buffers_mapping",
    .summary = "create, move, map and share buffers, each step checked; transfer bandwidth",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {DEFAULT_LARGEST},
    .size_help = "largest transfer in bytes, a multiple of 4; K/M/G suffixes and 2^N allowed "
                 "(default: 256M, less where the device's memory is smaller)",
    .default_reps = 5,
    .variants = variants,
    .variant_count = sizeof variants / sizeof variants[0],
};

/* ---- 1. clCreateBuffer and its flags --------------------------------------------------------- */

/* Sets the buffer as argument 0 of scale_add_in_place and runs it over n words. */
static cl_int in_place(ch02 *c, cl_kernel kernel, cl_mem buffer, size_t n) {
    if (OCLT_ARG(kernel, 0, buffer)) return CL_INVALID_KERNEL_ARGS;
    return launch_1d(c, kernel, n, "scale_add_in_place");
}

oclt_status demo_create_flags(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words, bytes = n * sizeof(uint32_t);
    const cl_uint n32 = (cl_uint)n, a = 2654435761u, b = 12345u;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem in_buf = NULL, out_buf = NULL, rw_buf = NULL, use_buf = NULL, alloc_buf = NULL,
           copy_buf = NULL;
    cl_kernel scale = NULL, scale_in_place = NULL;
    uint32_t *input = malloc(bytes), *expected = malloc(bytes), *got = malloc(bytes);
    uint32_t *use_host = malloc(bytes), *copy_host = malloc(bytes);
    if (!input || !expected || !got || !use_host || !copy_host) goto release_host;
    fill_words(&c->rng, input, n);
    for (size_t i = 0; i < n; ++i) expected[i] = a * input[i] + b;
    if (!(scale = oclt_create_kernel(c->buffers, "scale_add")) ||
        !(scale_in_place = oclt_create_kernel(c->buffers, "scale_add_in_place")) ||
        OCLT_ARG(scale, 2, a) || OCLT_ARG(scale, 3, b) || OCLT_ARG(scale, 4, n32) ||
        OCLT_ARG(scale_in_place, 1, a) || OCLT_ARG(scale_in_place, 2, b) ||
        OCLT_ARG(scale_in_place, 3, n32))
        goto release_kernels;
    printf("\n  create_flags: %zu-byte buffers; each is used, then checked (kernel: a*x + b)\n",
           bytes);

    /* READ_ONLY / WRITE_ONLY describe the kernels' access: the input is only read, the output
     * only written. COPY_HOST_PTR fills the buffer from `input` at creation. */
    in_buf =
        clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, input, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(READ_ONLY|COPY_HOST_PTR)")) goto release_kernels;
    wrong += show_mem_info(in_buf, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, input);
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(WRITE_ONLY)")) goto release_buffers;
    wrong += show_mem_info(out_buf, CL_MEM_WRITE_ONLY, bytes, NULL);
    oclt_poison_host(got, bytes);
    if (oclt_poison_buffer(dev->queue, out_buf, bytes) || OCLT_ARG(scale, 0, in_buf) ||
        OCLT_ARG(scale, 1, out_buf) || launch_1d(c, scale, n, "scale_add") ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_buffers;
    size_t bad = compare_words("WRITE_ONLY output", got, expected, n);
    wrong += bad;
    printf("      kernel read the READ_ONLY buffer, wrote the WRITE_ONLY one: %s\n",
           bad ? "wrong" : "ok");

    /* The reference count: every clRetain needs its clRelease. */
    cl_uint refs = 0;
    if (OCLT_CHECK(clRetainMemObject(in_buf))) goto release_buffers;
    if (OCLT_CHECK(clGetMemObjectInfo(in_buf, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL))) {
        clReleaseMemObject(in_buf); /* the reference just taken */
        goto release_buffers;
    }
    printf("      clRetainMemObject(in): refs %u; ", refs);
    if (OCLT_CHECK(clReleaseMemObject(in_buf)) ||
        OCLT_CHECK(clGetMemObjectInfo(in_buf, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL)))
        goto release_buffers;
    printf("clReleaseMemObject(in): refs %u (the object goes at 0)\n", refs);

    /* READ_WRITE, no host pointer: the implementation allocates, the host writes explicitly. */
    rw_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(READ_WRITE)")) goto release_buffers;
    wrong += show_mem_info(rw_buf, CL_MEM_READ_WRITE, bytes, NULL);
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(
            clEnqueueWriteBuffer(dev->queue, rw_buf, CL_TRUE, 0, bytes, input, 0, NULL, NULL)) ||
        in_place(c, scale_in_place, rw_buf, n) ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, rw_buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_buffers;
    bad = compare_words("READ_WRITE buffer", got, expected, n);
    wrong += bad;
    printf("      write, kernel in place, read: %s\n", bad ? "wrong" : "ok");

    /* USE_HOST_PTR: the buffer IS our array (a CPU device uses it in place; a GPU may keep a
     * copy on the device). From now until the release, we look at it only through a map, and
     * a map must return our own pointer. (The map demonstration runs a kernel on one.) */
    memcpy(use_host, input, bytes);
    use_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, use_host,
                             &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(USE_HOST_PTR)")) goto release_buffers;
    wrong += show_mem_info(use_buf, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, use_host);
    uint32_t *mapped = clEnqueueMapBuffer(dev->queue, use_buf, CL_TRUE, CL_MAP_READ, 0, bytes, 0,
                                          NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(USE_HOST_PTR)")) goto release_buffers;
    const int ours = (void *)mapped == (void *)use_host;
    bad = compare_words("USE_HOST_PTR buffer", mapped, input, n);
    wrong += bad + !ours;
    printf("      map(READ): the mapped pointer %s our array; contents %s\n",
           ours ? "is" : "is NOT (the specification requires it)", bad ? "wrong" : "are our data");
    if (OCLT_CHECK(clEnqueueUnmapMemObject(dev->queue, use_buf, mapped, 0, NULL, NULL)) ||
        OCLT_CHECK(clFinish(dev->queue)))
        goto release_buffers;

    /* ALLOC_HOST_PTR: the implementation allocates host-accessible memory (pinned, on a GPU);
     * the host reaches it through a map. */
    alloc_buf =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(ALLOC_HOST_PTR)")) goto release_buffers;
    wrong += show_mem_info(alloc_buf, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL);
    mapped = clEnqueueMapBuffer(dev->queue, alloc_buf, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL,
                                NULL, &err);
    if (OCLT_CHECK_ERR(err, "clEnqueueMapBuffer(ALLOC_HOST_PTR)")) goto release_buffers;
    memcpy(mapped, input, bytes);
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(clEnqueueUnmapMemObject(dev->queue, alloc_buf, mapped, 0, NULL, NULL)) ||
        in_place(c, scale_in_place, alloc_buf, n) ||
        OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, alloc_buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_buffers;
    bad = compare_words("ALLOC_HOST_PTR buffer", got, expected, n);
    wrong += bad;
    printf("      filled through a map, kernel in place, read: %s\n", bad ? "wrong" : "ok");

    /* COPY_HOST_PTR: a copy taken at creation; the host array is ours again at once. */
    memcpy(copy_host, input, bytes);
    copy_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              copy_host, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(COPY_HOST_PTR)")) goto release_buffers;
    wrong += show_mem_info(copy_buf, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, copy_host);
    oclt_poison_host(copy_host, bytes);
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, copy_buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_buffers;
    bad = compare_words("COPY_HOST_PTR buffer", got, input, n);
    wrong += bad;
    printf("      host array overwritten after creation; the buffer still holds the copy: %s\n",
           bad ? "wrong" : "ok");

    /* Contradictory flags are refused. */
    cl_mem refused =
        clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    expect_refusal("clCreateBuffer(READ_ONLY|WRITE_ONLY)", err, CL_INVALID_VALUE);
    if (refused) clReleaseMemObject(refused);
    status = status_of(wrong);
release_buffers:
    if (copy_buf) clReleaseMemObject(copy_buf);
    if (alloc_buf) clReleaseMemObject(alloc_buf);
    release_host_backed(use_buf, use_host); /* frees use_host once the buffer is deleted */
    use_host = NULL;
    if (rw_buf) clReleaseMemObject(rw_buf);
    if (out_buf) clReleaseMemObject(out_buf);
    clReleaseMemObject(in_buf);
release_kernels:
    if (scale_in_place) clReleaseKernel(scale_in_place);
    if (scale) clReleaseKernel(scale);
release_host:
    free_all(input, expected, got, use_host, copy_host);
    report_demo_n(c, "create_flags", bytes, status, NULL);
    return status;
}

/* ---- 2. Blocking and non-blocking transfers -------------------------------------------------- */

oclt_status demo_read_write(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words, bytes = n * sizeof(uint32_t);
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem buf_a = NULL, buf_b = NULL;
    cl_event written = NULL;
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *got = malloc(bytes);
    uint32_t *a_copy = malloc(bytes), *b_copy = malloc(bytes);
    if (!a || !b || !got || !a_copy || !b_copy) goto release_host;
    fill_words(&c->rng, a, n);
    fill_words(&c->rng, b, n);
    memcpy(a_copy, a, bytes);
    memcpy(b_copy, b, bytes);
    buf_a = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(a)")) goto release_host;
    buf_b = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(b)")) goto release_a;
    printf("\n  read_write: %zu bytes each way\n", bytes);

    /* 1. Blocking write: when it returns, the data has left `a` (copied or sent), so the host
     *    may overwrite `a` at once. */
    double start = oclt_now_ms();
    if (OCLT_CHECK(clEnqueueWriteBuffer(dev->queue, buf_a, CL_TRUE, 0, bytes, a, 0, NULL, NULL)))
        goto release_b;
    double blocking_ms = oclt_now_ms() - start;
    oclt_poison_host(a, bytes); /* allowed: the blocking call is done with it */
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, buf_a, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_b;
    size_t bad = compare_words("blocking write", got, a_copy, n);
    wrong += bad;
    printf("    1. blocking write returned after %.3f ms; `a` overwritten at once; read back: "
           "%s\n",
           blocking_ms, bad ? "wrong" : "the original data");

    /* 2. Non-blocking write: it returns at once and reads `b` LATER. Until its event is
     *    complete, `b` must not be written (nor freed): the device may still be copying it. */
    start = oclt_now_ms();
    if (OCLT_CHECK(
            clEnqueueWriteBuffer(dev->queue, buf_b, CL_FALSE, 0, bytes, b, 0, NULL, &written)))
        goto release_b;
    double enqueue_ms = oclt_now_ms() - start;
    cl_int state = CL_QUEUED;
    if (OCLT_CHECK(clGetEventInfo(written, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                                  NULL)) ||
        OCLT_CHECK(clWaitForEvents(1, &written)))
        goto release_event;
    printf("    2. non-blocking write returned after %.3f ms, its event %s; "
           "clWaitForEvents, then `b` is ours again\n",
           enqueue_ms, oclt_execution_status_name(state));
    oclt_poison_host(b, bytes); /* only now */

    /* 3. Non-blocking read: `got` holds nothing useful until clFinish (or the event) says the
     *    read is complete. */
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, buf_b, CL_FALSE, 0, bytes, got, 0, NULL, NULL)) ||
        OCLT_CHECK(clFinish(dev->queue)))
        goto release_event;
    bad = compare_words("non-blocking write + read", got, b_copy, n);
    wrong += bad;
    printf("    3. non-blocking read, clFinish, then look: %s\n",
           bad ? "wrong" : "the data written in 2");

    /* 4. An in-order queue runs commands in the order they were enqueued: a blocking read
     *    right after a non-blocking write sees the write. */
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(
            clEnqueueWriteBuffer(dev->queue, buf_a, CL_FALSE, 0, bytes, b_copy, 0, NULL, NULL)) ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, buf_a, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release_event;
    bad = compare_words("in-order write then read", got, b_copy, n);
    wrong += bad;
    printf("    4. non-blocking write then blocking read of the same buffer: %s\n",
           bad ? "wrong" : "the read saw the write (in-order queue)");
    status = status_of(wrong);
release_event:
    clReleaseEvent(written);
    /* On an error path a non-blocking command may still read `b` or fill `got`: let the queue
     * finish before the host memory is freed. */
    clFinish(dev->queue);
release_b:
    clReleaseMemObject(buf_b);
release_a:
    clReleaseMemObject(buf_a);
release_host:
    free_all(a, b, got, a_copy, b_copy);
    report_demo_n(c, "read_write", bytes, status, NULL);
    return status;
}

/* ---- The lesson ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.list_devices) return oclt_list_devices(stdout);
    if (opt.size[0] % 4)
        return oclt_usage_error(&spec,
                                "--size %zu must be a multiple of 4 bytes (the demonstrations "
                                "move 32-bit words)",
                                opt.size[0]);

    /* OCLT_TRANSFER_BUFFER=alloc_host_ptr: the bandwidth's write/read methods target an
     * ALLOC_HOST_PTR buffer, as clpeak's do (bandwidth.c). */
    cl_mem_flags transfer_buffer_flags = 0;
    if (transfer_buffer_flags_from_env(&transfer_buffer_flags))
        return oclt_usage_error(&spec, "OCLT_TRANSFER_BUFFER '%s' must be device or alloc_host_ptr",
                                getenv("OCLT_TRANSFER_BUFFER"));

    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    /* Device limits, before any buffer: the sweep needs three buffers of --size bytes. */
    const size_t largest = bandwidth_largest(&opt, &dev);
    rc = oclt_require_memory(&spec, &dev, largest, oclt_mul_size(largest, 3), "--size");
    if (rc) goto close_device;

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    ch02 c = {.dev = &dev,
              .opt = &opt,
              .report = &report,
              .words = (largest < DEMO_BYTES ? largest : DEMO_BYTES) / sizeof(uint32_t),
              .largest_bytes = largest,
              .base_align = oclt_device_uint(dev.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8,
              .transfer_buffer_flags = transfer_buffer_flags};
    oclt_rng_seed(&c.rng, opt.seed);
    char text[32];
    format_bytes(text, sizeof text, (size_t)dev.max_alloc);
    printf("  memory   %s; max allocation %s; sub-buffer alignment %u bytes\n",
           dev.type & CL_DEVICE_TYPE_CPU   ? "a CPU device: buffers live in host RAM"
           : dev.type & CL_DEVICE_TYPE_GPU ? "a GPU: buffers live in device memory"
                                           : "an accelerator",
           text, c.base_align);

    char options[64];
    snprintf(options, sizeof options, "-DRADIUS=%d", STENCIL_RADIUS);
    rc = OCLT_EXIT_FAIL;
    c.buffers = oclt_build_file(dev.context, dev.device, "buffers.cl", options);
    if (!c.buffers) goto close_device;
    c.types = oclt_build_file(dev.context, dev.device, "types.cl", "");
    if (!c.types) goto release_buffers_program;

    for (size_t v = 0; v < spec.variant_count; ++v)
        if (opt.selected[v]) demos[v](&c);
    rc = oclt_report_exit_code(&report);

    clReleaseProgram(c.types);
release_buffers_program:
    clReleaseProgram(c.buffers);
close_device:
    oclt_close_device(&dev);
    return rc;
}
