/* Chapter 01: what OpenCL can see on this machine, and what it reports about a kernel.
 *
 * first_program.c wrote the whole host pipeline out, call by call. This program makes the same
 * steps through common/ (oclt_open_device, oclt_build_file, ...) and asks at each step what
 * OpenCL reports. The lesson, top to bottom:
 *   1. every platform (an installed driver) and every device it offers, with the properties
 *      that later chapters size their kernels by (device_properties.c);
 *   2. a program built from query.cl, and what the program, kernel and context queries report
 *      about it (program_queries.c);
 *   3. the device's built-in kernels, where it has any (builtin_kernels.c);
 *   4. the kernels run on random data and checked against the CPU: scale_shift, group_sum,
 *      work_item_ids (a 2-D launch with a global offset), and one kernel built with each
 *      build option in turn (build_options.c).
 */
#include "platform_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const oclt_variant_info variants[] = {
    {"scale_shift", "y = a*x + b + table[i%4]: global, constant and private memory", 1},
    {"group_sum", "per-work-group sums through a __local argument and barriers", 1},
    {"work_items", "work-item built-ins of a 2-D launch with a global offset", 1},
    {"build_options", "one kernel built with each build option: result and time", 1},
};

static const oclt_cli_spec spec = {
    .chapter = "01_platform_query",
    .summary = "list platforms and devices, query a program and its kernels, run its kernels",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 20},
    .default_reps = 5,
    .variants = variants,
    .variant_count = sizeof variants / sizeof variants[0],
};

/* One timed launch on a poisoned output (the poison is a NaN as a float, -4531283 as an int:
 * an element the kernel forgot to write can never look right). */
cl_int run_once(void *context, double *ms) {
    launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->output, l->output_bytes);
    if (err) return err;
    err = oclt_enqueue_kernel_at(l->dev->queue, l->kernel, l->dims, l->offset, l->global,
                                 l->local[0] ? l->local : NULL, 0, NULL, &done, l->label);
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err) err = oclt_events_span_ms(done, done, ms); /* START to END */
    clReleaseEvent(done);
    return err;
}

/* The largest power of two not above limit (limit >= 1). */
static size_t power_of_two_below(size_t limit) {
    size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

/* The most work-items per group this kernel allows on this device, at most `wanted`, as a
 * power of two (0 after printing the error). */
static size_t local_size_for(cl_kernel kernel, cl_device_id device, size_t wanted) {
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        return 0;
    return power_of_two_below(kernel_max < wanted ? kernel_max : wanted);
}

/* y = a*x + b + table[i % 4]. Each element is checked within its own rounding bound:
 * three operations, |error| <= gamma(3) * (|a*x| + |b| + table), so a wrong sign of b or a lost
 * b or table term (0.25 to 0.75 here) cannot hide, nor a wrong sign of a*x wherever |a*x| is
 * not tiny, and a skipped element stays a NaN. */
static oclt_status run_scale_shift(const oclt_device *dev, const oclt_options *opt,
                                   cl_program program, oclt_rng *rng, double *ms) {
    const size_t n = opt->size[0];
    const float a = 1.5f, b = -0.25f;
    const cl_uint n32 = (cl_uint)n;
    oclt_status status = OCLT_FAIL;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *expected = malloc(n * sizeof *expected), *bound = malloc(n * sizeof *bound);
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = oclt_create_kernel(program, "scale_shift");
    if (!kernel) goto release;
    if (!x || !y || !expected || !bound) {
        fprintf(stderr, "  scale_shift: out of host memory for %zu elements\n", n);
        goto release;
    }
    oclt_fill_float(rng, x, n, -1.0f, 1.0f);
    static const float table[4] = {0.0f, 0.25f, 0.5f, 0.75f};
    for (size_t i = 0; i < n; ++i) {
        expected[i] = (double)a * x[i] + b + table[i % 4];
        bound[i] =
            oclt_sum_error_bound(0x1p-24, 3, fabs((double)a * x[i]) + fabs(b) + table[i % 4]);
    }
    x_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                           &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release;
    y_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n * sizeof *y, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release;
    if (OCLT_ARG(kernel, 0, x_buf) || OCLT_ARG(kernel, 1, y_buf) || OCLT_ARG(kernel, 2, a) ||
        OCLT_ARG(kernel, 3, b) || OCLT_ARG(kernel, 4, n32))
        goto release;
    /* 64 work-items per group, or fewer where the kernel allows fewer. The global size is
     * rounded up to whole groups; the kernel guards i < n. */
    const size_t local = local_size_for(kernel, dev->device, 64);
    if (!local) goto release;
    launch l = {dev,          kernel, 1,     {(n + local - 1) / local * local},
                {local},      NULL,   y_buf, n * sizeof *y,
                "scale_shift"};
    if (oclt_time_median(run_once, &l, opt->reps, ms)) goto release;
    if (!opt->check) {
        status = OCLT_UNCHECKED;
        goto release;
    }
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, y_buf, CL_TRUE, 0, n * sizeof *y, y, 0, NULL, NULL)))
        goto release;
    status = oclt_compare_float("y", y, expected, bound, 0, n) ? OCLT_FAIL : OCLT_PASS;
