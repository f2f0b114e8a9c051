/* Chapter 02's exercise solutions: one program, one --variant per exercise (main.c). Each
 * solution gets the open device, the options and the report, and reports its own row. */
#ifndef CH02_SOLUTIONS_H
#define CH02_SOLUTIONS_H

#include "oclt.h"

oclt_status solve_column_rect(const oclt_device *dev, const oclt_options *opt,
                              oclt_report *report); /* column_rect.c */
oclt_status solve_nearest_image(const oclt_device *dev, const oclt_options *opt,
                                oclt_report *report); /* nearest_image.c */

#endif
