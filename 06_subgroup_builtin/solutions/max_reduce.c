/* Chapter 06, exercise 1 (worked solution): max instead of sum or min. The kernels do not
 * change; only the operation written in front of them does: fmax, the identity -INFINITY,
 * work_group_reduce_max. single_pass runs where the device orders work-groups (device-scope
 * atomics, or NVIDIA's fence) and work_group_reduce where it has work-group collectives (else
 * SKIP with the reason, as in the chapter). The inputs are
 * all negative, so an identity of 0 instead of -INFINITY would give 0 and fail. Each variant
 * runs once per position of the one largest element (plant_positions), so that a kernel that
 * loses any of the places where input is read fails a round. */
#include "../ch06.h"
#include "solution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oclt_cli_spec spec = {
    .chapter = "06_solution_max_reduce",
    .summary = "exercise 1: max through the chapter's kernels, with a fallback",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1u << 20},
    .default_reps = 1,
    .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK,
};

static const char max_header[] = "#define T float\n#define TV float4\n#define AS_T as_float\n"
                                 "#define OP(a, b) fmax(a, b)\n#define IDENTITY (-INFINITY)\n"
                                 "#define WORK_GROUP_REDUCE work_group_reduce_max\n"
                                 "#define SUB_GROUP_REDUCE sub_group_reduce_max\n";

/* Where the one largest element goes, a round each: the first element; one that work-item 1
 * reads (the tree's last step adds what item 1 holds); the first vector of the grid's last
 * work-item; the last element of the vector part; the tail's last element; and a random one.
 * Returns how many of them lie inside n (duplicates left out). */
static size_t plant_positions(size_t n, size_t items, oclt_rng *rng, size_t *at) {
    const size_t vec = 4, candidates[] = {0,
                                          vec,
                                          (items - 1) * vec,
                                          n / vec * vec - 1,
                                          n - 1,
                                          (size_t)(oclt_rng_uniform(rng) * (double)n)};
    size_t count = 0;
    for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; ++c) {
        int seen = candidates[c] >= n;
        for (size_t k = 0; k < count; ++k) seen |= at[k] == candidates[c];
        if (!seen) at[count++] = candidates[c];
    }
    return count;
}

