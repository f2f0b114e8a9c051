/* Chapter 05, advanced steps: C = A * B (row-major floats; A is M x K, B is K x N) past
 * double_buffer. Arguments and bounds as in matmul.cl: any M, N, K >= 1; elements outside A or B
 * read as 0, stores outside C are skipped, and whole tiles take an unguarded path.
 *
 * One kernel, warp_tiled, carries the techniques of the fast CUDA SGEMMs that OpenCL C 1.2 can
 * express; each is a -D parameter, so that its gain can be measured by changing it:
 *   - a block of C chosen by problem size (BM x BN, BK deep; autotune.c's table or --tune);
 *   - a larger register block per work-item (TM x TN, up to 16 x 8): more multiply-adds per
 *     value read from local memory;
 *   - warp tiling (WIM x WIN): the items of one warp own one compact sub-tile of C, so that in a
 *     k-step a warp reads few distinct vectors of local memory;
 *   - A read from global memory as float4 along k and stored transposed (no padding: measured);
 *   - the order of one k's multiply-adds (FMA_ROWS): the same work, a different schedule from
 *     the compiler, measured rather than derived;
 *   - the next tile prefetched into registers while this one is multiplied out of local memory
 *     (as in double_buffer: one barrier per k-step);
 *   - work-groups ordered in bands of GROUP_M block rows, so that groups in flight together
 *     share rows of A and columns of B in the L2 cache;
 *   - split-K: launched with SPLIT_K times the groups along M, the kernel computes one slice of
 *     K per group into a partial C (a workspace of SPLIT_K * M * N floats), and sum_slices adds
 *     the partials in a fixed order. More work-groups when M*N alone cannot fill the device.
 *
 * Parameters (the host checks every constraint before the build; defaults let the file compile
 * alone):
 *   BM, BN    rows and columns of C per work-group
 *   BK        depth of one k-step; a multiple of 4 (A is read as float4 along k)
 *   TM        rows of C per work-item; a multiple of 4 (the A tile is read as float4 along m)
 *   TN        columns of C per work-item; a multiple of VW
 *   VW        4, 8 or 16: the vector width along n (float4 on GPUs, one SIMD register on CPUs)
 *   WIM, WIN  a warp tile is WIM x WIN work-items (8 x 4 = 32 for an NVIDIA warp; 1 x 1 on
 *             CPUs); BM % (TM*WIM) == 0, BN % (TN*WIN) == 0, and the work-group size
 *             (BM/TM)*(BN/TN) a multiple of WIM*WIN
 *             BK*BM/4 and BK*BN/VW must be multiples of the work-group size (each item loads
 *             the same number of vectors); two buffers of BK*(BM+BN) floats fit local memory
 *   GROUP_M   block rows per band of the work-group order (1: plain row-major order)
 *   FMA_ROWS  4, 2 or 1: rows of a float4 of A that one vector of B meets before the next
 *             vector does (4: the whole float4; 1: row by row)
 *   MAD       fma where the device fuses in hardware, else mad (mul_add in the embedded profile)
 * Whether rows of A and B can be read as aligned vectors (K % 4, N % VW) is tested at run time:
 * the test is the same for every item, so it costs a branch, not divergence. */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 16
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef VW
#define VW 4
#endif
#ifndef WIM
#define WIM 4
#endif
#ifndef WIN
#define WIN 2
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef FMA_ROWS
#define FMA_ROWS 4
#endif
#if FMA_ROWS != 4 && FMA_ROWS != 2 && FMA_ROWS != 1
#error "FMA_ROWS must be 4, 2 or 1"
#endif
#ifndef MAD
#define MAD mad
#endif
#define mul_add(a, b, c) ((a) * (b) + (c)) /* two correctly rounded operations, or one fma */

#define RTSM    (BM / TM)                /* work-items along the rows of a block */
#define RTSN    (BN / TN)                /* work-items along the columns */
#define THREADS (RTSM * RTSN)            /* work-group size */
#define WARPS_N (BN / (TN * WIN))        /* warp tiles along the columns of a block */
#define LPTA    (BM * BK / 4 / THREADS)  /* float4 of A each item loads per k-step */
#define LPTB    (BK * BN / VW / THREADS) /* vectors of B each item loads per k-step */

