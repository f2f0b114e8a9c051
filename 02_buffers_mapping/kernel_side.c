/* Chapter 02, the kernel's side of memory: address spaces (buffers.cl: stencil_local), a struct
 * shared by host and kernel, and OpenCL C's vector types (types.cl). */
#include "ch02.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 8. The four address spaces -------------------------------------------------------------- */

oclt_status demo_address_spaces(ch02 *c) {
    const size_t n = c->words, taps = 2 * STENCIL_RADIUS + 1;
    const cl_uint n32 = (cl_uint)n;
    const oclt_device *dev = c->dev;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem in_buf = NULL, out_buf = NULL, weight_buf = NULL;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out), weights[64];
    double *expected = malloc(n * sizeof *expected), *tolerance = malloc(n * sizeof *tolerance);
    cl_kernel kernel = oclt_create_kernel(c->buffers, "stencil_local");
    if (!in || !out || !expected || !tolerance || !kernel) goto release;

    printf("\n  address_spaces: out[i] = sum_k weights[k] * in[i+k-%d], k = 0..%zu\n",
           STENCIL_RADIUS, taps - 1);
    oclt_fill_float(&c->rng, in, n, -1.0f, 1.0f);
    oclt_fill_float(&c->rng, weights, taps, -1.0f, 1.0f);
    /* CPU reference in double; the bound covers any float evaluation order of `taps` products
     * (fused or not): gamma(taps) * sum |w x|. */
    for (size_t i = 0; i < n; ++i) {
        double sum = 0.0, sum_abs = 0.0;
        for (size_t k = 0; k < taps; ++k) {
            long j = (long)i + (long)k - STENCIL_RADIUS;
            double term = (j >= 0 && j < (long)n) ? (double)weights[k] * in[j] : 0.0;
            sum += term;
            sum_abs += fabs(term);
        }
        expected[i] = sum;
        tolerance[i] = oclt_sum_error_bound(FLT_EPSILON / 2, taps, sum_abs) + DBL_EPSILON * sum_abs;
    }

    /* __global: ordinary buffers. __constant: a buffer too, passed to a __constant pointer; it
     * must fit CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE. */
    in_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in,
                            in, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(in)")) goto release;
    out_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n * sizeof *out, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(out)")) goto release;
    weight_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                taps * sizeof *weights, weights, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(weights)")) goto release;

    /* __local: no buffer at all. The host gives a size and a NULL pointer; every work-group
     * gets its own tile of that size in on-chip memory (plain memory on a CPU). */
    size_t local = 64, kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        goto release;
    while (local > kernel_max) local /= 2;
    const size_t tile_bytes = (local + 2 * STENCIL_RADIUS) * sizeof(float);
    const size_t global = (n + local - 1) / local * local;
    printf("    __global   in, out: %zu floats each; __constant weights: %zu floats (limit %llu "
           "bytes)\n",
           n, taps,
           (unsigned long long)oclt_device_ulong(dev->device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE));
    printf("    __local    tile: %zu bytes per work-group of %zu (limit %llu bytes), set with\n"
           "               clSetKernelArg(kernel, 3, %zu, NULL)\n",
           tile_bytes, local,
           (unsigned long long)oclt_device_ulong(dev->device, CL_DEVICE_LOCAL_MEM_SIZE),
           tile_bytes);
    printf("    __private  sum, k, indices: per work-item, in registers\n");
    if (OCLT_ARG(kernel, 0, in_buf) || OCLT_ARG(kernel, 1, out_buf) ||
        OCLT_ARG(kernel, 2, weight_buf) ||
        OCLT_CHECK(clSetKernelArg(kernel, 3, tile_bytes, NULL)) || OCLT_ARG(kernel, 4, n32))
        goto release;
    if (oclt_poison_buffer(dev->queue, out_buf, n * sizeof *out)) goto release;
    cl_event done = NULL;
    if (oclt_enqueue_kernel(dev->queue, kernel, 1, &global, &local, 0, NULL, &done,
                            "stencil_local"))
        goto release;
    err = OCLT_CHECK(clWaitForEvents(1, &done));
    clReleaseEvent(done);
    if (err) goto release;
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, out_buf, CL_TRUE, 0, n * sizeof *out, out, 0,
                                       NULL, NULL)))
        goto release;
    status = status_of(oclt_compare_float("out", out, expected, tolerance, 0.0, n));
    printf("    checked against a double CPU reference within gamma(%zu) * sum|w x|\n", taps);
