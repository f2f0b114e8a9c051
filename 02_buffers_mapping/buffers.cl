/* Chapter 02's buffer kernels. They are deliberately simple: the lesson is where their data
 * lives and how it gets there, so the host can predict every word they write.
 *
 * RADIUS (build option -DRADIUS=R, default 3): half-width of stencil_local; the __constant
 * weights hold 2*RADIUS+1 floats and the __local tile local_size + 2*RADIUS. */
#ifndef RADIUS
#define RADIUS 3
#endif

/* out[i] = a * in[i] + b in 32-bit unsigned arithmetic (wrapping). With an odd `a` this maps
 * every word to a different word, so a lost, doubled or shifted element always shows.
 * `in` comes from a CL_MEM_READ_ONLY buffer and `out` goes to a CL_MEM_WRITE_ONLY one: the
 * flags promise the kernel only reads the first and only writes the second. */
__kernel void scale_add(__global const uint *restrict in, __global uint *restrict out, const uint a,
                        const uint b, const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = a * in[i] + b;
}

/* The same in place, for a CL_MEM_READ_WRITE buffer or a sub-buffer: each work-item reads and
 * writes only its own word, so there is no race. */
__kernel void scale_add_in_place(__global uint *data, const uint a, const uint b, const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) data[i] = a * data[i] + b;
}

/* All four address spaces in one kernel: a 1-D stencil
 *     out[i] = sum_k weights[k] * in[i + k - RADIUS]   (k = 0 .. 2*RADIUS; zero outside 0..n-1)
 *   __global   in, out: the buffers, visible to every work-item (and the host);
 *   __constant weights: read-only, the same for every work-item (a cached broadcast on GPUs;
 *              at most CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE bytes);
 *   __local    tile: one copy per work-group, sized by the host with
 *              clSetKernelArg(kernel, 3, (local_size + 2*RADIUS) * sizeof(float), NULL);
 *   __private  sum, k and the indices: one copy per work-item (registers).
 * Each input element is loaded from global memory once per work-group instead of 2R+1 times.
 * Every work-item reaches the barrier: the range check comes after it. */
__kernel void stencil_local(__global const float *restrict in, __global float *restrict out,
                            __constant float *weights, __local float *tile, const uint n) {
    const size_t local_size = get_local_size(0);
    const size_t lid = get_local_id(0);
    const size_t gid = get_global_id(0);
    const long first = (long)(get_group_id(0) * local_size) - RADIUS; /* tile[0]'s index */

    /* The tile holds local_size + 2*RADIUS values: the group's own elements and a halo of
     * RADIUS on each side. Work-items load in strides of local_size until it is full. */
    for (size_t t = lid; t < local_size + 2 * RADIUS; t += local_size) {
        const long src = first + (long)t;
        tile[t] = (src >= 0 && src < (long)n) ? in[src] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n) {
        float sum = 0.0f;
        for (int k = 0; k <= 2 * RADIUS; ++k) sum += weights[k] * tile[lid + k];
        out[gid] = sum;
    }
}