#if VW == 4
#define floatV  float4
#define vloadV  vload4
#define vstoreV vstore4
#elif VW == 8
#define floatV  float8
#define vloadV  vload8
#define vstoreV vstore8
#else
#define floatV  float16
#define vloadV  vload16
#define vstoreV vstore16
#endif

/* Which blocks of C a launch of the body below computes. */
#define ALL_BLOCKS   0 /* every block, each load and store checked against M, N, K */
#define WHOLE_BLOCKS 1 /* only blocks wholly inside C, K % BK == 0, N % VW == 0: no checks */
#define EDGE_BLOCKS  2 /* only the others, checked */
#define PADDED       3 /* zero-padded A and B: no checks but the store to the true C */

/* Row 4*i + c of the register block gains A's value (component `lane` of av[i]) times the
 * vector bv[j] of B. */
#define FMA_ROW(i, j, c, lane)                                                                     \
    acc[4 * (i) + (c)][j] = MAD((floatV)(av[i].lane), bv[j], acc[4 * (i) + (c)][j])

/* The A tile transposed (Asub[k][m/4]: 4 rows of one k are one float4) and the B tile as stored
 * in B (Bsub[k][n/VW]); two of each. No padding: on the H200 a float4 of padding per row of
 * Asub cost 6% (41.3 against 43.8 TFLOP/s at 4096^3), though it spreads the transposing stores
 * over more banks. Per k-step an item makes LPTA*4 such stores and BK*(TM/4+TN/VW) reads; which
 * layout wins is measured, not assumed. */
typedef __local float4 (*a_tiles)[BK][BM / 4];
typedef __local floatV (*b_tiles)[BK][BN / VW];

/* The body of warp_tiled, whole_tiles, edge_tiles and padded_tiles. `blocks` is a constant in
 * each kernel, so the compiler removes the code a kernel does not need: whole_tiles keeps no
 * bounds check at all. A group returns at once when its block is not for this launch; the test
 * is the same for every item of the group, so no item of it ever reaches a barrier. C is
 * c_rows x c_cols: M x N, except in padded_tiles, where M, N and K are the padded sizes. */
