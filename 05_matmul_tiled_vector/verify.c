/* Chapter 05's check: is C = A*B, element by element, within what float rounding allows?
 *
 * The bound. Each output is a dot product of K terms a_ik * b_kj. However a kernel orders the
 * sum (a serial chain, several partial sums then a tree, with or without fused multiply-adds),
 * if no term passes through more than L roundings, the float result satisfies
 *     |c_computed - c_exact| <= gamma(L) * S_ij,  S_ij = sum_k |a_ik| |b_kj|,  gamma(L) = L u/(1-L
 * u) with u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1).
 * Every kernel here has L <= K + 4: a chain of at most K multiply-adds per partial sum (the first
 * product rounds once, each multiply-add once more), and at most a tree of depth 4 that adds up to
 * 16 partial sums (vector's floatn accumulators). A kernel that adds a deeper tree must raise
 * MATMUL_TREE_DEPTH. The reference is computed in double from the same floats: each product is
 * exact in double (24 + 24 bits < 53), so its error is at most gamma_d(K) * S_ij, u_d = 2^-53,
 * which is added to the tolerance. A result outside the bound is wrong, not unlucky.
 *
 * Inputs chosen so that the bound cannot hide a wrong term:
 *   FULL check (the whole product on the CPU): floats with |a|, |b| in [0.5, 1) and random
 *   signs. Every term has |a_ik b_kj| >= 0.25, so a dropped term moves an output by >= 0.25 and
 *   a flipped sign by >= 0.5, while the tolerance t is about (K + 4) K 2^-24. The computed
 *   value of a wrong kernel still carries up to t of rounding, so the check sees the change
 *   when it exceeds 2t: t < 0.125 for K <= 1440 (a dropped term), t < 0.25 for K <= 2040 (a
 *   flipped sign). At those K one wrong term in one element always fails.
 *   RANDOMIZED check (large products): whole numbers with |a|, |b| in [1, m], m^2 K < 2^24. Every
 *   product and every partial sum is then an integer below 2^24, exact in float in any order:
 *   the correct C is exact and the tolerance is 0. C*r is compared with A*(B*r) (Freivalds) for
 *   a few vectors r of random whole numbers in +-[1, MATMUL_FREIVALDS_RANGE], in double, where
 *   all of these integers are exact too; an error e in element (i, j) changes (C*r)_i by
 *   e * r_j != 0, so ONE wrong element anywhere fails. Several wrong elements in one row cancel
 *   for one r only if r takes one value in its last wrong column, given the others: probability
 *   at most 1/(2 * MATMUL_FREIVALDS_RANGE) = 2^-11, with MATMUL_FREIVALDS_VECTORS vectors at most
 *   2^-33 (entries of +-1 alone would let two equal errors cancel half the time). A value that
 *   is not finite fails outright. Whole rows, whole columns, the corners and random elements are
 *   also recomputed exactly (the spot checks).
 *   The FULL check is used only up to K = 1440: beyond it the bound t would let one wrong term
 *   pass (see above), and the RANDOMIZED check takes over, exact on whole numbers.
 * Whole numbers alone would not see a kernel that loses precision on general data (16-bit
 * arithmetic is exact on these integers too), which is why the tested shapes use the FULL check
 * with general floats, except those with K > 1440. */
#include "matmul.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATMUL_TREE_DEPTH        4
#define MATMUL_FREIVALDS_VECTORS 3
#define MATMUL_FREIVALDS_RANGE   1024 /* |r_j| in [1, 1024] */
#define MATMUL_FULL_CHECK_MAX_K  1440 /* the largest K at which t < 0.125 (see above) */
#define SAMPLED_LINES            4    /* rows and columns: first, last, two random */
#define SAMPLED_ELEMENTS         64   /* random single elements */
#define SHOW_MISMATCHES          3

static const double float_unit = FLT_EPSILON / 2, double_unit = DBL_EPSILON / 2;

