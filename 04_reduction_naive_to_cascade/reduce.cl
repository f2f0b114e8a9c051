/* Chapter 04: the sum of n elements, from the naive tree (reduce0) to one launch at the speed of
 * memory (reduce7). reduce0..reduce6 follow Mark Harris, "Optimizing Parallel Reduction in
 * CUDA"; no kernel here assumes lock-step or an order between work-groups that its build does
 * not define (reduce7 is built only where one is: see reduce7).
 *
 * reduce0..reduce6 turn n inputs into one partial sum per work-group; the host launches the
 * same kernel again on the partials until one value is left (a "pass"). reduce7 does it all in
 * one launch.
 *
 * Build options (-D), set by the host (probe.c: build_reduce_program):
 *   T, IDENTITY  element type (float, int or double) and 0 of that type. A work-item past the
 *                end of the input adds IDENTITY, so any n >= 1 works. USE_FP64 for double.
 *   BLOCK_SIZE   the launched work-group size: a power of two, 2 .. the device's limit. Only the
 *                kernels with reqd_work_group_size(BLOCK_SIZE) depend on it (reduce5 and later,
 *                the reads); reduce0..reduce4 read get_local_size(0).
 *   TV, VEC      the vector type read by reduce6/reduce7 and the reads (float4 ...) and its
 *                number of lanes: 1 (TV is T), 2, 4, 8 or 16. The buffer base is aligned
 *                (CL_DEVICE_MEM_BASE_ADDR_ALIGN), so `in` may be read as TV.
 *   UNROLL       loads in flight per loop iteration of those kernels: 1, 2, 4 or 8.
 *   BLOCKED      their order: 1 each work-item sums one contiguous chunk (CPUs), 0 the
 *                work-items of a group read consecutive vectors, a grid apart (GPUs).
 *   C11_ATOMICS  reduce7 uses OpenCL C 2.0 acquire/release atomics and plain partials (built
 *                with -cl-std=CL2.0 or CL3.0).
 *   NVIDIA_GPU_FENCE  (NVIDIA only, without C11_ATOMICS) reduce7 orders its partials with a
 *                GPU-scope fence in inline PTX, atomic_inc and atomic partials.
 *   WITHOUT_REDUCE7  leaves reduce7 out: neither of the two above (OpenCL 1.2 itself orders
 *                nothing between work-groups), or a double partial on 1.x without 64-bit
 *                atomics.
 *   NVIDIA_WARP_SYNC, SUB_GROUPS  compile the advanced variants reduce6_warp (inline PTX) and
 *                reduce6_subgroup (cl_khr_subgroups or OpenCL C 3.0 sub-groups) where they exist.
 */
#ifdef USE_FP64
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#endif
#if defined(SUB_GROUPS) && defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

/* ---- reduce0: interleaved addressing, divergent branching ---------------------------------- */

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

/* ---- reduce1: interleaved addressing, strided index ---------------------------------------- */

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

/* ---- reduce2: sequential addressing -------------------------------------------------------- */

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

/* ---- reduce3: first add during the global load --------------------------------------------- */

/* reduce3's new load, a function because reduce4 keeps it as it is: each work-item of group g
 * adds the elements at 2*size*g + lid and one group-size further on. Both loads are guarded (the
 * second one ran past the end in the notes). */
T first_add_during_load(__global const T *in, uint n) {
    const uint size = get_local_size(0);
    const uint i = get_group_id(0) * (2 * size) + get_local_id(0);
    T v = i < n ? in[i] : IDENTITY;
    if (i + size < n) v += in[i + size];
    return v;
}

/* reduce2's tree over a group of `size` work-items, with the running sum kept in the register
 * v, halving down to `stop` values: s[0 .. 2*stop-1] then hold the last step's inputs, and with
 * stop 0 work-item 0's v is the group's sum. A function because later steps reuse it: reduce4
 * stops it early, and from reduce5 on `size` is the compile-time BLOCK_SIZE, so the loop
 * unrolls completely. Every work-item reaches every barrier. */
