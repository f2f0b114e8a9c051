/* Chapter 03, source unit 2 of 2: the kernels. This chapter is about what happens around a
 * kernel (queues, events, timestamps, programs), so the kernels are simple and exactly
 * checkable. They call functions that live in helpers.cl: a declaration is all a unit needs
 * to compile; the definition is found when the two units are built or linked together. */

int affine(int x, int a, int b);
float relax(float y, float a, float c);

/* y = a*x + b, one work-item per element: the command most scenarios put between a write and
 * a read. The guard lets the host round the global size up to a multiple of the work-group
 * size. Memory-bound: 8 bytes moved per element, one multiply-add. */
__kernel void affine_map(__global const int *restrict x, __global int *restrict y, const int a,
                         const int b, const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = affine(x[i], a, b);
}

/* y = u + v: the join of two independent branches (out-of-order scenario). Same shape as
 * affine_map, but with two inputs it can start only when both producers are done. */
__kernel void add_vectors(__global const int *restrict u, __global const int *restrict v,
                          __global int *restrict y, const uint n) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = u[i] + v[i];
}

/* Nothing at all: what remains of a launch is its fixed cost, the launch latency. */
__kernel void empty(void) {}

/* y = `steps` rounds of y <- 0.75*y + 0.5*x, starting from y = x. `steps` sets the arithmetic
 * per element, so the host can make a chunk's kernel last about as long as its transfer
 * (overlap scenario); float, so that programs built along different paths can be compared bit
 * for bit (binaries scenario). Costs 2*steps flops per 8 bytes moved. */
__kernel void relax_steps(__global const float *restrict x, __global float *restrict y,
                          const uint steps, const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const float x_i = x[i];
    const float c = 0.5f * x_i; /* exact: a power-of-two scale */
    float value = x_i;
    for (uint s = 0; s < steps; ++s) value = relax(value, 0.75f, c);
    y[i] = value;
}

/* One work-item does everything: a serial inclusive prefix sum, the kind of single-threaded
 * job clEnqueueTask was made for. Launch it with one work-item only (a task, or an NDRange of
 * global size 1): a second work-item would race with the first. No parallelism at all: on a
 * GPU one thread of one SM runs it; it is here for the API, not for speed. */
__kernel void serial_scan(__global const int *restrict x, __global int *restrict y, const uint n) {
    int sum = 0;
    for (uint i = 0; i < n; ++i) {
        sum += x[i];
        y[i] = sum;
    }
}
