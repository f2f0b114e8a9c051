/* Chapter 05's whole_tiles step, host side: two kernels of one body (matmul_advanced.cl) on the
 * same NDRange, one after the other on the in-order queue. whole_tiles computes the blocks that
 * lie wholly inside C, without bounds checks; edge_tiles computes the others, with them. In each
 * launch the groups of the other kind return at once, and a launch with no block of its kind
 * is not made at all: its groups would only start and return (at 1024^3 on the H200 that empty
 * launch was 7% of the step's time). */
#include "matmul.h"

cl_int matmul_enqueue_whole_tiles(const oclt_device *dev, cl_kernel kernel,
                                  const matmul_geometry *g, const matmul_problem *p,
                                  const matmul_tuning *t, cl_event *first, cl_event *last) {
    /* The kernel's test of a whole block (row0 + BM <= M, col0 + BN <= N, K % BK == 0,
     * N % VW == 0), asked of the whole grid of blocks. */
    const int rows_fit = p->k % (size_t)t->bk == 0 && p->n % (size_t)t->vw == 0;
    const int some_whole = rows_fit && p->m >= (size_t)t->bm && p->n >= (size_t)t->bn;
    const int some_edge = !rows_fit || p->m % (size_t)t->bm || p->n % (size_t)t->bn;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    cl_kernel edges = NULL;
    cl_event whole_done = NULL, edges_done = NULL;
    *first = *last = NULL;
    if ((err = OCLT_CHECK(
             clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL))))
        return err;
    if (some_edge) { /* the second kernel of the program, only when it has blocks to compute */
        edges = clCreateKernel(program, "edge_tiles", &err);
        if (OCLT_CHECK_ERR(err, "clCreateKernel(edge_tiles)")) return err;
    }
    if (some_whole) err = matmul_enqueue_step(dev, kernel, "whole_tiles", g, p, &whole_done);
    if (!err && edges) err = matmul_enqueue_step(dev, edges, "edge_tiles", g, p, &edges_done);
    if (!err) { /* the caller waits and releases them (the same event when one launch ran) */
        *first = whole_done ? whole_done : edges_done;
        *last = edges_done ? edges_done : whole_done;
    } else {
        if (whole_done) clReleaseEvent(whole_done);
        if (edges_done) clReleaseEvent(edges_done);
    }
    if (edges) clReleaseKernel(edges); /* an enqueued kernel lives until its command is done */
    return err;
}

cl_int matmul_run_whole_tiles(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                              const matmul_problem *p, const matmul_tuning *t, double *ms) {
    cl_event first = NULL, last = NULL;
    cl_int err = matmul_enqueue_whole_tiles(dev, kernel, g, p, t, &first, &last);
    /* From the start of the first launch to the end of the last (in-order queue). */
    return matmul_wait_span(err, first, last, ms);
}