release:
    if (kernel) clReleaseKernel(kernel);
    if (y_buf) clReleaseMemObject(y_buf);
    if (x_buf) clReleaseMemObject(x_buf);
    free(x);
    free(y);
    free(expected);
    free(bound);
    return status;
}

/* One sum per work-group of 256 (or what the kernel allows). The inputs are in [1, 1000]:
 * never zero, so a lost element lowers its group's sum by at least 1, and integers compare
 * exactly. */
static oclt_status run_group_sum(const oclt_device *dev, const oclt_options *opt,
                                 cl_program program, oclt_rng *rng, double *ms) {
    const size_t n = opt->size[0];
    const cl_uint n32 = (cl_uint)n;
    oclt_status status = OCLT_FAIL;
    cl_mem in_buf = NULL, partial_buf = NULL;
    int32_t *in = malloc(n * sizeof *in), *partial = NULL, *expected = NULL;
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = oclt_create_kernel(program, "group_sum");
    const size_t local = kernel ? local_size_for(kernel, dev->device, 256) : 0;
    if (!local) goto release;
    if (!in) {
        fprintf(stderr, "  group_sum: out of host memory for %zu elements\n", n);
        goto release;
    }
    const size_t groups = (n + local - 1) / local;
    partial = malloc(groups * sizeof *partial);
    expected = calloc(groups, sizeof *expected);
    if (!partial || !expected) {
        fprintf(stderr, "  group_sum: out of host memory for %zu partials\n", groups);
        goto release;
    }
    oclt_fill_int(rng, in, n, 1, 1000);
    for (size_t i = 0; i < n; ++i) expected[i / local] += in[i];

    in_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                            in, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(in)")) goto release;
    partial_buf =
        clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, groups * sizeof *partial, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(partial)")) goto release;
    /* A __local argument: a size and a NULL pointer; each work-group gets its own copy. */
    if (OCLT_ARG(kernel, 0, in_buf) || OCLT_ARG(kernel, 1, partial_buf) ||
        OCLT_CHECK(clSetKernelArg(kernel, 2, local * sizeof(cl_int), NULL)) ||
        OCLT_ARG(kernel, 3, n32))
        goto release;
    launch l = {dev,        kernel, 1,           {groups * local},
                {local},    NULL,   partial_buf, groups * sizeof *partial,
                "group_sum"};
    if (oclt_time_median(run_once, &l, opt->reps, ms)) goto release;
    if (!opt->check) {
        status = OCLT_UNCHECKED;
        goto release;
    }
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, partial_buf, CL_TRUE, 0,
                                       groups * sizeof *partial, partial, 0, NULL, NULL)))
        goto release;
    status = oclt_compare_int("partial", partial, expected, groups) ? OCLT_FAIL : OCLT_PASS;
release:
    if (kernel) clReleaseKernel(kernel);
    if (partial_buf) clReleaseMemObject(partial_buf);
    if (in_buf) clReleaseMemObject(in_buf);
    free(in);
    free(partial);
    free(expected);
    return status;
}

/* work_item_ids over a 64 x H range of 8 x 4 groups (--size items, at most 65536), started
 * at the global offset (3, 5). The host knows what every built-in must return and checks
 * all twelve values of every work-item exactly. The buffer has a poisoned guard behind the
 * records (as many again, plus 8 rows), which must stay poisoned: a kernel that forgets the
 * offset writes past the records, and on a CPU device that would wreck the host's heap. */