inline void warp_tiled_blocks(const int M, const int N, const int K,
                              __global const float *restrict A, __global const float *restrict B,
                              __global float *restrict C, const int c_rows, const int c_cols,
                              a_tiles Asub, b_tiles Bsub, const int blocks) {
    /* Which block of C, and which slice of K. The NDRange holds blocks_m * blocks_n groups per
     * slice (split_k launches several slices, warp_tiled one). Consecutive groups walk down a
     * band of GROUP_M block rows before moving one block to the right. */
    const uint blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN;
    const uint group = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const uint slices = get_num_groups(0) * get_num_groups(1) / (blocks_m * blocks_n);
    /* (Remainders as x - (x / y) * y: Oclgrind 21.10 cannot run the code LLVM makes of a
     * division and a remainder by the same run-time value.) */
    const uint slice = group / (blocks_m * blocks_n), tile = group - slice * (blocks_m * blocks_n);
    const uint band = tile / (GROUP_M * blocks_n), in_band = tile - band * (GROUP_M * blocks_n);
    const uint band_rows = min(blocks_m - band * GROUP_M, (uint)GROUP_M);
    const uint band_col = in_band / band_rows, band_row = in_band - band_col * band_rows;
    const int row0 = (band * GROUP_M + band_row) * BM, col0 = band_col * BN;

    /* The slice's k range: whole tiles; the last slice ends at K (a slice may be empty). */
    const int tiles_all = (K + BK - 1) / BK;
    const int tiles_per_slice = (tiles_all + (int)slices - 1) / (int)slices;
    const int k_begin = slice * tiles_per_slice * BK;
    const int tiles = clamp(tiles_all - (int)slice * tiles_per_slice, 0, tiles_per_slice);

    /* This item: lane (lane / WIN, lane % WIN) of warp tile (warp / WARPS_N, warp % WARPS_N).
     * Its register block is TM/4 x TN/VW pieces of 4 rows x VW columns, spread 4*WIM rows and
     * VW*WIN columns apart in the warp's sub-tile. */
    const uint id = get_local_id(1) * RTSN + get_local_id(0); /* unsigned: / and % are cheap */
    const uint warp = id / (WIM * WIN), lane = id % (WIM * WIN);
    const int m_item = warp / WARPS_N * (TM * WIM) + lane / WIN * 4;
    const int n_item = warp % WARPS_N * (TN * WIN) + lane % WIN * VW;

    /* Whole: the block lies inside C, every k-step is a whole tile, rows of A and B are aligned
     * vectors. The same for every item of the group (and split_k's slices are never whole). */
    const bool whole =
        row0 + BM <= M && col0 + BN <= N && K % BK == 0 && N % VW == 0 && slices == 1;
    if ((blocks == WHOLE_BLOCKS && !whole) || (blocks == EDGE_BLOCKS && whole)) return;
    /* Constants: the checks compile away. */
    const bool unchecked = blocks == WHOLE_BLOCKS || blocks == PADDED;
    const bool store_unchecked = blocks == WHOLE_BLOCKS;
    const bool inside_m = unchecked || row0 + BM <= M, inside_n = unchecked || col0 + BN <= N;
    const bool a_aligned = unchecked || K % 4 == 0, b_aligned = unchecked || N % VW == 0;
    floatV acc[TM][TN / VW];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN / VW; ++j) acc[i][j] = (floatV)(0.0f);

    float4 a[LPTA]; /* the next tile, in flight in registers */
    floatV b[LPTB];
    for (int t = -1; t < tiles; ++t) {
        /* Global -> registers: tile t+1. A as float4 along k (neighbouring items take the
         * neighbouring float4 of a row), B as vectors along n. */
        const int k0 = k_begin + (t + 1) * BK;
        const bool inside_k = unchecked || k0 + BK <= K;
        if (t + 1 < tiles) { /* the same for every item of the group */
#pragma unroll
            for (int l = 0; l < LPTA; ++l) {
                const uint index = id + l * THREADS;
                const int row = row0 + index / (BK / 4), k = k0 + 4 * (index % (BK / 4));
                const size_t at = (size_t)row * K + k;
                if (inside_m && inside_k && a_aligned) {
                    a[l] = *(__global const float4 *)(A + at);
                } else if (inside_m && inside_k) {
                    a[l] = vload4(0, A + at);
                } else {
                    const bool in = row < M;
                    a[l] = (float4)(in && k < K ? A[at] : 0.0f, in && k + 1 < K ? A[at + 1] : 0.0f,
                                    in && k + 2 < K ? A[at + 2] : 0.0f,
                                    in && k + 3 < K ? A[at + 3] : 0.0f);
                }
            }
#pragma unroll
            for (int l = 0; l < LPTB; ++l) {
                const uint index = id + l * THREADS;
                const int k = k0 + index / (BN / VW), col = col0 + VW * (index % (BN / VW));
                const size_t at = (size_t)k * N + col;
                if (inside_n && inside_k && b_aligned) {
                    b[l] = *(__global const floatV *)(B + at);
                } else if (inside_n && inside_k) {
                    b[l] = vloadV(0, B + at);
                } else {
                    float part[VW];
#pragma unroll
                    for (int e = 0; e < VW; ++e) part[e] = k < K && col + e < N ? B[at + e] : 0.0f;
                    b[l] = vloadV(0, part);
                }
            }
        }

        /* Local memory -> registers -> multiply-adds, tile t: per k, TM/4 + TN/VW vector reads
         * feed TM*TN multiply-adds. */
        if (t >= 0) {
            const int buf = t % 2;
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                float4 av[TM / 4];
                floatV bv[TN / VW];
#pragma unroll
                for (int i = 0; i < TM / 4; ++i) av[i] = Asub[buf][k][m_item / 4 + i * WIM];
#pragma unroll
                for (int j = 0; j < TN / VW; ++j) bv[j] = Bsub[buf][k][n_item / VW + j * WIN];
#pragma unroll
                for (int i = 0; i < TM / 4; ++i) {
                    /* The outer product, for each float4 of A (4 rows): each vector of B
                     * meets FMA_ROWS of the rows before the next vector does. */
#if FMA_ROWS == 4
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) {
                        FMA_ROW(i, j, 0, x);
                        FMA_ROW(i, j, 1, y);
                        FMA_ROW(i, j, 2, z);
                        FMA_ROW(i, j, 3, w);
                    }
#elif FMA_ROWS == 2
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) {
                        FMA_ROW(i, j, 0, x);
                        FMA_ROW(i, j, 1, y);
                    }
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) {
                        FMA_ROW(i, j, 2, z);
                        FMA_ROW(i, j, 3, w);
                    }
