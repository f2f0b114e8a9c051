/* Chapter 04: the passes of each variant, and their timing: device time from events (all passes)
 * and end-to-end time on a host clock, from the first enqueue to the scalar on the host. */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>

static size_t div_up(size_t a, size_t b) {
    return (a + b - 1) / b;
}

/* Groups of a sweep over `count` elements: at most max_groups, and only as many as give each
 * work-item 8 unrolled iterations, so a pass over a few thousand partials is a single group. */
size_t sweep_groups(const geometry *g, size_t count) {
    size_t groups = div_up(count, g->local * g->vec * g->unroll * 8);
    return groups < 1 ? 1 : groups > g->max_groups ? g->max_groups : groups;
}

/* Each pass turns `count` elements into `groups` partial sums, until one is left (reductions), or
 * one pass that leaves a partial per work-item (the reference reads), or one launch (reduce7). */
size_t plan_passes(int v, size_t n, const geometry *g, pass_plan *passes) {
    size_t count = n, pass_count = 0;
    do {
        size_t groups = plans[v].shape == ONE_PER_ITEM    ? div_up(count, g->local)
                        : plans[v].shape == PAIR_PER_ITEM ? div_up(count, 2 * g->local)
                                                          : sweep_groups(g, count);
        passes[pass_count++] = (pass_plan){count, groups};
        count = groups;
    } while (plans[v].reduces && !plans[v].single_launch && count > 1 && pass_count < MAX_PASSES);
    return pass_count;
}

static size_t log2_size(size_t x) {
    size_t k = 0;
    while (x > 1) x >>= 1, ++k;
    return k;
}

/* The longest chain of additions any input element passes through (for the float bound): per
 * pass, the additions in one work-item's registers plus the tree's log2(local) levels; reduce7
 * adds the last group's loop over the partials and a second tree. In registers (SWEEP), an
 * element of a vector is added into its own lane of acc, once per vector the item reads (the
 * first addition, to the identity, is exact), then lane_sum adds the VEC lanes one after another
 * and one more addition brings in leftover_sum; a left-over element passes through
 * leftover_sum's loop and that last addition. */
size_t addition_chain(int v, const geometry *g, const pass_plan *passes, size_t count) {
    size_t chain = 0, tree = log2_size(g->local);
    for (size_t p = 0; p < count; ++p) {
        size_t in_registers = plans[v].shape == PAIR_PER_ITEM; /* ONE_PER_ITEM: 0 */
        if (plans[v].shape == SWEEP) {
            size_t vectors = passes[p].count / g->vec, stride = passes[p].groups * g->local;
            size_t in_lane = div_up(vectors, stride) - (vectors > 0) + (g->vec - 1) + 1;
            size_t leftover = div_up(passes[p].count % g->vec, stride); /* - 1 exact, + 1 */
            in_registers = in_lane > leftover ? in_lane : leftover;
        }
        chain += in_registers + (plans[v].reduces ? tree : 0);
    }
    if (plans[v].single_launch) chain += div_up(passes[0].groups, g->local) + tree;
    return chain;
}

cl_mem pass_output(const launch *l, size_t p) {
    return l->partial[plans[l->variant].single_launch ? 0 : p % 2];
}

cl_int e2e_open(const oclt_device *dev, e2e_path *path) {
    cl_int err = CL_SUCCESS;
    path->queue = oclt_create_queue(dev->context, dev->device, 0, &err);
    if (!err)
        path->pinned = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                      sizeof(cl_double), NULL, &err);
    if (!err)
        path->scalar = clEnqueueMapBuffer(path->queue, path->pinned, CL_TRUE, CL_MAP_WRITE, 0,
                                          sizeof(cl_double), 0, NULL, NULL, &err);
    return OCLT_CHECK_ERR(err, "e2e_open (queue without profiling, pinned scalar)");
}

void e2e_close(e2e_path *path) {
    if (path->scalar) {
        clEnqueueUnmapMemObject(path->queue, path->pinned, path->scalar, 0, NULL, NULL);
        clFinish(path->queue);
    }
    if (path->pinned) clReleaseMemObject(path->pinned);
    if (path->queue) clReleaseCommandQueue(path->queue);
}

/* Enqueues every pass (the caller has poisoned the partials: poison_partials), each with an
 * event when events is not NULL. Returns the number enqueued in *enqueued. */
