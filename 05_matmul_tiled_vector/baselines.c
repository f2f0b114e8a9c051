/* Chapter 05's library baselines, run on the same data in the same process and checked by the
 * same verifier as the steps: CLBlast's SGEMM on the OpenCL device (same queue and buffers) and
 * OpenBLAS's cblas_sgemm on the host CPU. Each is optional: CMake defines OCLT_HAVE_CLBLAST or
 * OCLT_HAVE_OPENBLAS where it found the library; without it the row is a SKIP saying so. Both
 * are timed by the host clock (a library may run several kernels, or threads, per call): a
 * warm-up call (CLBlast compiles its kernels then), then the median of --reps calls. */
#include "matmul.h"

#ifdef OCLT_HAVE_CLBLAST
#include <clblast_c.h>
#endif
#ifdef OCLT_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <stdio.h>

/* ---- CLBlast -------------------------------------------------------------------------------- */

#ifdef OCLT_HAVE_CLBLAST
typedef struct {
    const oclt_device *dev;
    const matmul_problem *p;
} clblast_launch;

/* Poison C, then one CLBlastSgemm, from the call to the end of the queue. */
static cl_int run_clblast(void *context, double *ms) {
    clblast_launch *l = context;
    const matmul_problem *p = l->p;
    cl_command_queue queue = l->dev->queue;
    cl_int err = oclt_poison_buffer(queue, p->c_buf, p->m * p->n * sizeof(float));
    if (err) return err;
    cl_event done = NULL;
    const double start = oclt_now_ms();
    CLBlastStatusCode status = CLBlastSgemm(
        CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, p->m, p->n, p->k, 1.0f,
        p->a_buf, 0, p->k, p->b_buf, 0, p->n, 0.0f, p->c_buf, 0, p->n, &queue, &done);
    if (status != CLBlastSuccess) {
        fprintf(stderr, "CLBlastSgemm failed: status %d%s%s\n", (int)status,
                status > -1000 ? " = " : " (a CLBlast code, see clblast_c.h)",
                status > -1000 ? oclt_error_name((cl_int)status) : "");
        return status > -1000 && status < 0 ? (cl_int)status : CL_INVALID_OPERATION;
    }
    err = OCLT_CHECK(clFinish(queue));
    *ms = oclt_now_ms() - start;
    if (done) clReleaseEvent(done);
    return err;
}
#endif

oclt_status matmul_clblast(const oclt_device *dev, const matmul_check *chk, matmul_problem *p,
                           int reps, double *ms, char *note, size_t note_size) {
#ifdef OCLT_HAVE_CLBLAST
    printf("  (CLBlast compiles its kernels at the first call, outside the timing: on a CPU "
           "this can take a minute)\n");
    fflush(stdout);
    clblast_launch l = {dev, p};
    if (oclt_time_median(run_clblast, &l, reps, ms)) return OCLT_FAIL;
    snprintf(note, note_size, "host clock, all of CLBlast's kernels");
    return matmul_read_and_verify(dev, chk, p, "C (CLBlast)");
#else
    (void)dev, (void)chk, (void)p, (void)reps, (void)ms;
    snprintf(note, note_size, "CLBlast was not found at build time (Debian: libclblast-dev)");
    return OCLT_SKIP;
#endif
}

void matmul_release_baselines(void) {
#ifdef OCLT_HAVE_CLBLAST
    CLBlastClearCache(); /* releases the programs CLBlast built for this context */
#endif
}

/* ---- OpenBLAS ------------------------------------------------------------------------------- */

#ifdef OCLT_HAVE_OPENBLAS
/* Poison C, then one cblas_sgemm on the host copies with OpenBLAS's own threads. */
static cl_int run_openblas(void *context, double *ms) {
    matmul_problem *p = context;
    oclt_poison_host(p->c, p->m * p->n * sizeof(float));
    const double start = oclt_now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p->m, (int)p->n, (int)p->k, 1.0f,
                p->a, (int)p->k, p->b, (int)p->n, 0.0f, p->c, (int)p->n);
    *ms = oclt_now_ms() - start;
    return CL_SUCCESS;
}
#endif

oclt_status matmul_openblas(const matmul_check *chk, matmul_problem *p, int reps, double *ms,
                            char *note, size_t note_size) {
#ifdef OCLT_HAVE_OPENBLAS
    if (oclt_time_median(run_openblas, p, reps, ms)) return OCLT_FAIL;
    snprintf(note, note_size, "host CPU, %d threads, host clock", openblas_get_num_threads());
    return matmul_verify(chk, p, p->c, "C (OpenBLAS)");
#else
    (void)chk, (void)p, (void)reps, (void)ms;
    snprintf(note, note_size, "OpenBLAS was not found at build time (Debian: libopenblas-dev)");
    return OCLT_SKIP;
#endif
}
