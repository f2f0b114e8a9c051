/* Chapter 02: small helpers the demonstrations share (declared in ch02.h). */
#include "ch02.h"

#include <stdio.h>
#include <stdlib.h>

#define SHOW_MISMATCHES 5

void report_demo(ch02 *c, const char *variant, const char *size, oclt_status status,
                 const char *note) {
    oclt_report_result(c->report, variant, size, -1.0, -1.0, "", status, note);
}

void report_demo_n(ch02 *c, const char *variant, size_t size, oclt_status status,
                   const char *note) {
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", size);
    report_demo(c, variant, size_text, status, note);
}

cl_int launch_1d(ch02 *c, cl_kernel kernel, size_t n, const char *label) {
    return launch_1d_timed(c, kernel, n, label, NULL);
}

double kernel_event_ms(ch02 *c, cl_kernel kernel, size_t n, const char *label) {
    double ms = -1.0;
    return launch_1d_timed(c, kernel, n, label, &ms) ? -1.0 : ms;
}

cl_int launch_1d_timed(ch02 *c, cl_kernel kernel, size_t n, const char *label, double *ms) {
    size_t local = 64, kernel_max = 0;
    cl_int err = OCLT_CHECK(clGetKernelWorkGroupInfo(
        kernel, c->dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max, NULL));
    if (err) return err;
    while (local > kernel_max) local /= 2;
    size_t global = (n + local - 1) / local * local;
    cl_event done = NULL;
    err = oclt_enqueue_kernel(c->dev->queue, kernel, 1, &global, &local, 0, NULL, &done, label);
    if (err) return err;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    if (!err && ms) err = oclt_events_span_ms(done, done, ms); /* START to END */
    clReleaseEvent(done);
    return err;
}

void fill_words(oclt_rng *rng, uint32_t *x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = (uint32_t)(oclt_rng_next(rng) >> 32);
}

size_t compare_words(const char *what, const uint32_t *got, const uint32_t *expected, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != expected[i]) {
            if (bad < SHOW_MISMATCHES)
                fprintf(stderr, "  %s: word %zu is 0x%08x, expected 0x%08x%s\n", what, i,
                        (unsigned)got[i], (unsigned)expected[i],
                        got[i] == OCLT_POISON_WORD ? " (the poison: never written)" : "");
            ++bad;
        }
    }
    if (bad > SHOW_MISMATCHES)
        fprintf(stderr, "  ... %zu of %zu words of %s wrong\n", bad, n, what);
    return bad;
}

int expect_refusal(const char *what, cl_int got, cl_int expected) {
    if (got == expected) {
        printf("    %s: refused with %s, as the specification requires\n", what,
               oclt_error_name(expected));
        return 1;
    }
    printf("    NOTE %s: this implementation returned %s where the specification requires %s;\n"
           "         portable code must not rely on it being accepted\n",
           what, oclt_error_name(got), oclt_error_name(expected));
    return 0;
}

void format_bytes(char *out, size_t size, size_t bytes) {
    if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
        snprintf(out, size, "%zu GiB", bytes >> 30);
    else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, size, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, size, "%zu KiB", bytes >> 10);
    else
        snprintf(out, size, "%zu B", bytes);
}

void free_each(void *const *pointers, size_t count) {
    for (size_t i = 0; i < count; ++i) free(pointers[i]);
}

void release_mem_objects(size_t count, const cl_mem *objects) {
    for (size_t i = 0; i < count; ++i)
        if (objects[i]) clReleaseMemObject(objects[i]);
}

static void CL_CALLBACK free_host_memory(cl_mem buffer, void *host) {
    (void)buffer;
    free(host); /* on a runtime thread, perhaps: free() is thread-safe */
}

void release_host_backed(cl_mem buffer, void *host) {
    if (!buffer) {
        free(host);
        return;
    }
    /* If the callback cannot be set, the memory is left allocated rather than freed under the
     * runtime. */
    OCLT_CHECK(clSetMemObjectDestructorCallback(buffer, free_host_memory, host));
    clReleaseMemObject(buffer);
}
