/* Chapter 02, step 9: __constant memory. Every work-item evaluates the same polynomial
 *     out[i] = c[0] + c[1] x + ... + c[terms-1] x^(terms-1)      (Horner's rule)
 * at its own x[i]: the coefficients are read by every work-item at the same address at the same
 * time, the access __constant is made for. Three ways to hold the coefficients:
 *   poly built with -DCOEF_SPACE=__global     a __global pointer (the reference);
 *   poly built with -DCOEF_SPACE=__constant   the same buffer through a __constant pointer;
 *   poly_program_scope                        a table compiled into the program.
 * A __constant argument must fit CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (at least 64 KiB) and a
 * kernel may take at most CL_DEVICE_MAX_CONSTANT_ARGS of them (at least 8). */

/* Program scope: in OpenCL C 1.2 a variable outside a function must be __constant, and
 * initialised here (the host cannot write it). The host keeps the same 16 numbers. */
#define PROGRAM_TERMS 16
__constant float program_table[PROGRAM_TERMS] = {
    0.5f,    -0.25f, 0.125f,   -1.0f,  0.75f,   0.0625f, -0.5f,  0.375f,
    -0.125f, 0.25f,  -0.0625f, 0.875f, -0.375f, 0.1875f, 0.625f, -0.8125f};

/* COEF_SPACE (build option -DCOEF_SPACE=__global or -DCOEF_SPACE=__constant): the address
 * space of the coefficients, the one thing that differs between the two builds of poly.
 *   __global    the reference: the coefficients are data like any other; on a GPU every
 *               work-item issues its own (cached) load of each one.
 *   __constant  what changed: one word. Why it can be faster: a read that all work-items make
 *               at one address may be served from a constant cache as one broadcast. What it
 *               costs: the size limit above; reads at different addresses per work-item are
 *               serialised on some GPUs. */
#ifndef COEF_SPACE
#define COEF_SPACE __global
#endif

__kernel void poly(__global const float *restrict x, COEF_SPACE const float *restrict coef,
                   __global float *restrict out, const uint terms, const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const float xi = x[i];
    float acc = coef[terms - 1];
    for (int k = (int)terms - 2; k >= 0; --k) acc = acc * xi + coef[k];
    out[i] = acc;
}

/* The table at program scope: fixed when the program is built, so the compiler sees every
 * value (it may fold them into instructions). What it costs: new values need a new build.
 * Horner from acc = 0: the first step, 0 * x + c[15], is exact. */
__kernel void poly_program_scope(__global const float *restrict x, __global float *restrict out,
                                 const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = PROGRAM_TERMS - 1; k >= 0; --k) acc = acc * x[i] + program_table[k];
    out[i] = acc;
}
