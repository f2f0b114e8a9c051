/* Chapter 02: what the demonstrations share. main.c runs them in order; each lives in the file
 * named after its topic and reports one PASS/FAIL line (and CSV row) of its own. */
#ifndef CH02_H
#define CH02_H

#include "oclt.h"

#include <stddef.h>
#include <stdint.h>

/* Half-width of buffers.cl's stencil_local, passed to it as -DRADIUS (2*R+1 weights; the
 * __local tile holds local_size + 2*R floats). 0 <= R <= 31: the host's weights fit 64. */
#define STENCIL_RADIUS 3
_Static_assert(STENCIL_RADIUS >= 0 && 2 * STENCIL_RADIUS + 1 <= 64, "STENCIL_RADIUS: 0..31");

/* Everything a demonstration needs: the device, the options, the report, the two programs
 * (buffers.cl, types.cl) and the random numbers. */
typedef struct {
    const oclt_device *dev;
    const oclt_options *opt;
    oclt_report *report;
    cl_program buffers;   /* buffers.cl: scale_add, scale_add_in_place, stencil_local */
    cl_program types;     /* types.cl: particle_layout, particle_step, vector_table */
    oclt_rng rng;         /* seeded from --seed */
    size_t words;         /* 32-bit words in a demonstration buffer: min(--size, 1 MiB) / 4 */
    size_t largest_bytes; /* the largest transfer of the bandwidth sweep (--size) */
    cl_uint base_align;   /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes (the device reports bits) */
    cl_mem_flags
        transfer_buffer_flags; /* added to the bandwidth's write/read buffer: 0, or
                                  ALLOC_HOST_PTR with OCLT_TRANSFER_BUFFER=alloc_host_ptr */
} ch02;

/* The demonstrations, in the order the chapter teaches them. */
oclt_status demo_create_flags(ch02 *c);   /* main.c */
oclt_status demo_read_write(ch02 *c);     /* main.c */
oclt_status demo_rect_2d(ch02 *c);        /* rect_copy.c */
oclt_status demo_rect_3d(ch02 *c);        /* rect_copy.c */
oclt_status demo_copy(ch02 *c);           /* rect_copy.c */
oclt_status demo_sub_buffers(ch02 *c);    /* sub_buffer_map.c */
oclt_status demo_map(ch02 *c);            /* sub_buffer_map.c */
oclt_status demo_address_spaces(ch02 *c); /* kernel_side.c */
oclt_status demo_struct_layout(ch02 *c);  /* kernel_side.c */
oclt_status demo_vector_types(ch02 *c);   /* kernel_side.c */
oclt_status run_bandwidth(ch02 *c);       /* bandwidth.c: reports its own rows */

/* One PASS/FAIL line (and CSV row) for a demonstration: it checks data, it is not timed. */
void report_demo(ch02 *c, const char *variant, const char *size, oclt_status status,
                 const char *note);

/* PASS when nothing was wrong. */
static inline oclt_status status_of(size_t wrong) {
    return wrong ? OCLT_FAIL : OCLT_PASS;
}

/* A 1-D launch of n work-items in work-groups of up to 64 (the global size rounded up to whole
 * groups; the kernels guard i < n), waited for. */
cl_int launch_1d(ch02 *c, cl_kernel kernel, size_t n, const char *label);

/* Random 32-bit words (every bit pattern possible). */
void fill_words(oclt_rng *rng, uint32_t *x, size_t n);

/* Compares n 32-bit words exactly; prints the first mismatches. Returns how many differ. */
size_t compare_words(const char *what, const uint32_t *got, const uint32_t *expected, size_t n);

/* A call that must fail: prints "<what>: refused with NAME, as the specification requires"
 * when got == expected. An implementation that accepts it is reported (a NOTE, not a failure
 * of this program: Oclgrind, for one, accepts some of these) and the object it made is
 * released by the caller. Returns 1 when the expected error came back. */
int expect_refusal(const char *what, cl_int got, cl_int expected);

/* Human-readable byte counts: "4 KiB", "1.5 MiB". */
void format_bytes(char *out, size_t size, size_t bytes);

#endif