int matmul_choose_check(const oclt_cli_spec *spec, const oclt_options *opt, const matmul_problem *p,
                        matmul_check_method *method) {
    const char *forced = getenv(MATMUL_CHECK_ENV);
    const double mads = (double)p->m * (double)p->n * (double)p->k;
    /* FULL also keeps two doubles per element of C: at most 2^26 elements (1 GiB). */
    const int full = mads <= MATMUL_FULL_CHECK_LIMIT && (double)p->m * (double)p->n <= 0x1p26 &&
                     p->k <= MATMUL_FULL_CHECK_MAX_K;
    *method = full ? MATMUL_CHECK_FULL : MATMUL_CHECK_RANDOMIZED;
    if (forced && *forced) {
        if (strcmp(forced, "full") == 0 && p->k > MATMUL_FULL_CHECK_MAX_K)
            return oclt_usage_error(spec,
                                    "%s=full needs K <= %d: beyond it the full check's bound would "
                                    "let one wrong term pass (K is %zu)",
                                    MATMUL_CHECK_ENV, MATMUL_FULL_CHECK_MAX_K, p->k);
        if (strcmp(forced, "full") == 0 && (double)p->m * (double)p->n > 0x1p26)
            return oclt_usage_error(spec, "%s=full needs M*N <= 2^26 (the CPU product's memory)",
                                    MATMUL_CHECK_ENV);
        if (strcmp(forced, "full") == 0)
            *method = MATMUL_CHECK_FULL;
        else if (strcmp(forced, "randomized") == 0)
            *method = MATMUL_CHECK_RANDOMIZED;
        else
            return oclt_usage_error(spec, "%s='%s' must be full or randomized", MATMUL_CHECK_ENV,
                                    forced);
    }
    if (!opt->check) *method = MATMUL_CHECK_NONE;
    return 0;
}

int matmul_check_for_device(const oclt_cli_spec *spec, const oclt_device *dev,
                            matmul_check_method *method) {
    cl_device_fp_config fp_config = 0;
    if (OCLT_CHECK(clGetDeviceInfo(dev->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp_config,
                                   &fp_config, NULL)))
        return OCLT_EXIT_FAIL;
    if (*method != MATMUL_CHECK_FULL || (fp_config & CL_FP_ROUND_TO_NEAREST)) return 0;
    const char *forced = getenv(MATMUL_CHECK_ENV);
    if (forced && strcmp(forced, "full") == 0)
        return oclt_usage_error(spec,
                                "%s=full needs round-to-nearest floats; %s has no "
                                "CL_FP_ROUND_TO_NEAREST (use randomized)",
                                MATMUL_CHECK_ENV, dev->device_name);
    *method = MATMUL_CHECK_RANDOMIZED; /* whole numbers: exact in any rounding mode */
    return 0;
}

int matmul_require_memory(const oclt_cli_spec *spec, const oclt_device *dev,
                          const matmul_problem *p, int b_copies) {
    /* Each matrix below 2^62 bytes, as every dimension is at most 2^30. */
    const cl_ulong a_bytes = (cl_ulong)p->m * p->k * sizeof(float);
    const cl_ulong b_bytes = (cl_ulong)p->k * p->n * sizeof(float);
    const cl_ulong c_bytes = (cl_ulong)p->m * p->n * sizeof(float);
    cl_ulong largest = a_bytes > b_bytes ? a_bytes : b_bytes;
    if (c_bytes > largest) largest = c_bytes;
    const cl_ulong buffers = a_bytes + (cl_ulong)b_copies * b_bytes + c_bytes;
    /* The host holds the same matrices, and the full check two doubles per element of C (it is
     * chosen up to 2^26 of them, so counted there whichever check runs). */
    const cl_ulong check_bytes = (double)p->m * (double)p->n <= 0x1p26 ? 4 * c_bytes : 0;
    int rc = oclt_require_memory(spec, dev, largest, buffers, "--size");
    if (!rc) rc = oclt_require_host_memory(spec, dev, buffers + check_bytes, buffers, "--size");
    return rc;
}

/* Floats with magnitude in [0.5, 1) and a random sign. */
static void fill_signed_halves(oclt_rng *rng, float *x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const float magnitude = 0.5f + 0.5f * (float)oclt_rng_uniform(rng);
        x[i] = oclt_rng_next(rng) & 1 ? -magnitude : magnitude;
    }
}

