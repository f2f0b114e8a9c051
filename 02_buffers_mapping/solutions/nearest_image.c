/* Chapter 02, exercise 2 (worked solution): resample with CLK_FILTER_NEAREST and check the
 * result EXACTLY. The specification leaves linear filtering's precision undefined, so step 10
 * needs a tolerance; for nearest filtering with unnormalised coordinates it promises the exact
 * pixel, i = clamp(floor(u), 0, width - 1), so every output float must equal a source float.
 * The image is min(--size, 64) pixels high and twice as wide. Skips (exit 77) on a device
 * without image support. */
#include "solutions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 3 source pixels per 8 output pixels across, 5 per 16 down: exact in float, and different, so
 * that a kernel that scales y by x's scale fails. */
#define SCALE_X 0.375f
#define SCALE_Y 0.3125f

oclt_status solve_nearest_image(const oclt_device *dev, const oclt_options *opt,
                                oclt_report *report) {
    const int height = opt->size[0] < 64 ? (int)opt->size[0] : 64, width = 2 * height;
    const int out_width = (int)ceil(width / SCALE_X), out_height = (int)ceil(height / SCALE_Y);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%dx%d", out_width, out_height);
    if (!oclt_device_uint(dev->device, CL_DEVICE_IMAGE_SUPPORT)) {
        oclt_report_result(report, "nearest_image", size_text, -1, -1, "", OCLT_SKIP,
                           "no image support");
        return OCLT_SKIP;
    }

    const size_t in_floats = 4 * (size_t)width * height,
                 out_floats = 4 * (size_t)out_width * out_height;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem image = NULL, out = NULL;
    cl_kernel kernel = NULL;
    float *src = malloc(in_floats * sizeof *src), *got = malloc(out_floats * sizeof *got);
    /* The solution's kernel is step 10's resample_image, built with nearest filtering. */
    cl_program program =
        oclt_build_file(dev->context, dev->device, "images.cl", "-DFILTER=CLK_FILTER_NEAREST");
    if (!src || !got || !program || !(kernel = oclt_create_kernel(program, "resample_image")))
        goto done;
    oclt_rng rng;
    oclt_rng_seed(&rng, opt->seed);
    oclt_fill_float(&rng, src, in_floats, -1.0f, 1.0f);
    const cl_image_format format = {CL_RGBA, CL_FLOAT};
    const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                                .image_width = (size_t)width,
                                .image_height = (size_t)height};
    image = clCreateImage(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                          src, &err);
    if (OCLT_CHECK_ERR(err, "clCreateImage")) goto done;
    out = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, out_floats * sizeof *got, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(out)")) goto done;
    const float scale_x = SCALE_X, scale_y = SCALE_Y;
    const size_t global[2] = {(size_t)out_width, (size_t)out_height};
    if (oclt_poison_buffer(dev->queue, out, out_floats * sizeof *got) ||
        OCLT_ARG(kernel, 0, image) || OCLT_ARG(kernel, 1, out) || OCLT_ARG(kernel, 2, scale_x) ||
        OCLT_ARG(kernel, 3, scale_y) || OCLT_ARG(kernel, 4, out_width) ||
        OCLT_ARG(kernel, 5, out_height) ||
        oclt_enqueue_kernel(dev->queue, kernel, 2, global, NULL, 0, NULL, NULL,
                            "resample_image(nearest)") ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out, CL_TRUE, 0, out_floats * sizeof *got, got,
                                       0, NULL, NULL)))
        goto done;

    /* The host's nearest pixel, the specification's formula; compared as bits. */
    size_t wrong = 0;
    for (int oy = 0; oy < out_height; ++oy)
        for (int ox = 0; ox < out_width; ++ox) {
            int i = (int)floorf((ox + 0.5f) * SCALE_X), j = (int)floorf((oy + 0.5f) * SCALE_Y);
            i = i > width - 1 ? width - 1 : i;
            j = j > height - 1 ? height - 1 : j;
            const float *want = src + 4 * ((size_t)j * width + i);
            const float *have = got + 4 * ((size_t)oy * out_width + ox);
            if (memcmp(want, have, 4 * sizeof(float)) != 0 && wrong++ < 5)
                fprintf(stderr,
                        "  pixel (%d, %d) = (%g, ...), expected source (%d, %d) = (%g, ...)\n", ox,
                        oy, have[0], i, j, want[0]);
        }
    if (wrong) fprintf(stderr, "  %zu of %d pixels differ\n", wrong, out_width * out_height);
    printf(
        "  %dx%d float4 image to %dx%d with CLK_FILTER_NEAREST: every pixel compared bit for bit\n",
        width, height, out_width, out_height);
    status = wrong ? OCLT_FAIL : OCLT_PASS;
done:
    oclt_report_result(report, "nearest_image", size_text, -1, -1, "", status, NULL);
    if (out) clReleaseMemObject(out);
    if (image) clReleaseMemObject(image);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    free(src);
    free(got);
    return status;
}
