/* Chapter 02, steps 13 and 14: mistakes the implementation must catch.
 *   vector_literal_error  vector_literal_error.cl must fail to build, its log naming the line;
 *   misuse                buffer calls the specification answers with an error code, each
 *                         checked for that code and for leaving the host's memory untouched.
 * Mistakes whose result is undefined (a buffer released twice or used after its release, a
 * kernel writing a READ_ONLY buffer, host and device writing the same memory at once) are
 * never run: docs/02_buffers_mapping.md lists them and what each may do. */
#include "ch02.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER "EXPECTED BUILD ERROR"

/* The 1-based line of the source holding the marker comment (0: none). */
static int marked_line(const char *source) {
    int line = 1;
    const char *mark = strstr(source, MARKER);
    if (!mark) return 0;
    for (const char *p = source; p < mark; ++p) line += *p == '\n';
    return line;
}

oclt_status demo_vector_literal_error(ch02 *c) {
    const oclt_device *dev = c->dev;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    char *log = NULL;
    int line = 0;
    char *source = oclt_kernel_source("vector_literal_error.cl");
    if (!source) goto done;
    line = marked_line(source);
    printf("\n  vector_literal_error: (float4)(2.0f, 1.0f) on line %d must not compile\n", line);
    const char *sources[1] = {source};
    cl_program program = clCreateProgramWithSource(dev->context, 1, sources, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithSource(vector_literal_error.cl)")) goto done;
    err = clBuildProgram(program, 1, &dev->device, "", NULL, NULL);
    size_t log_size = 0;
    if (err == CL_BUILD_PROGRAM_FAILURE &&
        !OCLT_CHECK(clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                          &log_size)) &&
        (log = malloc(log_size + 1)) &&
        !OCLT_CHECK(clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, log_size, log,
                                          NULL))) {
        log[log_size] = '\0';
        /* Compilers write "file:LINE:COLUMN: error: ..."; look for ":LINE:" after the file
         * name (not after another number, as in ":19:9:") on a line that says "error". */
        char needle[32];
        snprintf(needle, sizeof needle, ":%d:", line);
        const char *hit = strstr(log, needle), *start = NULL, *end = NULL;
        for (; hit; hit = strstr(hit + 1, needle)) {
            start = hit;
            while (start > log && start[-1] != '\n') --start;
            end = strchr(hit, '\n');
            const int after_number = hit > log && isdigit((unsigned char)hit[-1]);
            const size_t length = end ? (size_t)(end - start) : strlen(start);
            int says_error = 0;
            for (size_t i = 0; i + 5 <= length && !says_error; ++i)
                says_error = !strncmp(start + i, "error", 5);
            if (!after_number && says_error) break;
        }
        printf("    clBuildProgram: %s; the log says:\n      %.*s\n", oclt_error_name(err),
               hit ? (int)(end ? end - start : (long)strlen(start)) : 0, hit ? start : "");
        if (hit && line > 0)
            status = OCLT_PASS;
        else
            fprintf(stderr, "  the build log does not name line %d:\n%s\n", line, log);
    } else if (err == CL_SUCCESS) {
        fprintf(stderr, "  vector_literal_error.cl built: a (float4) literal of 2 components was "
                        "accepted\n");
    } else {
        fprintf(stderr, "  clBuildProgram returned %s, not CL_BUILD_PROGRAM_FAILURE\n",
                oclt_error_name(err));
    }
    clReleaseProgram(program);
done:
    free_all(log, source);
    report_demo_n(c, "vector_literal_error", (size_t)line, status, "the line the log must name");
    return status;
}

/* ---- 14. Misuse with a defined answer ---------------------------------------------------- */

/* A call that must be refused: counts it wrong only when it succeeded (a different error code
 * is a NOTE, as in expect_refusal). */
static size_t refused(const char *what, cl_int got, cl_int expected) {
    expect_refusal(what, got, expected);
    if (got == CL_SUCCESS) fprintf(stderr, "  %s succeeded: it must be refused\n", what);
    return got == CL_SUCCESS;
}