/* Whole numbers with magnitude in [1, m] and a random sign. */
static void fill_signed_whole(oclt_rng *rng, float *x, size_t n, int m) {
    for (size_t i = 0; i < n; ++i) {
        const float magnitude = (float)oclt_rng_int(rng, 1, m);
        x[i] = oclt_rng_next(rng) & 1 ? -magnitude : magnitude;
    }
}

/* The tolerance of one output with S = sum |a||b| (see the top of this file). */
static double element_tolerance(const matmul_check *chk, const matmul_problem *p, double abs_sum) {
    if (chk->whole_numbers) return 0.0;
    return oclt_sum_error_bound(float_unit, p->k + MATMUL_TREE_DEPTH, abs_sum) +
           oclt_sum_error_bound(double_unit, p->k, abs_sum);
}

/* C = A*B in double and S = |A|*|B|. Blocked: a 64-row strip of A meets a 256 x 512 block of B
 * that stays in the cache, in i-k-j order so the innermost loop runs along rows of B, C and S
 * with unit stride (the compiler vectorizes it). */
static void full_product(const matmul_problem *p, double *c, double *abs_sum) {
    enum { BLOCK_I = 64, BLOCK_K = 256, BLOCK_J = 512 };
    const size_t m = p->m, n = p->n, k = p->k;
    memset(c, 0, m * n * sizeof *c);
    memset(abs_sum, 0, m * n * sizeof *abs_sum);
    for (size_t i0 = 0; i0 < m; i0 += BLOCK_I)
        for (size_t k0 = 0; k0 < k; k0 += BLOCK_K)
            for (size_t j0 = 0; j0 < n; j0 += BLOCK_J) {
                const size_t i1 = i0 + BLOCK_I < m ? i0 + BLOCK_I : m;
                const size_t k1 = k0 + BLOCK_K < k ? k0 + BLOCK_K : k;
                const size_t j1 = j0 + BLOCK_J < n ? j0 + BLOCK_J : n;
                for (size_t i = i0; i < i1; ++i)
                    for (size_t kk = k0; kk < k1; ++kk) {
                        const double a = p->a[i * k + kk], abs_a = fabs(a);
                        const float *b_row = p->b + kk * n;
                        double *c_row = c + i * n, *s_row = abs_sum + i * n;
                        for (size_t j = j0; j < j1; ++j) {
                            c_row[j] += a * b_row[j];
                            s_row[j] += abs_a * fabs((double)b_row[j]);
                        }
                    }
            }
}

static int prepare_full(matmul_check *chk, const matmul_problem *p) {
    const size_t count = p->m * p->n;
    chk->expected = malloc(count * sizeof *chk->expected);
    chk->tolerance = malloc(count * sizeof *chk->tolerance);
    if (!chk->expected || !chk->tolerance) return -1;
    full_product(p, chk->expected, chk->tolerance);
    for (size_t i = 0; i < count; ++i)
        chk->tolerance[i] = element_tolerance(chk, p, chk->tolerance[i]);
    return 0;
}

/* Row i of C (and of S) into row[], sum_abs[], in i-k-j order. */
static void exact_row(const matmul_problem *p, size_t i, double *row, double *sum_abs) {
    memset(row, 0, p->n * sizeof *row);
    memset(sum_abs, 0, p->n * sizeof *sum_abs);
    for (size_t k = 0; k < p->k; ++k) {
        const double a = p->a[i * p->k + k];
        const float *b_row = p->b + k * p->n;
        for (size_t j = 0; j < p->n; ++j) {
            row[j] += a * b_row[j];
            sum_abs[j] += fabs(a) * fabs((double)b_row[j]);
        }
    }
}

/* Element (i, j) with column j of B gathered in b_col (K values). */
static void exact_element(const matmul_problem *p, size_t i, const double *b_col, double *value,
                          double *sum_abs) {
    double c = 0.0, s = 0.0;
    for (size_t k = 0; k < p->k; ++k) {
        c += p->a[i * p->k + k] * b_col[k];
        s += fabs(p->a[i * p->k + k]) * fabs(b_col[k]);
    }
    *value = c, *sum_abs = s;
}