T tree_down_to(__local T *s, T v, uint size, uint stop) {
    const uint lid = get_local_id(0);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint off = size / 2; off > stop; off >>= 1) {
        if (lid < off) s[lid] = v = v + s[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v;
}

/* Changed: each work-item loads two elements and adds them before the tree
 * (first_add_during_load): half as many work-groups for the same n. The running sum stays in
 * the register v (tree_down_to). Still costs: a barrier and a loop test per tree step, even in
 * the last steps where a few work-items are active. */
__kernel void reduce3(__global const T *in, __global T *out, uint n, __local T *s) {
    const T v = tree_down_to(s, first_add_during_load(in, n), get_local_size(0), 0);
    if (get_local_id(0) == 0) out[get_group_id(0)] = v;
}

/* ---- reduce4: the last six steps unrolled --------------------------------------------------- */

/* Changed: the loop stops at 64 values and the last six steps are written out, so they cost no
 * loop counter or test. Harris also dropped their barriers (one warp runs them in lock-step);
 * no device promises that (see reduce4_racy), so each step keeps its barrier here: the
 * lock-step versions are the advanced variants reduce6_warp and reduce6_subgroup. A step whose
 * offset is not below the group size has nothing to add. Still costs: the run-time group size
 * in every test. */
__kernel void reduce4(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    T v = tree_down_to(s, first_add_during_load(in, n), size, 32);
    if (lid < 32 && 32 < size) s[lid] = v = v + s[lid + 32];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 16 && 16 < size) s[lid] = v = v + s[lid + 16];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 8 && 8 < size) s[lid] = v = v + s[lid + 8];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4 && 4 < size) s[lid] = v = v + s[lid + 4];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 2 && 2 < size) s[lid] = v = v + s[lid + 2];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) out[get_group_id(0)] = v + s[1];
}

/* ---- reduce4_racy: the classic warp-synchronous tail (counter-example) --------------------- */

/* NOT CORRECT: Harris's tail (through `volatile`, with no sync; the notes drop even the
 * volatile) relies on the 32 work-items of a warp running in lock-step. Nothing in OpenCL (nor
 * CUDA since Volta) promises that: on a CPU each work-item runs the whole tail before the next
 * starts. oclgrind --data-races reports it. Needs a group of at least 64 (the host checks).
 * Runs only with --variant reduce4_racy. */
__kernel void reduce4_racy(__global const T *in, __global T *out, uint n, __local T *s) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint first = get_group_id(0) * (2 * size) + lid; /* the notes' reduce4, loads guarded */
    s[lid] = (first < n ? in[first] : IDENTITY) + (first + size < n ? in[first + size] : IDENTITY);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = size / 2; off > 32; off >>= 1) {
        if (lid < off) s[lid] += s[lid + off];
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

/* ---- reduce5: completely unrolled for a compile-time group size ---------------------------- */

/* The tree of one group: every work-item passes its value v, work-item 0 gets the sum of all
 * BLOCK_SIZE of them. BLOCK_SIZE is a compile-time constant, so tree_down_to's loop unrolls
 * completely into log2(BLOCK_SIZE) steps with constant offsets. Every work-item reaches every
 * barrier; the last one lets a caller reuse s. reduce5 introduces it; later steps use it as it
 * is. */
T group_tree_sum(__local T *s, T v) {
    return tree_down_to(s, v, BLOCK_SIZE, 0);
}

/* Changed: the group size is the compile-time BLOCK_SIZE (the host launches exactly that, and
 * reqd_work_group_size makes any other size an error): the local array is static and the tree
 * (group_tree_sum) unrolls completely, no loop counter and no run-time tests. Still costs: one
 * element pair per work-item, so a tree and a group launch for every 2*BLOCK_SIZE elements. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce5(__global const T *in, __global T *out, uint n) {
    __local T s[BLOCK_SIZE];
    const uint i = get_group_id(0) * (2 * BLOCK_SIZE) + get_local_id(0);
    T v = i < n ? in[i] : IDENTITY;
    if (i + BLOCK_SIZE < n) v += in[i + BLOCK_SIZE];
    v = group_tree_sum(s, v);
    if (get_local_id(0) == 0) out[get_group_id(0)] = v;
}

/* ---- reduce6: algorithm cascading ----------------------------------------------------------- */

/* The sum of the VEC lanes of x. A union may be read through another member than the one last
 * written (OpenCL C, "Reinterpreting Types Using Unions"). (A .lo + .hi halving compiles to
 * vector shuffles that crash Oclgrind 21.10's --uninitialized check.) */
typedef union {
    TV vector;
    T lane[VEC];
} lanes;

T lane_sum(TV x) {
    lanes u;
    u.vector = x;
    T v = u.lane[0];
    for (int k = 1; k < VEC; ++k) v += u.lane[k];
    return v;
}

/* The last n % VEC elements, which do not fill a vector, one by one. A grid-stride loop, since a
 * late pass or --local 2 can have fewer work-items than left-over elements. */
T leftover_sum(__global const T *in, uint n) {
    T v = IDENTITY;
    for (uint j = n / VEC * VEC + get_global_id(0); j < n; j += get_global_size(0)) v += in[j];
    return v;
}

/* A work-item's share of the input, GPU order: vectors gid, gid + G, gid + 2G, ... with G =
 * get_global_size(0) (the notes stepped by 2 * blocksize * blocksize instead, so elements
 * were skipped or read twice depending on the number of groups: docs/errata.md). The work-items of
 * a warp read consecutive vectors at each step: coalesced. UNROLL independent loads are issued
 * before they are added, so several are in flight. */
T sum_interleaved(__global const T *in, uint n) {
    const uint items = get_global_size(0), vectors = n / VEC;
    __global const TV *vin = (__global const TV *)in;
    TV acc = (TV)(IDENTITY);
    uint i = get_global_id(0);
    for (; i + (UNROLL - 1) * items < vectors; i += UNROLL * items) {
        TV x[UNROLL];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) x[k] = vin[i + k * items];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) acc += x[k];
    }
    for (; i < vectors; i += items) acc += vin[i];
    return lane_sum(acc) + leftover_sum(in, n);
}

