/* Chapter 02, worked solutions of the exercises at the end of docs/02_buffers_mapping.md:
 *   column_rect     exercise 1: one matrix column with one clEnqueueReadBufferRect
 *   nearest_image   exercise 2: step 10 with CLK_FILTER_NEAREST, checked bit for bit
 * --size is the matrix's rows (exercise 1) and, up to 64, the image's height (exercise 2). */
#include "solutions.h"

#include <stdio.h>

static const oclt_variant_info variants[] = {
    {"column_rect", "exercise 1: a matrix column read with clEnqueueReadBufferRect", 1},
    {"nearest_image", "exercise 2: CLK_FILTER_NEAREST resampling, checked bit for bit", 1},
};

static const oclt_cli_spec spec = {
    .chapter = "02_solutions",
    .summary = "worked solutions of chapter 02's exercises",
    .size_kind = OCLT_SIZE_COUNT,
    .default_size = {1000},
    .size_help = "rows of the 53-column matrix (at most 4096); the image is min(--size, 64) high",
    .default_reps = 1,
    .omit_options = OCLT_OMIT_REPS | OCLT_OMIT_NO_CHECK,
    .variants = variants,
    .variant_count = sizeof variants / sizeof variants[0],
};

int main(int argc, char **argv) {
    oclt_options opt;
    int rc = oclt_parse_command_line(argc, argv, &spec, &opt);
    if (rc != OCLT_CONTINUE) return rc;
    if (opt.list_devices) return oclt_list_devices(stdout);
    if (opt.size[0] > 4096) return oclt_usage_error(&spec, "--size %zu: at most 4096", opt.size[0]);
    oclt_device dev;
    rc = oclt_open_device(&spec, &opt, &dev);
    if (rc != OCLT_CONTINUE) return rc;
    oclt_report report;
    oclt_report_begin(&report, &spec, &opt, &dev);
    if (opt.selected[0]) solve_column_rect(&dev, &opt, &report);
    if (opt.selected[1]) solve_nearest_image(&dev, &opt, &report);
    rc = oclt_report_exit_code(&report);
    oclt_close_device(&dev);
    return rc;
}