static size_t random_below(oclt_rng *rng, size_t n) {
    return (size_t)(oclt_rng_uniform(rng) * (double)n) % n;
}

/* The spot checks: SAMPLED_LINES rows and columns (the first, the last and random ones: so the
 * four corners and the last element are in), and SAMPLED_ELEMENTS random elements. */
static int prepare_samples(matmul_check *chk, const matmul_problem *p, oclt_rng *rng) {
    const size_t m = p->m, n = p->n, k = p->k;
    const size_t most = SAMPLED_LINES * (m + n) + SAMPLED_ELEMENTS;
    chk->sample_index = malloc(most * sizeof *chk->sample_index);
    chk->sample_expected = malloc(most * sizeof *chk->sample_expected);
    chk->sample_tolerance = malloc(most * sizeof *chk->sample_tolerance);
    double *row = malloc(n * sizeof *row), *row_abs = malloc(n * sizeof *row_abs);
    double *b_col = malloc(k * sizeof *b_col);
    int rc = -1;
    if (!chk->sample_index || !chk->sample_expected || !chk->sample_tolerance || !row || !row_abs ||
        !b_col)
        goto done;
    size_t s = 0;
    for (int line = 0; line < SAMPLED_LINES; ++line) {
        const size_t i = line == 0 ? 0 : line == 1 ? m - 1 : random_below(rng, m);
        exact_row(p, i, row, row_abs);
        for (size_t j = 0; j < n; ++j, ++s) {
            chk->sample_index[s] = i * n + j;
            chk->sample_expected[s] = row[j];
            chk->sample_tolerance[s] = element_tolerance(chk, p, row_abs[j]);
        }
    }
    for (int line = 0; line < SAMPLED_LINES + SAMPLED_ELEMENTS; ++line) {
        /* a whole column, then single elements at random places */
        const int column = line < SAMPLED_LINES;
        const size_t j = line == 0 ? 0 : line == 1 ? n - 1 : random_below(rng, n);
        for (size_t kk = 0; kk < k; ++kk) b_col[kk] = p->b[kk * n + j];
        for (size_t e = 0; e < (column ? m : 1); ++e, ++s) {
            const size_t i = column ? e : random_below(rng, m);
            double value, sum_abs;
            exact_element(p, i, b_col, &value, &sum_abs);
            chk->sample_index[s] = i * n + j;
            chk->sample_expected[s] = value;
            chk->sample_tolerance[s] = element_tolerance(chk, p, sum_abs);
        }
    }
    chk->samples = s;
    rc = 0;
done:
    free(row), free(row_abs), free(b_col);
    return rc;
}

/* Freivalds: for each r (whole entries in +-[1, RANGE]), A*(B*r) in double and the bound on
 * |C*r - A*(B*r)|_i that rounding allows before C is known: sum_j tol_ij |r_j| <=
 * gamma(K + 4) * (|A|(|B||r|))_i
 * (zero for whole numbers), plus the double rounding of B*r and A*(B*r) (zero while these
 * integers stay below 2^53). The rounding of C*r itself is added in matmul_verify. */