int main(int argc, char **argv) {
    oclt_options opt;
    oclt_device dev;
    int rc = solution_open(&spec, argc, argv, (size_t)1 << 31, sizeof(float), &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    const size_t n = opt.size[0];

    /* Which of the two variants the device can run, as the chapter decides it. */
    capabilities caps;
    query_capabilities(&dev, &caps);
    const size_t local = solution_local_size(&dev, NULL);
    const tuning shape = {.vec = 4, .unroll = 1, .groups_per_cu = 4, .order = ORDER_INTERLEAVED};
    variant_plan plans[VARIANT_COUNT] = {{0}};
    plan_variants(&caps, &dev, local, &shape, plans);
    const size_t groups = 4 * (caps.compute_units ? caps.compute_units : 1);

    oclt_rng rng;
    oclt_rng_seed(&rng, opt.seed);
    float *x = malloc(n * sizeof *x), got = 0.0f;
    char *source = solution_source(max_header);
    cl_mem in = NULL, partial = NULL, ticket = NULL, result = NULL;
    cl_int err = x && source ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    const double expected = -1.0; /* planted at at[r] in round r; every other input < -2 */
    size_t at[6];
    const size_t rounds = plant_positions(n, groups * local, &rng, at);
    if (!err) {
        oclt_fill_float(&rng, x, n, -3.0f, -2.0f);
        const cl_uint zero = 0;
        in = clCreateBuffer(dev.context, CL_MEM_READ_ONLY, n * sizeof *x, NULL, &err);
        if (!err) partial = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, groups * 4, NULL, &err);
        if (!err)
            ticket = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4,
                                    (void *)&zero, &err);
        if (!err) result = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 4, NULL, &err);
        OCLT_CHECK_ERR(err, "clCreateBuffer");
    }
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    const int wanted[] = {SINGLE_PASS, WORK_GROUP_REDUCE};
    const char *names[] = {"single_pass/max/float", "work_group_reduce/max/float"};
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", n);
    for (int k = 0; k < 2 && !err; ++k) {
        const int v = wanted[k];
        if (!plans[v].usable) {
            oclt_report_result(&report, names[k], size_text, -1, -1, NULL, OCLT_SKIP, plans[v].why);
            continue;
        }
        char options[256];
        snprintf(options, sizeof options,
                 "%s -D %s -D LOCAL_SIZE=%zu -D VEC=4 -D UNROLL=1 -D BLOCKED=0%s", plans[v].std,
                 v == SINGLE_PASS ? "VARIANT_SINGLE_PASS" : "VARIANT_WORK_GROUP_REDUCE", local,
                 plans[v].gpu_fence ? " -D NVIDIA_GPU_FENCE" : "");
        cl_program program = NULL;
        cl_kernel kernel = solution_kernel(
            &dev, source, options, v == SINGLE_PASS ? "reduce_single_pass" : "reduce_work_group",
            &program);
        const cl_uint count = (cl_uint)n;
        int wrong = !kernel;
        char note[160] = "exact at";
        for (size_t r = 0; r < rounds && !wrong; ++r) {
            const float kept = x[at[r]];
            x[at[r]] = -1.0f;
            cl_int run = OCLT_CHECK(
                clEnqueueWriteBuffer(dev.queue, in, CL_TRUE, 0, n * sizeof *x, x, 0, NULL, NULL));
            x[at[r]] = kept;
            /* single_pass: one launch of many groups; work_group_reduce: one group. */
            if (!run) run = oclt_poison_buffer(dev.queue, result, 4);
            /* and the partials, with +infinity: the usual poison is a NaN, which fmax drops, so
             * a group whose partial is never written would pass; infinity wins the max. */
            if (!run && v == SINGLE_PASS) {
                const float infinity = INFINITY;
                run = OCLT_CHECK(clEnqueueFillBuffer(dev.queue, partial, &infinity, sizeof infinity,
                                                     0, groups * 4, 0, NULL, NULL));
            }
            if (!run && v == SINGLE_PASS)
                run = OCLT_ARG(kernel, 0, in) || OCLT_ARG(kernel, 1, partial) ||
                              OCLT_ARG(kernel, 2, ticket) || OCLT_ARG(kernel, 3, result) ||
                              OCLT_ARG(kernel, 4, count) ||
                              solution_launch(&dev, kernel, groups, local)
                          ? CL_INVALID_OPERATION
                          : CL_SUCCESS;
            if (!run && v == WORK_GROUP_REDUCE)
                run = OCLT_ARG(kernel, 0, in) || OCLT_ARG(kernel, 1, result) ||
                              OCLT_ARG(kernel, 2, count) || solution_launch(&dev, kernel, 1, local)
                          ? CL_INVALID_OPERATION
                          : CL_SUCCESS;
            if (!run)
                run = OCLT_CHECK(
                    clEnqueueReadBuffer(dev.queue, result, CL_TRUE, 0, 4, &got, 0, NULL, NULL));
            char label[96];
            snprintf(label, sizeof label, "%s, largest at %zu", names[k], at[r]);
            wrong = run || oclt_compare_float(label, &got, &expected, NULL, 0.0, 1);
            const size_t used = strlen(note);
            if (wrong)
                snprintf(note, sizeof note, "wrong with the largest at %zu", at[r]);
            else
                snprintf(note + used, sizeof note - used, "%s %zu", r ? "," : "", at[r]);
        }
        oclt_report_result(&report, names[k], size_text, -1, -1, NULL,
                           wrong ? OCLT_FAIL : OCLT_PASS, note);
        if (kernel) clReleaseKernel(kernel);
        if (program) clReleaseProgram(program);
    }
    rc = err ? OCLT_EXIT_FAIL : oclt_report_exit_code(&report);
    cl_mem all[] = {in, partial, ticket, result};
    for (int i = 0; i < 4; ++i)
        if (all[i]) clReleaseMemObject(all[i]);
    free(x);
    free(source);
    oclt_close_device(&dev);
    return rc;
}
