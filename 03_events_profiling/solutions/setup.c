/* Chapter 03 solutions: the shared set-up (see setup.h). */
#include "setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solution_open(solution *s, const oclt_cli_spec *spec, int argc, char **argv) {
    memset(s, 0, sizeof *s);
    int rc = oclt_parse_command_line(argc, argv, spec, &s->opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (s->opt.list_devices) return oclt_list_devices(stdout);
    if (s->opt.size[0] > 0xFFFFFFFFu)
        return oclt_usage_error(spec, "--size %zu does not fit the kernel's uint count",
                                s->opt.size[0]);
    rc = oclt_open_device(spec, &s->opt, &s->dev);
    if (rc != OCLT_CONTINUE) return rc;
    s->n = s->opt.size[0];
    const size_t bytes = s->n * sizeof(int32_t);
    rc = oclt_require_memory(spec, &s->dev, bytes, 2 * bytes, "--size");
    if (rc) return rc;
    /* The chapter's two source units, as one program (events.cl calls helpers.cl). */
    char *helpers = oclt_kernel_source("helpers.cl"), *events = oclt_kernel_source("events.cl");
    char *both = helpers && events ? malloc(strlen(helpers) + strlen(events) + 2) : NULL;
    if (both) sprintf(both, "%s\n%s", helpers, events);
    free(helpers);
    free(events);
    if (!both) return OCLT_EXIT_FAIL;
    s->program =
        oclt_build_source(s->dev.context, s->dev.device, both, "helpers.cl + events.cl", NULL);
    free(both);
    if (!s->program || !(s->affine_map = oclt_create_kernel(s->program, "affine_map")))
        return OCLT_EXIT_FAIL;
    s->x = malloc(bytes);
    s->y = malloc(bytes);
    if (!s->x || !s->y) {
        fprintf(stderr, "out of host memory\n");
        return OCLT_EXIT_FAIL;
    }
    oclt_rng rng;
    oclt_rng_seed(&rng, s->opt.seed);
    oclt_fill_int(&rng, s->x, s->n, -1000, 1000);
    oclt_poison_host(s->y, bytes);
    cl_int err = CL_SUCCESS;
    s->x_buf =
        clCreateBuffer(s->dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, s->x, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) return OCLT_EXIT_FAIL;
    s->y_buf = clCreateBuffer(s->dev.context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) return OCLT_EXIT_FAIL;
    if (oclt_poison_buffer(s->dev.queue, s->y_buf, bytes)) return OCLT_EXIT_FAIL;
    const int a = SOLUTION_A, b = SOLUTION_B;
    const cl_uint n32 = (cl_uint)s->n;
    if (OCLT_ARG(s->affine_map, 0, s->x_buf) || OCLT_ARG(s->affine_map, 1, s->y_buf) ||
        OCLT_ARG(s->affine_map, 2, a) || OCLT_ARG(s->affine_map, 3, b) ||
        OCLT_ARG(s->affine_map, 4, n32))
        return OCLT_EXIT_FAIL;
    printf("%s\n  device   %s\n  seed     %llu\n", spec->chapter, s->dev.device_name,
           (unsigned long long)s->opt.seed);
    return OCLT_CONTINUE;
}

void solution_close(solution *s) {
    if (s->dev.queue) clFinish(s->dev.queue);
    if (s->x_buf) clReleaseMemObject(s->x_buf);
    if (s->y_buf) clReleaseMemObject(s->y_buf);
    if (s->affine_map) clReleaseKernel(s->affine_map);
    if (s->program) clReleaseProgram(s->program);
    if (s->dev.context) oclt_close_device(&s->dev);
    free(s->x);
    free(s->y);
}

size_t solution_check(const solution *s) {
    int32_t *expected = malloc(s->n * sizeof *expected);
    if (!expected) return s->n;
    for (size_t i = 0; i < s->n; ++i) expected[i] = SOLUTION_A * s->x[i] + SOLUTION_B;
    size_t bad = oclt_compare_int("y", s->y, expected, s->n);
    free(expected);
    return bad;
}
