/* Chapter 05's padded step, host side: A and B copied into buffers padded with zeros to whole
 * blocks (M and N rounded up to multiples of BM and BN, K to a multiple of BK) by pad_copy, then
 * padded_tiles on the padded sizes: every block unchecked, in one launch, each storing only
 * what lies inside the true C. A matrix whose sides are already whole is used as it is, so
 * where every block is whole the step is whole_tiles. CLBlast does the same for shapes its fast
 * kernel does not fit (its "indirect" GEMM). The copies are timed with the product: they are
 * part of the step's cost. The padded copies live in workspaces kept between calls
 * (workspace.c). */
#include "matmul.h"

static size_t round_up(size_t x, size_t multiple) {
    return (x + multiple - 1) / multiple * multiple;
}

/* pad_copy (matmul_advanced.cl) from src (src_rows x src_cols) into dst (dst_rows x dst_cols),
 * four elements of a row per item, in groups of local[0] x local[1] items. */
static cl_int enqueue_pad_copy(const oclt_device *dev, cl_kernel copy, const size_t local[2],
                               cl_mem src, size_t src_rows, size_t src_cols, cl_mem dst,
                               size_t dst_rows, size_t dst_cols, cl_event *done) {
    const int rows = (int)src_rows, cols = (int)src_cols;
    const int padded_rows = (int)dst_rows, padded_cols = (int)dst_cols;
    cl_int err;
    if ((err = OCLT_ARG(copy, 0, rows)) || (err = OCLT_ARG(copy, 1, cols)) ||
        (err = OCLT_ARG(copy, 2, src)) || (err = OCLT_ARG(copy, 3, padded_rows)) ||
        (err = OCLT_ARG(copy, 4, padded_cols)) || (err = OCLT_ARG(copy, 5, dst)))
        return err;
    const size_t global[2] = {round_up(dst_cols / 4, local[0]), round_up(dst_rows, local[1])};
    return oclt_enqueue_kernel(dev->queue, copy, 2, global, local, 0, NULL, done, "pad_copy");
}

cl_int matmul_run_padded(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                         const matmul_problem *p, const matmul_tuning *t, double *ms) {
    matmul_problem padded = *p; /* the product padded_tiles computes: every block whole */
    padded.m = round_up(p->m, (size_t)t->bm);
    padded.n = round_up(p->n, (size_t)t->bn); /* BN and BK are multiples of 4, as pad_copy needs */
    padded.k = round_up(p->k, (size_t)t->bk);
    const int pad_a = padded.m != p->m || padded.k != p->k;
    const int pad_b = padded.k != p->k || padded.n != p->n;
    const int c_rows = (int)p->m, c_cols = (int)p->n;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    if ((err = OCLT_CHECK(
             clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL))))
        return err;
    if (!pad_a && !pad_b) { /* every block whole already: whole_tiles, whose store is unchecked
                             * (an earlier checked store cost padded_tiles 3% at 4096^3) */
        cl_kernel whole = clCreateKernel(program, "whole_tiles", &err);
        if (OCLT_CHECK_ERR(err, "clCreateKernel(whole_tiles)")) return err;
        err = matmul_run_whole_tiles(dev, whole, g, p, t, ms);
        clReleaseKernel(whole);
        return err;
    }
    cl_event done[3] = {NULL}; /* pad A, pad B, padded_tiles: those that run */
    int launched = 0;
    cl_kernel copy = clCreateKernel(program, "pad_copy", &err);
    if (OCLT_CHECK_ERR(err, "clCreateKernel(pad_copy)")) goto release;
    /* 64 x 4 items per group of pad_copy where the kernel allows 256 (on the H200, groups of 64
     * copied A at 4097^2 in 0.048 ms, groups of 256 in 0.037). */
    size_t allowed = 0;
    if ((err = OCLT_CHECK(clGetKernelWorkGroupInfo(copy, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                   sizeof allowed, &allowed, NULL))))
        goto release;
    const size_t local[2] = {allowed < 64 ? allowed : 64, allowed >= 256 ? 4 : 1};
    if ((pad_a && (err = matmul_workspace(dev, MATMUL_WORKSPACE_PADDED_A,
                                          padded.m * padded.k * sizeof(float), &padded.a_buf))) ||
        (pad_b && (err = matmul_workspace(dev, MATMUL_WORKSPACE_PADDED_B,
                                          padded.k * padded.n * sizeof(float), &padded.b_buf))))
        goto release;
    if (pad_a && (err = enqueue_pad_copy(dev, copy, local, p->a_buf, p->m, p->k, padded.a_buf,
                                         padded.m, padded.k, &done[launched++])))
        goto release;
    if (pad_b && (err = enqueue_pad_copy(dev, copy, local, p->b_buf, p->k, p->n, padded.b_buf,
                                         padded.k, padded.n, &done[launched++])))
        goto release;
    /* padded_tiles: the step's arguments on the padded sizes, then the true size of C. */
    if ((err = OCLT_ARG(kernel, 6, c_rows)) || (err = OCLT_ARG(kernel, 7, c_cols)) ||
        (err = matmul_enqueue_step(dev, kernel, "padded_tiles", g, &padded, &done[launched++])))
        goto release;
    /* From the start of the first copy to the end of the product (in-order queue). */
    if (!(err = OCLT_CHECK(clWaitForEvents(1, &done[launched - 1]))))
        err = oclt_events_span_ms(done[0], done[launched - 1], ms);
release:
    for (int i = 0; i < launched; ++i)
        if (done[i]) clReleaseEvent(done[i]);
    if (copy) clReleaseKernel(copy);
    return err;
}