static int prepare_freivalds(matmul_check *chk, const matmul_problem *p, oclt_rng *rng) {
    const size_t m = p->m, n = p->n, k = p->k;
    const int v = MATMUL_FREIVALDS_VECTORS;
    chk->vectors = v;
    chk->r = malloc((size_t)v * n * sizeof *chk->r);
    chk->abr = malloc((size_t)v * m * sizeof *chk->abr);
    chk->row_bound = malloc((size_t)v * m * sizeof *chk->row_bound);
    double *br = malloc(k * sizeof *br), *abs_br = malloc(k * sizeof *abs_br);
    int rc = -1;
    if (!chk->r || !chk->abr || !chk->row_bound || !br || !abs_br) goto done;
    const double largest =
        (double)chk->magnitude * chk->magnitude * (double)n * (double)k * MATMUL_FREIVALDS_RANGE;
    const int double_exact = chk->whole_numbers && largest < 0x1p53;
    chk->double_exact = double_exact;
    for (int t = 0; t < v; ++t) {
        double *r = chk->r + (size_t)t * n;
        for (size_t j = 0; j < n; ++j) {
            const double magnitude = (double)oclt_rng_int(rng, 1, MATMUL_FREIVALDS_RANGE);
            r[j] = oclt_rng_next(rng) & 1 ? -magnitude : magnitude;
        }
        for (size_t kk = 0; kk < k; ++kk) {
            double sum = 0.0, sum_abs = 0.0;
            for (size_t j = 0; j < n; ++j) {
                sum += p->b[kk * n + j] * r[j];
                sum_abs += fabs((double)p->b[kk * n + j]) * fabs(r[j]);
            }
            br[kk] = sum, abs_br[kk] = sum_abs;
        }
        for (size_t i = 0; i < m; ++i) {
            double sum = 0.0, sum_abs = 0.0;
            for (size_t kk = 0; kk < k; ++kk) {
                sum += p->a[i * k + kk] * br[kk];
                sum_abs += fabs((double)p->a[i * k + kk]) * abs_br[kk];
            }
            chk->abr[(size_t)t * m + i] = sum;
            chk->row_bound[(size_t)t * m + i] =
                (chk->whole_numbers
                     ? 0.0
                     : oclt_sum_error_bound(float_unit, k + MATMUL_TREE_DEPTH, sum_abs)) +
                (double_exact ? 0.0 : 2.0 * oclt_sum_error_bound(double_unit, n + k + 1, sum_abs));
        }
    }
    rc = 0;
done:
    free(br), free(abs_br);
    return rc;
}

int matmul_prepare_check(matmul_check *chk, matmul_check_method method, matmul_problem *p,
                         uint64_t seed) {
    memset(chk, 0, sizeof *chk);
    chk->method = method;
    oclt_rng rng;
    oclt_rng_seed(&rng, seed);
    /* Whole numbers need m^2 K < 2^24 with m >= 1; beyond K = 2^24 - 1 the randomized check
     * falls back on general floats and the bound (then it sees only large errors). */
    const double room = sqrt((0x1p24 - 1.0) / (double)p->k);
    chk->magnitude = room >= 255.0 ? 255 : (int)room;
    chk->whole_numbers = method == MATMUL_CHECK_RANDOMIZED && chk->magnitude >= 1;
    if (chk->whole_numbers) {
        fill_signed_whole(&rng, p->a, p->m * p->k, chk->magnitude);
        fill_signed_whole(&rng, p->b, p->k * p->n, chk->magnitude);
    } else {
        fill_signed_halves(&rng, p->a, p->m * p->k);
        fill_signed_halves(&rng, p->b, p->k * p->n);
    }
    const double start = oclt_now_ms();
    int rc = 0;
    if (method == MATMUL_CHECK_FULL) {
        rc = prepare_full(chk, p);
        if (!rc)
            printf("  check    full: every element against a CPU product in double, within "
                   "gamma(K+%d)*sum|a||b| (inputs +-[0.5, 1); %.0f ms)\n",
                   MATMUL_TREE_DEPTH, oclt_now_ms() - start);
    } else if (method == MATMUL_CHECK_RANDOMIZED) {
        rc = prepare_freivalds(chk, p, &rng) || prepare_samples(chk, p, &rng) ? -1 : 0;
        if (!rc && chk->whole_numbers)
            printf("  check    randomized: C*r = A*(B*r) exactly for %d vectors r of whole numbers "
                   "in +-[1, %d], and %zu elements (rows, columns, corners) recomputed; inputs "
                   "whole numbers in +-[1, %d], so the product is exact (%.0f ms)\n",
                   chk->vectors, MATMUL_FREIVALDS_RANGE, chk->samples, chk->magnitude,
                   oclt_now_ms() - start);
        else if (!rc)
            printf("  check    randomized: C*r against A*(B*r) for %d vectors r and %zu elements "
                   "recomputed, within gamma(K+%d) bounds (inputs +-[0.5, 1); %.0f ms)\n",
                   chk->vectors, chk->samples, MATMUL_TREE_DEPTH, oclt_now_ms() - start);
    } else {
        printf("  check    none (--no-check)\n");
    }
    return rc;
}