release:
    release_mem_objects(3, (cl_mem[]){weight_buf, out_buf, in_buf});
    if (kernel) clReleaseKernel(kernel);
    free_all(in, out, expected, tolerance);
    report_demo_n(c, "address_spaces", n, status, NULL);
    return status;
}

/* ---- 11. One struct, two compilers ----------------------------------------------------------- */

/* The host's copy of types.cl's `particle`. OpenCL's host types carry the device alignments
 * (cl_float4: 16, cl_float2: 8; cl_float3 is a cl_float4: 16 bytes, like float3 in a kernel),
 * and the explicit aligned(16) matches the kernel's attribute. */
typedef struct {
    cl_float4 position;
    cl_float3 velocity;
    cl_float mass;
    cl_int id;
    cl_char kind;
    cl_float2 extent;
} __attribute__((aligned(16))) particle;

/* Checked when this file compiles: if a field moves, the build stops here, not in a kernel. */
_Static_assert(sizeof(particle) == 64, "particle must be 64 bytes, as in types.cl");
_Static_assert(offsetof(particle, position) == 0, "position at 0");
_Static_assert(offsetof(particle, velocity) == 16, "velocity at 16");
_Static_assert(offsetof(particle, mass) == 32, "mass at 32");
_Static_assert(offsetof(particle, id) == 36, "id at 36");
_Static_assert(offsetof(particle, kind) == 40, "kind at 40");
_Static_assert(offsetof(particle, extent) == 48, "extent at 48");

/* What the same struct becomes with plain C arrays: float[3] is 12 bytes and everything after
 * it moves. Only its offsets are printed; no kernel ever sees it. */
struct naive_particle {
    float position[4];
    float velocity[3];
    float mass;
    int id;
    char kind;
    float extent[2];
};

#define PARTICLES 37 /* not a multiple of any work-group size */

static particle step_on_host(particle q) {
    for (int k = 0; k < 3; ++k) q.position.s[k] = q.position.s[k] + q.velocity.s[k];
    q.position.s[3] = -q.position.s[3];
    q.mass = q.mass * 2.0f;
    q.id = (cl_int)((uint32_t)q.id * 3u + 1u);
    q.kind = (cl_char)(q.kind ^ 0x55);
    cl_float swap = q.extent.s[0];
    q.extent.s[0] = q.extent.s[1];
    q.extent.s[1] = swap;
    return q;
}

/* The fields one by one, as bits (padding bytes are never compared: nobody defines them). */
static size_t compare_particles(const particle *got, const particle *expected, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const particle *g = &got[i], *e = &expected[i];
        int same = memcmp(&g->position, &e->position, sizeof g->position) == 0 &&
                   memcmp(g->velocity.s, e->velocity.s, 3 * sizeof(cl_float)) == 0 &&
                   memcmp(&g->mass, &e->mass, sizeof g->mass) == 0 && g->id == e->id &&
                   g->kind == e->kind && memcmp(&g->extent, &e->extent, sizeof g->extent) == 0;
        if (!same && bad++ < 5)
            fprintf(stderr,
                    "  particle %zu: mass %g id %d kind %d extent (%g, %g), expected mass %g id %d "
                    "kind %d extent (%g, %g)\n",
                    i, g->mass, g->id, g->kind, g->extent.s[0], g->extent.s[1], e->mass, e->id,
                    e->kind, e->extent.s[0], e->extent.s[1]);
    }
    return bad;
}

