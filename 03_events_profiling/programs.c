/* Chapter 03: programs.
 *   binaries      three ways to an executable program: from source, from a saved binary, and
 *                 compiled + linked from two source units; a damaged binary is refused;
 *   enqueue_task  clEnqueueTask, the 1.x way to run a single work-item.
 */
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- binaries ------------------------------------------------------------------------------
 * clBuildProgram compiles OpenCL C at run time, and a large program takes seconds. Three ways to
 * an executable program:
 *   from source        clCreateProgramWithSource + clBuildProgram, as every chapter does;
 *   from a binary      CL_PROGRAM_BINARIES of a built program, saved (usually to a file) and
 *                      given later to clCreateProgramWithBinary + clBuildProgram: no OpenCL C
 *                      compiler runs. The binary belongs to one device model and driver: PTX
 *                      text on NVIDIA, an object file on PoCL. Another device, a newer driver
 *                      or damaged bytes: refused (CL_INVALID_BINARY, or a failed build), and
 *                      the program must fall back to the source;
 *   compiled + linked  clCompileProgram on each source unit, clLinkProgram on the objects:
 *                      separate compilation, like cc -c and ld.
 * The kernel relax_steps (float, calling relax() of the other unit) from each program runs on
 * the same input: the three results must be identical bit for bit. Drivers keep a cache of
 * compiled programs (~/.cache/pocl, ~/.nv/ComputeCache) that would make a repeated source
 * build look as cheap as a binary; an option that changes on every run (-DBUILD_NONCE=...)
 * makes each source build a real one. */

/* Rounds of relax per element in this scenario: enough arithmetic for rounding to differ if
 * two programs did not compute the same thing. */
#define BINARY_STEPS 32

static const char *binary_format(const unsigned char *b, size_t size) {
    if (size >= 4 && memcmp(b,
                            "\x7f"
                            "ELF",
                            4) == 0)
        return "an ELF object file (machine code)";
    if (size >= 4 && memcmp(b, "BC\xc0\xde", 4) == 0) return "LLVM bitcode";
    if (size >= 4 && memcmp(b, "\x03\x02\x23\x07", 4) == 0) return "SPIR-V";
    if (size >= 8 && memcmp(b, "poclbin", 8) == 0)
        return "PoCL's container ('poclbin': LLVM bitcode and any kernel code compiled so far)";
    for (size_t i = 0; i + 8 < size && i < 4096; ++i)
        if (memcmp(b + i, ".version", 8) == 0) return "PTX assembly text (NVIDIA)";
    return "a format private to the driver";
}

/* Runs relax_steps of `program` on x_buf into y (host), through y_buf, poisoned first. */
static cl_int run_relax(const lesson *L, cl_command_queue queue, cl_program program, cl_mem x_buf,
                        cl_mem y_buf, float *y, size_t n) {
    const cl_uint steps = BINARY_STEPS, n32 = (cl_uint)n;
    cl_event done = NULL;
    cl_kernel kernel = oclt_create_kernel(program, "relax_steps");
    if (!kernel) return CL_INVALID_KERNEL;
    oclt_poison_host(y, n * sizeof *y);
    cl_int err = oclt_poison_buffer(queue, y_buf, n * sizeof *y);
    if (!err && !(err = OCLT_ARG(kernel, 0, x_buf)) && !(err = OCLT_ARG(kernel, 1, y_buf)) &&
        !(err = OCLT_ARG(kernel, 2, steps)) && !(err = OCLT_ARG(kernel, 3, n32)) &&
        !(err = lesson_launch(L, queue, kernel, n, 0, NULL, &done, "relax_steps")))
        err = OCLT_CHECK(
            clEnqueueReadBuffer(queue, y_buf, CL_TRUE, 0, n * sizeof *y, y, 1, &done, NULL));
    if (done) clReleaseEvent(done);
    clReleaseKernel(kernel);
    return err;
}

/* A program from `size` bytes of binary for `device`, built. NULL when refused; `quiet` for the
 * binaries that are meant to be refused: the outcome is printed as a finding, not an error. */
