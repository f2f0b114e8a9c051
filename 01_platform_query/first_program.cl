/* The first kernel: c = a + b, one work-item per element.
 * The host rounds the global size up to a whole number of work-groups, so a few work-items
 * may lie past the end of the arrays: the guard keeps them from writing there. */
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c,
                         const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