#else
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) FMA_ROW(i, j, 0, x);
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) FMA_ROW(i, j, 1, y);
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) FMA_ROW(i, j, 2, z);
#pragma unroll
                    for (int j = 0; j < TN / VW; ++j) FMA_ROW(i, j, 3, w);
#endif
                }
            }
        }

        /* Registers -> the other buffer (its last readers finished before the previous
         * barrier); then one barrier per k-step. */
        if (t + 1 < tiles) {
            const int buf = (t + 1) % 2;
#pragma unroll
            for (int l = 0; l < LPTA; ++l) {
                const uint index = id + l * THREADS;
                const uint m = index / (BK / 4), k = 4 * (index % (BK / 4));
                ((__local float *)Asub[buf][k + 0])[m] = a[l].x;
                ((__local float *)Asub[buf][k + 1])[m] = a[l].y;
                ((__local float *)Asub[buf][k + 2])[m] = a[l].z;
                ((__local float *)Asub[buf][k + 3])[m] = a[l].w;
            }
#pragma unroll
            for (int l = 0; l < LPTB; ++l) {
                const uint index = id + l * THREADS;
                Bsub[buf][index / (BN / VW)][index % (BN / VW)] = b[l];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* The register block -> C (split_k: this slice's partial C), whole vectors where they fit.
     * Checked stores use vstore, which takes any alignment: a third path for rows of C that are
     * aligned vectors (a plain floatV store when c_cols % VW == 0) cost padded_tiles 7% on the
     * H200 (6000^3, 256 x 128 blocks: 41.1 against 44.2 TFLOP/s). */
    __global float *out = C + (size_t)slice * c_rows * c_cols;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + m_item + i / 4 * 4 * WIM + i % 4;
#pragma unroll
        for (int j = 0; j < TN / VW; ++j) {
            const int col = col0 + n_item + j * VW * WIN;
            const size_t at = (size_t)row * c_cols + col;
            if (!store_unchecked && (row >= c_rows || col >= c_cols)) continue;
            if (store_unchecked) { /* a whole block: N % VW == 0, so an aligned vector */
                *(__global floatV *)(out + at) = acc[i][j];
            } else if (col + VW <= c_cols) {
                vstoreV(acc[i][j], 0, out + at);
            } else {
                float part[VW];
                vstoreV(acc[i][j], 0, part);
#pragma unroll
                for (int e = 0; e < VW; ++e)
                    if (col + e < c_cols) out[at + e] = part[e];
            }
        }
    }
}

/* ---- 8. warp_tiled ------------------------------------------------------------------------------
 * double_buffer with the block of C and the register block sized per device and problem size,
 * each warp owning a compact sub-tile of the block, A loaded as float4 along k, and the groups
 * ordered in bands for the L2 cache. Faster where double_buffer's fixed block does not suit the
 * size (on the H200: 22.0 against 19.8 TFLOP/s at 1024^3). Costs
 * parameters to tune per device and size, and the bounds checks of every load and store, which
 * need registers (see whole_tiles): with the parameters tuned for whole_tiles, slower than
 * double_buffer at 4096^3 (42.7 against 43.0). */
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
warp_tiled(const int M, const int N, const int K, __global const float *restrict A,
           __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[2][BK][BM / 4];
    __local floatV Bsub[2][BK][BN / VW];
    warp_tiled_blocks(M, N, K, A, B, C, M, N, Asub, Bsub, ALL_BLOCKS);
}

/* ---- 9. split_k's second kernel: sum_slices -----------------------------------------------------
 * C = the sum of the slices' partial products, always in slice order, so the result does not
 * depend on which work-group finished first (atomics would make it vary). Costs a pass over
 * slices + 1 copies of C: worth it only when M*N is small and K long. */
__kernel void sum_slices(const int M, const int N, const int slices,
                         __global const float *restrict partial, __global float *restrict C) {
    const size_t i = get_global_id(0), count = (size_t)M * N;
    if (i >= count) return; /* no barrier in this kernel */
    float sum = partial[i];
    for (int s = 1; s < slices; ++s) sum += partial[s * count + i];
    C[i] = sum;
}

/* ---- 10. whole_tiles (with edge_tiles) ----------------------------------------------------------
 * warp_tiled compiled twice: whole_tiles computes the blocks that lie wholly inside C with no
 * bounds check at all, edge_tiles the rest with every check. Faster because the checks of
 * warp_tiled cost instructions and registers in every block, though only the edge blocks need
 * them (on the H200, 8 x 8 per item in warps of 8 x 4 items: 165 registers with the checks, 128
 * without: one group of 256 per multiprocessor against two). Costs a second launch, in which
 * the groups of whole blocks return at once. */
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
whole_tiles(const int M, const int N, const int K, __global const float *restrict A,
            __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[2][BK][BM / 4];
    __local floatV Bsub[2][BK][BN / VW];
    warp_tiled_blocks(M, N, K, A, B, C, M, N, Asub, Bsub, WHOLE_BLOCKS);
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
edge_tiles(const int M, const int N, const int K, __global const float *restrict A,
           __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[2][BK][BM / 4];
    __local floatV Bsub[2][BK][BN / VW];
    warp_tiled_blocks(M, N, K, A, B, C, M, N, Asub, Bsub, EDGE_BLOCKS);
}

/* ---- 11. padded (kernels pad_copy, then padded_tiles) -------------------------------------------
 * whole_tiles on copies of A and B padded with zeros to whole blocks (M and N rounded up to
 * multiples of BM and BN, K to a multiple of BK; a zero adds nothing to a sum), so that every
 * block takes the unchecked loads in one launch; only the store is checked, against the true C.
 * Faster where K % BK != 0 leaves whole_tiles no whole block (on the H200 at 4097^3: 40.7
 * against 37.1 TFLOP/s). Costs a copy of A and B (memory-bound, before the product), the memory
 * for it, and multiply-adds on the zeros. */
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
padded_tiles(const int M, const int N, const int K, __global const float *restrict A,
             __global const float *restrict B, __global float *restrict C, const int c_rows,
             const int c_cols) {
    __local float4 Asub[2][BK][BM / 4];
    __local floatV Bsub[2][BK][BN / VW];
    warp_tiled_blocks(M, N, K, A, B, C, c_rows, c_cols, Asub, Bsub, PADDED);
}

/* dst (dst_rows x dst_cols, dst_cols a multiple of 4) = the top-left of src (src_rows x
 * src_cols, any sizes), zeros where src has no element. Four elements per item, one aligned
 * float4 store: a quarter of the items, and wide stores. */
__kernel void pad_copy(const int src_rows, const int src_cols, __global const float *restrict src,
                       const int dst_rows, const int dst_cols, __global float *restrict dst) {
    const int col = 4 * get_global_id(0), row = get_global_id(1);
    if (col >= dst_cols || row >= dst_rows) return; /* the NDRange is rounded up; no barrier */
    float4 value = (float4)(0.0f);                  /* the padding: a zero adds nothing to a sum */
    if (row < src_rows) {
        __global const float *from = src + (size_t)row * src_cols + col;
        if (col + 3 < src_cols) {
            value = vload4(0, from); /* any alignment: src_cols need not be a multiple of 4 */
        } else {
            value.x = col < src_cols ? from[0] : 0.0f;
            value.y = col + 1 < src_cols ? from[1] : 0.0f;
            value.z = col + 2 < src_cols ? from[2] : 0.0f;
        }
    }
    vstore4(value, 0, dst + (size_t)row * dst_cols + col);
}