oclt_status demo_struct_layout(ch02 *c) {
    const oclt_device *dev = c->dev;
    const cl_uint n32 = PARTICLES;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    size_t wrong = 0;
    cl_mem particle_buf = NULL, layout_buf = NULL;
    cl_kernel layout_kernel = NULL, step_kernel = NULL;
    particle *host = calloc(PARTICLES, sizeof *host), *expected = calloc(PARTICLES, sizeof *host);
    if (!host || !expected) goto release_host;

    printf("\n  struct_layout: the same struct on both sides (types.cl `particle`, "
           "kernel_side.c `particle`)\n");
    for (size_t i = 0; i < PARTICLES; ++i) {
        float values[11];
        oclt_fill_float(&c->rng, values, 11, -100.0f, 100.0f);
        for (int k = 0; k < 4; ++k) host[i].position.s[k] = values[k];
        for (int k = 0; k < 3; ++k) host[i].velocity.s[k] = values[4 + k];
        host[i].mass = fabsf(values[7]);
        host[i].id = oclt_rng_int(&c->rng, -1000000, 1000000);
        host[i].kind = (cl_char)oclt_rng_int(&c->rng, -128, 127);
        host[i].extent.s[0] = values[8];
        host[i].extent.s[1] = values[9];
        expected[i] = step_on_host(host[i]);
    }
    if (!(layout_kernel = oclt_create_kernel(c->types, "particle_layout"))) goto release_host;
    if (!(step_kernel = oclt_create_kernel(c->types, "particle_step"))) goto release_kernels;
    particle_buf = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  PARTICLES * sizeof *host, host, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(particles)")) goto release_kernels;
    layout_buf = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, 8 * sizeof(cl_uint), NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(layout)")) goto release_particles;

    /* 1. The kernel reports its own layout. */
    cl_uint layout[8];
    if (oclt_poison_buffer(dev->queue, layout_buf, sizeof layout) ||
        OCLT_ARG(layout_kernel, 0, particle_buf) || OCLT_ARG(layout_kernel, 1, layout_buf) ||
        launch_1d(c, layout_kernel, 1, "particle_layout") ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, layout_buf, CL_TRUE, 0, sizeof layout, layout, 0,
                                       NULL, NULL)))
        goto release_layout;
    static const char *const fields[] = {"sizeof", "position", "velocity", "mass",
                                         "id",     "kind",     "extent",   "array stride"};
    const size_t host_layout[8] = {sizeof(particle),
                                   offsetof(particle, position),
                                   offsetof(particle, velocity),
                                   offsetof(particle, mass),
                                   offsetof(particle, id),
                                   offsetof(particle, kind),
                                   offsetof(particle, extent),
                                   sizeof(particle)};
    const size_t naive_layout[8] = {sizeof(struct naive_particle),
                                    offsetof(struct naive_particle, position),
                                    offsetof(struct naive_particle, velocity),
                                    offsetof(struct naive_particle, mass),
                                    offsetof(struct naive_particle, id),
                                    offsetof(struct naive_particle, kind),
                                    offsetof(struct naive_particle, extent),
                                    sizeof(struct naive_particle)};
    printf("    %-13s %8s %8s   %s\n", "field", "host", "kernel", "plain-C arrays (float[3] ...)");
    for (int k = 0; k < 8; ++k) {
        int same = layout[k] == host_layout[k];
        wrong += !same;
        printf("    %-13s %8zu %8u%s  %zu%s\n", fields[k], host_layout[k], (unsigned)layout[k],
               same ? "  " : " X", naive_layout[k],
               naive_layout[k] != host_layout[k] ? "  <- would not match the kernel" : "");
    }
    if (wrong)
        fprintf(stderr, "  the kernel's layout differs from the host's in %zu places\n", wrong);

    /* 2. Data through the struct: a field at the wrong offset would read someone else's bits. */
    if (OCLT_ARG(step_kernel, 0, particle_buf) || OCLT_ARG(step_kernel, 1, n32) ||
        launch_1d(c, step_kernel, PARTICLES, "particle_step"))
        goto release_layout;
    memset(host, 0xFF, PARTICLES * sizeof *host);
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, particle_buf, CL_TRUE, 0,
                                       PARTICLES * sizeof *host, host, 0, NULL, NULL)))
        goto release_layout;
    size_t bad = compare_particles(host, expected, PARTICLES);
    printf("    particle_step on %d particles: %s\n", PARTICLES,
           bad ? "fields differ from the host's step" : "every field matches the host's step");
    status = status_of(wrong + bad);
release_layout:
    clReleaseMemObject(layout_buf);
release_particles:
    clReleaseMemObject(particle_buf);
release_kernels:
    if (step_kernel) clReleaseKernel(step_kernel);
    if (layout_kernel) clReleaseKernel(layout_kernel);
