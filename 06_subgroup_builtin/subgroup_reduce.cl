/* Chapter 06: one reduction, five ways of combining the values of a work-group.
 *
 * main.c prepends the operation and the type (as the Khronos SDK reduce sample does), e.g.
 *   #define T float / TV float4 / AS_T as_float
 *   #define OP(a, b) ((a) + (b))      an associative, commutative operation that also works
 *   #define IDENTITY 0.0f             lane by lane on vectors, and its identity element
 *   #define WORK_GROUP_REDUCE work_group_reduce_add, SUB_GROUP_REDUCE sub_group_reduce_add
 * and passes the tuning as -D options:
 *   VARIANT_<NAME>   the one kernel to compile: the others (and the features they need) never
 *                    reach the compiler
 *   LOCAL_SIZE       work-items per work-group, a power of two; launches must use exactly this
 *   VEC              elements per load: 1, 2, 4, 8 or 16 (TV is T with VEC lanes)
 *   UNROLL           loads in flight per work-item and loop trip, >= 1
 *   BLOCKED          0: interleaved order (GPUs: neighbours read neighbours, coalesced);
 *                    1: blocked order (CPUs: each work-item streams its own chunk)
 *   SUB_GROUP_WIDTH  (intel_sub_group) the forced sub-group size; must divide LOCAL_SIZE
 *   USE_NV_SHUFFLE   (nv_warp_shuffle) inline PTX; set only on NVIDIA's platform
 *
 * Every kernel reduces in[0, n) to one value per work-group in partial[group]; the host runs
 * passes until one value is left. */

#if VEC != 1 && VEC != 2 && VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 1, 2, 4, 8 or 16"
#endif
#define PASTE_(a, b) a##b
#define PASTE(a, b)  PASTE_(a, b) /* expands its arguments first: PASTE(vstore, VEC) */

/* The VEC lanes of a vector folded into one value, through a private array. (Written as
 * OP(v.s0, v.s1) and .lo/.hi halves, LLVM makes a vector shuffle with an undefined lane of it,
 * on which Oclgrind 21.10's --uninitialized check crashes.) */
T reduce_lanes(TV v) {
#if VEC == 1
    return v;
#else
    T lanes[VEC];
    PASTE(vstore, VEC)(v, 0, lanes);
    T x = lanes[0];
    for (int k = 1; k < VEC; ++k) x = OP(x, lanes[k]);
    return x;
#endif
}

/* Shared by every variant (the cascade of chapter 04): each work-item folds its share of the
 * input into one value, so that a fixed number of work-groups (compute units x GROUPS_PER_CU)
 * covers any n. VEC-wide loads, UNROLL of them issued before any is used, keep many bytes in
 * flight; one accumulator keeps registers low, so that all work-groups fit on the device at
 * once and finish together. The order suits the device: interleaved on a GPU (work-item i
 * reads vectors i, i + stride, ...: a warp reads one contiguous block per load), blocked on a
 * CPU (a work-item is a loop iteration there, and a contiguous chunk streams through the
 * cache). A work-item with no element left holds IDENTITY, so every work-item takes part in
 * the in-group step. The vector view is safe: buffers start aligned to
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN, and only whole vectors below n / VEC are read through it. */
T fold_input(__global const T *restrict in, const uint n) {
    __global const TV *in_vec = (__global const TV *)in;
    const uint stride = get_global_size(0);
    const uint vectors = n / VEC;
    TV acc = (TV)(IDENTITY);
#if BLOCKED
    const uint chunk = (vectors + stride - 1) / stride;
    const uint begin = get_global_id(0) * chunk, end = min(begin + chunk, vectors);
    uint i = begin;
    for (; i + UNROLL <= end; i += UNROLL) {
        TV v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in_vec[i + u]; /* all loads first */
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc = OP(acc, v[u]);
    }
    for (; i < end; ++i) acc = OP(acc, in_vec[i]);
#else
    uint i = get_global_id(0);
    for (; i + (UNROLL - 1) * stride < vectors; i += UNROLL * stride) {
        TV v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in_vec[i + u * stride]; /* all loads first */
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc = OP(acc, v[u]);
    }
    for (; i < vectors; i += stride) acc = OP(acc, in_vec[i]);
#endif
    T x = reduce_lanes(acc);
    /* The last n % VEC elements, in a grid-stride loop: a late pass may have fewer work-items
     * than there are left-over elements. */
    for (uint j = vectors * VEC + get_global_id(0); j < n; j += stride) x = OP(x, in[j]);
    return x;
}

/* 1. local_tree: the portable fallback (OpenCL 1.0). Values go to local memory and the active
 *    half adds the other half, log2(LOCAL_SIZE) times; a barrier after each step makes every
 *    work-item wait for the slowest, and most work-items sit idle in the later steps. */