/* The same share, CPU order: one contiguous chunk of vectors per work-item. A CPU runs a group's
 * work-items one after another on one core, and one long stream is what its prefetcher wants;
 * on a GPU the lanes of a warp would read a chunk apart. */
T sum_blocked(__global const T *in, uint n) {
    const uint gid = get_global_id(0), items = get_global_size(0), vectors = n / VEC;
    const uint chunk = (vectors + items - 1) / items, end = min(gid * chunk + chunk, vectors);
    __global const TV *vin = (__global const TV *)in;
    TV acc = (TV)(IDENTITY);
    uint i = min(gid * chunk, vectors);
    for (; i + UNROLL <= end; i += UNROLL) {
        TV x[UNROLL];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) x[k] = vin[i + k];
#pragma unroll
        for (uint k = 0; k < UNROLL; ++k) acc += x[k];
    }
    for (; i < end; ++i) acc += vin[i];
    return lane_sum(acc) + leftover_sum(in, n);
}

/* Changed: a fixed number of groups (a few per compute unit, chosen on the host) covers the whole
 * input; each work-item first sums many elements in registers, VEC at a time and UNROLL loads in
 * flight, in the device's order, then the group runs reduce5's tree once. The tree and the group
 * launch are paid once per thousands of elements: the kernel reads at the speed of memory. Still
 * costs: a second launch for the one partial per group (a few microseconds: reduce7). */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce6(__global const T *restrict in, __global T *restrict out, uint n) {
    __local T s[BLOCK_SIZE];
    T v = BLOCKED ? sum_blocked(in, n) : sum_interleaved(in, n);
    v = group_tree_sum(s, v);
    if (get_local_id(0) == 0) out[get_group_id(0)] = v;
}

/* ---- reduce7: one launch, the last group adds the partials ---------------------------------- */

#ifndef WITHOUT_REDUCE7 /* set by the host where no order between work-groups is defined */
/* How a partial crosses from one group to another. With C11_ATOMICS (OpenCL C 2.0+), as plain
 * memory: the ticket's release (after the store) and acquire (before the loads) order the two,
 * so they do not race. OpenCL 1.x atomics have no release or acquire, and a plain store in one
 * group with a plain load in another is a data race; they have no atomic load or store either,
 * so on the NVIDIA_GPU_FENCE path the partials travel as bits: atomic_xchg writes,
 * atomic_or(p, 0) reads (for double, atom_xchg and atom_add(p, 0) of
 * cl_khr_int64_base_atomics: its 64-bit atom_or is in cl_khr_int64_extended_atomics, which a
 * device may lack). */
#ifndef C11_ATOMICS
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef ulong T_BITS;
#else
typedef uint T_BITS;
#endif
typedef union {
    T value;
    T_BITS bits;
} partial_bits;
#endif

void publish_partial(__global T *slot, T v) {
#ifdef C11_ATOMICS
    *slot = v;
#else
    partial_bits u;
    u.value = v;
#ifdef USE_FP64
    atom_xchg((volatile __global ulong *)slot, u.bits);
#else
    atomic_xchg((volatile __global uint *)slot, u.bits);
#endif
#endif
}