release_host:
    free_all(host, expected);
    report_demo(c, "struct_layout", "37", status, NULL);
    return status;
}

/* ---- 12. Vector types, conversions and reinterpretation ------------------------------------- */

#define TABLE_WIDTH 66 /* ints per row, as in types.cl */

/* The columns of types.cl's vector_table, in order: name and how many ints it fills. */
static const struct {
    const char *name;
    int width;
} columns[] = {
    {"convert_int(x)", 1},
    {"convert_int_rte(x)", 1},
    {"convert_int_rtp(x)", 1},
    {"convert_int_rtn(x)", 1},
    {"convert_int_sat(big)", 1},
    {"convert_int_sat_rte(big)", 1},
    {"convert_char_sat_rte(x)", 1},
    {"convert_uchar_sat(w)", 1},
    {"convert_short_sat(w)", 1},
    {"as_int(convert_float(w))", 1},
    {"as_int(convert_float_rtz(w))", 1},
    {"as_int(convert_float_rtp(w))", 1},
    {"as_int(convert_float_rtn(w))", 1},
    {"as_int(x)", 1},
    {"as_uchar4(w)", 4},
    {"(int4)(7)", 4},
    {"(int4)(a.xy, -1, w)", 4},
    {"as_int4((float4)(1,-2,0.5,0.25) * x)", 4},
    {"v.s0123.wzyx", 4},
    {"v.s5A0F", 4},
    {"v.even", 8},
    {"v.odd", 8},
    {"v.hi.odd", 4},
    {"v.s0123.xxyy", 4},
    {"c = a; c.xz = (int2)(w, 6)", 4},
};

typedef enum { RTE, RTZ, RTP, RTN } rounding;

