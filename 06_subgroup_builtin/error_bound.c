/* Chapter 06: how long the chain of roundings in a float sum can be, for the check's bound. */
#include "ch06.h"

static size_t log2_ceil(size_t x) {
    size_t bits = 0;
    while (((size_t)1 << bits) < x) ++bits;
    return bits;
}

/* The most additions any input passes through on its way to the result (see
 * oclt_sum_error_bound), following the kernels: per pass, one work-item's loads, the lanes of
 * a vector, the tail, then the in-group step. Built-in collectives add in an order the
 * implementation chooses, so m values there count as a chain of m - 1. */
size_t rounding_chain(int v, const pass_plan *plan, size_t local, const tuning *tune,
                      const variant_plan *vp) {
    size_t chain = 0;
    const int passes = v == SINGLE_PASS ? 1 : plan->count;
    for (int p = 0; p < passes; ++p) {
        size_t global = plan->groups[p] * local, n = plan->n[p];
        chain += (n / (size_t)tune->vec + global - 1) / global + (size_t)tune->vec - 1 +
                 (n % (size_t)tune->vec + global - 1) / global;
        /* The widest sub-group any query or the attribute names (a wider one only lengthens
         * the chain, so the bound stays safe if a query is wrong). */
        size_t s = vp->sub_group_size > vp->width ? vp->sub_group_size : vp->width;
        if (s == 0) s = local;
        if (v == LOCAL_TREE) chain += log2_ceil(local);
        if (v == SINGLE_PASS) /* the tree, then the last group's fold of the partials and tree */
            chain += 2 * log2_ceil(local) + (plan->groups[0] + local - 1) / local;
        if (v == WORK_GROUP_REDUCE) chain += local - 1;
        if (v == SUB_GROUP_REDUCE || v == INTEL_SUB_GROUP)
            chain += 2 * (s - 1) + ((local + s - 1) / s + s - 1) / s;
        if (v == NV_WARP_SHUFFLE || v == NV_WARP_EMULATED) /* 5 steps, warp totals, 5 steps */
            chain += 10 + (local / 32 + 31) / 32;
    }
    return chain;
}
