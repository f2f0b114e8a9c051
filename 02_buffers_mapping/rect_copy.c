/* Chapter 02: boxes inside linear buffers (clEnqueue{Read,Write,Copy}BufferRect) and copies
 * that never leave the device (clEnqueueCopyBuffer).
 *
 * A rect call sees each side (buffer or host memory) as slices of rows of bytes. The first
 * byte of the box is at
 *     origin[2] * slice_pitch + origin[1] * row_pitch + origin[0]          (bytes)
 * and byte (x, y, z) of the box is x + y * row_pitch + z * slice_pitch further on. origin[0]
 * and region[0] are BYTES, origin[1]/region[1] rows, origin[2]/region[2] slices. */
#include "ch02.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One side of a rect transfer. */
typedef struct {
    size_t origin[3]; /* bytes, rows, slices */
    size_t row_pitch, slice_pitch;
    size_t bytes; /* of the whole array this side lives in */
} box_side;

static size_t first_byte(const box_side *side) {
    return side->origin[2] * side->slice_pitch + side->origin[1] * side->row_pitch +
           side->origin[0];
}

/* The CPU reference: exactly what a rect call does, one row of region[0] bytes at a time. */
static void copy_box(unsigned char *dst, const box_side *to, const unsigned char *src,
                     const box_side *from, const size_t region[3]) {
    for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y)
            memcpy(dst + first_byte(to) + z * to->slice_pitch + y * to->row_pitch,
                   src + first_byte(from) + z * from->slice_pitch + y * from->row_pitch, region[0]);
}

static void print_offset(const char *what, const box_side *side) {
    printf("    %-7s origin {%zu B, %zu rows, %zu slices}, row_pitch %zu, slice_pitch %zu:\n"
           "            %zu*%zu + %zu*%zu + %zu = byte %zu (word %zu)\n",
           what, side->origin[0], side->origin[1], side->origin[2], side->row_pitch,
           side->slice_pitch, side->origin[2], side->slice_pitch, side->origin[1], side->row_pitch,
           side->origin[0], first_byte(side), first_byte(side) / 4);
}

/* A rect round trip: host -> buffer (WriteBufferRect), check the whole buffer, then
 * buffer -> another host array at another origin and pitch (ReadBufferRect), check it. */
typedef struct {
    const char *name;
    size_t region[3];
    box_side buffer, host, back;
} rect_case;

typedef enum { RECT_READ, RECT_WRITE } rect_direction;

/* One blocking rect transfer between the case's buffer side and a host side: RECT_WRITE (host ->
 * buffer) or RECT_READ. Both calls take the same arguments in the same order. */
static cl_int rect_transfer(cl_command_queue queue, cl_mem buffer, rect_direction direction,
                            const rect_case *rc, const box_side *host_side, void *host) {
    const box_side *b = &rc->buffer, *h = host_side;
    return direction == RECT_WRITE
               ? OCLT_CHECK(clEnqueueWriteBufferRect(
                     queue, buffer, CL_TRUE, b->origin, h->origin, rc->region, b->row_pitch,
                     b->slice_pitch, h->row_pitch, h->slice_pitch, host, 0, NULL, NULL))
               : OCLT_CHECK(clEnqueueReadBufferRect(
                     queue, buffer, CL_TRUE, b->origin, h->origin, rc->region, b->row_pitch,
                     b->slice_pitch, h->row_pitch, h->slice_pitch, host, 0, NULL, NULL));
}

/* What a correct rect call leaves in dst: poison everywhere but the box, copied from src. */
static void expect_box(uint32_t *dst, const box_side *to, const uint32_t *src, const box_side *from,
                       const size_t region[3]) {
    oclt_poison_host(dst, to->bytes);
    copy_box((unsigned char *)dst, to, (const unsigned char *)src, from, region);
}

