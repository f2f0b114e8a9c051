/* Chapter 05's workspaces: device buffers that split_k (its partial products) and padded (its
 * copies of A and B) keep from one run of a step to the next, created again only when one must
 * grow or the context changed. CLBlast, likewise, lets its caller pass a temporary buffer. With
 * new buffers at each run, the H200 sat idle between padded's two copies for 0.02-0.07 ms (up to
 * 2% of the step at 4097^3); with the workspace, for 0.001 ms.
 *
 * A new workspace is poisoned, and matmul_time_step releases them after each step: a slice that
 * forgot an element of its partial product must not find the right value left there by an
 * earlier step or --tune candidate. The poison is written from the host, not filled
 * (clEnqueueFillBuffer): Oclgrind 21.10's --uninitialized check takes what a kernel wrote over a
 * filled region for uninitialised (docs/appendix_driver_quirks.md). */
#include "matmul.h"

#include <stdlib.h>

static struct {
    cl_context context;
    cl_mem buffer;
    size_t bytes;
} workspace[MATMUL_WORKSPACES];

static cl_int poison_from_host(cl_command_queue queue, cl_mem buffer, size_t bytes) {
    void *poison = malloc(bytes);
    if (!poison) return OCLT_CHECK_ERR(CL_OUT_OF_HOST_MEMORY, "malloc(workspace poison)");
    oclt_poison_host(poison, bytes);
    cl_int err =
        OCLT_CHECK(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, poison, 0, NULL, NULL));
    free(poison);
    return err;
}

cl_int matmul_workspace(const oclt_device *dev, matmul_workspace_use use, size_t bytes,
                        cl_mem *out) {
    static const char *const what[MATMUL_WORKSPACES] = {"clCreateBuffer(padded A)",
                                                        "clCreateBuffer(padded B)",
                                                        "clCreateBuffer(split-K workspace)"};
    cl_int err = CL_SUCCESS;
    if (workspace[use].buffer &&
        (workspace[use].context != dev->context || workspace[use].bytes < bytes)) {
        clReleaseMemObject(workspace[use].buffer);
        workspace[use].buffer = NULL;
    }
    if (!workspace[use].buffer) {
        workspace[use].buffer = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (OCLT_CHECK_ERR(err, what[use])) return err;
        workspace[use].context = dev->context, workspace[use].bytes = bytes;
        if ((err = poison_from_host(dev->queue, workspace[use].buffer, bytes))) {
            clReleaseMemObject(workspace[use].buffer); /* never hand out an unpoisoned one */
            workspace[use].buffer = NULL;
            return err;
        }
    }
    *out = workspace[use].buffer;
    return CL_SUCCESS;
}

void matmul_release_workspaces(void) {
    for (int use = 0; use < MATMUL_WORKSPACES; ++use) {
        if (workspace[use].buffer) clReleaseMemObject(workspace[use].buffer);
        workspace[use].buffer = NULL;
    }
}
