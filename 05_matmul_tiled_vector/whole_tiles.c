/* Chapter 05's whole_tiles step, host side: two kernels of one body (matmul_advanced.cl) on the
 * same NDRange, one after the other on the in-order queue. whole_tiles computes the blocks that
 * lie wholly inside C, without bounds checks; edge_tiles computes the others, with them. In each
 * launch the groups of the other kind return at once. */
#include "matmul.h"

cl_int matmul_run_whole_tiles(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                              const matmul_problem *p, const matmul_tuning *tuning, double *ms) {
    (void)tuning;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    cl_kernel edges = NULL;
    cl_event whole_done = NULL, edges_done = NULL;
    if ((err = OCLT_CHECK(
             clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL))))
        return err;
    edges = clCreateKernel(program, "edge_tiles", &err);
    if (OCLT_CHECK_ERR(err, "clCreateKernel(edge_tiles)")) return err;
    if ((err = matmul_enqueue_step(dev, kernel, "whole_tiles", g, p, &whole_done)) ||
        (err = matmul_enqueue_step(dev, edges, "edge_tiles", g, p, &edges_done)) ||
        (err = OCLT_CHECK(clWaitForEvents(1, &edges_done))))
        goto release;
    err = oclt_events_span_ms(whole_done, edges_done, ms);
release:
    if (whole_done) clReleaseEvent(whole_done);
    if (edges_done) clReleaseEvent(edges_done);
    clReleaseKernel(edges);
    return err;
}
