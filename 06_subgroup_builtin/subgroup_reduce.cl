/* Chapter 06: one reduction, several ways of combining the values of a work-group.
 *
 * main.c writes the operation and the type in front of this file (as the Khronos SDK reduce
 * sample does), for example for --op sum --type float:
 *   #define T float                 the element type
 *   #define TV float4               T with VEC lanes (T itself when VEC is 1)
 *   #define AS_T as_float           reinterprets 32 bits as T
 *   #define OP(a, b) ((a) + (b))    associative and commutative, also lane by lane on TV
 *   #define IDENTITY 0.0f           OP(IDENTITY, x) == x
 *   #define WORK_GROUP_REDUCE work_group_reduce_add
 *   #define SUB_GROUP_REDUCE sub_group_reduce_add
 * and passes the shape as -D options:
 *   VARIANT_<NAME>   the one kernel to compile; the others (and the features they need) never
 *                    reach the compiler
 *   LOCAL_SIZE       work-items per work-group, a power of two; launches use exactly this
 *   VEC              elements per load: 1, 2, 4, 8 or 16
 *   UNROLL           loads issued before any is used, >= 1
 *   BLOCKED          1: each work-item reads its own contiguous chunk (CPUs);
 *                    0: neighbours read neighbours, interleaved (GPUs: coalesced)
 *   SUB_GROUP_WIDTH  (intel_sub_group) the forced sub-group size; divides LOCAL_SIZE
 *   USE_NV_SHUFFLE   (nv_warp_shuffle) use inline PTX; set only on NVIDIA's platform
 *
 * Every kernel reduces in[0, n) to one value per work-group in partial[group]; the host
 * launches passes until one value is left (single_pass needs one launch). */

/* ---- Shared by every variant: the cascade of chapter 04 ---------------------------------- */

/* The VEC lanes of a vector folded into one value, through a union with an array (Oclgrind
 * 21.10 crashes on the lane shuffle that v.s0 + v.s1 compiles to). */
T reduce_lanes(TV v) {
    union {
        TV vector;
        T lanes[VEC];
    } u;
    u.vector = v;
    T x = u.lanes[0];
    for (int k = 1; k < VEC; ++k) x = OP(x, u.lanes[k]);
    return x;
}

/* Blocked order: work-item i folds vectors [i * chunk, (i + 1) * chunk). A CPU runs the
 * work-items of a group one after another, so each streams its own chunk through the cache. */
TV fold_blocked(__global const TV *in_vec, const uint vectors) {
    const uint stride = get_global_size(0);
    const uint chunk = (vectors + stride - 1) / stride;
    const uint begin = get_global_id(0) * chunk, end = min(begin + chunk, vectors);
    TV acc = (TV)(IDENTITY);
    uint i = begin;
    for (; i + UNROLL <= end; i += UNROLL) {
        TV v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in_vec[i + u]; /* all loads first */
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc = OP(acc, v[u]);
    }
    for (; i < end; ++i) acc = OP(acc, in_vec[i]);
    return acc;
}

/* Interleaved order: work-item i folds vectors i, i + stride, ...: at each load the 32
 * work-items of a warp read one contiguous block. UNROLL loads are in flight per trip. */
TV fold_interleaved(__global const TV *in_vec, const uint vectors) {
    const uint stride = get_global_size(0);
    TV acc = (TV)(IDENTITY);
    uint i = get_global_id(0);
    for (; i + (UNROLL - 1) * stride < vectors; i += UNROLL * stride) {
        TV v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in_vec[i + u * stride]; /* all loads first */
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc = OP(acc, v[u]);
    }
    for (; i < vectors; i += stride) acc = OP(acc, in_vec[i]);
    return acc;
}

/* Each work-item folds its share of in[0, n) into one value, so that a fixed number of
 * work-groups covers any n. Whole vectors first (buffers start aligned to
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN, so the vector view is safe), then the last n % VEC elements
 * in a grid-stride loop: a late pass may have fewer work-items than left-over elements.
 * A work-item with nothing to read returns IDENTITY and still takes part in the group step. */
T fold_input(__global const T *restrict in, const uint n) {
    __global const TV *in_vec = (__global const TV *)in;
#if BLOCKED
    T x = reduce_lanes(fold_blocked(in_vec, n / VEC));
#else
    T x = reduce_lanes(fold_interleaved(in_vec, n / VEC));
#endif
    for (uint j = n / VEC * VEC + get_global_id(0); j < n; j += get_global_size(0))
        x = OP(x, in[j]);
    return x;
}

