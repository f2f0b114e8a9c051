/* Chapter 05's tail_split step, host side. A grid of G work-groups on U compute units runs in
 * ceil(G / U) rounds at one group per unit; when the last round holds only a few groups, most
 * units wait through it. tail_split computes the bands of block rows that fit in one round fewer
 * with whole_tiles, and the last band(s) with split_k: their few blocks, in S slices of K, fill
 * the last round S times over for 1/S of its time. On the H200 at 5120^3 (256 x 128 blocks: 800
 * groups, 6 rounds of 132 and a seventh of 8), 19 bands by whole_tiles and the last band of 40
 * blocks in 3 slices took 5.49 + 0.37 ms against 6.39 for whole_tiles on all of C. Where no split
 * fills the last round better (S < 2), the step is whole_tiles. */
#include "matmul.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    size_t whole_rows; /* rows of C for whole_tiles: whole bands of BM rows */
    int slices;        /* slices of K for the rows below them; 1: no split, whole_tiles on all */
} tail_plan;

static tail_plan plan_tail(const matmul_problem *p, const matmul_tuning *t, size_t units) {
    const tail_plan none = {p->m, 1};
    const size_t bands = (p->m + t->bm - 1) / t->bm, per_band = (p->n + t->bn - 1) / t->bn;
    const size_t rounds = (bands * per_band + units - 1) / units;
    /* The most bands that fit in one round fewer; the rest is the tail. */
    const size_t whole_bands = rounds > 1 ? (rounds - 1) * units / per_band : 0;
    if (whole_bands == 0 || whole_bands >= bands) return none;
    const size_t tail_groups = (bands - whole_bands) * per_band;
    const size_t k_steps = (p->k + t->bk - 1) / t->bk;
    size_t slices = units / tail_groups; /* as many as one round holds */
    if (slices > k_steps) slices = k_steps;
    if (slices > MATMUL_MAX_SPLIT_K) slices = MATMUL_MAX_SPLIT_K;
    if (slices < 2) return none;
    return (tail_plan){whole_bands * t->bm, (int)slices};
}

/* The rows of `buffer` (row-major, `cols` floats each) from `row` on, as a sub-buffer; NULL with
 * *err = CL_SUCCESS when its origin is not a multiple of `align` bytes, as the device requires. */
static cl_mem rows_from(cl_mem buffer, size_t row, size_t rows, size_t cols, size_t align,
                        cl_int *err) {
    const cl_buffer_region region = {row * cols * sizeof(float), rows * cols * sizeof(float)};
    *err = CL_SUCCESS;
    if (align == 0 || region.origin % align) return NULL;
    cl_mem sub = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, err);
    OCLT_CHECK_ERR(*err, "clCreateSubBuffer(rows of A or C)");
    return sub;
}

/* Says once per shape and plan what the step does (a line before the step's result). */
static void describe(const matmul_problem *p, const matmul_tuning *t, tail_plan plan, cl_uint units,
                     int split) {
    static char said[320];
    char line[160];
    if (split)
        snprintf(line, sizeof line,
                 "%zu of %zu rows by whole_tiles, the last %zu by split_k in %d slices of K "
                 "(%u compute unit%s)",
                 plan.whole_rows, p->m, p->m - plan.whole_rows, plan.slices, units,
                 units == 1 ? "" : "s");
    else if (plan.slices > 1)
        snprintf(line, sizeof line,
                 "the last %zu rows start where no sub-buffer may (CL_DEVICE_MEM_BASE_ADDR_ALIGN):"
                 " whole_tiles on all of C",
                 p->m - plan.whole_rows);
    else
        snprintf(line, sizeof line,
                 "no split fills the last round better (%u compute unit%s, %dx%d blocks): "
                 "whole_tiles on all of C",
                 units, units == 1 ? "" : "s", t->bm, t->bn);
    char key[320];
    snprintf(key, sizeof key, "%s %s", p->text, line);
    if (!strncmp(said, key, sizeof said)) return;
    snprintf(said, sizeof said, "%s", key);
    printf("  tail     %s\n", line);
}

cl_int matmul_run_tail_split(const oclt_device *dev, cl_kernel kernel, const matmul_geometry *g,
                             const matmul_problem *p, const matmul_tuning *t, double *ms) {
    matmul_problem top = *p, tail = *p; /* top: the whole bands; tail: the rows below them */
    matmul_tuning sliced = *t;
    cl_program program = NULL;
    cl_kernel slices = NULL;
    cl_event first = NULL, split_last = NULL, whole_first = NULL, last = NULL;
    /* 0 when a query failed (printed) */
    const cl_uint units = oclt_device_uint(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS);
    const size_t align = oclt_device_uint(dev->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
    if (!units || !align) return CL_INVALID_DEVICE;
    cl_int err = CL_SUCCESS;
    const tail_plan plan = plan_tail(p, t, units);
    top.m = plan.whole_rows, tail.m = p->m - plan.whole_rows;
    sliced.split_k = plan.slices;
    /* The tail's rows of A and C as sub-buffers, and the top's rows of C as another: the
     * specification leaves concurrent writes through a buffer and its sub-buffer undefined, and
     * through overlapping sub-buffers; these two do not overlap. (Reading A through the buffer
     * and a sub-buffer is defined.) */
    tail.a_buf = tail.c_buf = top.c_buf = NULL;
    if (plan.slices > 1 && (tail.a_buf = rows_from(p->a_buf, top.m, tail.m, p->k, align, &err)) &&
        (tail.c_buf = rows_from(p->c_buf, top.m, tail.m, p->n, align, &err)))
        top.c_buf = rows_from(p->c_buf, 0, top.m, p->n, align, &err);
    if (!err) describe(p, t, plan, units, top.c_buf != NULL);
    if (!err && !top.c_buf) { /* no split, or an unaligned origin: whole_tiles on all of C */
        err = matmul_run_whole_tiles(dev, kernel, g, p, t, ms);
    } else if (!err) {
        if (!(err = OCLT_CHECK(
                  clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL)))) {
            slices = clCreateKernel(program, "warp_tiled", &err);
            OCLT_CHECK_ERR(err, "clCreateKernel(warp_tiled)");
        }
        /* The tail first, then the whole bands, back to back on the in-order queue. */
        if (!err) err = matmul_enqueue_split_k(dev, slices, g, &tail, &sliced, &first, &split_last);
        if (!err) err = matmul_enqueue_whole_tiles(dev, kernel, g, &top, t, &whole_first, &last);
        err = matmul_wait_span(err, first, last, ms);
    }
    if (split_last) clReleaseEvent(split_last);
    if (whole_first && whole_first != last) clReleaseEvent(whole_first); /* last: released */
    if (slices) clReleaseKernel(slices);
    if (tail.a_buf) clReleaseMemObject(tail.a_buf);
    if (tail.c_buf) clReleaseMemObject(tail.c_buf);
    if (top.c_buf) clReleaseMemObject(top.c_buf);
    return err;
}