T read_partial(__global T *slot) {
#ifdef C11_ATOMICS
    return *slot;
#else
    partial_bits u;
#ifdef USE_FP64
    u.bits = atom_add((volatile __global ulong *)slot, 0ul);
#else
    u.bits = atomic_or((volatile __global uint *)slot, 0u);
#endif
    return u.value;
#endif
}

/* NVIDIA only: a fence at GPU scope (see reduce7). */
#ifdef NVIDIA_GPU_FENCE
void gpu_fence(void) {
    __asm__ volatile("membar.gl;" ::: "memory");
}
#endif

/* Changed: no second launch. Each group publishes its partial, then work-item 0 takes a ticket
 * from a global counter; the group that draws the last ticket knows every other partial is
 * published, sums them with the same tree, writes out[0] and resets the counter for the next
 * launch. A launch of one group (small n) has nothing to hand over and skips all of it. Still
 * costs: after the last group's loads, two dependent atomics, the reads of the partials and a
 * second tree (about 1-2 us on the H200: docs/04).
 *
 * Why the last group sees every partial:
 *   C11_ATOMICS (OpenCL C 2.0+): the ticket is an acq_rel fetch_add at memory_scope_device. Each
 *   group's store of its partial is sequenced before its release; every release and the last
 *   group's acquire act on one atomic object, so every store happens-before work-item 0 of the
 *   last group passes its ticket. The barrier after it, at memory_scope_device for global
 *   memory, hands that on to the group's other work-items, all at device scope.
 *   NVIDIA_GPU_FENCE (advanced, NVIDIA only; its portable twin is the C11_ATOMICS path):
 *   OpenCL 1.2 has "no guarantees of memory consistency between different work-groups executing
 *   a kernel" (OpenCL 3.0 API spec 3.3.4; 3.3.1 in 1.2), and NVIDIA's driver compiles
 *   mem_fence(CLK_GLOBAL_MEM_FENCE) to membar.cta, a fence for one work-group. PTX's membar.gl
 *   is a fence at GPU scope (fence.sc.gpu in NVIDIA's memory model): fence, then the ticket's
 *   atomic is a release pattern in that model, and the ticket's atomic, then a fence, an
 *   acquire pattern. This is CUDA's threadFenceReduction with __threadfence. Elsewhere, without
 *   C11_ATOMICS, the host leaves reduce7 out: docs/04. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce7(__global const T *restrict in, __global T *restrict out, uint n, __global T *partials,
        __global uint *tickets) {
    __local T s[BLOCK_SIZE];
    __local int is_last;
    const uint lid = get_local_id(0), groups = get_num_groups(0);
    T v = BLOCKED ? sum_blocked(in, n) : sum_interleaved(in, n);
    v = group_tree_sum(s, v);
    if (groups == 1) { /* the same for the whole group: all of it returns here */
        if (lid == 0) out[0] = v;
        return;
    }
    if (lid == 0) {
        publish_partial(&partials[get_group_id(0)], v);
#ifdef C11_ATOMICS
        uint ticket = atomic_fetch_add_explicit((volatile __global atomic_uint *)tickets, 1u,
                                                memory_order_acq_rel, memory_scope_device);
#else
        gpu_fence(); /* the release: the partial before the ticket */
        uint ticket = atomic_inc(tickets);
        gpu_fence(); /* the acquire: the ticket before the partials this group may read */
#endif
        is_last = ticket == groups - 1;
    }
    /* Global fence too: the other work-items of the last group read what work-item 0 published
     * and, with C11_ATOMICS, what its acquire made visible to it (hence device scope). */
#ifdef C11_ATOMICS
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_device);
#else
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#endif
    if (is_last) { /* the same for the whole group: its barriers are reached by all */
        T w = IDENTITY;
        for (uint g = lid; g < groups; g += BLOCK_SIZE) w += read_partial(&partials[g]);
        w = group_tree_sum(s, w);
        if (lid == 0) {
            out[0] = w;
            atomic_xchg(tickets, 0u);
        }
    }
}
#endif /* WITHOUT_REDUCE7 */

/* ---- Aside: reduce3 with async_work_group_copy (the Khronos reduce sample) ------------------ */

