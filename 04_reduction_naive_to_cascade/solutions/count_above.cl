/* Exercise 1 of chapter 04, worked solution: how many elements are above a threshold. The shape
 * of reduce6's first pass, kept plain (scalar loads, no VEC or UNROLL): a grid-stride loop in
 * which a work-item adds (in[i] > threshold) instead of in[i], then the same tree, a sum. The
 * host adds the groups' counts. -DBLOCK_SIZE is the launched group size. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
count_above(__global const int *in, __global int *out, uint n, int threshold) {
    __local int s[BLOCK_SIZE];
    const uint lid = get_local_id(0);
    int v = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) v += in[i] > threshold;
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = BLOCK_SIZE / 2; off > 0; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = v;
}
