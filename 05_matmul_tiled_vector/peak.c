/* Chapter 05's roof: fp32_peak, the device's FP32 multiply-add rate, measured by the chapter's
 * own kernel in the same run so that every step can be given as a share of it. */
#include "matmul.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Lanes of PEAK_TYPE: the device's preferred float vector width (1 on GPUs, 8 or 16 on CPUs
 * with AVX or AVX-512). */
int matmul_peak_width(const oclt_device *dev) {
    /* Asked once per device: the build (PEAK_TYPE) and the run (the output's size) must agree
     * even if a later query failed. */
    static cl_device_id asked = NULL;
    static int w = 1;
    if (asked != dev->device) {
        const cl_uint width = oclt_device_uint(dev->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
        for (w = 1; w < 16 && (cl_uint)(w * 2) <= width;) w *= 2;
        asked = dev->device;
    }
    return w;
}

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    size_t global, local;
    cl_mem out;
    size_t out_bytes;
} peak_launch;

/* Poison the output (so a run that skipped work cannot pass on an earlier run's values), run
 * fp32_peak once, time it. */
static cl_int run_peak(void *context, double *ms) {
    peak_launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->out, l->out_bytes);
    if (err) return err;
    err = oclt_enqueue_kernel(l->dev->queue, l->kernel, 1, &l->global, &l->local, 0, NULL, &done,
                              "fp32_peak");
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) err = oclt_events_span_ms(done, done, ms); /* START to END */
    clReleaseEvent(done);
    return err;
}

/* Runs fp32_peak on (at least) `mads` multiply-adds, spread over enough items to fill the
 * device, and checks the result: with a = b = 1 each chain counts x0 + n exactly, so each
 * item's sum of 16 chains, 16 * (x0 + n) < 2^24 for n <= 2^19, shows that every step ran.
 * Fills *ms and *rate (GFLOP/s of the work it really did). */
static oclt_status run_fp32_peak(const oclt_device *dev, int reps, cl_program program, double mads,
                                 double *ms, double *rate) {
    enum { CHAINS = 16, UNROLL = 4, MAX_ITERATIONS = 1 << 19 };
    const int width = matmul_peak_width(dev);
    const cl_uint units = oclt_device_uint(dev->device, CL_DEVICE_MAX_COMPUTE_UNITS);
    const int is_gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    /* Items: enough groups to keep every compute unit busy (a GPU needs thousands of items per
     * unit to hide latency; a CPU runs a group as a loop, so it needs a few groups per core),
     * fewer when the product is tiny. */
    size_t local = is_gpu ? 256 : 8;
    const size_t max_group = oclt_device_size(dev->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    if (!units || !max_group) return OCLT_FAIL; /* a failed query (printed): no work to size */
    while (local > max_group) local /= 2;
    size_t items = (size_t)units * (is_gpu ? 8192 : 16 * local);
    double per_item = mads / ((double)items * CHAINS * width);
    if (per_item < UNROLL) {
        items = (size_t)ceil(mads / ((double)CHAINS * width * UNROLL));
        items = (items + local - 1) / local * local;
        per_item = UNROLL;
    }
    while (per_item > MAX_ITERATIONS) { /* more items rather than counts beyond exactness */
        items *= 2;
        per_item /= 2;
    }
    const int iterations = (int)(ceil(per_item / UNROLL) * UNROLL);
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    float *out = malloc(items * width * sizeof *out);
    cl_kernel kernel = oclt_create_kernel(program, "fp32_peak");
    cl_mem out_buf = NULL;
    if (!out || !kernel) goto release;
    out_buf =
        clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, items * width * sizeof *out, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(fp32_peak out)")) goto release;
    const float a = 1.0f, b = 1.0f;
    if (OCLT_ARG(kernel, 0, out_buf) || OCLT_ARG(kernel, 1, a) || OCLT_ARG(kernel, 2, b) ||
        OCLT_ARG(kernel, 3, iterations))
        goto release;
    peak_launch l = {dev, kernel, items, local, out_buf, items * width * sizeof *out};
    if (oclt_time_median(run_peak, &l, reps, ms)) goto release;
    *rate = 2.0 * (double)items * CHAINS * width * iterations / (*ms * 1e6);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, items * width * sizeof *out,
                                       out, 0, NULL, NULL)))
        goto release;
    /* Each lane: the sum over j of x0 + iterations, x0 = id % 7 + j; integers below 2^24. */
    size_t bad = 0;
    for (size_t i = 0; i < items * width; ++i) {
        const float expected = (float)(CHAINS * ((i / width) % 7) + CHAINS * (CHAINS - 1) / 2 +
                                       (size_t)CHAINS * (size_t)iterations);
        if (out[i] != expected && bad++ < 3)
            fprintf(stderr, "  fp32_peak out[%zu] = %g, expected %g\n", i, out[i], expected);
    }
    status = bad ? OCLT_FAIL : OCLT_PASS;
release:
    if (out_buf) clReleaseMemObject(out_buf);
    if (kernel) clReleaseKernel(kernel);
    free(out);
    return status;
}

oclt_status matmul_fp32_peak(const oclt_device *dev, cl_program program, const matmul_problem *p,
                             int reps, double *ms, double *rate) {
    /* The product's flop count; while that runs for less than 20 ms (a small problem, or a fast
     * device: launch and clock ramp-up would weigh), again with more work. */
    double mads = (double)p->m * (double)p->n * (double)p->k;
    oclt_status status = run_fp32_peak(dev, reps, program, mads, ms, rate);
    for (int round = 0; round < 3 && status == OCLT_PASS && *ms > 0 && *ms < 20.0; ++round) {
        mads *= fmin(64.0, ceil(20.0 / *ms));
        status = run_fp32_peak(dev, reps, program, mads, ms, rate);
    }
    return status;
}
