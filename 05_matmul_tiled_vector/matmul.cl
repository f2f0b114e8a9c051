/* Chapter 05: C = A * B for row-major float matrices; A is M x K, B is K x N, C is M x N.
 *
 * Every kernel is correct for any M, N, K >= 1 with guarded loads: an element outside A or B
 * reads as 0 (so a partial tile adds nothing to the sums) and stores outside C are skipped. The
 * register-tiled kernels test once per tile whether it lies wholly inside the matrices and take
 * an unguarded path when it does, so the guards cost nothing in the interior.
 *
 * The host passes the tuning as -D defines (defaults below let the file compile on its own) and
 * checks every constraint stated here before building. Arguments of every matmul kernel:
 * (M, N, K, A, B, C). Dimension 0 of the NDRange runs along the columns of C, dimension 1 along
 * the rows, so neighbouring work-items read neighbouring addresses of B and C. Rows and columns
 * are int; offsets into a matrix are size_t (row * K alone may pass 2^31). */

/* Tuning (the host checks every constraint and says which one a bad OCLT_MATMUL_TUNE breaks):
 *   TS     tiled, more_work, vector: TS x TS tiles; TS*TS <= the max work-group size
 *   WPT    more_work, vector: outputs per work-item; TS must be divisible by WPT
 *   WIDTH  vector: 2, 4, 8 or 16 (a floatn type); TS must be divisible by WIDTH
 *   TSM    reg2d, double_buffer*: rows of C per work-group; divisible by WPTM
 *   TSN    columns of C per work-group; divisible by WPTN
 *   TSK    depth of one k-step; TSK*TSM/4 and TSK*TSN/VWN divisible by the work-group size
 *   WPTM   rows of C per work-item, a multiple of 4 (read from local memory as float4)
 *   WPTN   columns of C per work-item, a multiple of VWN
 *   VWN    columns per vector of the B tile and of the register block: 4, 8 or 16; 4 (float4,
 *          the widest local load) on GPUs, one SIMD register on CPUs
 * Set by the host from the problem and the device:
 *   B_ALIGNED  1 when N % VWN == 0: rows of B and C are read and written as aligned vectors
 *   MAD        fma where the device fuses in hardware, else mad (which a compiler may split
 *              into a multiply and an add: PoCL does, halving the peak of many CPUs); mul_add
 *              on an embedded-profile device, where mad may have any error
 *   PEAK_TYPE  fp32_peak's type: float, float2, ... float16 (the preferred vector width) */
#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 4
#endif
#ifndef WIDTH
#define WIDTH 4
#endif
#ifndef TSM
#define TSM 64
#endif
#ifndef TSN
#define TSN 64
#endif
#ifndef TSK
#define TSK 8
#endif
#ifndef WPTM
#define WPTM 4
#endif
#ifndef WPTN
#define WPTN 4
#endif
#ifndef VWN
#define VWN 4
#endif
#ifndef B_ALIGNED
#define B_ALIGNED 0
#endif
#ifndef MAD
#define MAD mad
#endif
#define mul_add(a, b, c) ((a) * (b) + (c)) /* two correctly rounded operations, or one fma */
#ifndef PEAK_TYPE
#define PEAK_TYPE float
#endif

/* ---- 1. naive -----------------------------------------------------------------------------------
 * One output per work-item, K multiply-adds straight from global memory. Each element of A
 * and B is fetched from global memory N and M times: 2 loads per multiply-add, so the kernel
 * runs at the speed of memory (or of the cache), far below the arithmetic units. */
