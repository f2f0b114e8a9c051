/* Chapter 04: sum of n elements, the classic progression reduce0 -> reduce6 (Mark Harris,
 * "Optimizing Parallel Reduction in CUDA"), written to be correct on every OpenCL device.
 *
 * Every reduce kernel turns `n` inputs into one partial sum per work-group; the host launches
 * it again on the partials until one value is left (main.c: plan_passes).
 *
 * Defines set by the host (main.c: build_program):
 *   T, IDENTITY  element type (float, int or double) and the identity of + for it (0). Items
 *                past the end of the input load IDENTITY, so any n >= 1 works. USE_FP64 is
 *                set for double.
 *   BLOCK_SIZE   the launched work-group size: a power of two >= 2. Only reduce5, reduce6 and
 *                the two read kernels depend on it (their local arrays and
 *                reqd_work_group_size); reduce0..reduce4 read get_local_size(0).
 *   LOCKSTEP     width of the unrolled tail: a power of two. With SYNC_WARP_PTX it is the warp
 *                (32), with SYNC_SUB_GROUP the sub-group size; both need BLOCK_SIZE >= LOCKSTEP.
 *   SYNC_WARP_PTX / SYNC_SUB_GROUP / neither: how the tail's work-items wait for each other.
 *   VEC, UNROLL  reduce6 and the read kernels: elements per load (1, 2, 4, 8 or 16) and loads
 *                in flight per loop iteration (1, 2, 4 or 8).
 *   BLOCKED      1: reduce6 and stream_read sweep in blocked order (CPUs), 0: interleaved
 *                (GPUs); see sweep_sum.
 */
#ifdef USE_FP64
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#endif
#if defined(SYNC_SUB_GROUP) && defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

/* ---- The unrolled tail (reduce4, reduce5, reduce6) -------------------------------------- */

/* Which work-items run the tail, their index in it, and the wait between two steps. Lock-step
 * execution is never assumed: even a warp needs a sync between one step's write and the next
 * step's read (Volta and later schedule its threads independently; CPUs run work-items one
 * after another). The condition in TAIL_ACTIVE is uniform per warp/sub-group, so the
 * warp/sub-group barrier inside it is reached by all of its members. */
#if defined(SYNC_WARP_PTX)
/* NVIDIA: warp 0 (work-items 0..31) runs the tail; bar.warp.sync orders its local memory. */
#define TAIL_ACTIVE(lid) ((lid) < LOCKSTEP)
#define TAIL_INDEX(lid)  (lid)
#define TAIL_SYNC()      asm volatile("bar.warp.sync -1;" ::: "memory")
#elif defined(SYNC_SUB_GROUP)
/* Sub-group 0 runs the tail, whichever work-items the implementation put in it. */
#define TAIL_ACTIVE(lid) (get_sub_group_id() == 0)
#define TAIL_INDEX(lid)  get_sub_group_local_id()
#define TAIL_SYNC()      sub_group_barrier(CLK_LOCAL_MEM_FENCE)
#else
/* No lock-step width known: every work-item of the group runs the tail and meets every
 * barrier; only the additions are guarded. */
#define TAIL_ACTIVE(lid) 1
#define TAIL_INDEX(lid)  (lid)
#define TAIL_SYNC()      barrier(CLK_LOCAL_MEM_FENCE)
#endif

/* The last steps of the tree, offsets LOCKSTEP, LOCKSTEP/2, ..., 1, unrolled (LOCKSTEP is a
 * compile-time constant), and the group's sum written to out[group]. s[0 .. 2*LOCKSTEP-1]
 * (or all of s when the group is smaller) must hold the values and be visible to the caller's
 * work-items (a barrier before the call). In one step, work-items t < off read s[t + off] and
 * write s[t]: the two ranges do not overlap, so one sync per step suffices. `size` is the
 * group size: steps with off >= size have nothing to add and are skipped by the whole group. */
void tail_reduce(__local T *s, uint size, __global T *out) {
    const uint lid = get_local_id(0);
    if (TAIL_ACTIVE(lid)) {
        const uint t = TAIL_INDEX(lid);
        T v = s[t];
#pragma unroll
        for (uint off = LOCKSTEP; off > 0; off >>= 1) {
            if (off < size) {
                if (t < off) s[t] = v = v + s[t + off];
                TAIL_SYNC();
            }
        }
        if (t == 0) out[get_group_id(0)] = v;
    }
}

