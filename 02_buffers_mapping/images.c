/* Chapter 02, step 10: images (images.cl). An image2d_t read through a sampler with
 * CLK_FILTER_LINEAR, against the same bilinear resampling done by hand from a buffer. Both are
 * checked against the specification's formula evaluated in double, and timed in interleaved
 * rounds. A device without CL_DEVICE_IMAGE_SUPPORT skips this step. */
#include "ch02.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Across, source pixels are 3k apart where output pixels are 8k: scale 3/8; down, 5/16. Both
 * are exact in float, so that u = (ox + 0.5) * scale - 0.5 and its fraction are exact on every
 * device and on the host; they differ, so that a kernel that scales y by x's scale fails. */
#define SCALE_X 0.375f
#define SCALE_Y 0.3125f

/* The precision of the filter's weights. The specification leaves it undefined ("the relative
 * error or precision of ... the image filter operation are not defined"); NVIDIA's texture
 * units, the coarsest documented, keep 8 fractional bits. A weight off by at most 2^-8 moves
 * each of the two blends by at most 2^-8 of the range of the pixels it blends. */
#define FILTER_WEIGHT_BITS 8

typedef struct {
    int width, height, out_width, out_height;
} shape;

/* The specification's CLK_FILTER_LINEAR with CLK_ADDRESS_CLAMP_TO_EDGE, in double, with the
 * tolerance of each result: weight error 2 x 2^-bits x (range of the 2x2 pixels) for the image
 * (bits < 0: none, for the buffer kernel), plus 8 float roundings of the largest pixel. */
static void resample_on_host(const float *src, const shape *s, int bits, double *expected,
                             double *tolerance) {
    for (int oy = 0; oy < s->out_height; ++oy)
        for (int ox = 0; ox < s->out_width; ++ox) {
            const double u = (ox + 0.5) * SCALE_X - 0.5, v = (oy + 0.5) * SCALE_Y - 0.5;
            const double a = u - floor(u), b = v - floor(v);
            const int fu = (int)floor(u), fv = (int)floor(v);
            const int i[2] = {fu < 0 ? 0 : fu, fu + 1 > s->width - 1 ? s->width - 1 : fu + 1};
            const int j[2] = {fv < 0 ? 0 : fv, fv + 1 > s->height - 1 ? s->height - 1 : fv + 1};
            for (int ch = 0; ch < 4; ++ch) {
                double t[2][2], lo = INFINITY, hi = -INFINITY, largest = 0;
                for (int y = 0; y < 2; ++y)
                    for (int x = 0; x < 2; ++x) {
                        t[y][x] = src[4 * ((size_t)j[y] * s->width + i[x]) + ch];
                        lo = fmin(lo, t[y][x]);
                        hi = fmax(hi, t[y][x]);
                        largest = fmax(largest, fabs(t[y][x]));
                    }
                const size_t k = 4 * ((size_t)oy * s->out_width + ox) + ch;
                expected[k] = (1 - a) * (1 - b) * t[0][0] + a * (1 - b) * t[0][1] +
                              (1 - a) * b * t[1][0] + a * b * t[1][1];
                tolerance[k] =
                    (bits >= 0 ? 2 * ldexp(hi - lo, -bits) : 0.0) + 8 * (FLT_EPSILON / 2) * largest;
            }
        }
}

/* One 2-D launch over the output, its event time in *ms. */
static cl_int launch_2d(ch02 *c, cl_kernel kernel, const shape *s, const char *label, double *ms) {
    const size_t global[2] = {(size_t)s->out_width, (size_t)s->out_height};
    cl_event done = NULL;
    cl_int err = oclt_enqueue_kernel(c->dev->queue, kernel, 2, global, NULL, 0, NULL, &done, label);
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) err = oclt_events_span_ms(done, done, ms); /* START to END */
    clReleaseEvent(done);
    return err;
}

/* The largest difference from the double reference. */
static double largest_error(const float *got, const double *expected, size_t count) {
    double worst = 0;
    for (size_t k = 0; k < count; ++k) worst = fmax(worst, fabs(got[k] - expected[k]));
    return worst;
}