oclt_status demo_misuse(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t n = c->words, bytes = n * sizeof(uint32_t);
    cl_command_queue queue = dev->queue;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem buffer = NULL, made = NULL;
    uint32_t *data = malloc(bytes), *got = malloc(bytes + 8), stray[2] = {1, 2};
    if (!data || !got) goto release;
    fill_words(&c->rng, data, n);
    printf("\n  misuse: calls on a %zu-byte buffer that the specification must refuse\n", bytes);
    buffer =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(misuse)")) goto release;

    /* Past the end: offset + size > the buffer's size. Nothing moves; the host memory stays
     * poison and the buffer keeps its data. */
    oclt_poison_host(got, bytes + 8);
    wrong += refused("clEnqueueReadBuffer 4 bytes past the end",
                     clEnqueueReadBuffer(queue, buffer, CL_TRUE, 4, bytes, got, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    wrong += refused("clEnqueueWriteBuffer at offset = size",
                     clEnqueueWriteBuffer(queue, buffer, CL_TRUE, bytes, 4, stray, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    void *mapped =
        clEnqueueMapBuffer(queue, buffer, CL_TRUE, CL_MAP_READ, 0, bytes + 4, 0, NULL, NULL, &err);
    wrong += refused("clEnqueueMapBuffer of size + 4 bytes", err, CL_INVALID_VALUE);
    if (mapped) clEnqueueUnmapMemObject(queue, buffer, mapped, 0, NULL, NULL);
    const uint32_t poison = OCLT_POISON_WORD;
    size_t touched = 0;
    for (size_t i = 0; i < n + 2; ++i) touched += got[i] != poison;
    if (touched) fprintf(stderr, "  a refused read wrote %zu words of host memory\n", touched);
    wrong += touched;

    /* A sub-buffer must lie inside its parent; a copy inside one buffer must not overlap. */
    const cl_buffer_region outside = {0, bytes + 4};
    made = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err);
    /* NVIDIA's driver 580 returns CL_SUCCESS here. Nothing is read or written through the
     * sub-buffer, so no data is harmed: a NOTE (docs/appendix_driver_quirks.md), not a failure. */
    expect_refusal("clCreateSubBuffer reaching past the parent", err, CL_INVALID_VALUE);
    if (made) clReleaseMemObject(made);
    if (n >= 3) /* words 0..n-2 onto 1..n-1: they share words 1..n-2 */
        wrong += refused("clEnqueueCopyBuffer within one buffer, regions overlapping",
                         clEnqueueCopyBuffer(queue, buffer, buffer, 0, 4, bytes - 4, 0, NULL, NULL),
                         CL_MEM_COPY_OVERLAP);
    /* Unmapping a pointer no map returned: refused by the specification, but an implementation
     * that accepts it (and does nothing) harms no data, so that is a NOTE, not a failure. */
    expect_refusal("clEnqueueUnmapMemObject of a pointer that was never mapped",
                   clEnqueueUnmapMemObject(queue, buffer, stray, 0, NULL, NULL), CL_INVALID_VALUE);

    /* Creation: a size of 0, USE_HOST_PTR without a pointer, two host-pointer flags that
     * exclude each other. */
    made = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, 0, NULL, &err);
    wrong += refused("clCreateBuffer of 0 bytes", err, CL_INVALID_BUFFER_SIZE);
    if (made) clReleaseMemObject(made);
    made = clCreateBuffer(dev->context, CL_MEM_USE_HOST_PTR, bytes, NULL, &err);
    wrong += refused("clCreateBuffer(USE_HOST_PTR) with host_ptr NULL", err, CL_INVALID_HOST_PTR);
    if (made) clReleaseMemObject(made);
    made = clCreateBuffer(dev->context, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, bytes, data,
                          &err);
    wrong += refused("clCreateBuffer(USE_HOST_PTR | ALLOC_HOST_PTR)", err, CL_INVALID_VALUE);
    if (made) clReleaseMemObject(made);

    /* After all that, the buffer still holds what it was created with. */
    oclt_poison_host(got, bytes);
    if (OCLT_CHECK(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, got, 0, NULL, NULL)))
        goto release;
    size_t bad = compare_words("buffer after the refused calls", got, data, n);
    printf("    the buffer after the refused calls: %s\n",
           bad ? "CHANGED" : "unchanged, the host memory untouched");
    status = status_of(wrong + bad);
release:
    if (buffer) clReleaseMemObject(buffer);
    free_all(data, got);
    report_demo_n(c, "misuse", bytes, status, NULL);
    return status;
}