/* ---- reduce0: interleaved addressing, divergent branching -------------------------------- */

/* One element per work-item; at step i, work-items whose index is a multiple of 2*i add their
 * neighbour i places away. Costs: the % is slow, and the active work-items are scattered, so
 * every warp stays busy (divergent) until the last steps while doing less and less. */
__kernel void reduce0(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
    s[lid] = gid < n ? in[gid] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 1; i < size; i *= 2) { /* starts at 1: i = 0 never ends */
        if (lid % (2 * i) == 0) s[lid] += s[lid + i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}

/* ---- reduce1: interleaved addressing, strided index -------------------------------------- */

/* Changed: work-item lid handles the pair at 2*i*lid, so the active work-items are the first
 * ones and whole warps retire together (no divergence, no %). Still costs: the strided index
 * makes work-items of a warp hit the same local-memory banks (2-way, 4-way, ... conflicts). */
__kernel void reduce1(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);
    s[lid] = gid < n ? in[gid] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 1; i < size; i *= 2) {
        const uint index = 2 * i * lid;
        if (index < size) s[index] += s[index + i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}

/* ---- reduce2: sequential addressing ------------------------------------------------------- */

/* Changed: the offset halves from size/2 down to 1 and work-item lid adds s[lid + off]:
 * consecutive work-items touch consecutive words, so there are no bank conflicts. Still costs:
 * half of the work-items only load one element and then idle from the first step on. */
__kernel void reduce2(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0), gid = get_global_id(0);
    s[lid] = gid < n ? in[gid] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = get_local_size(0) / 2; off > 0; off >>= 1) {
        if (lid < off) s[lid] += s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}

/* ---- reduce3: first add during the global load ------------------------------------------ */

/* Changed: each work-item loads two elements, one group-size apart, and adds them before the
 * tree: half as many work-groups for the same n. Both loads are guarded (the second one ran
 * past the end in the notes). Still costs: a barrier per tree step, even for the last steps
 * where only a few work-items are active. */
T load_pair(__global const T *in, uint n) {
    const uint size = get_local_size(0);
    const uint i = get_group_id(0) * (2 * size) + get_local_id(0);
    T v = i < n ? in[i] : IDENTITY;
    if (i + size < n) v += in[i + size];
    return v;
}

__kernel void reduce3(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0);
    T v = load_pair(in, n);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = get_local_size(0) / 2; off > 0; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = v;
}

/* ---- reduce4: the last "warp" unrolled ---------------------------------------------------- */

/* Changed: the tree loop stops at LOCKSTEP pairs; tail_reduce unrolls the rest with a cheap
 * warp or sub-group sync instead of a work-group barrier (a plain barrier where the device has
 * neither). Still costs: the loop bounds depend on the run-time group size. */
__kernel void reduce4(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0);
    T v = load_pair(in, n);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = get_local_size(0) / 2; off > LOCKSTEP; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    tail_reduce(s, get_local_size(0), out);
}

/* ---- reduce4_racy: the classic warp-synchronous tail (counter-example) ------------------ */

/* NOT CORRECT: the notes' tail, `volatile` and no sync, relies on the 32 work-items of a warp
 * running in lock-step. Nothing in OpenCL (nor CUDA since Volta) promises that: on a CPU each
 * work-item runs the whole tail before the next starts. oclgrind --data-races reports it.
 * Needs a group of at least 64 (the host checks). Run only with --variant reduce4_racy. */
__kernel void reduce4_racy(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0);
    T v = load_pair(in, n);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = get_local_size(0) / 2; off > 32; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 32) {
        volatile __local T *vs = s;
        vs[lid] += vs[lid + 32];
        vs[lid] += vs[lid + 16];
        vs[lid] += vs[lid + 8];
        vs[lid] += vs[lid + 4];
        vs[lid] += vs[lid + 2];
        vs[lid] += vs[lid + 1];
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
}

/* ---- reduce5: completely unrolled for a compile-time group size ------------------------- */

/* Changed: the group size is the compile-time BLOCK_SIZE (the host launches exactly that, and
 * reqd_work_group_size makes any other size an error), so every loop below has constant
 * bounds and unrolls completely: no loop counter, no run-time comparisons. Still costs: one
 * element pair per work-item, so the tree and the launch are paid for every 2*BLOCK_SIZE
 * elements. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce5(__global const T *in, __global T *out, uint n) {
    __local T s[BLOCK_SIZE];
    const uint lid = get_local_id(0);
    T v = load_pair(in, n);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint off = BLOCK_SIZE / 2; off > LOCKSTEP; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    tail_reduce(s, BLOCK_SIZE, out);
}

/* ---- reduce6: algorithm cascading ------------------------------------------------------- */