oclt_status demo_image_bilinear(ch02 *c) {
    const oclt_device *dev = c->dev;
    if (!oclt_device_uint(dev->device, CL_DEVICE_IMAGE_SUPPORT)) {
        printf("\n  image_bilinear: CL_DEVICE_IMAGE_SUPPORT is CL_FALSE on this device\n");
        report_demo(c, "image_bilinear", "-", OCLT_SKIP, "no image support");
        return OCLT_SKIP;
    }
    /* About as many output pixels as the demonstrations have words. */
    int ky = (int)sqrt((double)c->words / 128.0);
    if (ky < 1) ky = 1;
    const shape s = {3 * 2 * ky, 3 * ky, 8 * 2 * ky, 8 * ky};
    const size_t in_floats = 4 * (size_t)s.width * s.height;
    const size_t out_floats = 4 * (size_t)s.out_width * s.out_height;
    const int rounds = c->opt->reps > 0 ? c->opt->reps : 1;
    oclt_status status = OCLT_FAIL;
    int finished = 0;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    cl_kernel from_image = NULL, from_buffer = NULL;
    cl_mem image = NULL, src_buf = NULL, out_buf = NULL;
    float *src = malloc(in_floats * sizeof *src), *got = malloc(out_floats * sizeof *got);
    double *expected = malloc(out_floats * sizeof *expected);
    double *tolerance = malloc(out_floats * sizeof *tolerance);
    if (!src || !got || !expected || !tolerance) goto release;

    printf("\n  image_bilinear: %dx%d float4 pixels resampled to %dx%d (scale %.3f across, %.4f "
           "down), CLK_FILTER_LINEAR vs by hand\n",
           s.width, s.height, s.out_width, s.out_height, SCALE_X, SCALE_Y);
    oclt_fill_float(&c->rng, src, in_floats, 0.0f, 1.0f);
    if (!(program = oclt_build_file(dev->context, dev->device, "images.cl", "")) ||
        !(from_image = oclt_create_kernel(program, "resample_image")) ||
        !(from_buffer = oclt_create_kernel(program, "resample_buffer")))
        goto release;
    /* The image: a format (channel order and type) and a description (type, size). Its
     * memory layout is the driver's business (often tiled), so the host only reaches it
     * through clEnqueueRead/WriteImage, a map, or a host pointer copied at creation. */
    const cl_image_format format = {CL_RGBA, CL_FLOAT};
    const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                                .image_width = (size_t)s.width,
                                .image_height = (size_t)s.height};
    image = clCreateImage(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                          src, &err);
    if (OCLT_CHECK_ERR(err, "clCreateImage(CL_RGBA, CL_FLOAT)")) goto release;
    src_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             in_floats * sizeof *src, src, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(source pixels)")) goto release;
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, out_floats * sizeof *got, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(resampled)")) goto release;
    const float scale_x = SCALE_X, scale_y = SCALE_Y;
    if (OCLT_ARG(from_image, 0, image) || OCLT_ARG(from_image, 1, out_buf) ||
        OCLT_ARG(from_image, 2, scale_x) || OCLT_ARG(from_image, 3, scale_y) ||
        OCLT_ARG(from_image, 4, s.out_width) || OCLT_ARG(from_image, 5, s.out_height) ||
        OCLT_ARG(from_buffer, 0, src_buf) || OCLT_ARG(from_buffer, 1, s.width) ||
        OCLT_ARG(from_buffer, 2, s.height) || OCLT_ARG(from_buffer, 3, out_buf) ||
        OCLT_ARG(from_buffer, 4, scale_x) || OCLT_ARG(from_buffer, 5, scale_y) ||
        OCLT_ARG(from_buffer, 6, s.out_width) || OCLT_ARG(from_buffer, 7, s.out_height))
        goto release;

    /* Interleaved rounds, the best time of each kept; round -1 is the warm-up and the check. */
    const char *const names[2] = {"image_bilinear/image", "image_bilinear/buffer"};
    cl_kernel kernels[2] = {from_image, from_buffer};
    double best[2] = {-1, -1}, worst[2] = {0, 0};
    size_t wrong[2] = {0, 0};
    for (int r = -1; r < rounds; ++r)
        for (int k = 0; k < 2; ++k) {
            double ms = 0;
            if (oclt_poison_buffer(dev->queue, out_buf, out_floats * sizeof *got) ||
                launch_2d(c, kernels[k], &s, names[k], &ms))
                goto release;
            if (r >= 0 && (best[k] < 0 || ms < best[k])) best[k] = ms;
            if (r >= 0 || !c->opt->check) continue;
            if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0,
                                               out_floats * sizeof *got, got, 0, NULL, NULL)))
                goto release;
            resample_on_host(src, &s, k == 0 ? FILTER_WEIGHT_BITS : -1, expected, tolerance);
            wrong[k] = oclt_compare_float(names[k], got, expected, tolerance, 0.0, out_floats);
            worst[k] = largest_error(got, expected, out_floats);
        }
    status = OCLT_PASS;
    const size_t pixels = (size_t)s.out_width * s.out_height;
    for (int k = 0; k < 2; ++k) {
        char size_text[32], note[96];
        snprintf(size_text, sizeof size_text, "%dx%d", s.out_width, s.out_height);
        snprintf(note, sizeof note, "%.2fx the buffer kernel's time", best[k] / best[1]);
        const oclt_status st = !c->opt->check ? OCLT_UNCHECKED : wrong[k] ? OCLT_FAIL : OCLT_PASS;
        if (st == OCLT_FAIL) status = OCLT_FAIL;
        oclt_report_result(c->report, names[k], size_text, best[k], pixels / (best[k] * 1e3),
                           "Mpixel/s", st, note);
    }
    if (c->opt->check)
        printf("    tolerance: image 2 x 2^-%d x (range of the 2x2 pixels) + 8 roundings, buffer 8 "
               "roundings;\n    largest error (pixels in [0, 1)): image %.3g, buffer %.3g\n",
               FILTER_WEIGHT_BITS, worst[0], worst[1]);
    finished = 1;
release:
    if (!finished) report_demo(c, "image_bilinear", "-", OCLT_FAIL, "OpenCL or memory error");
    if (out_buf) clReleaseMemObject(out_buf);
    if (src_buf) clReleaseMemObject(src_buf);
    if (image) clReleaseMemObject(image);
    if (from_buffer) clReleaseKernel(from_buffer);
    if (from_image) clReleaseKernel(from_image);
    if (program) clReleaseProgram(program);
    free_all(src, got, expected, tolerance);
    return status;
}