static cl_program program_from_binary(cl_context context, cl_device_id device,
                                      const unsigned char *binary, size_t size, const char *options,
                                      int quiet, cl_int *outcome) {
    cl_int binary_status = CL_SUCCESS, err = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBinary(context, 1, &device, &size, &binary, &binary_status, &err);
    if (err != CL_SUCCESS) {
        *outcome = err;
        if (quiet)
            printf("refused by clCreateProgramWithBinary: %s (binary status %s)",
                   oclt_error_name(err), oclt_error_name(binary_status));
        else
            OCLT_CHECK_ERR(err, "clCreateProgramWithBinary");
        return NULL;
    }
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    *outcome = err;
    if (err != CL_SUCCESS) {
        if (quiet) {
            printf("accepted by clCreateProgramWithBinary, refused by clBuildProgram: %s",
                   oclt_error_name(err));
        } else {
            OCLT_CHECK_ERR(err, "clBuildProgram (from binary)");
            oclt_print_build_logs(program, options);
        }
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

/* clCompileProgram on each unit, clLinkProgram on the two objects. */
static cl_program compile_and_link(const lesson *L, cl_context context, cl_device_id device,
                                   const char *options) {
    static const char *const unit_names[2] = {"helpers.cl", "events.cl"};
    cl_program objects[2] = {NULL, NULL}, linked = NULL;
    cl_int err = CL_SUCCESS;
    for (int u = 0; u < 2; ++u) {
        const char *text = L->sources[u];
        objects[u] = clCreateProgramWithSource(context, 1, &text, NULL, &err);
        if (OCLT_CHECK_ERR(err, "clCreateProgramWithSource (one unit)")) goto release_objects;
        /* events.cl only declares relax() and affine(): compiling it needs no definition. */
        err = clCompileProgram(objects[u], 1, &device, options, 0, NULL, NULL, NULL, NULL);
        if (err != CL_SUCCESS) {
            char call[64];
            snprintf(call, sizeof call, "clCompileProgram(%s)", unit_names[u]);
            OCLT_CHECK_ERR(err, call);
            oclt_print_build_logs(objects[u], options);
            goto release_objects;
        }
    }
    /* The linker resolves events.cl's calls to helpers.cl's functions. */
    linked = clLinkProgram(context, 1, &device, NULL, 2, objects, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clLinkProgram(helpers.cl + events.cl)")) {
        if (linked) {
            oclt_print_build_logs(linked, NULL);
            clReleaseProgram(linked);
        }
        linked = NULL;
    }
release_objects:
    for (int u = 0; u < 2; ++u)
        if (objects[u]) clReleaseProgram(objects[u]);
    return linked;
}

/* The first device of any platform that is not `device`, or NULL. */
static cl_device_id another_device(cl_device_id device, cl_platform_id *platform) {
    cl_platform_id platforms[16];
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(16, platforms, &platform_count) != CL_SUCCESS) return NULL;
    for (cl_uint p = 0; p < platform_count && p < 16; ++p) {
        cl_device_id devices[16];
        cl_uint count = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &count) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < count && d < 16; ++d)
            if (devices[d] != device) {
                *platform = platforms[p];
                return devices[d];
            }
    }
    return NULL;
}

