/* Chapter 03, the `divergence` scenario: one computation written two ways, a branch and a
 * select, so that profiling events can say which one the device prefers. Every element takes one
 * of two paths, chosen by x[i] > threshold; each path is PATH_ROUNDS rounds of a different
 * integer mix. uint arithmetic wraps modulo 2^32 in OpenCL C as in C, so the host's reference is
 * exact and both kernels must match it bit for bit.
 *
 * -D PATH_ROUNDS (set by divergence.c): rounds per path, >= 1. Large enough that the arithmetic,
 * not the 8 bytes moved per element, sets the time: otherwise a path's cost cannot show. */

/* Path for x > threshold: 3 dependent operations per round (shift, xor, multiply). */
uint path_above(uint v) {
    for (int k = 0; k < PATH_ROUNDS; ++k) v = (v ^ (v >> 15)) * 0x2c1b3c6du;
    return v;
}

/* Path for x <= threshold: as many operations, different ones (left shift, other constant). */
uint path_below(uint v) {
    for (int k = 0; k < PATH_ROUNDS; ++k) v = (v ^ (v << 7)) * 0x297a2d39u;
    return v;
}

/* Kernel A, the branch: each work-item runs only its own path. When the work-items of one warp
 * (or SIMD group) disagree, the group runs both paths one after the other, each with the other
 * half of its lanes masked off: divergence. Uniform groups run one path only. */
__kernel void mix_branch(__global const int *restrict x, __global uint *restrict y,
                         const int threshold, const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const uint v = (uint)x[i];
    uint result;
    if (x[i] > threshold)
        result = path_above(v);
    else
        result = path_below(v);
    y[i] = result;
}

/* Kernel B, branch-free: every work-item computes both paths and select() keeps one (for a
 * scalar, select(a, b, c) is c ? b : a). No lane ever waits for another, so a mixed group costs
 * what a uniform one does; the price is that both paths are always computed, which a uniform
 * group running the branch never pays. */
__kernel void mix_select(__global const int *restrict x, __global uint *restrict y,
                         const int threshold, const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const uint v = (uint)x[i];
    const uint above = path_above(v);
    const uint below = path_below(v);
    const int take_above = x[i] > threshold;
    y[i] = select(below, above, take_above);
}
