/* Checking results: seeded random inputs, poisoned outputs, comparisons with tolerances. */
#include "check.h"
#include "errors.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SHOW_MISMATCHES 5

void oclt_rng_seed(oclt_rng *rng, uint64_t seed) {
    rng->state = seed;
}

uint64_t oclt_rng_next(oclt_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double oclt_rng_uniform(oclt_rng *rng) {
    return (double)(oclt_rng_next(rng) >> 11) * 0x1.0p-53;
}

int32_t oclt_rng_int(oclt_rng *rng, int32_t lo, int32_t hi) {
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    return (int32_t)((int64_t)lo + (int64_t)(oclt_rng_next(rng) % span));
}

void oclt_fill_float(oclt_rng *rng, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; ++i) x[i] = lo + (hi - lo) * (float)oclt_rng_uniform(rng);
}

void oclt_fill_double(oclt_rng *rng, double *x, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; ++i) x[i] = lo + (hi - lo) * oclt_rng_uniform(rng);
}

void oclt_fill_int(oclt_rng *rng, int32_t *x, size_t n, int32_t lo, int32_t hi) {
    for (size_t i = 0; i < n; ++i) x[i] = oclt_rng_int(rng, lo, hi);
}

void oclt_poison_host(void *data, size_t bytes) {
    const uint32_t word = OCLT_POISON_WORD;
    unsigned char *p = data;
    for (size_t i = 0; i < bytes; ++i) p[i] = ((const unsigned char *)&word)[i % 4];
}

cl_int oclt_poison_buffer(cl_command_queue queue, cl_mem buffer, size_t bytes) {
    const cl_uint word = OCLT_POISON_WORD;
    size_t whole = bytes / sizeof word * sizeof word;
    cl_event done = NULL;
    cl_int err = CL_SUCCESS;
    if (whole) {
        err = clEnqueueFillBuffer(queue, buffer, &word, sizeof word, 0, whole, 0, NULL, &done);
        if (OCLT_CHECK_ERR(err, "clEnqueueFillBuffer(poison)")) return err;
        err = OCLT_CHECK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
    }
    for (size_t i = whole; i < bytes && err == CL_SUCCESS; ++i) { /* a tail of 1-3 bytes */
        unsigned char byte = ((const unsigned char *)&word)[i % 4];
        err = OCLT_CHECK(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, i, 1, &byte, 0, NULL, NULL));
    }
    return err;
}

double oclt_sum_error_bound(double unit_roundoff, size_t chain, double sum_abs) {
    double ku = (double)chain * unit_roundoff;
    if (ku >= 0.5) ku = 0.5; /* the bound is vacuous beyond this; keep it finite */
    return ku / (1.0 - ku) * sum_abs;
}

void oclt_fill_float_whole(oclt_rng *rng, float *x, size_t n, int32_t lo, int32_t hi) {
    for (size_t i = 0; i < n; ++i) x[i] = (float)oclt_rng_int(rng, lo, hi);
}

void oclt_fill_double_whole(oclt_rng *rng, double *x, size_t n, int32_t lo, int32_t hi) {
    for (size_t i = 0; i < n; ++i) x[i] = (double)oclt_rng_int(rng, lo, hi);
}

int oclt_sum_check_too_weak(double tolerance, double sum_abs) {
    return tolerance >= sum_abs / 8.0;
}

double oclt_whole_sum_tolerance(int significand_bits, size_t chain, double sum_abs) {
    const double exact_limit = ldexp(1.0, significand_bits);
    if (sum_abs < exact_limit) return 0.0;
    return oclt_sum_error_bound(ldexp(1.0, -significand_bits), chain, sum_abs);
}

static size_t compare_real(const char *what, const void *got, int is_double, const double *expected,
                           const double *tolerances, double tolerance, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        double value = is_double ? ((const double *)got)[i] : (double)((const float *)got)[i];
        double limit = tolerances ? tolerances[i] : tolerance;
        double error = fabs(value - expected[i]);
        if (!(error <= limit)) { /* written so that NaN fails */
            if (bad < SHOW_MISMATCHES)
                fprintf(stderr, "  %s[%zu] = %.9g, expected %.9g (error %.3g > tolerance %.3g)\n",
                        what, i, value, expected[i], error, limit);
            ++bad;
        }
    }
    if (bad > SHOW_MISMATCHES)
        fprintf(stderr, "  ... %zu of %zu elements of %s wrong\n", bad, n, what);
    return bad;
}

size_t oclt_compare_float(const char *what, const float *got, const double *expected,
                          const double *tolerances, double tolerance, size_t n) {
    return compare_real(what, got, 0, expected, tolerances, tolerance, n);
}

size_t oclt_compare_double(const char *what, const double *got, const double *expected,
                           const double *tolerances, double tolerance, size_t n) {
    return compare_real(what, got, 1, expected, tolerances, tolerance, n);
}

size_t oclt_compare_int(const char *what, const int32_t *got, const int32_t *expected, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != expected[i]) {
            if (bad < SHOW_MISMATCHES)
                fprintf(stderr, "  %s[%zu] = %d, expected %d\n", what, i, (int)got[i],
                        (int)expected[i]);
            ++bad;
        }
    }
    if (bad > SHOW_MISMATCHES)
        fprintf(stderr, "  ... %zu of %zu elements of %s wrong\n", bad, n, what);
    return bad;
}
