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
oclt_status demo_create_flags(ch02 *c);         /* main.c */
oclt_status demo_read_write(ch02 *c);           /* main.c */
oclt_status demo_rect_2d(ch02 *c);              /* rect_copy.c */
oclt_status demo_rect_3d(ch02 *c);              /* rect_copy.c */
oclt_status demo_copy(ch02 *c);                 /* rect_copy.c */
oclt_status demo_sub_buffers(ch02 *c);          /* sub_buffer_map.c */
oclt_status demo_map(ch02 *c);                  /* sub_buffer_map.c */
oclt_status demo_address_spaces(ch02 *c);       /* kernel_side.c */
oclt_status demo_struct_layout(ch02 *c);        /* kernel_side.c */
oclt_status demo_vector_types(ch02 *c);         /* kernel_side.c */
oclt_status run_bandwidth(ch02 *c);             /* bandwidth.c: reports its own rows */
oclt_status demo_constant_memory(ch02 *c);      /* constant_memory.c: __constant vs __global */
oclt_status demo_image_bilinear(ch02 *c);       /* images.c: read_imagef vs a buffer */
oclt_status demo_misuse(ch02 *c);               /* misuse.c: defined errors from misused buffers */
oclt_status demo_vector_literal_error(ch02 *c); /* misuse.c: a vector literal that must not build */

/* clGetMemObjectInfo on a new buffer, printed on one line (mem_info.c). Returns how many
 * answers contradict the specification: size, flags as given, host pointer. */
size_t show_mem_info(cl_mem buffer, cl_mem_flags flags, size_t bytes, const void *host_ptr);

/* bandwidth.c: OCLT_TRANSFER_BUFFER (unset, "device" or "alloc_host_ptr") as extra flags for
 * the sweep's write/read buffer. Returns 0, or -1 for any other value. */
int transfer_buffer_flags_from_env(cl_mem_flags *flags);

/* bandwidth.c: the sweep's largest size: --size, or without --size the default lowered to a
 * power of 4 that fits one allocation and a third of global memory (three buffers of it). */
size_t bandwidth_largest(const oclt_options *opt, const oclt_device *dev);

/* launch_1d, timed: the launch's event time in ms, negative on an OpenCL error. Used where
 * the chapter compares kernels (best of interleaved rounds). */
double kernel_event_ms(ch02 *c, cl_kernel kernel, size_t n, const char *label);

/* One PASS/FAIL line (and CSV row) for a demonstration: it checks data, it is not timed.
 * report_demo_n gives the size as a number (elements or bytes, as the variant's docs say). */
void report_demo(ch02 *c, const char *variant, const char *size, oclt_status status,
                 const char *note);
void report_demo_n(ch02 *c, const char *variant, size_t size, oclt_status status, const char *note);

/* PASS when nothing was wrong. */
static inline oclt_status status_of(size_t wrong) {
    return wrong ? OCLT_FAIL : OCLT_PASS;
}

/* A 1-D launch of n work-items in work-groups of up to 64 (the global size rounded up to whole
 * groups; the kernels guard i < n), waited for. */
cl_int launch_1d(ch02 *c, cl_kernel kernel, size_t n, const char *label);
/* The same, also returning the launch's event time in *ms (NULL: not wanted). */
cl_int launch_1d_timed(ch02 *c, cl_kernel kernel, size_t n, const char *label, double *ms);

/* Random 32-bit words (every bit pattern possible). */
void fill_words(oclt_rng *rng, uint32_t *x, size_t n);

/* Compares n 32-bit words exactly; prints the first mismatches. Returns how many differ. */
size_t compare_words(const char *what, const uint32_t *got, const uint32_t *expected, size_t n);

/* A call that must fail: prints "<what>: refused with NAME, as the specification requires"
 * when got == expected. An implementation that accepts it is reported (a NOTE, not a failure
 * of this program: Oclgrind, for one, accepts some of these) and the object it made is
 * released by the caller. Returns 1 when the expected error came back. */
int expect_refusal(const char *what, cl_int got, cl_int expected);

/* clReleaseMemObject on each of the count objects that is not NULL. */
void release_mem_objects(size_t count, const cl_mem *objects);

/* Releases a CL_MEM_USE_HOST_PTR buffer (or NULL) and frees its host memory, which the buffer
 * may use until it is deleted: after the last release, once no command uses it. The buffer's
 * destructor callback frees the memory then. */
void release_host_backed(cl_mem buffer, void *host);

/* free() on each pointer: free_all(a, b, c). Any of them may be NULL (not yet allocated when an
 * error path gets here), so the list is counted, not NULL-terminated. */
#define free_all(...)                                                                              \
    free_each((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
void free_each(void *const *pointers, size_t count);

/* Human-readable byte counts: "4 KiB", "1.5 MiB". */
void format_bytes(char *out, size_t size, size_t bytes);

#endif