/* Changed from reduce3: the group copies its 2*BLOCK_SIZE elements into local memory with one
 * async_work_group_copy (a DMA engine may do it while the work-items wait) and waits with
 * wait_group_events; the last group copies only what is left. The spec does not say that the
 * wait makes the copy visible to every work-item as a barrier would, so a barrier follows. Still
 * costs: what reduce3 costs, plus a trip through local memory that the registers avoided. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce3_async(__global const T *in, __global T *out, uint n) {
    __local T s[2 * BLOCK_SIZE];
    const uint lid = get_local_id(0), first = get_group_id(0) * (2 * BLOCK_SIZE);
    const uint count = min(2u * BLOCK_SIZE, n - first);
    event_t copied = async_work_group_copy(s, in + first, count, 0);
    wait_group_events(1, &copied);
    barrier(CLK_LOCAL_MEM_FENCE);
    T v = lid < count ? s[lid] : IDENTITY;
    if (lid + BLOCK_SIZE < count) v += s[lid + BLOCK_SIZE];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read s before the tree overwrites it */
    v = group_tree_sum(s, v);
    if (lid == 0) out[get_group_id(0)] = v;
}

/* ---- Advanced: lock-step tails (each has the portable twin reduce6) ------------------------- */

#ifdef NVIDIA_WARP_SYNC
/* NVIDIA only (inline PTX; SKIP elsewhere). Changed from reduce6: the last six steps run in warp
 * 0 (work-items 0..31) alone, with bar.warp.sync between steps instead of a work-group barrier.
 * Since Volta a warp's threads are scheduled independently, so the sync is required; `lid < 32`
 * is uniform per warp, so the whole warp reaches it. Needs BLOCK_SIZE >= 32. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce6_warp(__global const T *restrict in, __global T *restrict out, uint n) {
    __local T s[BLOCK_SIZE];
    const uint lid = get_local_id(0);
    T v = tree_down_to(s, BLOCKED ? sum_blocked(in, n) : sum_interleaved(in, n), BLOCK_SIZE, 32);
    if (lid < 32) {
#pragma unroll
        for (uint off = 32; off > 0; off >>= 1) {
            if (lid < off && off < BLOCK_SIZE) s[lid] = v = v + s[lid + off];
            __asm__ volatile("bar.warp.sync -1;" ::: "memory");
        }
        if (lid == 0) out[get_group_id(0)] = v;
    }
}
#endif

#ifdef SUB_GROUPS
/* Sub-groups (cl_khr_subgroups, or OpenCL C 3.0 with __opencl_c_subgroups; SKIP elsewhere).
 * Changed from reduce6: the tree uses work-group barriers down to one sub-group's width, then
 * sub-group 0 finishes with sub_group_barrier, whichever work-items the implementation put in
 * it (t is the index within the sub-group). The width must be a power of two, and every
 * sub-group full, so that sub-group 0 holds `width` items (the host checks both).
 * In one step the reads [off, 2off) and the writes [0, off) do not overlap: one sync suffices. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
reduce6_subgroup(__global const T *restrict in, __global T *restrict out, uint n) {
    __local T s[BLOCK_SIZE];
    const uint lid = get_local_id(0), width = min((uint)get_max_sub_group_size(), (uint)BLOCK_SIZE);
    T v = tree_down_to(s, BLOCKED ? sum_blocked(in, n) : sum_interleaved(in, n), BLOCK_SIZE,
                       width / 2);
    if (get_sub_group_id() == 0) {
        const uint t = get_sub_group_local_id();
        v = s[t];
        for (uint off = width / 2; off > 0; off >>= 1) {
            if (t < off) s[t] = v = v + s[t + off];
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (t == 0) out[get_group_id(0)] = v;
    }
}
#endif

/* ---- Reference kernels: what reading the input costs, without the reduction ---------------- */

/* stream_read: reduce6's loads alone, in the device's order, one partial per work-item (the host
 * adds them). Its GB/s is this device's streaming-read bandwidth, measured in the same run. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
stream_read(__global const T *restrict in, __global T *restrict out, uint n) {
    out[get_global_id(0)] = BLOCKED ? sum_blocked(in, n) : sum_interleaved(in, n);
}

/* strided_read: the same loads in the other order: on a GPU the lanes of a warp read a chunk
 * apart (uncoalesced); on a CPU a core's consecutive loads jump a whole grid apart. */
__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void
strided_read(__global const T *restrict in, __global T *restrict out, uint n) {
    out[get_global_id(0)] = BLOCKED ? sum_interleaved(in, n) : sum_blocked(in, n);
}
