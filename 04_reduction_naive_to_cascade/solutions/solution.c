/* Chapter 04 solutions: the set-up both share. */
#include "solution.h"

#include <stdio.h>

int solution_setup(solution *s, int argc, char **argv, const solution_plan *plan) {
    const char *name = plan->name;
    const size_t local = plan->local;
    s->spec = (oclt_cli_spec){.chapter = name,
                              .summary = plan->summary,
                              .size_kind = OCLT_SIZE_COUNT,
                              .default_size = {plan->default_size},
                              .default_reps = 1,
                              .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK};
    int rc = oclt_parse_command_line(argc, argv, &s->spec, &s->opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (plan->max_size && s->opt.size[0] > plan->max_size)
        return oclt_usage_error(&s->spec, "--size %zu is too large: at most %zu, %s",
                                s->opt.size[0], plan->max_size, plan->max_reason);
    if (s->opt.size[0] > 0x7FFFFFFF)
        return oclt_usage_error(&s->spec, "--size %zu is too large: at most 2^31-1",
                                s->opt.size[0]);
    if ((rc = oclt_open_device(&s->spec, &s->opt, &s->dev)) != OCLT_CONTINUE) return rc;
    /* The inputs must fit the device. */
    const cl_ulong bytes = oclt_mul_size(s->opt.size[0], 4);
    if ((rc = oclt_require_memory(&s->spec, &s->dev, bytes, oclt_mul_size(bytes, plan->inputs),
                                  "--size")) != 0) {
        oclt_close_device(&s->dev);
        return rc;
    }
    if (oclt_device_size(s->dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE) < local) {
        fprintf(stderr, "%s: groups of %zu are too large for %s\n", name, local,
                s->dev.device_name);
        oclt_close_device(&s->dev);
        return OCLT_EXIT_SKIP;
    }
    const oclt_group_order order = plan->group_order ? oclt_device_group_order(&s->dev) : 0;
    if (plan->group_order && order == OCLT_GROUP_ORDER_NONE) {
        printf("%s: SKIP: no order between work-groups on %s (needs OpenCL C 2.0 atomics, or 3.0 "
               "with device-scope acquire/release, or NVIDIA's GPU-scope fence)\n",
               name, s->dev.device_name);
        oclt_close_device(&s->dev);
        return OCLT_EXIT_SKIP;
    }
    char options[128];
    snprintf(options, sizeof options, "-DBLOCK_SIZE=%zu%s%s", local,
             order == OCLT_GROUP_ORDER_C11      ? " -DC11_ATOMICS"
             : order == OCLT_GROUP_ORDER_NVIDIA ? " -DNVIDIA_GPU_FENCE"
                                                : "",
             order != OCLT_GROUP_ORDER_C11 ? ""
             : s->dev.c_version >= 300     ? " -cl-std=CL3.0"
                                           : " -cl-std=CL2.0");
    s->program = oclt_build_file(s->dev.context, s->dev.device, plan->file, options);
    if (!s->program) {
        oclt_close_device(&s->dev);
        return OCLT_EXIT_FAIL;
    }
    oclt_report_begin(&s->report, &s->spec, &s->opt, &s->dev);
    return OCLT_CONTINUE;
}

cl_mem solution_buffer(const solution *s, size_t bytes, void *host) {
    cl_int err = CL_SUCCESS;
    cl_mem buffer =
        clCreateBuffer(s->dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    return OCLT_CHECK_ERR(err, "clCreateBuffer") ? NULL : buffer;
}

int solution_finish(solution *s, const char *variant, oclt_status status) {
    char size[32];
    snprintf(size, sizeof size, "%zu", s->opt.size[0]);
    oclt_report_result(&s->report, variant, size, -1, -1, NULL, status, NULL);
    clReleaseProgram(s->program);
    oclt_close_device(&s->dev);
    return oclt_report_exit_code(&s->report);
}