static size_t report_mismatch(size_t bad, const char *what, const char *where, double got,
                              double expected, double limit) {
    if (bad < SHOW_MISMATCHES)
        fprintf(stderr, "  %s%s = %.9g, expected %.9g (error %.3g > tolerance %.3g)\n", what, where,
                got, expected, fabs(got - expected), limit);
    return bad + 1;
}

/* C*r in double for every r at once (one pass over C), with each row's rounding bound. */
static size_t verify_freivalds(const matmul_check *chk, const matmul_problem *p, const float *c,
                               const char *what) {
    size_t bad = 0;
    const int v = chk->vectors;
    for (size_t i = 0; i < p->m; ++i) {
        double cr[MATMUL_FREIVALDS_VECTORS] = {0}, abs_sum[MATMUL_FREIVALDS_VECTORS] = {0};
        const float *row = c + i * p->n;
        size_t not_finite = 0;
        for (size_t j = 0; j < p->n; ++j) {
            not_finite += !isfinite(row[j]); /* an Inf would make its row's bound infinite */
            for (int t = 0; t < v; ++t) {
                const double r = chk->r[(size_t)t * p->n + j];
                cr[t] += row[j] * r;
                abs_sum[t] += fabs((double)row[j]) * fabs(r);
            }
        }
        if (not_finite) {
            if (bad < SHOW_MISMATCHES)
                fprintf(stderr, "  %s[row %zu]: %zu elements are not finite\n", what, i,
                        not_finite);
            ++bad;
            continue;
        }
        for (int t = 0; t < v; ++t) {
            /* C*r in double: exact on whole numbers below 2^53 (chk->double_exact), so the
             * correct C leaves no slack there; else its rounding bound. */
            const double limit =
                chk->row_bound[(size_t)t * p->m + i] +
                (chk->double_exact ? 0.0 : oclt_sum_error_bound(double_unit, p->n, abs_sum[t]));
            const double expected = chk->abr[(size_t)t * p->m + i];
            if (!(fabs(cr[t] - expected) <= limit)) { /* written so that NaN fails */
                char where[64];
                snprintf(where, sizeof where, "*r%d [row %zu]", t, i);
                bad = report_mismatch(bad, what, where, cr[t], expected, limit);
                break;
            }
        }
    }
    return bad;
}

oclt_status matmul_verify(const matmul_check *chk, const matmul_problem *p, const float *c,
                          const char *what) {
    size_t bad = 0, checked = 0;
    if (chk->method == MATMUL_CHECK_NONE) return OCLT_UNCHECKED;
    if (chk->method == MATMUL_CHECK_FULL) {
        checked = p->m * p->n;
        for (size_t e = 0; e < checked; ++e)
            if (!(fabs(c[e] - chk->expected[e]) <= chk->tolerance[e])) {
                char where[64];
                snprintf(where, sizeof where, "[%zu][%zu]", e / p->n, e % p->n);
                bad = report_mismatch(bad, what, where, c[e], chk->expected[e], chk->tolerance[e]);
            }
    } else {
        checked = chk->samples;
        for (size_t s = 0; s < chk->samples; ++s) {
            const size_t e = chk->sample_index[s];
            if (!(fabs(c[e] - chk->sample_expected[s]) <= chk->sample_tolerance[s])) {
                char where[64];
                snprintf(where, sizeof where, "[%zu][%zu]", e / p->n, e % p->n);
                bad = report_mismatch(bad, what, where, c[e], chk->sample_expected[s],
                                      chk->sample_tolerance[s]);
            }
        }
        bad += verify_freivalds(chk, p, c, what);
    }
    if (bad > SHOW_MISMATCHES)
        fprintf(stderr, "  ... %zu mismatches in %s (%zu elements and %s)\n", bad, what, checked,
                chk->method == MATMUL_CHECK_FULL ? "no vector" : "the rows of C*r");
    return bad ? OCLT_FAIL : OCLT_PASS;
}

void matmul_free_check(matmul_check *chk) {
    free(chk->expected), free(chk->tolerance);
    free(chk->r), free(chk->abr), free(chk->row_bound);
    free(chk->sample_index), free(chk->sample_expected), free(chk->sample_tolerance);
    memset(chk, 0, sizeof *chk);
}