static oclt_status run_rect(ch02 *c, const rect_case *rc) {
    const oclt_device *dev = c->dev;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem buffer = NULL;
    uint32_t *host = malloc(rc->host.bytes), *whole = malloc(rc->buffer.bytes);
    uint32_t *whole_expected = malloc(rc->buffer.bytes), *back = malloc(rc->back.bytes);
    uint32_t *back_expected = malloc(rc->back.bytes);
    if (!host || !whole || !whole_expected || !back || !back_expected) goto release_host;

    printf("\n  %s: a box of %zu bytes x %zu rows x %zu slices (region[0] is in bytes)\n", rc->name,
           rc->region[0], rc->region[1], rc->region[2]);
    print_offset("buffer", &rc->buffer);
    print_offset("host", &rc->host);
    fill_words(&c->rng, host, rc->host.bytes / 4);
    buffer = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, rc->buffer.bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(rect)")) goto release_host;
    if (oclt_poison_buffer(dev->queue, buffer, rc->buffer.bytes)) goto release_buffer;

    /* host -> buffer */
    if (rect_transfer(dev->queue, buffer, RECT_WRITE, rc, &rc->host, host)) goto release_buffer;
    expect_box(whole_expected, &rc->buffer, host, &rc->host, rc->region);
    oclt_poison_host(whole, rc->buffer.bytes);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, buffer, CL_TRUE, 0, rc->buffer.bytes, whole, 0,
                                       NULL, NULL)))
        goto release_buffer;
    size_t bad =
        compare_words("buffer after WriteBufferRect", whole, whole_expected, rc->buffer.bytes / 4);
    printf("    WriteBufferRect: %s\n",
           bad ? "the buffer differs from the CPU copy"
               : "the box landed where the formula says; every other word still poison");

    /* buffer -> host, somewhere else */
    print_offset("back", &rc->back);
    oclt_poison_host(back, rc->back.bytes);
    if (rect_transfer(dev->queue, buffer, RECT_READ, rc, &rc->back, back)) goto release_buffer;
    expect_box(back_expected, &rc->back, whole_expected, &rc->buffer, rc->region);
    size_t bad_back =
        compare_words("host after ReadBufferRect", back, back_expected, rc->back.bytes / 4);
    printf("    ReadBufferRect: %s\n", bad_back ? "the host array differs from the CPU copy"
                                                : "the same box, moved to the new origin");
    status = status_of(bad + bad_back);
release_buffer:
    clReleaseMemObject(buffer);
release_host:
    free_all(host, whole, whole_expected, back, back_expected);
    char size_text[48];
    snprintf(size_text, sizeof size_text, "%zux%zux%zu", rc->region[0], rc->region[1],
             rc->region[2]);
    report_demo(c, rc->name, size_text, status, "region bytes x rows x slices");
    return status;
}

/* ---- 3. A 2-D box ---------------------------------------------------------------------------- */

/* A 13 x 7 word box: from word (9, 11) of a 52-word-wide host matrix to word (5, 3) of a
 * 40-word-wide buffer matrix, then back out to word (2, 4) of a 20-word-wide host matrix. */
oclt_status demo_rect_2d(ch02 *c) {
    const rect_case rc = {
        .name = "rect_2d",
        .region = {13 * 4, 7, 1},
        .buffer = {{5 * 4, 3, 0}, 40 * 4, 24 * 40 * 4, 24 * 40 * 4},
        .host = {{9 * 4, 11, 0}, 52 * 4, 30 * 52 * 4, 30 * 52 * 4},
        .back = {{2 * 4, 4, 0}, 20 * 4, 16 * 20 * 4, 16 * 20 * 4},
    };
    return run_rect(c, &rc);
}

/* ---- 4. A 3-D box ---------------------------------------------------------------------------- */

/* 5 words x 4 rows x 3 slices with non-zero origins in every dimension on every side. The
 * buffer's slices are 11 rows apart though the box spans 4 of them: slice_pitch may be any
 * multiple of row_pitch that is at least region[1] x row_pitch. */
static const rect_case rect_3d_case = {
    .name = "rect_3d",
    .region = {5 * 4, 4, 3},
    .buffer = {{3 * 4, 2, 1}, 16 * 4, 11 * 16 * 4, 6 * 11 * 16 * 4},
    .host = {{1 * 4, 5, 2}, 9 * 4, 12 * 9 * 4, 5 * 12 * 9 * 4},
    .back = {{2 * 4, 1, 1}, 7 * 4, 6 * 7 * 4, 4 * 6 * 7 * 4},
};

