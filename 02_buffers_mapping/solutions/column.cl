/* Exercise 1's kernel: fill a rows x width row-major matrix so that every element names its own
 * place, m[r][c] = r * 65536 + c: a word read from the wrong row or column shows at once. */
__kernel void fill_matrix(__global uint *m, const uint width, const uint rows) {
    const uint c = get_global_id(0), r = get_global_id(1);
    if (c < width && r < rows) m[r * width + c] = r * 65536u + c;
}