/* Wide types for the cascaded loads: TV is T with VEC lanes (float4 for VEC 4). */
#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)
#if VEC == 1
typedef T TV;
#else
typedef CAT(T, VEC) TV;
#endif

/* The sum of the VEC lanes of x, through a private array. (Written as .lo + .hi halvings it
 * compiles to vector shuffles that crash Oclgrind 21.10's --uninitialized check.) */
T lane_sum(TV x) {
#if VEC == 1
    return x;
#else
    T lanes[VEC];
    CAT(vstore, VEC)(x, 0, lanes);
    T v = lanes[0];
    for (int k = 1; k < VEC; ++k) v += lanes[k];
    return v;
#endif
}

/* One work-item's share of a sweep over the whole input by all get_global_size(0)
 * work-items, in one of two orders:
 *   interleaved (blocked == 0): vectors gid, gid + stride, gid + 2*stride, ... with stride =
 *     get_global_size(0) (the notes used the group size: every group then re-read the same
 *     elements). At each step the work-items of a group read consecutive vectors, so a GPU
 *     merges a warp's loads into a few wide transactions (coalescing).
 *   blocked (blocked == 1): a contiguous chunk of vectors per work-item. A CPU runs a group's
 *     work-items one after another on one core, and this is the order its prefetcher and TLB
 *     want; on a GPU the lanes of a warp would read chunk*VEC elements apart.
 * UNROLL independent loads are issued before they are added, so several are in flight. The
 * base of a buffer is aligned (CL_DEVICE_MEM_BASE_ADDR_ALIGN), so `in` may be read as TV; the
 * last n % VEC elements are read one by one, in a grid-stride loop: a small grid (a late pass,
 * or --local 2) can have fewer work-items than there are left-over elements. */
T sweep_sum(__global const T *in, uint n, int blocked) {
    const uint gid = get_global_id(0), items = get_global_size(0), vectors = n / VEC;
    const uint chunk = (vectors + items - 1) / items;
    const uint first = blocked ? min(gid * chunk, vectors) : gid;
    const uint step = blocked ? 1 : items;
    const uint end = blocked ? min(first + chunk, vectors) : vectors;
    __global const TV *vin = (__global const TV *)in;
    TV acc = (TV)(IDENTITY);
    uint i = first;
    for (; i + (UNROLL - 1) * step < end; i += UNROLL * step) {
        TV x[UNROLL];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) x[k] = vin[i + k * step];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) acc += x[k];
    }
    for (; i < end; i += step) acc += vin[i];
    T v = lane_sum(acc);
    for (uint j = vectors * VEC + gid; j < n; j += items) v += in[j];
    return v;
}

/* Changed: a fixed number of groups (a few per compute unit, chosen on the host) sweeps the
 * whole input, each work-item summing many elements in registers (sweep_sum) before the
 * one tree of reduce5. The tree and the group launch are now paid once per thousands of
 * elements, and the loads are wide and several in flight: the kernel runs at the speed of
 * memory. Still costs: a second, tiny pass over one partial per group. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce6(__global const T *restrict in, __global T *restrict out, uint n) {
    __local T s[BLOCK_SIZE];
    const uint lid = get_local_id(0);
    T v = sweep_sum(in, n, BLOCKED);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint off = BLOCK_SIZE / 2; off > LOCKSTEP; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    tail_reduce(s, BLOCK_SIZE, out);
}

/* ---- Reference kernels: what reading the input costs, without the reduction ------------ */

/* stream_read: reduce6's sweep alone, in the device's order, one partial per work-item (the
 * host adds them). Its GB/s is this device's streaming-read bandwidth in the same run. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
stream_read(__global const T *restrict in, __global T *restrict out, uint n) {
    out[get_global_id(0)] = sweep_sum(in, n, BLOCKED);
}

/* strided_read: the same sweep in the other order, strided for this device's unit of
 * execution: on a GPU the lanes of a warp read a chunk apart (uncoalesced); on a CPU a core's
 * consecutive loads jump a whole grid apart. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
strided_read(__global const T *restrict in, __global T *restrict out, uint n) {
    out[get_global_id(0)] = sweep_sum(in, n, !BLOCKED);
}