#ifdef VARIANT_LOCAL_TREE
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_local_tree(__global const T *restrict in, __global T *restrict partial, const uint n) {
    __local T scratch[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    scratch[lid] = fold_input(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint active = LOCAL_SIZE / 2; active > 0; active /= 2) {
        if (lid < active) scratch[lid] = OP(scratch[lid], scratch[lid + active]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
#endif

/* 2. work_group_reduce: the whole tree above is one built-in (OpenCL C 2.0, or 3.0 with
 *    __opencl_c_work_group_collective_functions). The implementation picks the method (on a
 *    GPU: sub-group steps plus one exchange through local memory); it must still synchronise
 *    the work-group, and every work-item must reach the call. */
#ifdef VARIANT_WORK_GROUP_REDUCE
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_work_group(__global const T *restrict in, __global T *restrict partial, const uint n) {
    const T total = WORK_GROUP_REDUCE(fold_input(in, n));
    if (get_local_id(0) == 0) partial[get_group_id(0)] = total;
}
#endif

/* 3. sub_group_reduce: the work-items of a sub-group (a SIMD width, a warp) run together, so
 *    their reduction needs no barrier. One barrier is left: sub-group totals meet in local
 *    memory. Every sub-group then folds all totals (strided: any count of sub-groups of any
 *    size; the SDK sample assumed a multiple of twice the sub-group size and dropped the rest)
 *    and reduces them again; redundant, but no collective sits in a divergent branch. */
#if defined(VARIANT_SUB_GROUP_REDUCE) || defined(VARIANT_INTEL_SUB_GROUP)
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#endif

#ifdef VARIANT_SUB_GROUP_REDUCE
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_sub_group(__global const T *restrict in, __global T *restrict partial, const uint n) {
    __local T sub_totals[LOCAL_SIZE]; /* one per sub-group: enough even for sub-groups of 1 */
    const T mine = SUB_GROUP_REDUCE(fold_input(in, n));
    if (get_sub_group_local_id() == 0) sub_totals[get_sub_group_id()] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    T folded = IDENTITY;
    for (uint s = get_sub_group_local_id(); s < get_num_sub_groups(); s += get_sub_group_size())
        folded = OP(folded, sub_totals[s]);
    const T total = SUB_GROUP_REDUCE(folded);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = total;
}
#endif

/* 4. intel_sub_group: the same, with the sub-group width fixed at compile time through
 *    cl_intel_required_subgroup_size, so the compiler cannot pick a narrow one, the totals'
 *    array has its exact size and the last loop has constant bounds. The work-group size must
 *    be a multiple of the width (PoCL 6.0 returns wrong sums otherwise; main.c never asks). */
#ifdef VARIANT_INTEL_SUB_GROUP
#define SUB_GROUPS (LOCAL_SIZE / SUB_GROUP_WIDTH)
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
__attribute__((intel_reqd_sub_group_size(SUB_GROUP_WIDTH))) void
reduce_intel_sub_group(__global const T *restrict in, __global T *restrict partial, const uint n) {
    __local T sub_totals[SUB_GROUPS];
    const T mine = SUB_GROUP_REDUCE(fold_input(in, n));
    if (get_sub_group_local_id() == 0) sub_totals[get_sub_group_id()] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    T folded = IDENTITY;
    for (uint s = get_sub_group_local_id(); s < SUB_GROUPS; s += SUB_GROUP_WIDTH)
        folded = OP(folded, sub_totals[s]);
    const T total = SUB_GROUP_REDUCE(folded);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = total;
}
#endif

/* 5. nv_warp_shuffle: NVIDIA's OpenCL has no sub-group built-ins, but a warp is a sub-group of
 *    32 and inline PTX reaches its shuffle: lane i reads lane i + delta's register, no local
 *    memory and no barrier, 5 steps per warp. One barrier remains for the warp totals. The
 *    shuffle names all 32 lanes (mask 0xffffffff), so every lane of every warp must execute it:
 *    LOCAL_SIZE is a multiple of 32 and the calls are outside any branch.
 *    nv_warp_emulated compiles the same code with the shuffle done through local memory
 *    (two barriers per step), so that the warp logic can be checked on any device. */
#if defined(VARIANT_NV_WARP_SHUFFLE) || defined(VARIANT_NV_WARP_EMULATED)
#define WARP  32
#define WARPS (LOCAL_SIZE / WARP)

#ifdef USE_NV_SHUFFLE
/* shfl.sync.down.b32 d, a, delta, 0x1f, mask: d = a of lane (lane + delta); lanes past 31 get
 * their own a. Only the result of lane 0 is used, and it never reads past lane 31. */
uint shuffle_down(uint value, uint delta, __local uint *exchange) {
    uint result;
    __asm__ volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                     : "=r"(result)
                     : "r"(value), "r"(delta));
    return result;
}
#define EXCHANGE_ITEMS 1 /* registers only: the local array is unused */
#else
uint shuffle_down(uint value, uint delta, __local uint *exchange) {
    const uint lid = get_local_id(0);
    exchange[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint result = lid % WARP + delta < WARP ? exchange[lid + delta] : value;
    barrier(CLK_LOCAL_MEM_FENCE);
    return result;
}
#define EXCHANGE_ITEMS LOCAL_SIZE
#endif

/* After the loop, lane 0 of each warp holds the warp's total (other lanes hold partial sums). */
T warp_reduce(T x, __local uint *exchange) {
    for (uint delta = WARP / 2; delta > 0; delta /= 2)
        x = OP(x, AS_T(shuffle_down(as_uint(x), delta, exchange)));
    return x;
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_nv_warp(__global const T *restrict in, __global T *restrict partial, const uint n) {
    __local T warp_totals[WARPS];
    __local uint exchange[EXCHANGE_ITEMS];
    const uint lid = get_local_id(0), lane = lid % WARP;
    const T mine = warp_reduce(fold_input(in, n), exchange);
    if (lane == 0) warp_totals[lid / WARP] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    T folded = IDENTITY;
    for (uint w = lane; w < WARPS; w += WARP) folded = OP(folded, warp_totals[w]);
    const T total = warp_reduce(folded, exchange);
    if (lid == 0) partial[get_group_id(0)] = total;
}
#endif