/* Round to an integer value, ties to even, by hand: independent of the FPU's rounding mode. */
static double round_half_even(double v) {
    double r = floor(v), fraction = v - r;
    if (fraction > 0.5 || (fraction == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
    return r;
}

static double round_to(double v, rounding mode) {
    switch (mode) {
    case RTE:
        return round_half_even(v);
    case RTZ:
        return trunc(v);
    case RTP:
        return ceil(v);
    default:
        return floor(v);
    }
}

/* Saturation: clamp to [lo, hi]; NaN becomes 0 (the OpenCL C rule for _sat). */
static int32_t saturate(double v, double lo, double hi) {
    if (isnan(v)) return 0;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* int -> float in a given rounding mode: the nearest float (C's conversion in the default
 * mode, which this program never changes), then one step in the required direction when the
 * nearest one is on the wrong side of the exact value (every int32 is exact in a double). */
static float int_to_float(int32_t w, rounding mode) {
    const double exact = (double)w;
    const float nearest = (float)exact;
    if (mode == RTP && (double)nearest < exact) return nextafterf(nearest, INFINITY);
    if (mode == RTN && (double)nearest > exact) return nextafterf(nearest, -INFINITY);
    if (mode == RTZ && fabs((double)nearest) > fabs(exact)) return nextafterf(nearest, 0.0f);
    return nearest;
}

static int32_t bits_of(float f) {
    int32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static void vector_row_on_host(float x, float big, int32_t w, const int32_t v[16],
                               int little_endian, int32_t *row) {
    int k = 0;
    row[k++] = (int32_t)round_to(x, RTZ);
    row[k++] = (int32_t)round_to(x, RTE);
    row[k++] = (int32_t)round_to(x, RTP);
    row[k++] = (int32_t)round_to(x, RTN);
    row[k++] = saturate(round_to(big, RTZ), INT32_MIN, INT32_MAX);
    row[k++] = saturate(round_to(big, RTE), INT32_MIN, INT32_MAX);
    row[k++] = saturate(round_to(x, RTE), -128, 127);
    row[k++] = saturate(w, 0, 255);
    row[k++] = saturate(w, -32768, 32767);
    row[k++] = bits_of(int_to_float(w, RTE));
    row[k++] = bits_of(int_to_float(w, RTZ));
    row[k++] = bits_of(int_to_float(w, RTP));
    row[k++] = bits_of(int_to_float(w, RTN));
    row[k++] = bits_of(x);
    for (int b = 0; b < 4; ++b) /* as_uchar4: memory order of the bytes */
        row[k++] = (int32_t)(((uint32_t)w >> (little_endian ? 8 * b : 24 - 8 * b)) & 0xFFu);
    for (int j = 0; j < 4; ++j) row[k++] = 7;
    row[k++] = v[0]; /* (int4)(a.xy, -1, w) */
    row[k++] = v[1];
    row[k++] = -1;
    row[k++] = w;
    row[k++] = bits_of(1.0f * x);
    row[k++] = bits_of(-2.0f * x);
    row[k++] = bits_of(0.5f * x);
    row[k++] = bits_of(0.25f * x);
    for (int j = 3; j >= 0; --j) row[k++] = v[j]; /* .wzyx */
    row[k++] = v[5];                              /* .s5A0F */
    row[k++] = v[10];
    row[k++] = v[0];
    row[k++] = v[15];
    for (int j = 0; j < 16; j += 2) row[k++] = v[j]; /* .even */
    for (int j = 1; j < 16; j += 2) row[k++] = v[j]; /* .odd */
    for (int j = 9; j < 16; j += 2) row[k++] = v[j]; /* .hi.odd = s9, sB, sD, sF */
    row[k++] = v[0];                                 /* .xxyy */
    row[k++] = v[0];
    row[k++] = v[1];
    row[k++] = v[1];
    row[k++] = w; /* c = a; c.xz = (int2)(w, 6) */
    row[k++] = v[1];
    row[k++] = 6;
    row[k++] = v[3];
}

/* Inputs that sit on the edges: ties, signed zero, the ends of the int range, NaN. */
static const float edge_x[] = {2.5f, -2.5f, 3.5f,   -3.5f,   0.5f,  -0.5f,
                               1.5f, -0.0f, 127.5f, -128.5f, 255.7f};
static const float edge_big[] = {INFINITY,       -INFINITY,     NAN,  2147483648.0f,
                                 -2147483648.0f, 2147483520.0f, 2.5f, -3.5f,
                                 1e10f,          -1e10f,        0.5f};
static const int32_t edge_w[] = {INT32_MIN, INT32_MAX, 16777217, -16777217, 255,   256,
                                 -1,        0,         32767,    32768,     -32769};
#define EDGES       (sizeof edge_x / sizeof edge_x[0])
#define VECTOR_ROWS (EDGES + 53)

oclt_status demo_vector_types(ch02 *c) {
    const oclt_device *dev = c->dev;
    const size_t rows = VECTOR_ROWS;
    const cl_uint rows32 = (cl_uint)rows;
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_mem bufs[5] = {NULL, NULL, NULL, NULL, NULL}; /* x, big, w, lanes, table */
    float x[VECTOR_ROWS], big[VECTOR_ROWS];
    int32_t w[VECTOR_ROWS];
    int32_t *lanes = malloc(rows * 16 * sizeof *lanes);
    int32_t *table = malloc(rows * TABLE_WIDTH * sizeof *table);
    int32_t *expected = malloc(rows * TABLE_WIDTH * sizeof *expected);
    cl_kernel kernel = oclt_create_kernel(c->types, "vector_table");
    if (!lanes || !table || !expected || !kernel) goto release_host;

    _Static_assert(sizeof edge_big / sizeof edge_big[0] == EDGES, "one big per edge row");
    _Static_assert(sizeof edge_w / sizeof edge_w[0] == EDGES, "one w per edge row");
    for (size_t i = 0; i < rows; ++i) {
        if (i < EDGES) {
            x[i] = edge_x[i];
            big[i] = edge_big[i];
            w[i] = edge_w[i];
        } else {
            /* Every third random x is a tie (k + 0.5), where the rounding modes disagree. */
            x[i] = (float)oclt_rng_int(&c->rng, -1000, 1000) +
                   (i % 3 ? (float)oclt_rng_uniform(&c->rng) : 0.5f);
            big[i] = (float)((oclt_rng_uniform(&c->rng) * 2.0 - 1.0) * 1e10);
            w[i] = (int32_t)(oclt_rng_next(&c->rng) >> 32);
        }
    }
    fill_words(&c->rng, (uint32_t *)lanes, rows * 16);
    const int little = oclt_device_uint(dev->device, CL_DEVICE_ENDIAN_LITTLE) != 0;
    for (size_t i = 0; i < rows; ++i)
        vector_row_on_host(x[i], big[i], w[i], lanes + 16 * i, little, expected + i * TABLE_WIDTH);

    const void *inputs[4] = {x, big, w, lanes};
    const size_t input_bytes[4] = {sizeof x, sizeof big, sizeof w, rows * 16 * sizeof *lanes};
    for (int b = 0; b < 4; ++b) {
        bufs[b] = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 input_bytes[b], (void *)inputs[b], &err);
        if (OCLT_CHECK_ERR(err, "clCreateBuffer(vector_table input)")) goto release_buffers;
    }
    bufs[4] = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, rows * TABLE_WIDTH * sizeof *table,
                             NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateBuffer(table)")) goto release_buffers;
    if (oclt_poison_buffer(dev->queue, bufs[4], rows * TABLE_WIDTH * sizeof *table))
        goto release_buffers;
    for (cl_uint a = 0; a < 5; ++a)
        if (OCLT_ARG(kernel, a, bufs[a])) goto release_buffers;
    if (OCLT_ARG(kernel, 5, rows32) || launch_1d(c, kernel, rows, "vector_table") ||
        OCLT_CHECK(clEnqueueReadBuffer(dev->queue, bufs[4], CL_TRUE, 0,
                                       rows * TABLE_WIDTH * sizeof *table, table, 0, NULL, NULL)))
        goto release_buffers;

    /* Compare entry by entry, naming the operation of any entry that differs. */
    enum { COLUMNS = sizeof columns / sizeof columns[0] };
    size_t bad = 0, bad_in_column[COLUMNS] = {0};
    for (size_t i = 0; i < rows; ++i) {
        int k = 0;
        for (size_t col = 0; col < COLUMNS; ++col) {
            for (int lane = 0; lane < columns[col].width; ++lane, ++k) {
                int32_t got = table[i * TABLE_WIDTH + k], want = expected[i * TABLE_WIDTH + k];
                bad_in_column[col] += got != want;
                if (got != want && bad++ < 8)
                    fprintf(stderr,
                            "  row %zu (x=%.9g, big=%.9g, w=%d): %s[%d] = %d (0x%08x), C says %d "
                            "(0x%08x)\n",
                            i, x[i], big[i], w[i], columns[col].name, lane, got, (unsigned)got,
                            want, (unsigned)want);
            }
        }
    }
    /* A few rows of the table, where the rounding modes part ways. */
    printf("\n  vector_types: %zu inputs x %d results each, every one compared with C\n", rows,
           TABLE_WIDTH);
    printf("    %-9s %8s %8s %8s %8s   %-12s %-16s %s\n", "x", "int()", "_rte", "_rtp", "_rtn",
           "big", "convert_int_sat", "char_sat_rte(x)");
    for (size_t i = 0; i < 8; ++i) {
        const int32_t *r = table + i * TABLE_WIDTH;
        printf("    %-9g %8d %8d %8d %8d   %-12.10g %-16d %d\n", x[i], r[0], r[1], r[2], r[3],
               big[i], r[4], r[6]);
    }
    printf("    %-12s %-14s %-14s %-14s %-14s\n", "w", "float(w) rte", "_rtz", "_rtp", "_rtn");
    for (size_t i = 2; i < 4; ++i) {
        const int32_t *r = table + i * TABLE_WIDTH;
        float f[4];
        for (int m = 0; m < 4; ++m) memcpy(&f[m], &r[9 + m], sizeof f[m]);
        printf("    %-12d %-14.1f %-14.1f %-14.1f %-14.1f\n", w[i], f[0], f[1], f[2], f[3]);
    }
    status = status_of(bad);
    if (bad) {
        fprintf(stderr, "  %zu table entries differ from C, in:", bad);
        for (size_t col = 0; col < COLUMNS; ++col)
            if (bad_in_column[col])
                fprintf(stderr, " [%s] x%zu", columns[col].name, bad_in_column[col]);
        fputc('\n', stderr);
    }
release_buffers:
    for (int b = 0; b < 5; ++b)
        if (bufs[b]) clReleaseMemObject(bufs[b]);
release_host:
    if (kernel) clReleaseKernel(kernel);
    free_all(lanes, table, expected);
    report_demo_n(c, "vector_types", rows, status, NULL);
    return status;
}
