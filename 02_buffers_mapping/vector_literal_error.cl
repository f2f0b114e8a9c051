/* Chapter 02, step 13: this file must NOT build. A vector literal (type)(...) lists scalars
 * and vectors whose components add up to exactly the vector's size, or one scalar that is
 * copied to every component. Anything else is a compile-time error, and the build log names
 * the line. misuse.c builds this file and checks both. */
__kernel void vector_literals(__global float4 *out) {
    out[0] = (float4)(1.0f, 2.0f, 3.0f, 4.0f);           /* four scalars */
    out[1] = (float4)(2.0f);                             /* one scalar: (2, 2, 2, 2) */
    out[2] = (float4)((float2)(1.0f, 2.0f), 3.0f, 4.0f); /* a float2 and two scalars */
    out[3] = (float4)(2.0f, 1.0f); /* EXPECTED BUILD ERROR: 2 components for a float4 */
}