void scenario_binaries(lesson *L) {
    const size_t n = L->n, bytes = n * sizeof(float);
    cl_device_id device = L->dev->device;
    cl_context context = L->dev->context;
    oclt_status source_status = OCLT_FAIL, binary_status = OCLT_FAIL, link_status = OCLT_FAIL;
    double source_ms = -1.0, binary_ms = -1.0, link_ms = -1.0, first_run_ms[3] = {0, 0, 0};
    size_t source_failures = 0, binary_failures = 0, link_failures = 0;
    const char *skip = NULL;
    float *x = malloc(bytes), *y[3] = {malloc(bytes), malloc(bytes), malloc(bytes)};
    unsigned char *binary = NULL, *damaged = NULL;
    size_t binary_size = 0;
    cl_program from_source = NULL, from_binary = NULL, linked = NULL;
    cl_command_queue queue = NULL;
    cl_mem x_buf = NULL, y_buf = NULL;
    cl_int err = CL_SUCCESS;
    if (!x || !y[0] || !y[1] || !y[2]) {
        fprintf(stderr, "  out of host memory\n");
        goto release_host;
    }
    if (!oclt_device_uint(device, CL_DEVICE_COMPILER_AVAILABLE)) {
        skip = "the device has no OpenCL C compiler (CL_DEVICE_COMPILER_AVAILABLE)";
        goto release_host;
    }
    if (L->dev->device_version < 120 || !oclt_device_uint(device, CL_DEVICE_LINKER_AVAILABLE)) {
        skip = "the device has no linker (OpenCL 1.2 CL_DEVICE_LINKER_AVAILABLE)";
        goto release_host;
    }
    oclt_fill_float(&L->rng, x, n, -1.0f, 1.0f);
    char options[64];
    snprintf(options, sizeof options, "-DBUILD_NONCE=%llu",
             (unsigned long long)(oclt_now_ms() * 1e3) ^ (unsigned long long)L->opt->seed);
    if (!(queue = lesson_queue(L, context, device, 0, L->trace_device, "binaries", NULL)))
        goto release_host;
    x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(x)")) goto release_queue;
    y_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(y)")) goto release_buffers;

    /* 1. From source: both units as one program. */
    double start = oclt_now_ms();
    if (!(from_source = lesson_build(L, context, 1, &device, options))) goto release_buffers;
    source_ms = oclt_now_ms() - start;
    /* Some drivers finish compiling at a kernel's first launch (PoCL, for each work-group
     * size): the first run of each program is timed too. */
    start = oclt_now_ms();
    if (run_relax(L, queue, from_source, x_buf, y_buf, y[0], n)) goto release_programs;
    first_run_ms[0] = oclt_now_ms() - start;
    source_failures += check_relax(L, "y (from source)", x, y[0], n, BINARY_STEPS);
    source_status = verdict(L, source_failures);

    /* 2. The binary: one per device of the program (here one), sizes first. */
    if (OCLT_CHECK(clGetProgramInfo(from_source, CL_PROGRAM_BINARY_SIZES, sizeof binary_size,
                                    &binary_size, NULL)))
        goto release_programs;
    if (binary_size == 0) {
        fprintf(stderr, "  the driver returned an empty program binary\n");
        goto release_programs;
    }
    binary = malloc(binary_size);
    damaged = malloc(binary_size);
    if (!binary || !damaged) {
        fprintf(stderr, "out of host memory\n");
        goto release_programs;
    }
    unsigned char *binaries[1] = {binary};
    if (OCLT_CHECK(
            clGetProgramInfo(from_source, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL)))
        goto release_programs;
    printf("    CL_PROGRAM_BINARIES: %zu bytes, %s\n", binary_size,
           binary_format(binary, binary_size));
    start = oclt_now_ms();
    cl_int outcome = CL_SUCCESS;
    if (!(from_binary =
              program_from_binary(context, device, binary, binary_size, options, 0, &outcome)))
        goto release_programs;
    binary_ms = oclt_now_ms() - start;
    start = oclt_now_ms();
    if (run_relax(L, queue, from_binary, x_buf, y_buf, y[1], n)) goto release_programs;
    first_run_ms[1] = oclt_now_ms() - start;
    if (memcmp(y[1], y[0], bytes) != 0) {
        fprintf(stderr, "  the program from the binary computes other bits than from source\n");
        ++binary_failures;
    }

    /* 3. Compiled apart, linked together. */
    start = oclt_now_ms();
    if (!(linked = compile_and_link(L, context, device, options))) goto release_programs;
    link_ms = oclt_now_ms() - start;
    start = oclt_now_ms();
    if (run_relax(L, queue, linked, x_buf, y_buf, y[2], n)) goto release_programs;
    first_run_ms[2] = oclt_now_ms() - start;
    if (memcmp(y[2], y[0], bytes) != 0) {
        fprintf(stderr, "  the linked program computes other bits than the one from source\n");
        ++link_failures;
    }
    /* Equal to a wrong result is wrong too: the reference check counts for every path. */
    const size_t differences = binary_failures + link_failures;
    link_failures += source_failures;
    binary_failures += source_failures;
    link_status = verdict(L, link_failures);
    printf("    host ms      %14s %14s %14s\n", "from source", "from binary", "compile+link");
    printf("    to a program %14.1f %14.1f %14.1f\n", source_ms, binary_ms, link_ms);
    printf("    first run    %14.1f %14.1f %14.1f   (relax_steps, %d steps, write + read)\n",
           first_run_ms[0], first_run_ms[1], first_run_ms[2], BINARY_STEPS);
    printf("    relax_steps from the three programs: %s\n",
           differences       ? "results DIFFER"
           : source_failures ? "identical bits, but wrong (the reference check failed)"
                             : "identical results, bit for bit");

    /* A damaged binary must be refused, never run. Drivers check the header (magic number,
     * device, version); damage further in may go unnoticed, and PoCL 3.1 even aborts the
     * process on a truncated binary. So never load bytes you have not verified yourself: store
     * a binary with its size and a checksum (and the device and driver version), and compare
     * them before calling clCreateProgramWithBinary. */
    printf("    the binary with its first 16 bytes overwritten: ");
    memcpy(damaged, binary, binary_size);
    memcpy(damaged, "not a binary!!!!", binary_size < 16 ? binary_size : 16);
    cl_program accepted =
        program_from_binary(context, device, damaged, binary_size, options, 1, &outcome);
    printf("\n");
    if (accepted) {
        fprintf(stderr, "  the driver built a binary with a damaged header without complaint\n");
        ++binary_failures;
        clReleaseProgram(accepted);
    }
    /* A binary for another device: tried where this machine has one. */
    cl_platform_id other_platform = NULL;
    cl_device_id other = another_device(device, &other_platform);
    if (other) {
        char *name = oclt_device_string(other, CL_DEVICE_NAME);
        printf("    this binary given to another device (%s): ", name ? name : "?");
        free(name);
        cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              (cl_context_properties)other_platform, 0};
        cl_context other_context = clCreateContext(properties, 1, &other, NULL, NULL, &err);
        if (err == CL_SUCCESS) {
            cl_program foreign = program_from_binary(other_context, other, binary, binary_size,
                                                     options, 1, &outcome);
            if (foreign) {
                printf("accepted (the same device model and driver)");
                clReleaseProgram(foreign);
            }
            clReleaseContext(other_context);
        } else {
            printf("no context: %s", oclt_error_name(err));
        }
        printf("\n");
    } else {
        printf("    a binary for another device: this machine has no other device to try it on "
               "(another device model refuses it: CL_INVALID_BINARY or a failed build)\n");
    }
    binary_status = verdict(L, binary_failures);