/* The work-group's values combined through local memory (chapter 04's tree): a barrier after
 * the first store, then the active half adds the other half, log2(LOCAL_SIZE) times, with a
 * barrier after each step. Every work-item gets the total. One more barrier lets the caller use
 * scratch again: log2(LOCAL_SIZE) + 2 in all. */
T tree_reduce(__local T *scratch, const T x) {
    const uint lid = get_local_id(0);
    scratch[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint active = LOCAL_SIZE / 2; active > 0; active /= 2) {
        if (lid < active) scratch[lid] = OP(scratch[lid], scratch[lid + active]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const T total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* ---- 1. local_tree: the portable fallback (OpenCL 1.0) ----------------------------------- */

/* Fold the input, then the local-memory tree. Runs on every device; each of its
 * log2(LOCAL_SIZE) + 2 barriers makes the whole work-group wait for its slowest work-item, and
 * most work-items sit idle in the later steps. One launch per pass. */
#ifdef VARIANT_LOCAL_TREE
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_local_tree(__global const T *restrict in, __global T *restrict partial, const uint n) {
    __local T scratch[LOCAL_SIZE];
    const T total = tree_reduce(scratch, fold_input(in, n));
    if (get_local_id(0) == 0) partial[get_group_id(0)] = total;
}
#endif

/* ---- 2. single_pass: the same tree, one launch (an order between work-groups) ------------ */

/* Changed from local_tree: after storing its partial, each work-group takes a ticket from a
 * global counter; the group that draws the last ticket adds up all partials and resets the
 * counter. One launch instead of one per pass saves the launch latency that dominates small
 * n; it costs one atomic per work-group and a serial fold of the partials by one group. */
#ifdef VARIANT_SINGLE_PASS
/* Before taking the ticket, a group's partial must be visible to the group that draws the
 * last one. The memory model of OpenCL C 2.0 (and 3.0 with device-scope acquire/release) says
 * how: a release fence before the ticket and an acquire fence after it, both at device scope,
 * synchronise through the ticket when the ticket itself is an atomic at device scope (the 1.x
 * atomic_inc is relaxed at work-group scope in that model, which links no two groups). OpenCL
 * 1.2 promises nothing across work-groups: its mem_fence orders one work-item's own loads and
 * stores (NVIDIA compiles it to membar.cta, a fence for one work-group), so the host builds
 * single_pass there only on NVIDIA, with NVIDIA_GPU_FENCE: PTX's membar.gl, a fence at GPU
 * scope in NVIDIA's memory model (CUDA's __threadfence), and partials stored and loaded with
 * atomics (no torn value, no data race). */
#if (defined(__opencl_c_atomic_scope_device) && defined(__opencl_c_atomic_order_acq_rel)) ||       \
    (__OPENCL_C_VERSION__ >= 200 && __OPENCL_C_VERSION__ < 300)
uint take_ticket(volatile __global uint *ticket) {
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
    const uint drawn = atomic_fetch_add_explicit((volatile __global atomic_uint *)ticket, 1u,
                                                 memory_order_relaxed, memory_scope_device);
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
    return drawn;
}
/* The last group's reset, a device-scope atomic like the other groups' relaxed draws: nothing
 * orders those draws before it, and two atomics of different scopes (a 1.x atomic_xchg is
 * work-group scope) that nothing orders are a data race in the memory model. */
void reset_ticket(volatile __global uint *ticket) {
    atomic_store_explicit((volatile __global atomic_uint *)ticket, 0u, memory_order_relaxed,
                          memory_scope_device);
}
/* The other work-items of the last group read what work-item 0's acquire made visible to it:
 * the barrier hands that on, at device scope for global memory. */
#define BARRIER_AFTER_TICKET()                                                                     \
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_device)
#elif defined(NVIDIA_GPU_FENCE) /* advanced, NVIDIA only; the twin is the path above */
uint take_ticket(volatile __global uint *ticket) {
    __asm__ volatile("membar.gl;" ::: "memory"); /* the release: the partial before the ticket */
    const uint drawn = atomic_inc(ticket);
    __asm__ volatile("membar.gl;" ::: "memory"); /* the acquire: the ticket before the reads */
    return drawn;
}
void reset_ticket(volatile __global uint *ticket) {
    atomic_xchg(ticket, 0u); /* NVIDIA's atomics act on the whole GPU */
}
#define BARRIER_AFTER_TICKET() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#else
#error "single_pass needs an order between work-groups (the host does not build it here)"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_single_pass(__global const T *restrict in, volatile __global uint *partial_bits,
                   volatile __global uint *ticket, __global T *restrict result, const uint n) {
    __local T scratch[LOCAL_SIZE];
    __local uint is_last;
    const uint lid = get_local_id(0), groups = get_num_groups(0);
    const T mine = tree_reduce(scratch, fold_input(in, n));
    if (lid == 0) {
        atomic_xchg(&partial_bits[get_group_id(0)], as_uint(mine));
        is_last = take_ticket(ticket) == groups - 1;
    }
    BARRIER_AFTER_TICKET();
    if (!is_last) return; /* the same for the whole work-group: no barrier is skipped */
    T folded = IDENTITY;
    for (uint g = lid; g < groups; g += LOCAL_SIZE)
        folded = OP(folded, AS_T(atomic_or(&partial_bits[g], 0u))); /* an atomic load */
    const T total = tree_reduce(scratch, folded);
    if (lid == 0) {
        *result = total;
        reset_ticket(ticket); /* ready for the next launch */
    }
}
#endif

/* ---- 3. work_group_reduce: the tree is one built-in (OpenCL C 2.0, or 3.0 + feature) ----- */

/* Changed from local_tree: tree_reduce becomes work_group_reduce_<op>. The implementation
 * picks the method (on a GPU: sub-group steps plus one exchange through local memory). It
 * still synchronises the work-group, so every work-item must reach the call. */
#ifdef VARIANT_WORK_GROUP_REDUCE
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_work_group(__global const T *restrict in, __global T *restrict partial, const uint n) {
    const T total = WORK_GROUP_REDUCE(fold_input(in, n));
    if (get_local_id(0) == 0) partial[get_group_id(0)] = total;
}
#endif

/* ---- 4. sub_group_reduce: no barrier inside a sub-group (cl_khr_subgroups / 3.0) --------- */

/* Changed from local_tree: the work-items of a sub-group (a SIMD width, a warp) reduce with
 * sub_group_reduce_<op>, no local memory and no barrier. One barrier is left: sub-group totals
 * meet in local memory, and every sub-group folds all of them (strided, so any count of any
 * size works; the SDK sample dropped the rest) and reduces again. Redundant, but no
 * collective sits in a branch that part of the sub-group skips. */
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

/* ==== Advanced, vendor-specific variants. Each has a portable twin above or below. ======== */

/* ---- 5. intel_sub_group (vendor: cl_intel_required_subgroup_size) ------------------------ */

/* Portable twin: sub_group_reduce. Changed: the sub-group width is fixed at compile time, so
 * the compiler cannot pick a narrow one (or the whole work-group), the totals' array has its
 * exact size and the last loop has constant bounds. The work-group size must be a multiple of
 * the width (PoCL 6.0 returns wrong sums otherwise; main.c never asks for that). */
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

/* ---- 6. nv_warp_shuffle (vendor: NVIDIA inline PTX) and nv_warp_emulated (its twin) ------ */

/* NVIDIA's OpenCL has no sub-group built-ins, but a warp is a sub-group of 32 and inline PTX
 * reaches its shuffle: lane i reads lane i + delta's register, 5 steps per warp, no local
 * memory, no barrier. shfl.sync names the lanes that meet (mask 0xffffffff: all 32) and makes
 * them wait for each other, which Volta and later need (their warps are not lock-step). So
 * LOCAL_SIZE is a multiple of 32 and every call is outside any branch. One barrier remains,
 * for the warp totals. nv_warp_emulated is the portable twin: the same kernel with the shuffle
 * done through local memory (two barriers per step), so the warp logic runs on any device. */
#if defined(VARIANT_NV_WARP_SHUFFLE) || defined(VARIANT_NV_WARP_EMULATED)
#define WARP  32
#define WARPS (LOCAL_SIZE / WARP)

#ifdef USE_NV_SHUFFLE
/* shfl.sync.down.b32 d, a, delta, 0x1f, mask: d = a of lane (lane + delta); lanes past 31 get
 * their own a. Only lane 0's result is used, and it never reads past lane 31. */
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
