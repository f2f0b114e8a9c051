/* Reporting: the run header, one line (and CSV row) per variant, and the exit code. */
#include "report.h"
#include "errors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *oclt_status_name(oclt_status status) {
    switch (status) {
    case OCLT_PASS:
        return "PASS";
    case OCLT_FAIL:
        return "FAIL";
    case OCLT_SKIP:
        return "SKIP";
    default:
        return "unchecked";
    }
}

void oclt_report_begin(oclt_report *report, const oclt_cli_spec *spec, const oclt_options *opt,
                       const oclt_device *dev) {
    memset(report, 0, sizeof *report);
    report->spec = spec;
    report->opt = opt;
    report->dev = dev;
    printf("%s\n", spec->chapter);
    printf("  device   %s\n  platform %s (driver %s)\n", dev->device_name, dev->platform_name,
           dev->driver_version);
    if (!(spec->omit_options & OCLT_OMIT_SEED))
        printf("  seed     %llu (repeat with --seed %llu)\n", (unsigned long long)opt->seed,
               (unsigned long long)opt->seed);
    fflush(stdout);
}

/* A CSV field, quoted when it holds a comma, quote or newline (RFC 4180). */
static void csv_field(FILE *out, const char *text) {
    if (!strpbrk(text, ",\"\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; ++text) {
        if (*text == '"') fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

/* A row that cannot be written (the file vanished, the disk is full) counts as a failure: the
 * run's results would be lost without a word. The path was checked before any work (cli.c), so
 * this is rare. */
static void csv_row_lost(oclt_report *report, const char *variant) {
    fprintf(stderr, "%s: %s (the CSV row of %s is lost: FAIL)\n", report->opt->csv_path,
            strerror(errno), variant);
    ++report->failed;
}

/* e2e_ms < 0: the row has no end-to-end time (its e2e_ms field stays empty). */
static void append_csv(oclt_report *report, const char *variant, const char *size, double time_ms,
                       double figure, const char *unit, oclt_status status, double e2e_ms) {
    FILE *out = fopen(report->opt->csv_path, "a");
    if (!out) {
        csv_row_lost(report, variant);
        return;
    }
    if (ftell(out) == 0)
        fputs("chapter,variant,device,size,time_ms,figure,unit,check,e2e_ms\n", out);
    csv_field(out, report->spec->chapter);
    fputc(',', out);
    csv_field(out, variant);
    fputc(',', out);
    csv_field(out, report->dev->device_name);
    fputc(',', out);
    csv_field(out, size);
    if (time_ms >= 0)
        fprintf(out, ",%.6f", time_ms);
    else
        fputs(",", out);
    if (figure >= 0)
        fprintf(out, ",%.6g,", figure);
    else
        fputs(",,", out);
    csv_field(out, unit ? unit : "");
    fprintf(out, ",%s,", oclt_status_name(status));
    if (e2e_ms >= 0) fprintf(out, "%.6f", e2e_ms);
    fputc('\n', out);
    const int write_failed = ferror(out);
    if (fclose(out) != 0 || write_failed) csv_row_lost(report, variant);
}

static void count_status(oclt_report *report, oclt_status status) {
    switch (status) {
    case OCLT_PASS:
        ++report->passed;
        break;
    case OCLT_FAIL:
        ++report->failed;
        break;
    case OCLT_SKIP:
        ++report->skipped;
        break;
    case OCLT_UNCHECKED:
        ++report->unchecked;
        break;
    }
}

/* The line's first columns: variant, size, time and figure (blank when not measured). */
static void print_measurement(const char *variant, const char *size, double time_ms, double figure,
                              const char *unit) {
    printf("  %-22s %-14s", variant, size);
    if (time_ms >= 0)
        printf(" %11.4f ms", time_ms);
    else
        printf(" %14s", "");
    if (figure >= 0)
        printf(" %10.2f %-8s", figure, unit ? unit : "");
    else
        printf(" %19s", "");
}

static void print_status(oclt_status status, const char *note) {
    printf(" %s", oclt_status_name(status));
    if (note && note[0]) printf("  (%s)", note);
    putchar('\n');
    fflush(stdout);
}

void oclt_report_result(oclt_report *report, const char *variant, const char *size, double time_ms,
                        double figure, const char *unit, oclt_status status, const char *note) {
    count_status(report, status);
    print_measurement(variant, size, time_ms, figure, unit);
    print_status(status, note);
    if (report->opt->csv_path)
        append_csv(report, variant, size, time_ms, figure, unit, status, -1.0);
}

void oclt_report_result_e2e(oclt_report *report, const char *variant, const char *size,
                            double kernel_ms, double e2e_ms, double figure, const char *unit,
                            oclt_status status, const char *note) {
    count_status(report, status);
    print_measurement(variant, size, kernel_ms, figure, unit);
    if (e2e_ms > 0 && kernel_ms > 0 && figure >= 0)
        printf("  e2e %9.4f ms %8.2f %-6s", e2e_ms, figure * kernel_ms / e2e_ms, unit ? unit : "");
    else if (e2e_ms >= 0)
        printf("  e2e %9.4f ms %15s", e2e_ms, "");
    else
        printf("  %30s", "");
    print_status(status, note);
    if (report->opt->csv_path)
        append_csv(report, variant, size, kernel_ms, figure, unit, status, e2e_ms);
}

int oclt_report_exit_code(const oclt_report *report) {
    if (report->failed) return OCLT_EXIT_FAIL;
    if (report->skipped && !report->passed && !report->unchecked) return OCLT_EXIT_SKIP;
    return OCLT_EXIT_OK;
}
