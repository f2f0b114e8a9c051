/* Chapter 01's kernels: small, but with enough variety (a __constant table, a __local
 * argument, scalar arguments, const/restrict qualifiers) that the program and kernel queries
 * have something to show. Both are run and checked against the CPU. */

/* A program-scope table lives in the constant address space. */
__constant float table[4] = {0.0f, 0.25f, 0.5f, 0.75f};

/* y[i] = a * x[i] + b + table[i % 4], one work-item per element; the guard lets the global
 * size be rounded up to a multiple of the work-group size. */
__kernel void scale_shift(__global const float *restrict x, __global float *restrict y,
                          const float a, const float b, const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b + table[i % 4];
}

/* One partial sum per work-group, through a __local scratch array whose size the host sets
 * with clSetKernelArg(kernel, 2, bytes, NULL). The local size must be a power of two. Every
 * work-item reaches every barrier: out-of-range items load 0 instead of returning early. */
__kernel void group_sum(__global const int *in, __global int *partial, __local int *scratch,
                        const uint n) {
    const size_t gid = get_global_id(0);
    const size_t lid = get_local_id(0);
    scratch[lid] = gid < n ? in[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
