/* Exercise 2, solution: the limits on a local size, queried and then tested by launches.
 *   1. local size = CL_KERNEL_WORK_GROUP_SIZE (in 1-D): runs, and every output is checked;
 *   2. a 2-D local size within CL_DEVICE_MAX_WORK_ITEM_SIZES in each dimension but with more
 *      work-items in total than the kernel allows: CL_INVALID_WORK_GROUP_SIZE;
 *   3. one dimension over its CL_DEVICE_MAX_WORK_ITEM_SIZES entry with the total within the
 *      kernel's limit: CL_INVALID_WORK_ITEM_SIZE. That needs a dimension whose limit is below
 *      the work-group limit (NVIDIA: the third, 64); where there is none, it cannot be
 *      provoked alone and is reported as such.
 * A launch refused where it must run is a FAIL; see expect_error for the other answers. */
#include "oclt.h"

#include <stdio.h>
#include <stdlib.h>

static const oclt_cli_spec spec = {
    .chapter = "01_solution_launch_limits",
    .summary = "exercise 2: which limit refuses which local size, and with which error",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1},
    .default_reps = 1,
    .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK | OCLT_OMIT_SIZE | OCLT_OMIT_SEED,
};

/* Launches linear_ids over global[] in groups of local[]: the error the call returns. */
static cl_int try_launch(const oclt_device *dev, cl_kernel kernel, cl_uint dims,
                         const size_t *global, const size_t *local) {
    cl_int err =
        clEnqueueNDRangeKernel(dev->queue, kernel, dims, NULL, global, local, 0, NULL, NULL);
    return err == CL_SUCCESS ? clFinish(dev->queue) : err;
}

/* The launch's answer against the one the specification names. A refusal with another error
 * code is a NOTE only when `control`, the same kernel launched right after with the same number
 * of dimensions and groups of 1, ran: then the local size was what the driver refused (the
 * specification does not order its checks, and drivers differ: NVIDIA's driver 580 answers an
 * over-long third dimension with CL_INVALID_KERNEL_ARGS). If the control fails too, something
 * else is wrong with the launch: a FAIL. A launch that runs where a refusal is required is a
 * SKIP: this device cannot show that limit (NVIDIA's driver 580 runs more work-items than the
 * CL_KERNEL_WORK_GROUP_SIZE it reports). Refusing a launch that must run is a FAIL. */
static oclt_status expect_error(const char *what, cl_int got, cl_int want, cl_int control) {
    printf("  %-58s %s\n", what, oclt_error_name(got));
    if (got == want) return OCLT_PASS;
    if (want == CL_SUCCESS) {
        printf("    expected %s\n", oclt_error_name(want));
        return OCLT_FAIL;
    }
    if (got == CL_SUCCESS) {
        printf("    NOTE the specification requires %s; this driver ran the launch\n",
               oclt_error_name(want));
        return OCLT_SKIP;
    }
    if (control != CL_SUCCESS) {
        printf("    expected %s; the same launch with groups of 1 fails too (%s)\n",
               oclt_error_name(want), oclt_error_name(control));
        return OCLT_FAIL;
    }
    printf("    NOTE refused, with %s where the specification names %s\n", oclt_error_name(got),
           oclt_error_name(want));
    return OCLT_PASS;
}

