/* Chapter 02, step 10: images. The same bilinear resampling two ways: through an image2d_t and
 * a sampler (the texture unit filters), and through a plain buffer (the kernel finds the four
 * neighbours and blends them itself). Pixels are float4 (CL_RGBA, CL_FLOAT). Output pixel
 * (ox, oy) samples the source at u = (ox + 0.5) * scale_x, v = (oy + 0.5) * scale_y, in pixels
 * (unnormalised coordinates), clamped to the edge. */

/* FILTER (build option -DFILTER=..., default CLK_FILTER_LINEAR): the sampler's filter mode.
 *   CLK_FILTER_LINEAR   read_imagef blends the 2 x 2 pixels around (u, v). The specification
 *                       leaves the precision of that blend undefined (a GPU uses few-bit
 *                       weights); images.c's tolerance says how much it allows.
 *   CLK_FILTER_NEAREST  the one pixel containing (u, v), located exactly (exercise 2 builds
 *                       this file so and checks every pixel bit for bit). */
#ifndef FILTER
#define FILTER CLK_FILTER_LINEAR
#endif
__constant sampler_t pixel_sampler =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | FILTER;

__kernel void resample_image(__read_only image2d_t src, __global float4 *restrict out,
                             const float scale_x, const float scale_y, const int out_width,
                             const int out_height) {
    const int ox = get_global_id(0), oy = get_global_id(1);
    if (ox >= out_width || oy >= out_height) return;
    const float2 uv = (float2)((ox + 0.5f) * scale_x, (oy + 0.5f) * scale_y);
    out[oy * out_width + ox] = read_imagef(src, pixel_sampler, uv);
}

/* The same from a buffer, following the specification's formula for CLK_FILTER_LINEAR with
 * CLK_ADDRESS_CLAMP_TO_EDGE: i0 = clamp(floor(u - 0.5)), i1 = clamp(floor(u - 0.5) + 1),
 * a = frac(u - 0.5), and the same in v. What it costs: four loads and the index arithmetic per
 * pixel, with no filtering hardware and no 2-D cache layout; what it gains: float precision on
 * every device. */
__kernel void resample_buffer(__global const float4 *restrict src, const int width,
                              const int height, __global float4 *restrict out, const float scale_x,
                              const float scale_y, const int out_width, const int out_height) {
    const int ox = get_global_id(0), oy = get_global_id(1);
    if (ox >= out_width || oy >= out_height) return;
    const float u = (ox + 0.5f) * scale_x - 0.5f, v = (oy + 0.5f) * scale_y - 0.5f;
    const float fu = floor(u), fv = floor(v);
    const float a = u - fu, b = v - fv;
    const int i0 = clamp((int)fu, 0, width - 1), i1 = clamp((int)fu + 1, 0, width - 1);
    const int j0 = clamp((int)fv, 0, height - 1), j1 = clamp((int)fv + 1, 0, height - 1);
    const float4 t00 = src[j0 * width + i0], t10 = src[j0 * width + i1];
    const float4 t01 = src[j1 * width + i0], t11 = src[j1 * width + i1];
    const float4 top = t00 + (t10 - t00) * a, bottom = t01 + (t11 - t01) * a;
    out[oy * out_width + ox] = top + (bottom - top) * b;
}
