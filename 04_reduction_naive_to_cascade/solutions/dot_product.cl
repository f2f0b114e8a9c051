/* Exercise 2 of chapter 04, worked solution: a dot product in one launch. reduce7's pattern with
 * the multiply fused into the loads: each work-item sums a[i] * b[i] over a grid-stride loop, the
 * group's tree gives a partial, and the group that takes the last ticket adds the partials.
 * OpenCL 1.2 form (mem_fence + atomic_inc; partials as bits through atomic_xchg / atomic_or).
 * -DBLOCK_SIZE is the launched group size (a power of two). */
float group_sum(__local float *s, float v) {
    const uint lid = get_local_id(0);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = BLOCK_SIZE / 2; off > 0; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v; /* the sum in work-item 0 */
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
dot_product(__global const float *a, __global const float *b, __global float *out, uint n,
            __global uint *partials, __global uint *tickets) {
    __local float s[BLOCK_SIZE];
    __local int is_last;
    const uint lid = get_local_id(0), groups = get_num_groups(0);
    float v = 0.0f;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) v += a[i] * b[i];
    v = group_sum(s, v);
    if (lid == 0) {
        atomic_xchg(&partials[get_group_id(0)], as_uint(v));
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        is_last = atomic_inc(tickets) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (is_last) {
        float w = 0.0f;
        for (uint g = lid; g < groups; g += BLOCK_SIZE) w += as_float(atomic_or(&partials[g], 0u));
        w = group_sum(s, w);
        if (lid == 0) {
            out[0] = w;
            atomic_xchg(tickets, 0u);
        }
    }
}
