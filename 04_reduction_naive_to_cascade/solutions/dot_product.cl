/* Exercise 2 of chapter 04, worked solution: a dot product in one launch. reduce7's pattern with
 * the multiply fused into the loads: each work-item sums a[i] * b[i] over a grid-stride loop, the
 * group's tree gives a partial, and the group that takes the last ticket adds the partials.
 * The host builds one of reduce7's two orders between groups (and skips a device with neither):
 *   C11_ATOMICS       plain partials, an acq_rel ticket at device scope (OpenCL C 2.0+);
 *   NVIDIA_GPU_FENCE  partials as bits through atomic_xchg / atomic_or, a GPU-scope fence (PTX
 *                     membar.gl) before and after the ticket (NVIDIA only).
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
#ifdef C11_ATOMICS
        partials[get_group_id(0)] = as_uint(v);
        is_last = atomic_fetch_add_explicit((volatile __global atomic_uint *)tickets, 1u,
                                            memory_order_acq_rel, memory_scope_device) ==
                  groups - 1;
#else
        atomic_xchg(&partials[get_group_id(0)], as_uint(v));
        __asm__ volatile("membar.gl;" ::: "memory");
        is_last = atomic_inc(tickets) == groups - 1;
        __asm__ volatile("membar.gl;" ::: "memory");
#endif
    }
#ifdef C11_ATOMICS
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_device);
#else
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#endif
    if (is_last) {
        float w = 0.0f;
        for (uint g = lid; g < groups; g += BLOCK_SIZE)
#ifdef C11_ATOMICS
            w += as_float(partials[g]);
#else
            w += as_float(atomic_or(&partials[g], 0u));
#endif
        w = group_sum(s, w);
        if (lid == 0) {
            out[0] = w;
            atomic_xchg(tickets, 0u);
        }
    }
}
