/* Reporting: the run header, one line (and CSV row) per variant, and the exit code. */
#ifndef OCLT_REPORT_H
#define OCLT_REPORT_H

#include "cli.h"
#include "device.h"

typedef enum {
    OCLT_PASS,     /* ran and matched the CPU reference */
    OCLT_FAIL,     /* ran and did not match, or an OpenCL call failed */
    OCLT_SKIP,     /* not run: the device lacks a feature (the note says which) */
    OCLT_UNCHECKED /* ran with --no-check */
} oclt_status;

typedef struct {
    const oclt_cli_spec *spec;
    const oclt_options *opt;
    const oclt_device *dev;
    int passed, failed, skipped, unchecked;
} oclt_report;

/* Prints "chapter / device / platform / driver / seed" and starts the tally. */
void oclt_report_begin(oclt_report *report, const oclt_cli_spec *spec, const oclt_options *opt,
                       const oclt_device *dev);

/* One line on stdout and, with --csv, one row:
 * chapter,variant,device,size,time_ms,figure,unit,check,e2e_ms (e2e_ms left empty).
 * time_ms and figure may be negative for "not measured"; note may be NULL. */
void oclt_report_result(oclt_report *report, const char *variant, const char *size, double time_ms,
                        double figure, const char *unit, oclt_status status, const char *note);

/* The same for a measurement with two times (the reductions of chapters 04 and 06):
 * kernel_ms, the device time from profiling events (written as time_ms), and e2e_ms, the host
 * clock from the first enqueue until the result is on the host (the e2e_ms column). figure is
 * an amount per time computed from kernel_ms (GB/s); the line also shows it over e2e_ms. */
void oclt_report_result_e2e(oclt_report *report, const char *variant, const char *size,
                            double kernel_ms, double e2e_ms, double figure, const char *unit,
                            oclt_status status, const char *note);

/* 1 if anything failed; 77 if nothing ran because everything was skipped; else 0. */
int oclt_report_exit_code(const oclt_report *report);

const char *oclt_status_name(oclt_status status);

#endif
