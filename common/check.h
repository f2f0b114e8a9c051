/* Checking results: seeded random inputs, poisoned outputs, comparisons with a tolerance fit
 * for the type and the length of the computation. */
#ifndef OCLT_CHECK_H
#define OCLT_CHECK_H

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

/* splitmix64: small, fast, and the same sequence on every machine for a given seed. */
typedef struct {
    uint64_t state;
} oclt_rng;

void oclt_rng_seed(oclt_rng *rng, uint64_t seed);
uint64_t oclt_rng_next(oclt_rng *rng);
double oclt_rng_uniform(oclt_rng *rng);                      /* [0, 1) */
int32_t oclt_rng_int(oclt_rng *rng, int32_t lo, int32_t hi); /* [lo, hi], inclusive */
void oclt_fill_float(oclt_rng *rng, float *x, size_t n, float lo, float hi);
void oclt_fill_double(oclt_rng *rng, double *x, size_t n, double lo, double hi);
void oclt_fill_int(oclt_rng *rng, int32_t *x, size_t n, int32_t lo, int32_t hi);

/* The poison written over outputs before every run, so that an element a kernel forgot to
 * write can never look right: the 32-bit word 0xFFBADBAD is a NaN as a float, -4531283 as an
 * int, and 0xFFBADBADFFBADBAD (about -1.9e307) as a double. */
#define OCLT_POISON_WORD 0xFFBADBADu

void oclt_poison_host(void *data, size_t bytes);
/* clEnqueueFillBuffer with the poison, waited for. */
cl_int oclt_poison_buffer(cl_command_queue queue, cl_mem buffer, size_t bytes);

/* Rounding error bound for a sum (or dot product) in which no term passes through more than
 * `chain` additions (a serial loop of L terms followed by a tree of depth D has chain L + D):
 * |computed - exact| <= gamma(chain) * sum_abs, gamma(k) = k*u / (1 - k*u), with u the unit
 * roundoff of the type (FLT_EPSILON/2 for float). It is a bound, not an estimate: a result
 * outside it is wrong, not unlucky. */
double oclt_sum_error_bound(double unit_roundoff, size_t chain, double sum_abs);

/* Inputs for a sum whose check cannot hide a lost element: whole numbers in [lo, hi] with
 * lo >= 1, stored as float or double. Every element is non-zero and of one sign, so dropping
 * k elements moves the sum by at least k*lo; and as long as the exact total stays below
 * 2^(significand bits) (2^24 for float, 2^53 for double), every partial sum is exactly
 * representable, so ANY summation order gives the exact result. */
void oclt_fill_float_whole(oclt_rng *rng, float *x, size_t n, int32_t lo, int32_t hi);
void oclt_fill_double_whole(oclt_rng *rng, double *x, size_t n, int32_t lo, int32_t hi);

/* The tolerance for a sum of whole-number inputs (above) in a type with `significand_bits`
 * (24 float, 53 double): 0 while sum_abs < 2^significand_bits (every partial sum exact, so a
 * single lost element fails), else oclt_sum_error_bound(2^-significand_bits, chain, sum_abs).
 * With inputs in [lo, hi] the bound is below the loss of n/8 elements (n*lo/8 >= sum_abs*lo/
 * (8*hi)) whenever gamma(chain) < lo/(8*hi): docs/correctness_tooling.md derives this. */
double oclt_whole_sum_tolerance(int significand_bits, size_t chain, double sum_abs);

/* 1 when a sum's tolerance reaches 1/8 of the sum of |x|: a kernel that lost an eighth of a
 * one-signed input would then pass the check, so a pass proves little. A long chain of float
 * additions gets there once chain * 2^-24 reaches 1/9 (chapter 04 with groups of 2 work-items and
 * scalar loads at n = 2^24 on two compute units reaches 1/4).
 * The chapters report such a result UNCHECKED, with the reason, rather than PASS. */
int oclt_sum_check_too_weak(double tolerance, double sum_abs);

/* Compare got[i] with expected[i]; |got - expected| <= tolerance[i] (or the single tolerance
 * when tolerances is NULL). NaN never passes. Prints the first few mismatches with their index
 * and returns how many there were. `what` names the output in messages. */
size_t oclt_compare_float(const char *what, const float *got, const double *expected,
                          const double *tolerances, double tolerance, size_t n);
size_t oclt_compare_double(const char *what, const double *got, const double *expected,
                           const double *tolerances, double tolerance, size_t n);
/* Integers compare exactly. */
size_t oclt_compare_int(const char *what, const int32_t *got, const int32_t *expected, size_t n);

#endif
