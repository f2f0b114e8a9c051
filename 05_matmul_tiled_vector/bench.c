/* Chapter 05's timing: each step's kernel run once as a warm-up and --reps times, each run on a
 * C poisoned with NaN (so an element a kernel forgets cannot pass), timed by the kernel's
 * profiling event (the kernel alone); the median is reported. */
#include "matmul.h"

#include <stdio.h>

cl_int matmul_wait_span(cl_int err, cl_event first, cl_event last, double *ms) {
    if (!err) err = oclt_events_span_ms(first, last, ms); /* it waits for both events */
    if (first) clReleaseEvent(first);
    if (last && last != first) clReleaseEvent(last);
    return err;
}

double matmul_gflops(const matmul_problem *p, double ms) {
    return 2.0 * (double)p->m * (double)p->n * (double)p->k / (ms * 1e6);
}

typedef struct {
    const oclt_device *dev;
    cl_kernel kernel;
    const matmul_step *step;
    const matmul_geometry *geometry;
    const matmul_problem *p;
    const matmul_tuning *tuning;
} step_launch;

/* Poison C, run the step once, time it. */
static cl_int run_step_once(void *context, double *ms) {
    step_launch *l = context;
    cl_event done = NULL;
    cl_int err = oclt_poison_buffer(l->dev->queue, l->p->c_buf, l->p->m * l->p->n * sizeof(float));
    if (err) return err;
    if (l->step->run) return l->step->run(l->dev, l->kernel, l->geometry, l->p, l->tuning, ms);
    err = matmul_enqueue_step(l->dev, l->kernel, l->step->name, l->geometry, l->p, &done);
    return matmul_wait_span(err, done, done, ms); /* START to END */
}

/* A kernel may allow fewer items per group than the device (registers, local memory): PASS when
 * `kernel` takes the geometry's groups, SKIP (the note says why) when not, FAIL when the query
 * failed. */
static oclt_status groups_fit(const oclt_device *dev, cl_kernel kernel, const char *label,
                              const matmul_geometry *g, char *note, size_t note_size) {
    size_t kernel_max = 0;
    if (OCLT_CHECK(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof kernel_max, &kernel_max, NULL)))
        return OCLT_FAIL;
    if (g->local[0] * g->local[1] <= kernel_max) return OCLT_PASS;
    snprintf(note, note_size, "needs %zu work-items per group, %s allows %zu",
             g->local[0] * g->local[1], label, kernel_max);
    return OCLT_SKIP;
}

oclt_status matmul_time_step(const oclt_device *dev, cl_program program, const matmul_step *step,
                             const matmul_tuning *tuning, const matmul_problem *p, int reps,
                             double *ms, char *note, size_t note_size) {
    const char *why = step->unsupported ? step->unsupported(dev, tuning) : NULL;
    if (why) {
        snprintf(note, note_size, "%s", why);
        return OCLT_SKIP;
    }
    if (!program) return OCLT_FAIL;
    const matmul_geometry g = step->geometry(tuning);
    cl_kernel kernel = oclt_create_kernel(program, step->kernel);
    if (!kernel) return OCLT_FAIL;
    /* The step's kernel, and the others it may launch on the same work-groups. */
    oclt_status status = groups_fit(dev, kernel, "the compiled kernel", &g, note, note_size);
    for (int k = 0; k < 2 && step->also[k] && status == OCLT_PASS; ++k) {
        cl_kernel other = oclt_create_kernel(program, step->also[k]);
        status = other ? groups_fit(dev, other, step->also[k], &g, note, note_size) : OCLT_FAIL;
        if (other) clReleaseKernel(other);
    }
    if (status != OCLT_PASS) goto release;
    status = OCLT_FAIL;
    step_launch l = {dev, kernel, step, &g, p, tuning};
    if (oclt_time_median(run_step_once, &l, reps, ms)) goto release;
    snprintf(note, note_size, "%s", g.params);
    status = OCLT_PASS; /* ran: the caller checks C */
release:
    clReleaseKernel(kernel);
    matmul_release_workspaces(); /* the next step starts from new, poisoned workspaces */
    return status;
}

oclt_status matmul_read_and_verify(const oclt_device *dev, const matmul_check *chk,
                                   matmul_problem *p, const char *what) {
    if (chk->method == MATMUL_CHECK_NONE) return OCLT_UNCHECKED;
    if (OCLT_CHECK(clEnqueueReadBuffer(dev->queue, p->c_buf, CL_TRUE, 0,
                                       p->m * p->n * sizeof(float), p->c, 0, NULL, NULL)))
        return OCLT_FAIL;
    return matmul_verify(chk, p, p->c, what);
}

void matmul_describe(char *note, size_t size, const char *setting, double rate, double naive_rate,
                     double previous_rate, double peak) {
    size_t used = (size_t)snprintf(note, size, "%s", setting);
    const char *separator = "; ";
    if (rate > 0 && naive_rate > 0 && used < size) {
        used += (size_t)snprintf(note + used, size - used, "%sx%.3g naive", separator,
                                 rate / naive_rate);
        separator = ", ";
    }
    if (rate > 0 && previous_rate > 0 && used < size) {
        used += (size_t)snprintf(note + used, size - used, "%sx%.3g previous", separator,
                                 rate / previous_rate);
        separator = ", ";
    }
    if (rate > 0 && peak > 0 && used < size)
        snprintf(note + used, size - used, "%s%.0f%% of peak", separator, 100.0 * rate / peak);
}