oclt_status demo_rect_3d(ch02 *c) {
    return run_rect(c, &rect_3d_case);
}

/* ---- 5. Copies between buffers --------------------------------------------------------------- */

oclt_status demo_copy(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words;
    /* The tail half of src lands a quarter of the way into dst. */
    const size_t count = (n + 1) / 2, src_first = n - count, dst_first = n / 4;
    const box_side *from = &rect_3d_case.buffer, *to = &rect_3d_case.host;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem src = NULL, dst = NULL, box_src = NULL, box_dst = NULL;
    uint32_t *data = malloc(n * 4), *got = malloc(n * 4), *expected = malloc(n * 4);
    uint32_t *box_data = malloc(from->bytes), *box_got = malloc(to->bytes);
    uint32_t *box_expected = malloc(to->bytes);
    if (!data || !got || !expected || !box_data || !box_got || !box_expected) goto release_host;

    printf("\n  copy: device to device, the host only enqueues\n");
    fill_words(&c->rng, data, n);
    src = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, data, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(copy src)")) goto release_host;
    dst = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(copy dst)")) goto release_src;

    /* clEnqueueCopyBuffer(src offset, dst offset, bytes): non-blocking by nature; the read
     * after it on this in-order queue waits for it. */
    if (oclt_poison_buffer(dev->queue, dst, n * 4) ||
        OCLT_CHECK(clEnqueueCopyBuffer(dev->queue, src, dst, src_first * 4, dst_first * 4,
                                       count * 4, 0, NULL, NULL)))
        goto release_dst;
    oclt_poison_host(expected, n * 4);
    memcpy(expected + dst_first, data + src_first, count * 4);
    oclt_poison_host(got, n * 4);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, dst, CL_TRUE, 0, n * 4, got, 0, NULL, NULL)))
        goto release_dst;
    size_t bad = compare_words("dst after CopyBuffer", got, expected, n);
    printf("    CopyBuffer: words %zu..%zu of src -> from word %zu of dst: %s\n", src_first, n - 1,
           dst_first, bad ? "differs" : "moved, the rest of dst still poison");

    /* clEnqueueCopyBufferRect: the 3-D box of rect_3d, between two buffers whose pitches
     * differ. (Source and destination may be the same buffer only if the boxes do not
     * overlap: CL_MEM_COPY_OVERLAP otherwise.) */
    fill_words(&c->rng, box_data, from->bytes / 4);
    box_src = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, from->bytes,
                             box_data, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(rect src)")) goto release_dst;
    box_dst = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, to->bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(rect dst)")) goto release_box_src;
    if (oclt_poison_buffer(dev->queue, box_dst, to->bytes) ||
        OCLT_CHECK(clEnqueueCopyBufferRect(dev->queue, box_src, box_dst, from->origin, to->origin,
                                           rect_3d_case.region, from->row_pitch, from->slice_pitch,
                                           to->row_pitch, to->slice_pitch, 0, NULL, NULL)))
        goto release_box_dst;
    expect_box(box_expected, to, box_data, from, rect_3d_case.region);
    oclt_poison_host(box_got, to->bytes);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, box_dst, CL_TRUE, 0, to->bytes, box_got, 0, NULL,
                                       NULL)))
        goto release_box_dst;
    size_t bad_box =
        compare_words("dst after CopyBufferRect", box_got, box_expected, to->bytes / 4);
    printf("    CopyBufferRect: %zu B x %zu x %zu box from byte %zu of one buffer to byte %zu of "
           "another: %s\n",
           rect_3d_case.region[0], rect_3d_case.region[1], rect_3d_case.region[2], first_byte(from),
           first_byte(to), bad_box ? "differs" : "matches the CPU copy");
    status = status_of(bad + bad_box);
release_box_dst:
    clReleaseMemObject(box_dst);
release_box_src:
    clReleaseMemObject(box_src);
release_dst:
    clReleaseMemObject(dst);
release_src:
    clReleaseMemObject(src);
release_host:
    free_all(data, got, expected, box_data, box_got, box_expected);
    report_demo_n(c, "copy", count * 4, status, "bytes of the CopyBuffer");
    return status;
}
