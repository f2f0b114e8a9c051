/* Chapter 05's padded step, host side: A and B copied into buffers padded with zeros to whole
 * blocks (M and N rounded up to multiples of BM and BN, K to a multiple of BK) by pad_copy, then
 * padded_tiles on the padded sizes: every block unchecked, in one launch, each storing only
 * what lies inside the true C. A matrix whose sides are already whole is used as it is, so
 * where every block is whole the step is whole_tiles. CLBlast does the same for shapes its fast
 * kernel does not fit (its "indirect" GEMM). The copies are timed with the product: they are
 * part of the step's cost. */
#include "matmul.h"

static size_t round_up(size_t x, size_t multiple) {
    return (x + multiple - 1) / multiple * multiple;
}

/* pad_copy (matmul_advanced.cl) from src (src_rows x src_cols) into dst (dst_rows x dst_cols). */
static cl_int enqueue_pad_copy(const oclt_device *dev, cl_kernel copy, cl_mem src, size_t src_rows,
                               size_t src_cols, cl_mem dst, size_t dst_rows, size_t dst_cols,
                               cl_event gate, cl_event *done) {
    const int rows = (int)src_rows, cols = (int)src_cols;
    const int padded_rows = (int)dst_rows, padded_cols = (int)dst_cols;
    cl_int err;
    if ((err = OCLT_ARG(copy, 0, rows)) || (err = OCLT_ARG(copy, 1, cols)) ||
        (err = OCLT_ARG(copy, 2, src)) || (err = OCLT_ARG(copy, 3, padded_rows)) ||
        (err = OCLT_ARG(copy, 4, padded_cols)) || (err = OCLT_ARG(copy, 5, dst)))
        return err;
    /* Four elements of a row per item; 64 x 4 items per group where the kernel allows 256
     * (groups of 64 copied at a quarter of the speed on the H200). */
    size_t allowed = 0;
    if ((err = OCLT_CHECK(clGetKernelWorkGroupInfo(copy, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                                   sizeof allowed, &allowed, NULL))))
        return err;
    const size_t local[2] = {allowed < 64 ? allowed : 64, allowed >= 256 ? 4 : 1};
    const size_t global[2] = {round_up(dst_cols / 4, local[0]), round_up(dst_rows, local[1])};
    return oclt_enqueue_kernel(dev->queue, copy, 2, global, local, 1, &gate, done, "pad_copy");
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
                             * (at 4096^3 on the H200 padded_tiles's checked store cost 3%) */
        cl_kernel whole = clCreateKernel(program, "whole_tiles", &err);
        if (OCLT_CHECK_ERR(err, "clCreateKernel(whole_tiles)")) return err;
        err = matmul_run_whole_tiles(dev, whole, g, p, t, ms);
        clReleaseKernel(whole);
        return err;
    }
    cl_event done[3] = {NULL}; /* pad A, pad B, padded_tiles: those that run */
    int launched = 0, gate_open = 0;
    /* A user event holds the copies back until every command of the step is in the queue, so
     * that host work between two enqueues does not leave the device idle between the copies
     * (at 4097^3 on the H200 the gap between them went from 0.03-0.045 to 0.02 ms). */
    cl_event gate = clCreateUserEvent(dev->context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) return err;
    if (pad_a) padded.a_buf = NULL;
    if (pad_b) padded.b_buf = NULL;
    cl_kernel copy = clCreateKernel(program, "pad_copy", &err);
    if (OCLT_CHECK_ERR(err, "clCreateKernel(pad_copy)")) goto release;
    /* Both buffers before the first copy (an allocation between the copies, before the gate
     * above, left the H200 idle for 0.07 ms: 2% of the step at 4097^3). */
    const cl_mem_flags rw = CL_MEM_READ_WRITE;
    if (pad_a) {
        padded.a_buf =
            clCreateBuffer(dev->context, rw, padded.m * padded.k * sizeof(float), NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(padded A)")) goto release;
    }
    if (pad_b) {
        padded.b_buf =
            clCreateBuffer(dev->context, rw, padded.k * padded.n * sizeof(float), NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(padded B)")) goto release;
    }
    if (pad_a && (err = enqueue_pad_copy(dev, copy, p->a_buf, p->m, p->k, padded.a_buf, padded.m,
                                         padded.k, gate, &done[launched++])))
        goto release;
    if (pad_b && (err = enqueue_pad_copy(dev, copy, p->b_buf, p->k, p->n, padded.b_buf, padded.k,
                                         padded.n, gate, &done[launched++])))
        goto release;
    /* padded_tiles: the step's arguments on the padded sizes, then the true size of C. */
    if ((err = OCLT_ARG(kernel, 6, c_rows)) || (err = OCLT_ARG(kernel, 7, c_cols)) ||
        (err = matmul_enqueue_step(dev, kernel, "padded_tiles", g, &padded, &done[launched++])))
        goto release;
    /* Everything is queued: open the gate. Then from the start of the first copy to the end of
     * the product (in-order queue). */
    err = OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    gate_open = 1;
    if (!err && !(err = OCLT_CHECK(clWaitForEvents(1, &done[launched - 1]))))
        err = oclt_events_span_ms(done[0], done[launched - 1], ms);
release:
    if (!gate_open) clSetUserEventStatus(gate, CL_COMPLETE); /* lets what was queued finish */
    clReleaseEvent(gate);
    for (int i = 0; i < launched; ++i)
        if (done[i]) clReleaseEvent(done[i]);
    if (pad_a && padded.a_buf) clReleaseMemObject(padded.a_buf);
    if (pad_b && padded.b_buf) clReleaseMemObject(padded.b_buf);
    if (copy) clReleaseKernel(copy);
    return err;
}