static cl_int enqueue_passes(launch *l, cl_command_queue queue, cl_event *events,
                             size_t *enqueued) {
    cl_int err = CL_SUCCESS;
    *enqueued = 0;
    for (size_t p = 0; p < l->pass_count && !err; ++p) {
        cl_mem in = p == 0 ? l->input : pass_output(l, p - 1), out = pass_output(l, p);
        cl_uint count = (cl_uint)l->passes[p].count;
        size_t global = l->passes[p].groups * l->local;
        if (OCLT_ARG(l->kernel, 0, in) || OCLT_ARG(l->kernel, 1, out) ||
            OCLT_ARG(l->kernel, 2, count))
            err = CL_INVALID_KERNEL_ARGS;
        if (!err && plans[l->variant].local_arg)
            err = OCLT_CHECK(clSetKernelArg(l->kernel, 3, l->local * l->elem_size, NULL));
        if (!err && plans[l->variant].single_launch &&
            (OCLT_ARG(l->kernel, 3, l->partial[1]) || OCLT_ARG(l->kernel, 4, l->tickets)))
            err = CL_INVALID_KERNEL_ARGS;
        if (!err)
            err =
                oclt_enqueue_kernel(queue, l->kernel, 1, &global, &l->local, 0, NULL,
                                    events ? &events[*enqueued] : NULL, variants[l->variant].name);
        if (!err) ++*enqueued;
    }
    return err;
}

static cl_int poison_partials(const launch *l, cl_command_queue queue) {
    cl_int err = CL_SUCCESS;
    for (int b = 0; b < 2 && !err; ++b)
        err = OCLT_CHECK(clEnqueueWriteBuffer(queue, l->partial[b], CL_TRUE, 0, l->partial_bytes,
                                              l->poison, 0, NULL, NULL));
    return err;
}

/* Kernel time: one run on the profiling queue, the passes' device times added up. */
static cl_int run_profiled(void *context, double *ms) {
    launch *l = context;
    cl_event events[MAX_PASSES];
    size_t enqueued = 0;
    cl_int err = poison_partials(l, l->dev->queue);
    if (!err) err = enqueue_passes(l, l->dev->queue, events, &enqueued);
    if (!err && enqueued) err = OCLT_CHECK(clWaitForEvents((cl_uint)enqueued, events));
    double total = 0.0;
    for (size_t p = 0; p < enqueued; ++p) {
        double t = err ? -1.0 : oclt_event_ms(events[p]);
        if (t < 0 && !err) err = CL_PROFILING_INFO_NOT_AVAILABLE;
        if (l->calls <= l->reps) l->pass_ms[(size_t)l->calls * l->pass_count + p] = t;
        total += t;
        clReleaseEvent(events[p]);
    }
    ++l->calls;
    *ms = total;
    return err;
}

/* End to end, what a user waits for: on a queue without profiling, a host clock from the first
 * enqueue until the scalar is in (pinned) host memory; for the reference reads, until the
 * queue is finished. */
static cl_int run_end_to_end(launch *l, double *ms) {
    cl_command_queue queue = l->e2e->queue;
    size_t enqueued = 0;
    cl_int err = poison_partials(l, queue);
    const double start = oclt_now_ms();
    if (!err) err = enqueue_passes(l, queue, NULL, &enqueued);
    if (!err && plans[l->variant].reduces)
        err = OCLT_CHECK(clEnqueueReadBuffer(queue, pass_output(l, l->pass_count - 1), CL_TRUE, 0,
                                             l->elem_size, l->e2e->scalar, 0, NULL, NULL));
    if (!err && !plans[l->variant].reduces) err = OCLT_CHECK(clFinish(queue));
    *ms = oclt_now_ms() - start;
    return err;
}

cl_int measure(launch *l) {
    l->calls = 0;
    l->kernel_ms = l->e2e_ms = -1.0;
    l->pass_ms = calloc((size_t)(l->reps + 1) * l->pass_count, sizeof *l->pass_ms);
    l->e2e_calls = calloc((size_t)(l->reps + 1), sizeof *l->e2e_calls);
    if (!l->pass_ms || !l->e2e_calls) return CL_OUT_OF_HOST_MEMORY;
    cl_int err = CL_SUCCESS;
    for (int r = 0; r <= l->reps && !err; ++r) err = run_end_to_end(l, &l->e2e_calls[r]);
    if (!err) l->e2e_ms = oclt_median(l->e2e_calls + 1, (size_t)l->reps); /* [0]: warm-up */
    if (!err) err = oclt_time_median(run_profiled, l, l->reps, &l->kernel_ms);
    return err;
}

/* Median over the timed calls of each pass's time, with [elements in -> partial sums out]. */
void print_passes(const launch *l) {
    printf("      %zu pass%s (median ms):", l->pass_count, l->pass_count == 1 ? "" : "es");
    double *values = malloc((size_t)l->reps * sizeof *values);
    for (size_t p = 0; p < l->pass_count && values; ++p) {
        for (int r = 0; r < l->reps; ++r)
            values[r] = l->pass_ms[(size_t)(r + 1) * l->pass_count + p];
        printf("%s %.4f [%zu -> %zu]", p ? " +" : "", oclt_median(values, (size_t)l->reps),
               l->passes[p].count,
               plans[l->variant].reduces ? l->passes[p].groups : l->passes[p].groups * l->local);
        if (p == 5 && l->pass_count > 7) {
            printf(" + ... (%zu more)", l->pass_count - 6);
            break;
        }
    }
    putchar('\n');
    free(values);
}
