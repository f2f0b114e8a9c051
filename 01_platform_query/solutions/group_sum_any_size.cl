/* Exercise 1, solution: group_sum for any work-group size, not only a power of two.
 * Each step folds the upper part [upper, active) onto [0, active - upper). When `active` is odd,
 * the middle element has no partner and simply waits for the next step. The readers of a step
 * ([upper, active)) and its writers ([0, active - upper)) never overlap, and every work-item
 * runs the same number of steps, so every work-item reaches every barrier. */
__kernel void group_sum_any_size(__global const int *in, __global int *partial,
                                 __local int *scratch, const uint n) {
    const size_t gid = get_global_id(0);
    const size_t lid = get_local_id(0);
    scratch[lid] = gid < n ? in[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t active = get_local_size(0); active > 1;) {
        const size_t upper = (active + 1) / 2; /* not "half": a type in OpenCL C */
        if (lid + upper < active) scratch[lid] += scratch[lid + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        active = upper;
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