int main(int argc, char **argv) {
    oclt_options opt;
    oclt_device dev;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if ((rc = oclt_open_device(&spec, &opt, &dev)) != OCLT_CONTINUE) return rc;
    rc = OCLT_EXIT_FAIL;
    cl_program program = oclt_build_file(dev.context, dev.device, "launch_limits.cl", "");
    cl_kernel kernel = program ? oclt_create_kernel(program, "linear_ids") : NULL;
    size_t kmax = 0, item_max[3] = {0};
    cl_uint dims = 0;
    cl_mem out_buf = NULL;
    cl_uint *out = NULL;
    cl_int err = CL_SUCCESS;
    if (!kernel ||
        OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev.device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kmax, &kmax, NULL)) ||
        OCLT_CHECK(clGetDeviceInfo(dev.device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims,
                                   &dims, NULL)) ||
        OCLT_CHECK(clGetDeviceInfo(dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_max,
                                   item_max, NULL)))
        goto release;
    printf("CL_KERNEL_WORK_GROUP_SIZE %zu, CL_DEVICE_MAX_WORK_ITEM_SIZES %zu x %zu x %zu\n", kmax,
           item_max[0], item_max[1], item_max[2]);
    /* Big enough for every launch below: 4 groups at the limit, or two rows of 2 * kmax. */
    const size_t count = 4 * kmax;
    out = malloc(count * sizeof *out);
    out_buf = clCreateBuffer(dev.context, CL_MEM_WRITE_ONLY, count * sizeof *out, NULL, &err);
    if (!out || OCLT_CHECK_ERR(err, "clCreateBuffer(out)") || OCLT_ARG(kernel, 0, out_buf))
        goto release;

    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    /* 1. At the limit: runs, and every work-item wrote its index. */
    const size_t local1 = kmax < item_max[0] ? kmax : item_max[0];
    const size_t global1 = 4 * local1;
    oclt_status status = OCLT_FAIL;
    if (!oclt_poison_buffer(dev.queue, out_buf, count * sizeof *out) &&
        expect_error("local size at the limit (1-D)",
                     try_launch(&dev, kernel, 1, &global1, &local1), CL_SUCCESS,
                     CL_SUCCESS) == OCLT_PASS &&
        !OCLT_CHECK(clEnqueueReadBuffer(dev.queue, out_buf, CL_TRUE, 0, global1 * sizeof *out, out,
                                        0, NULL, NULL))) {
        size_t wrong = 0;
        for (size_t i = 0; i < global1; ++i) wrong += out[i] != i;
        printf("    %zu of %zu outputs wrong\n", wrong, global1);
        status = wrong ? OCLT_FAIL : OCLT_PASS;
    }
    oclt_report_result(&report, "at_the_limit", "", -1, -1, NULL, status, NULL);

    /* The control of a refusal: the same number of dimensions, one group of 1. */
    const size_t ones[3] = {1, 1, 1};
    /* 2. Too many work-items in total, each dimension within its own limit. */
    const size_t wide = kmax < item_max[0] ? kmax : item_max[0];
    const size_t local2[2] = {wide, kmax / wide + 1}, global2[2] = {local2[0], local2[1]};
    status = OCLT_SKIP;
    const char *why = "no 2-D group over the kernel's limit fits CL_DEVICE_MAX_WORK_ITEM_SIZES";
    if (local2[1] <= item_max[1]) {
        const cl_int got = try_launch(&dev, kernel, 2, global2, local2);
        status = expect_error("more work-items than CL_KERNEL_WORK_GROUP_SIZE (2-D)", got,
                              CL_INVALID_WORK_GROUP_SIZE, try_launch(&dev, kernel, 2, ones, ones));
        why = status == OCLT_SKIP ? "this driver ran the launch (see the NOTE)" : NULL;
    }
    oclt_report_result(&report, "over_work_group_size", "", -1, -1, NULL, status, why);

    /* 3. One dimension over its own limit, the total within the kernel's. */
    for (cl_uint d = 0; d < dims && d < 3; ++d) {
        if (item_max[d] + 1 > kmax) continue;
        size_t local3[3] = {1, 1, 1};
        local3[d] = item_max[d] + 1;
        char what[80];
        snprintf(what, sizeof what, "local size %zu in dimension %u (3-D)", local3[d], d);
        const cl_int got = try_launch(&dev, kernel, 3, local3, local3);
        status = expect_error(what, got, CL_INVALID_WORK_ITEM_SIZE,
                              try_launch(&dev, kernel, 3, ones, ones));
        break;
    }
    int provoked = 0;
    for (cl_uint d = 0; d < dims && d < 3; ++d) provoked |= item_max[d] + 1 <= kmax;
    why = !provoked                ? "every dimension allows a whole work-group here"
          : status == OCLT_SKIP ? "this driver ran the launch (see the NOTE)"
                                : NULL;
    oclt_report_result(&report, "over_work_item_size", "", -1, -1, NULL,
                       provoked ? status : OCLT_SKIP, why);
    rc = oclt_report_exit_code(&report);
release:
    if (out_buf) clReleaseMemObject(out_buf);
    free(out);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    oclt_close_device(&dev);
    return rc;
}
