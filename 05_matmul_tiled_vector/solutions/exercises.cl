/* Chapter 05, worked solutions of the exercises (docs/05_matmul_tiled_vector.md, "Exercises").
 * Same arguments and layout as matmul.cl: row-major, A is M x K, C is M x N; dimension 0 of
 * the NDRange runs along the columns of C. */

/* TS: tile size of tiled_bt (TS x TS work-items, TS*TS <= the max work-group size) */
#ifndef TS
#define TS 16
#endif

/* ---- Exercise 1: tiled_bt, C = A * B with B given transposed (BT is N x K) -------------------
 * Changed from `tiled`: the B tile is read from BT[col][k], so the items of a row of the group
 * read along a row of BT (contiguous k) instead of a row of B. The tile is stored as
 * Bsub[k][n] as before, so the multiply-add loop is unchanged. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
tiled_bt(const int M, const int N, const int K, __global const float *restrict A,
         __global const float *restrict BT, __global float *restrict C) {
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col0 = get_group_id(0) * TS, row = get_group_id(1) * TS + ty;
    __local float Asub[TS][TS], Bsub[TS][TS]; /* Bsub[k][n], as in tiled */
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        Asub[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        /* item (tx, ty) loads BT[col0 + ty][k0 + tx]: neighbouring tx, neighbouring k */
        Bsub[tx][ty] = col0 + ty < N && k0 + tx < K ? BT[(size_t)(col0 + ty) * K + k0 + tx] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) acc = mad(Asub[ty][k], Bsub[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col0 + tx < N) C[(size_t)row * N + col0 + tx] = acc;
}

/* ---- Exercise 2: naive_2x2, a 2 x 2 block of C per work-item, no local memory ----------------
 * Changed from `naive`: each item computes C[2r..2r+1][2c..2c+1]; per k it loads two elements
 * of A and two of B and does four multiply-adds, so global loads per multiply-add fall from 2
 * to 1, with no barrier. Items at the right or bottom edge load zeros for the missing row or
 * column and skip its stores. */
__kernel void naive_2x2(const int M, const int N, const int K, __global const float *restrict A,
                        __global const float *restrict B, __global float *restrict C) {
    const int col = 2 * get_global_id(0), row = 2 * get_global_id(1);
    if (row >= M || col >= N) return; /* no barrier in this kernel */
    const bool row1 = row + 1 < M, col1 = col + 1 < N;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k = 0; k < K; ++k) {
        const float a0 = A[(size_t)row * K + k];
        const float a1 = row1 ? A[(size_t)(row + 1) * K + k] : 0.0f;
        const float b0 = B[(size_t)k * N + col];
        const float b1 = col1 ? B[(size_t)k * N + col + 1] : 0.0f;
        c00 = mad(a0, b0, c00);
        c01 = mad(a0, b1, c01);
        c10 = mad(a1, b0, c10);
        c11 = mad(a1, b1, c11);
    }
    C[(size_t)row * N + col] = c00;
    if (col1) C[(size_t)row * N + col + 1] = c01;
    if (row1) C[(size_t)(row + 1) * N + col] = c10;
    if (row1 && col1) C[(size_t)(row + 1) * N + col + 1] = c11;
}

/* ---- Exercise 3: tiled_unguarded, `tiled` for sizes that are multiples of TS -------------------
 * Changed from `tiled`: every bounds check is gone, so M, N and K must be multiples of TS. The
 * host makes them so by copying A and B into zero-padded buffers (clEnqueueFillBuffer, then
 * clEnqueueCopyBufferRect) and copying C back out of a padded product. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
tiled_unguarded(const int M, const int N, const int K, __global const float *restrict A,
                __global const float *restrict B, __global float *restrict C) {
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TS + tx, row = get_group_id(1) * TS + ty;
    __local float Asub[TS][TS], Bsub[TS][TS];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        Asub[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bsub[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) acc = mad(Asub[ty][k], Bsub[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[(size_t)row * N + col] = acc;
}
