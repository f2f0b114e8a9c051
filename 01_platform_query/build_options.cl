/* One kernel for the build-options comparison: sin(x) by its Taylor polynomial, evaluated by
 * Horner's rule in x^2:
 *   sin x ~ x + x^3 * (-1/6 + x^2 * (1/120 + x^2 * (-1/5040 + x^2 / 362880)))
 * The coefficients are written as double constants (no f suffix), so the float products
 * are added in double and rounded back to float: -cl-single-precision-constant makes them
 * float. The last line is a float a * b + c, which -cl-mad-enable lets the compiler turn
 * into a mad. FP_CONTRACT OFF keeps the default build from fusing it on its own. */
#pragma OPENCL FP_CONTRACT OFF
/* Double constants need fp64; on a device without it they are written as float (a compiler
 * may not accept a double constant there). */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CONSTANT(x) x
#else
#define CONSTANT(x) x##f
#endif

/* Elements per work-item (>= 1): the host divides the global size by it. Set with
 * -D ITEMS_PER_WORK_ITEM=n; it changes the speed, never the result. */
#ifndef ITEMS_PER_WORK_ITEM
#define ITEMS_PER_WORK_ITEM 1
#endif

__kernel void sine_taylor(__global const float *x, __global float *y, const uint n) {
    for (uint k = 0; k < ITEMS_PER_WORK_ITEM; ++k) {
        /* Consecutive work-items read consecutive elements in every pass. */
        const size_t i = get_global_id(0) + k * get_global_size(0);
        if (i >= n) return;
        const float v = x[i], v2 = v * v;
        float acc = CONSTANT(1.0) / 362880;
        acc = acc * v2 - CONSTANT(1.0) / 5040;
        acc = acc * v2 + CONSTANT(1.0) / 120;
        acc = acc * v2 - CONSTANT(1.0) / 6;
        y[i] = v * v2 * acc + v;
    }
}