__kernel void naive(const int M, const int N, const int K, __global const float *restrict A,
                    __global const float *restrict B, __global float *restrict C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= M || col >= N) return; /* no barrier in this kernel, so an early return is safe */
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = MAD(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

/* ---- 2. tiled -----------------------------------------------------------------------------------
 * A work-group of TS x TS items copies a TS x TS tile of A and of B into local memory, then
 * every item reads its row and column from there: each global element is fetched once per
 * tile instead of TS times. Costs two barriers per tile, and still one local load per operand
 * of every multiply-add. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
tiled(const int M, const int N, const int K, __global const float *restrict A,
      __global const float *restrict B, __global float *restrict C) {
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TS + tx;
    const int row = get_group_id(1) * TS + ty;
    /* Items outside C load 0 and stay to the end: every item must reach every barrier. */
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        Asub[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bsub[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TS; ++k) acc = MAD(Asub[ty][k], Bsub[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE); /* the tile is overwritten next */
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

/* ---- 3. more_work -------------------------------------------------------------------------------
 * Same tiles, but a work-group of TS x (TS/WPT) items: each computes WPT outputs of one column
 * (rows ty, ty + RTS, ...). The B element Bsub[k][tx] is read once and used WPT times from a
 * register, and there are WPT times fewer items to schedule. Costs WPT accumulators per item;
 * A is still read from local memory once per multiply-add. */
#define RTS (TS / WPT) /* work-items along the rows of a tile */

__kernel __attribute__((reqd_work_group_size(TS, RTS, 1))) void
more_work(const int M, const int N, const int K, __global const float *restrict A,
          __global const float *restrict B, __global float *restrict C) {
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TS + tx;
    const int row0 = get_group_id(1) * TS;
    float acc[WPT]; /* in registers: every index is a constant after unrolling */
#pragma unroll
    for (int w = 0; w < WPT; ++w) acc[w] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
#pragma unroll
        for (int w = 0; w < WPT; ++w) {
            const int r = ty + w * RTS;
            Asub[r][tx] = row0 + r < M && k0 + tx < K ? A[(size_t)(row0 + r) * K + k0 + tx] : 0.0f;
            Bsub[r][tx] = k0 + r < K && col < N ? B[(size_t)(k0 + r) * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TS; ++k) {
            const float b = Bsub[k][tx];
#pragma unroll
            for (int w = 0; w < WPT; ++w) acc[w] = MAD(Asub[ty + w * RTS][k], b, acc[w]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (int w = 0; w < WPT; ++w) {
        const int row = row0 + ty + w * RTS;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[w];
    }
}

/* ---- 4. vector ----------------------------------------------------------------------------------
 * more_work with floatn (n = WIDTH) along k: rows of A are loaded with vloadn, the B tile is
 * stored transposed so that a column of B is also contiguous along k, and the multiply-adds
 * are floatn operations into n partial sums per output, added up at the end. One local load
 * now feeds n multiply-adds. Costs the transposing stores of B and a short sum per output. */
#define VPT (TS / WIDTH) /* vectors per tile row */

/* floatW: a vector of WIDTH floats, with its load and store functions. */
#if WIDTH == 2
typedef float2 floatW;
#define vloadW  vload2
#define vstoreW vstore2
#elif WIDTH == 4
typedef float4 floatW;
#define vloadW  vload4
#define vstoreW vstore4
#elif WIDTH == 8
typedef float8 floatW;
#define vloadW  vload8
#define vstoreW vstore8
#else
typedef float16 floatW;
#define vloadW  vload16
#define vstoreW vstore16
#endif

/* The WIDTH partial sums of an output added pairwise: a tree of depth log2(WIDTH) <= 4. (Not
 * v.lo + v.hi: Oclgrind 21.10's uninitialized-value checker crashes on such shuffles.) */
inline float sum_elements(floatW v) {
    float part[WIDTH];
    vstoreW(v, 0, part);
    for (int span = WIDTH / 2; span > 0; span /= 2)
        for (int i = 0; i < span; ++i) part[i] += part[i + span];
    return part[0];
}

/* A[row][k .. k+WIDTH-1] as one vector; elements outside A read as 0. */
inline floatW load_row_vector(__global const float *A, int row, int k, int M, int K) {
    if (row < M && k + WIDTH <= K) return vloadW(0, A + (size_t)row * K + k);
    float part[WIDTH];
    for (int i = 0; i < WIDTH; ++i)
        part[i] = row < M && k + i < K ? A[(size_t)row * K + k + i] : 0.0f;
    return vloadW(0, part);
}

/* B[k .. k+WIDTH-1][col], a piece of one column, as one vector; outside B reads as 0. */
inline floatW load_column_vector(__global const float *B, int k, int col, int K, int N) {
    float part[WIDTH];
    for (int i = 0; i < WIDTH; ++i)
        part[i] = k + i < K && col < N ? B[(size_t)(k + i) * N + col] : 0.0f;
    return vloadW(0, part);
}

__kernel __attribute__((reqd_work_group_size(TS, RTS, 1))) void
vector(const int M, const int N, const int K, __global const float *restrict A,
       __global const float *restrict B, __global float *restrict C) {
    __local floatW Asub[TS][VPT];      /* Asub[m][v] = A[row0 + m][k0 + v*WIDTH + 0..WIDTH-1] */
    __local floatW BTsub[TS][VPT + 1]; /* BTsub[n][v] = B[k0 + v*WIDTH + 0..WIDTH-1][col0 + n];
                                          +1: rows tx, tx+1 start in different banks */
    const int tx = get_local_id(0), ty = get_local_id(1);
    const uint id = ty * TS + tx; /* unsigned: i / VPT and i % VPT become a shift and a mask */
    const int col0 = get_group_id(0) * TS, row0 = get_group_id(1) * TS;
    floatW acc[WPT];
#pragma unroll
    for (int w = 0; w < WPT; ++w) acc[w] = (floatW)(0.0f);
    for (int k0 = 0; k0 < K; k0 += TS) {
        for (uint i = id; i < TS * VPT; i += TS * RTS) {
            /* A: neighbouring items read neighbouring vectors of a row. */
            Asub[i / VPT][i % VPT] =
                load_row_vector(A, row0 + i / VPT, k0 + (i % VPT) * WIDTH, M, K);
            /* B: neighbouring items read neighbouring columns; each gathers WIDTH rows. */
            BTsub[i % TS][i / TS] =
                load_column_vector(B, k0 + (i / TS) * WIDTH, col0 + i % TS, K, N);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int v = 0; v < VPT; ++v) {
            /* Row tx of the transposed tile is column col0 + tx of B: the one this item's
             * outputs need (the notes' kernel read row ty here; see the chapter's errata). */
            const floatW b = BTsub[tx][v];
#pragma unroll
            for (int w = 0; w < WPT; ++w) acc[w] = MAD(Asub[ty + w * RTS][v], b, acc[w]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (int w = 0; w < WPT; ++w) {
        const int row = row0 + ty + w * RTS, col = col0 + tx;
        if (row < M && col < N) C[(size_t)row * N + col] = sum_elements(acc[w]);
    }
}

/* ---- Shared by the 2-D register-tiled kernels (reg2d, double_buffer, double_buffer_async) -------
 * A work-group of RTSN x RTSM items computes a TSM x TSN block of C. Each item owns a WPTM x
 * WPTN register block made of pieces 4 rows high (a float4 of the A tile) and VWN columns wide
 * (a vector of the B tile), spread RTSM*4 rows and RTSN*VWN columns apart. With TSM = TSN =
 * 128, WPTM = WPTN = 8, VWN = 4 (16 x 16 items), item (tx, ty) owns the 2 x 2 pieces marked:
 *
 *                  col 0    4*tx          64    64+4*tx         127
 *          row 0   +--------+----+--------+--------+----+--------+
 *                  |        |    |        |        |    |        |
 *           4*ty   |        |####|        |        |####|        |   4 rows each
 *                  |        |    |        |        |    |        |
 *             64   +--------+----+--------+--------+----+--------+
 *        64+4*ty   |        |####|        |        |####|        |
 *                  |        |    |        |        |    |        |
 *            127   +--------+----+--------+--------+----+--------+
 *
 * so that in one k-step the items of a row read RTSN neighbouring vectors of the B tile (no
 * bank conflicts) and the items of a column read the same float4 of the A tile (a broadcast).
 * The A tile is stored transposed, Asub[k][m/4], so that both operands are vector reads along m
 * and n: WPTM/4 + WPTN/VWN local loads feed WPTM * WPTN multiply-adds. */
#define RTSM    (TSM / WPTM)  /* work-items along the rows */
#define RTSN    (TSN / WPTN)  /* work-items along the columns */
#define THREADS (RTSM * RTSN) /* work-group size */
/* float4 of the A tile and vectors of the B tile that each item loads per k-step */
#define LPTA    (TSK * TSM / 4 / THREADS)
#define LPTB    (TSK * TSN / VWN / THREADS)
/* One float4 of padding per row of the A tile: the transposing stores of items with
 * neighbouring k then land in different banks. */
#define APAD    1

/* floatV: a vector of VWN floats, with its load and store functions. */
#if VWN == 4
typedef float4 floatV;
#define vloadV  vload4
#define vstoreV vstore4
#elif VWN == 8
typedef float8 floatV;
#define vloadV  vload8
#define vstoreV vstore8
#else
typedef float16 floatV;
#define vloadV  vload16
#define vstoreV vstore16
#endif

typedef __local float4 (*a_tile)[TSM / 4 + APAD];
typedef __local floatV (*b_tile)[TSN / VWN];

/* An element of a matrix with `cols` columns, or 0 outside it. */
inline float element_or_zero(__global const float *X, int row, int col, int rows, int cols) {
    return row < rows && col < cols ? X[(size_t)row * cols + col] : 0.0f;
}

/* Global -> registers: the A tile at (row0, k0) as LPTA float4, each four rows of one k.
 * Neighbouring items take neighbouring k of a row: a warp reads whole 32-byte sectors. */
inline void load_a(float4 regs[LPTA], __global const float *A, int M, int K, int row0, int k0,
                   uint id, bool inside) {
#pragma unroll
    for (int i = 0; i < LPTA; ++i) {
        const uint index = id + i * THREADS;
        const int k = k0 + index % TSK, row = row0 + 4 * (index / TSK);
        if (inside)
            regs[i] = (float4)(A[(size_t)row * K + k], A[(size_t)(row + 1) * K + k],
                               A[(size_t)(row + 2) * K + k], A[(size_t)(row + 3) * K + k]);
        else
            regs[i] =
                (float4)(element_or_zero(A, row, k, M, K), element_or_zero(A, row + 1, k, M, K),
                         element_or_zero(A, row + 2, k, M, K),
                         element_or_zero(A, row + 3, k, M, K));
    }
}

/* Global -> registers: the B tile at (k0, col0) as LPTB vectors along rows of B. */
inline void load_b(floatV regs[LPTB], __global const float *B, int K, int N, int k0, int col0,
                   uint id, bool inside) {
#pragma unroll
    for (int i = 0; i < LPTB; ++i) {
        const uint index = id + i * THREADS;
        const int k = k0 + index / (TSN / VWN), col = col0 + VWN * (index % (TSN / VWN));
        if (inside) {
#if B_ALIGNED
            regs[i] = *(__global const floatV *)(B + (size_t)k * N + col); /* N % VWN == 0 */
#else
            regs[i] = vloadV(0, B + (size_t)k * N + col);
#endif
        } else {
            float part[VWN];
#pragma unroll
            for (int j = 0; j < VWN; ++j) part[j] = element_or_zero(B, k, col + j, K, N);
            regs[i] = vloadV(0, part);
        }
    }
}

/* Registers -> local memory, in the same order as the loads. */
inline void store_tiles(a_tile Asub, b_tile Bsub, const float4 a[LPTA], const floatV b[LPTB],
                        uint id) {
#pragma unroll
    for (int i = 0; i < LPTA; ++i) {
        const uint index = id + i * THREADS;
        Asub[index % TSK][index / TSK] = a[i];
    }
#pragma unroll
    for (int i = 0; i < LPTB; ++i) {
        const uint index = id + i * THREADS;
        Bsub[index / (TSN / VWN)][index % (TSN / VWN)] = b[i];
    }
}

/* acc += (A tile) x (B tile) for this item's register block: per k, WPTM/4 + WPTN/VWN vector
 * loads from local memory and WPTM * WPTN multiply-adds (outer products), all unrolled so that
 * the block stays in registers. It works on a copy, c: where a compiler does not inline this
 * function and cannot tell acc from the tiles (PoCL puts every address space in one), it would
 * otherwise store acc back after every multiply-add. */
inline void multiply_tiles(floatV acc[WPTM][WPTN / VWN], a_tile Asub, b_tile Bsub, int tx, int ty) {
    floatV c[WPTM][WPTN / VWN];
#pragma unroll
    for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < WPTN / VWN; ++j) c[i][j] = acc[i][j];
#pragma unroll
    for (int k = 0; k < TSK; ++k) {
        float4 a[WPTM / 4];
        floatV b[WPTN / VWN];
#pragma unroll
        for (int i = 0; i < WPTM / 4; ++i) a[i] = Asub[k][ty + i * RTSM];
#pragma unroll
        for (int j = 0; j < WPTN / VWN; ++j) b[j] = Bsub[k][tx + j * RTSN];
#pragma unroll
        for (int i = 0; i < WPTM / 4; ++i) {
#pragma unroll
            for (int j = 0; j < WPTN / VWN; ++j) {
                c[4 * i + 0][j] = MAD((floatV)(a[i].x), b[j], c[4 * i + 0][j]);
                c[4 * i + 1][j] = MAD((floatV)(a[i].y), b[j], c[4 * i + 1][j]);
                c[4 * i + 2][j] = MAD((floatV)(a[i].z), b[j], c[4 * i + 2][j]);
                c[4 * i + 3][j] = MAD((floatV)(a[i].w), b[j], c[4 * i + 3][j]);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < WPTN / VWN; ++j) acc[i][j] = c[i][j];
}

inline void zero_block(floatV acc[WPTM][WPTN / VWN]) {
#pragma unroll
    for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < WPTN / VWN; ++j) acc[i][j] = (floatV)(0.0f);
}

/* The register block -> C, as whole vectors where they fit; only elements inside C are
 * written. */
inline void store_c(__global float *C, const floatV acc[WPTM][WPTN / VWN], int M, int N, int row0,
                    int col0, int tx, int ty) {
#pragma unroll
    for (int i = 0; i < WPTM; ++i) {
        const int row = row0 + 4 * (ty + (i / 4) * RTSM) + i % 4;
#pragma unroll
        for (int j = 0; j < WPTN / VWN; ++j) {
            const int col = col0 + VWN * (tx + j * RTSN);
            if (row >= M || col >= N) continue;
#if B_ALIGNED
            *(__global floatV *)(C + (size_t)row * N + col) = acc[i][j]; /* col + VWN <= N */
#else
            if (col + VWN <= N) {
                vstoreV(acc[i][j], 0, C + (size_t)row * N + col);
            } else {
                float part[VWN];
                vstoreV(acc[i][j], 0, part);
#pragma unroll
                for (int c = 0; c < VWN; ++c)
                    if (col + c < N) C[(size_t)row * N + col + c] = part[c];
            }
#endif
        }
    }
}

/* ---- 5. reg2d -----------------------------------------------------------------------------------
 * 2-D register blocking: each item computes WPTM x WPTN outputs from vector reads of a
 * transposed A tile and of a B tile (see above), so one local load feeds 8 or more multiply-adds
 * (16 with the GPU defaults, about 51 with the CPU's) and the arithmetic units, not memory, set
 * the pace. Costs registers (WPTM*WPTN accumulators) and, still, two barriers per k-step during
 * which the loads of the next tile wait. */
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
reg2d(const int M, const int N, const int K, __global const float *restrict A,
      __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[TSK][TSM / 4 + APAD];
    __local floatV Bsub[TSK][TSN / VWN];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const uint id = ty * RTSN + tx; /* unsigned: index / TSK etc. are shifts and masks */
    const int col0 = get_group_id(0) * TSN, row0 = get_group_id(1) * TSM;
    const bool inside_m = row0 + TSM <= M, inside_n = col0 + TSN <= N;
    floatV acc[WPTM][WPTN / VWN];
    zero_block(acc);
    float4 a[LPTA];
    floatV b[LPTB];
    for (int k0 = 0; k0 < K; k0 += TSK) {
        const bool inside_k = k0 + TSK <= K;
        load_a(a, A, M, K, row0, k0, id, inside_m && inside_k);
        load_b(b, B, K, N, k0, col0, id, inside_n && inside_k);
        store_tiles(Asub, Bsub, a, b, id);
        barrier(CLK_LOCAL_MEM_FENCE);
        multiply_tiles(acc, Asub, Bsub, tx, ty);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_c(C, acc, M, N, row0, col0, tx, ty);
}

/* ---- 6. double_buffer (kernel double_buffer_regs: the prefetch goes through registers) ----------
 * reg2d with two local tiles: while the items multiply tile t, the loads of tile t+1 are
 * already in flight into registers; they go to the other local buffer afterwards, and one
 * barrier per k-step is enough (a buffer is rewritten only after the barrier that ends its
 * last use). Costs twice the local memory and LPTA + LPTB more vector registers. */
__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
double_buffer_regs(const int M, const int N, const int K, __global const float *restrict A,
                   __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[2][TSK][TSM / 4 + APAD];
    __local floatV Bsub[2][TSK][TSN / VWN];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const uint id = ty * RTSN + tx; /* unsigned: index / TSK etc. are shifts and masks */
    const int col0 = get_group_id(0) * TSN, row0 = get_group_id(1) * TSM;
    const bool inside_m = row0 + TSM <= M, inside_n = col0 + TSN <= N;
    const int tiles = (K + TSK - 1) / TSK;
    floatV acc[WPTM][WPTN / VWN];
    zero_block(acc);
    float4 a[LPTA];
    floatV b[LPTB];
    load_a(a, A, M, K, row0, 0, id, inside_m && TSK <= K);
    load_b(b, B, K, N, 0, col0, id, inside_n && TSK <= K);
    store_tiles(Asub[0], Bsub[0], a, b, id);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < tiles; ++t) {
        const int next_k0 = (t + 1) * TSK;
        const bool inside_k = next_k0 + TSK <= K;
        if (t + 1 < tiles) { /* the same for every item of the group */
            load_a(a, A, M, K, row0, next_k0, id, inside_m && inside_k);
            load_b(b, B, K, N, next_k0, col0, id, inside_n && inside_k);
        }
        multiply_tiles(acc, Asub[t % 2], Bsub[t % 2], tx, ty);
        if (t + 1 < tiles) store_tiles(Asub[(t + 1) % 2], Bsub[(t + 1) % 2], a, b, id);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_c(C, acc, M, N, row0, col0, tx, ty);
}

/* ---- 7. double_buffer_async ---------------------------------------------------------------------
 * double_buffer with the notes' built-in copy: async_work_group_copy (and its strided twin, for
 * the transposed A tile) fills the other buffer while the group multiplies this one, and
 * wait_group_events + one barrier end a k-step.
 * Faster only where the driver really copies in the background; costs 2*TSK copy calls per tile
 * (a strided gather for each column of A), and on NVIDIA it is the slowest step (see the docs). */

/* Rows first_k.. of both tiles to 0 (the padding of the A tile is never read). */
inline void zero_rows(a_tile Asub, b_tile Bsub, int first_k, uint id) {
    for (int k = first_k; k < TSK; ++k) {
        for (uint i = id; i < TSM / 4; i += THREADS) Asub[k][i] = (float4)(0.0f);
        for (uint i = id; i < TSN / VWN; i += THREADS) Bsub[k][i] = (floatV)(0.0f);
    }
}

/* Starts the copies of the tiles at (row0, k0) and (k0, col0); returns their shared event. */
inline event_t copy_tiles_async(a_tile Asub, b_tile Bsub, __global const float *A,
                                __global const float *B, int M, int N, int K, int row0, int col0,
                                int k0, uint id) {
    const int rows = min(TSM, M - row0), cols = min(TSN, N - col0), depth = min(TSK, K - k0);
    /* Column k of the A tile (stride K in A) -> row k of the transposed tile. */
    event_t copied = async_work_group_strided_copy(
        (__local float *)Asub[0], A + (size_t)row0 * K + k0, (size_t)rows, (size_t)K, 0);
    for (int k = 1; k < depth; ++k)
        copied =
            async_work_group_strided_copy((__local float *)Asub[k], A + (size_t)row0 * K + k0 + k,
                                          (size_t)rows, (size_t)K, copied);
    for (int k = 0; k < depth; ++k) {
        if (B_ALIGNED && cols == TSN) /* whole aligned vectors */
            copied = async_work_group_copy(
                Bsub[k], (__global const floatV *)(B + (size_t)(k0 + k) * N + col0),
                (size_t)(TSN / VWN), copied);
        else
            copied = async_work_group_copy((__local float *)Bsub[k],
                                           B + (size_t)(k0 + k) * N + col0, (size_t)cols, copied);
    }
    /* The last tile may end beyond K: its rows there must read as 0 (the copies do not reach
     * them, and they hold an earlier tile). */
    zero_rows(Asub, Bsub, depth, id);
    return copied;
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void
double_buffer_async(const int M, const int N, const int K, __global const float *restrict A,
                    __global const float *restrict B, __global float *restrict C) {
    __local float4 Asub[2][TSK][TSM / 4 + APAD];
    __local floatV Bsub[2][TSK][TSN / VWN];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const uint id = ty * RTSN + tx; /* unsigned: i / (TSN / VWN) etc. are shifts and masks */
    const int col0 = get_group_id(0) * TSN, row0 = get_group_id(1) * TSM;
    const int tiles = (K + TSK - 1) / TSK;
    floatV acc[WPTM][WPTN / VWN];
    zero_block(acc);
    /* Both buffers to 0 once: what the copies of an edge tile leave out stays 0. */
    for (int buffer = 0; buffer < 2; ++buffer) zero_rows(Asub[buffer], Bsub[buffer], 0, id);
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t copied = copy_tiles_async(Asub[0], Bsub[0], A, B, M, N, K, row0, col0, 0, id);
    wait_group_events(1, &copied);
    barrier(CLK_LOCAL_MEM_FENCE); /* also orders the zeroes other items wrote */
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            copied = copy_tiles_async(Asub[(t + 1) % 2], Bsub[(t + 1) % 2], A, B, M, N, K, row0,
                                      col0, (t + 1) * TSK, id);
        multiply_tiles(acc, Asub[t % 2], Bsub[t % 2], tx, ty);
        if (t + 1 < tiles) wait_group_events(1, &copied);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_c(C, acc, M, N, row0, col0, tx, ty);
}

/* ---- fp32_peak ----------------------------------------------------------------------------------
 * Not a matrix product: the device's FP32 multiply-add rate, the roof each step is measured
 * against. 16 independent chains of x = x*a + b per item keep the pipelines full; the host
 * passes a = b = 1 (unknown to the compiler, so it cannot skip the work), so each chain counts
 * x0 + n exactly and the host checks that every step ran. */
__kernel void fp32_peak(__global PEAK_TYPE *out, const float a, const float b,
                        const int iterations) {
    const int id = get_global_id(0);
    PEAK_TYPE x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) x[j] = (PEAK_TYPE)((float)(id % 7 + j));
    for (int i = 0; i < iterations; i += 4) { /* iterations: a multiple of 4 */
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int j = 0; j < 16; ++j) x[j] = MAD(x[j], (PEAK_TYPE)(a), (PEAK_TYPE)(b));
    }
    PEAK_TYPE sum = (PEAK_TYPE)(0.0f);
#pragma unroll
    for (int j = 0; j < 16; ++j) sum += x[j];
    out[id] = sum;
}