static oclt_status run_work_items(const oclt_device *dev, const oclt_options *opt,
                                  cl_program program, double *ms, size_t *bytes) {
    enum { fields = 12 };
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem out_buf = NULL;
    int32_t *out = NULL, *expected = NULL;
    *bytes = 0; /* set once the launch's shape is known */
    cl_kernel kernel = oclt_create_kernel(program, "work_item_ids");
    const size_t group = kernel ? local_size_for(kernel, dev->device, 32) : 0;
    if (!group) goto release;
    const size_t lx = group < 8 ? group : 8, ly = group / lx, width = 64;
    const size_t items = opt->size[0] < 65536 ? opt->size[0] : 65536;
    const size_t height = ((items + width - 1) / width + ly - 1) / ly * ly;
    const size_t offset[2] = {3, 5};
    *bytes = width * height * fields * sizeof *out;
    const size_t guarded = 2 * *bytes + 8 * width * fields * sizeof *out;
    out = malloc(guarded);
    expected = malloc(*bytes);
    if (!out || !expected) {
        fprintf(stderr, "  work_items: out of host memory for %zu bytes\n", *bytes);
        goto release;
    }
    for (size_t y = 0; y < height; ++y)
        for (size_t x = 0; x < width; ++x) {
            const size_t record[fields] = {2,           offset[0],     offset[1],     width / lx,
                                           height / ly, offset[0] + x, offset[1] + y, x / lx,
                                           y / ly,      x % lx,        y % ly,        lx * ly};
            for (int f = 0; f < fields; ++f)
                expected[(y * width + x) * fields + f] = (int32_t)record[f];
        }
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, guarded, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(out)") || OCLT_ARG(kernel, 0, out_buf)) goto release;
    launch l = {dev, kernel, 2, {width, height}, {lx, ly}, offset, out_buf, guarded, "work_items"};
    if (oclt_time_median(run_once, &l, opt->reps, ms)) goto release;
    if (!opt->check) {
        status = OCLT_UNCHECKED;
        goto release;
    }
    if (OCLT_CHECK(
            clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, guarded, out, 0, NULL, NULL)))
        goto release;
    size_t past_end = 0;
    for (size_t i = *bytes / sizeof *out; i < guarded / sizeof *out; ++i)
        past_end += out[i] != (int32_t)OCLT_POISON_WORD;
    if (past_end) fprintf(stderr, "  work_items: %zu words written past the records\n", past_end);
    status = oclt_compare_int("work-item record", out, expected, *bytes / sizeof *out) || past_end
                 ? OCLT_FAIL
                 : OCLT_PASS;
release:
    if (kernel) clReleaseKernel(kernel);
    if (out_buf) clReleaseMemObject(out_buf);
    free(out);
    free(expected);
    return status;
}

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    /* Choose the device first (or just list them, for --devices) so that a bad -p/-d is a
     * usage error before any listing. */
    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    const cl_ulong bytes = oclt_mul_size(opt.size[0], sizeof(float));
    rc = oclt_require_memory(&spec, &dev, bytes, oclt_mul_size(bytes, 2), "--size");
    /* The host keeps 24 bytes per element (scale_shift's x, y, expected and bound). */
    if (!rc)
        rc = oclt_require_host_memory(&spec, &dev, oclt_mul_size(opt.size[0], 24),
                                      oclt_mul_size(bytes, 2), "--size");
    if (!rc && opt.size[0] > 0xFFFFFFFFu)
        rc =
            oclt_usage_error(&spec, "--size %zu does not fit the kernels' uint count", opt.size[0]);
    if (rc) goto close_device;

    /* 1. Platforms and devices. */
    rc = print_all_platforms();
    if (rc != OCLT_CONTINUE) goto close_device;

    /* 2. A program built from source; -cl-kernel-arg-info keeps argument names and types for
     * clGetKernelArgInfo. 3. Built-in kernels. */
    cl_program program =
        oclt_build_file(dev.context, dev.device, "query.cl", "-cl-kernel-arg-info");
    if (!program) {
        rc = OCLT_EXIT_FAIL;
        goto close_device;
    }
    rc = print_program_queries(&dev, program);
    if (rc == OCLT_EXIT_OK) rc = print_built_in_kernels(&dev);
    if (rc != OCLT_EXIT_OK) goto release_program;

    /* 4. Run and check. */
    printf("\n4. Run and check\n");
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", opt.size[0]);
    for (size_t v = 0; v < spec.variant_count; ++v) {
        if (!opt.selected[v]) continue;
        double ms = -1.0;
        size_t moved = v == 0 ? 2 * opt.size[0] * sizeof(float) : opt.size[0] * sizeof(int32_t);
        oclt_status status = v == 0   ? run_scale_shift(&dev, &opt, program, &rng, &ms)
                             : v == 1 ? run_group_sum(&dev, &opt, program, &rng, &ms)
                             : v == 2 ? run_work_items(&dev, &opt, program, &ms, &moved)
                                      : run_build_options(&dev, &opt, &rng, &ms);
        if (v == 3) moved = 2 * opt.size[0] * sizeof(float);
        char items_text[32]; /* work_items launches at most 65536 items, 12 ints each */
        snprintf(items_text, sizeof items_text, "%zu", moved / (12 * sizeof(int32_t)));
        oclt_report_result(&report, variants[v].name, v == 2 && moved ? items_text : size_text, ms,
                           ms > 0 ? moved / (ms * 1e6) : -1.0, "GB/s", status, NULL);
    }
    rc = oclt_report_exit_code(&report);
    print_chosen_device(&dev);
release_program:
    clReleaseProgram(program);
close_device:
    oclt_close_device(&dev);
    return rc;
}