release_programs:
    if (linked) clReleaseProgram(linked);
    if (from_binary) clReleaseProgram(from_binary);
    if (from_source) clReleaseProgram(from_source);
release_buffers:
    if (y_buf) clReleaseMemObject(y_buf);
    clReleaseMemObject(x_buf);
release_queue:
    finish_and_release(queue);
release_host:
    free(x);
    for (int i = 0; i < 3; ++i) free(y[i]);
    free(binary);
    free(damaged);
    if (skip) {
        report_skip(L, "binaries", skip);
        return;
    }
    oclt_report_result(L->report, "build_source", L->size_text, source_ms, -1.0, NULL,
                       source_status, "host ms: clCreateProgramWithSource + clBuildProgram");
    oclt_report_result(L->report, "build_binary", L->size_text, binary_ms, -1.0, NULL,
                       binary_status, "host ms: clCreateProgramWithBinary + clBuildProgram");
    oclt_report_result(L->report, "build_compile_link", L->size_text, link_ms, -1.0, NULL,
                       link_status, "host ms: 2 x clCompileProgram + clLinkProgram");
}

/* ---- enqueue_task --------------------------------------------------------------------------
 * clEnqueueTask(queue, kernel, ...) runs a kernel as one work-item: the same as an NDRange of
 * global size 1 and local size 1, which is what OpenCL 2.0 says to use instead when it
 * deprecated the call. It is still in the 3.0 API (as deprecated; this project compiles with
 * CL_USE_DEPRECATED_OPENCL_1_2_APIS), so both are shown, and both results checked. */

