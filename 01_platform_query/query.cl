/* Chapter 01's kernels: small, but with enough variety (a __constant table, a __local
 * argument, scalar arguments, const/restrict qualifiers, a 2-D launch) that the program and
 * kernel queries have something to show. Each is run and checked against the CPU. */

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

/* Where each work-item is, in a 2-D launch that the host starts with a global offset: every
 * work-item records the work-item built-ins, and the host checks them all. The offset shifts
 * get_global_id only; group and local ids still start at 0. */
__kernel void work_item_ids(__global uint *out) {
    const size_t x = get_global_id(0) - get_global_offset(0);
    const size_t y = get_global_id(1) - get_global_offset(1);
    __global uint *record = out + 12 * (y * get_global_size(0) + x);
    record[0] = get_work_dim();
    record[1] = get_global_offset(0);
    record[2] = get_global_offset(1);
    record[3] = get_num_groups(0);
    record[4] = get_num_groups(1);
    record[5] = get_global_id(0);
    record[6] = get_global_id(1);
    record[7] = get_group_id(0);
    record[8] = get_group_id(1);
    record[9] = get_local_id(0);
    record[10] = get_local_id(1);
    record[11] = get_local_size(0) * get_local_size(1);
}
