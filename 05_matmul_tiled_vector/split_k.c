/* Chapter 05's split_k step, host side: warp_tiled launched over SPLIT_K slices of K, each slice's
 * work-groups writing a partial C into a workspace, then sum_slices adding the partials in slice
 * order (deterministic: no atomics, the same result whichever group finishes first). */
#include "matmul.h"

#include <stdio.h>

cl_int matmul_enqueue_split_k(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                              const matmul_problem *p, const matmul_tuning *t, cl_event *first,
                              cl_event *last) {
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k, slices = t->split_k;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    cl_kernel sum = NULL;
    cl_event partial_done = NULL, sum_done = NULL;
    *first = *last = NULL;
    /* The workspace (workspace.c: kept between runs, poisoned when new): one M x N partial
     * product per slice. */
    cl_mem partial = NULL;
    if ((err = matmul_workspace(dev, MATMUL_WORKSPACE_SLICES,
                                (size_t)slices * p->m * p->n * sizeof(float), &partial)))
        return err;
    if ((err = OCLT_CHECK(
             clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL))))
        goto release;
    sum = clCreateKernel(program, "sum_slices", &err);
    if (OCLT_CHECK_ERR(err, "clCreateKernel(sum_slices)")) goto release;
    /* warp_tiled reads the slice count from the NDRange: SPLIT_K times the groups along M. */
    const size_t global[2] = {(p->n + g->block_cols - 1) / g->block_cols * g->local[0],
                              (p->m + g->block_rows - 1) / g->block_rows * g->local[1] * slices};
    if ((err = OCLT_ARG(kernel, 0, m)) || (err = OCLT_ARG(kernel, 1, n)) ||
        (err = OCLT_ARG(kernel, 2, k)) || (err = OCLT_ARG(kernel, 3, p->a_buf)) ||
        (err = OCLT_ARG(kernel, 4, p->b_buf)) || (err = OCLT_ARG(kernel, 5, partial)))
        goto release;
    err = oclt_enqueue_kernel(dev->queue, kernel, 2, global, g->local, 0, NULL, &partial_done,
                              "split_k");
    if (err) goto release;
    /* 64 items per group, or fewer where the kernel allows fewer (any size works: the kernel
     * guards its index). */
    size_t sum_local = 64, sum_max = 0;
    if ((err = OCLT_CHECK(clGetKernelWorkGroupInfo(sum, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                   sizeof sum_max, &sum_max, NULL))))
        goto release;
    while (sum_local > 1 && sum_local > sum_max) sum_local /= 2;
    const size_t count = p->m * p->n;
    const size_t sum_global = (count + sum_local - 1) / sum_local * sum_local;
    if ((err = OCLT_ARG(sum, 0, m)) || (err = OCLT_ARG(sum, 1, n)) ||
        (err = OCLT_ARG(sum, 2, slices)) || (err = OCLT_ARG(sum, 3, partial)) ||
        (err = OCLT_ARG(sum, 4, p->c_buf)))
        goto release;
    err = oclt_enqueue_kernel(dev->queue, sum, 1, &sum_global, &sum_local, 0, NULL, &sum_done,
                              "sum_slices");
    if (err) goto release;
    *first = partial_done, *last = sum_done; /* the caller waits and releases them */
    partial_done = sum_done = NULL;
release:
    if (partial_done) clReleaseEvent(partial_done);
    if (sum_done) clReleaseEvent(sum_done);
    if (sum) clReleaseKernel(sum); /* an enqueued kernel lives until its command is done */
    return err;
}

cl_int matmul_run_split_k(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                          const matmul_problem *p, const matmul_tuning *t, double *ms) {
    cl_event first = NULL, last = NULL;
    cl_int err = matmul_enqueue_split_k(dev, kernel, g, p, t, &first, &last);
    /* Both kernels: from the start of the first to the end of the second (in-order queue). */
    return matmul_wait_span(err, first, last, ms);
}