/* A serial loop on one work-item does not scale: the scan is capped at this many elements. */
#define TASK_MAX_ELEMENTS 16384

void scenario_enqueue_task(lesson *L) {
    const size_t n = L->n < TASK_MAX_ELEMENTS ? L->n : TASK_MAX_ELEMENTS;
    const size_t bytes = n * sizeof(int32_t);
    const cl_uint n32 = (cl_uint)n;
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", n);
    oclt_status status = OCLT_FAIL;
    double task_ms = -1.0, ndrange_ms = -1.0;
    size_t failures = 0;
    int32_t *expected = malloc(bytes);
    chain_setup c = {0};
    cl_event ev[2] = {NULL, NULL};
    if (!expected) fprintf(stderr, "  out of host memory\n");
    if (!expected || chain_open(L, &c, L->dev->context, L->program, "serial_scan", n,
                                L->trace_device, "enqueue_task"))
        goto release;
    int32_t sum = 0;
    for (size_t i = 0; i < n; ++i) expected[i] = sum += c.x[i]; /* |sum| <= 16384 * 1000 */
    printf("    clEnqueueTask: OpenCL 1.x, deprecated by 2.0; this platform is OpenCL %d.%d, the "
           "device %d.%d%s\n",
           L->dev->platform_version / 100, L->dev->platform_version % 100 / 10,
           L->dev->device_version / 100, L->dev->device_version % 100 / 10,
           L->dev->platform_version >= 200 ? ": still callable, use an NDRange of 1 in new code"
                                           : "");
    if (n < L->n) printf("    (the serial scan runs on the first %zu elements)\n", n);
    if (OCLT_CHECK(clEnqueueWriteBuffer(c.queue, c.x_buf, CL_TRUE, 0, bytes, c.x, 0, NULL, NULL)) ||
        OCLT_ARG(c.kernel, 0, c.x_buf) || OCLT_ARG(c.kernel, 1, c.y_buf) ||
        OCLT_ARG(c.kernel, 2, n32))
        goto release;
    const size_t one = 1;
    for (int way = 0; way < 2; ++way) {
        if (oclt_poison_buffer(c.queue, c.y_buf, bytes)) goto release;
        oclt_poison_host(c.y, bytes);
        cl_int err = way == 0 ? OCLT_CHECK(clEnqueueTask(c.queue, c.kernel, 0, NULL, &ev[way]))
                              : oclt_enqueue_kernel(c.queue, c.kernel, 1, &one, &one, 0, NULL,
                                                    &ev[way], "serial_scan (NDRange of 1)");
        if (err || OCLT_CHECK(clEnqueueReadBuffer(c.queue, c.y_buf, CL_TRUE, 0, bytes, c.y, 1,
                                                  &ev[way], NULL)))
            goto release;
        if (L->opt->check)
            failures += oclt_compare_int(way == 0 ? "y (clEnqueueTask)" : "y (NDRange of 1)", c.y,
                                         expected, n);
        if (L->profiling) {
            double ms = oclt_event_ms(ev[way]);
            if (ms < 0.0 || lesson_trace(L, ev[way], c.track,
                                         way == 0 ? "serial_scan (task)" : "serial_scan (1 item)",
                                         way == 0 ? 'T' : 'N'))
                goto release;
            *(way == 0 ? &task_ms : &ndrange_ms) = ms;
        }
    }
    if (L->profiling)
        printf("    serial scan of %zu ints: clEnqueueTask %.3f ms, NDRange of 1 %.3f ms\n", n,
               task_ms, ndrange_ms);
    status = verdict(L, failures);
release:
    release_events(ev, 2);
    chain_close(&c);
    free(expected);
    oclt_report_result(L->report, "enqueue_task", size_text, task_ms, -1.0, NULL, status,
                       "device ms of clEnqueueTask; the NDRange of 1 gave the same");
}
