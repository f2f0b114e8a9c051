/* Chapter 02, exercise 1 (worked solution): read ONE COLUMN of a row-major matrix that lives in
 * a buffer into a contiguous host array, with a single clEnqueueReadBufferRect.
 *
 * The column is a box one element wide and `rows` rows high. On the buffer side each row of
 * the box is row_pitch = width * 4 bytes after the previous one and starts origin[0] = column
 * * 4 bytes into its row; on the host side the rows are packed: host_row_pitch = 4 bytes. */
#include "solutions.h"

#include <stdio.h>
#include <stdlib.h>

#define WIDTH 53 /* columns: not a power of two, so a wrong pitch cannot land by luck */

oclt_status solve_column_rect(const oclt_device *dev, const oclt_options *opt,
                              oclt_report *report) {
    const cl_uint rows = (cl_uint)opt->size[0], width = WIDTH;
    const size_t bytes = (size_t)rows * width * sizeof(cl_uint);
    oclt_rng rng;
    oclt_rng_seed(&rng, opt->seed);
    const cl_uint column = (cl_uint)oclt_rng_int(&rng, 0, WIDTH - 1);
    oclt_status status = OCLT_FAIL;
    cl_int err = CL_SUCCESS;
    cl_uint *got = malloc((rows + 1) * sizeof *got); /* one word more: nothing may land there */
    cl_program program = oclt_build_file(dev->context, dev->device, "column.cl", "");
    cl_kernel fill = program ? oclt_create_kernel(program, "fill_matrix") : NULL;
    cl_mem matrix = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!got || !fill || OCLT_CHECK_ERR(err, "clCreateBuffer(matrix)")) goto done;

    const size_t global[2] = {width, rows};
    if (OCLT_ARG(fill, 0, matrix) || OCLT_ARG(fill, 1, width) || OCLT_ARG(fill, 2, rows) ||
        oclt_enqueue_kernel(dev->queue, fill, 2, global, NULL, 0, NULL, NULL, "fill_matrix"))
        goto done;

    /* The solution: origin[0] and region[0] in bytes, the rest in rows and slices. */
    const size_t buffer_origin[3] = {column * sizeof(cl_uint), 0, 0};
    const size_t host_origin[3] = {0, 0, 0};
    const size_t region[3] = {sizeof(cl_uint), rows, 1};
    oclt_poison_host(got, (rows + 1) * sizeof *got);
    if (OCLT_CHECK(clEnqueueReadBufferRect(dev->queue, matrix, CL_TRUE, buffer_origin, host_origin,
                                           region, width * sizeof(cl_uint), 0, sizeof(cl_uint), 0,
                                           got, 0, NULL, NULL)))
        goto done;

    cl_int *expected = malloc((rows + 1) * sizeof *expected);
    if (!expected) goto done;
    for (cl_uint r = 0; r < rows; ++r) expected[r] = (cl_int)(r * 65536u + column);
    expected[rows] = (cl_int)OCLT_POISON_WORD;
    printf("  column %u of a %u x %u matrix: buffer row_pitch %u bytes, host row_pitch 4 bytes\n",
           column, rows, width, (unsigned)(width * sizeof(cl_uint)));
    status = oclt_compare_int("column", (const int32_t *)got, expected, rows + 1) ? OCLT_FAIL
                                                                                  : OCLT_PASS;
    free(expected);
done : {
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%ux%u", rows, width);
    oclt_report_result(report, "column_rect", size_text, -1, -1, "", status, NULL);
}
    if (matrix) clReleaseMemObject(matrix);
    if (fill) clReleaseKernel(fill);
    if (program) clReleaseProgram(program);
    free(got);
    return status;
}
