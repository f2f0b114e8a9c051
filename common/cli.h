/* The command line shared by every chapter.
 *
 *   -p, --platform P       platform index or name substring (env OCLT_PLATFORM)
 *   -d, --device D         device index or name substring   (env OCLT_DEVICE)
 *       --devices          list platforms and devices, then exit
 *       --size S           element count, or N / MxNxK for matmul (K/M/G suffixes, 2^N)
 *       --variant A[,B]    run only these variants (default: the chapter's default set)
 *       --list-variants    print the variants with one line each, then exit
 *       --reps R           timed repetitions after one warm-up; the median is reported
 *       --seed S           random seed (printed on every run so a failure can be repeated)
 *       --no-check         skip the CPU reference (for large benchmark runs)
 *       --csv FILE         append one row per variant (header written to a new file)
 * plus, where a chapter asks for them: --type, --local, --op, --trace, --tune.
 * Every value is validated before any OpenCL work; a bad one prints one line on stderr and
 * the chapter exits with OCLT_EXIT_USAGE (2). */
#ifndef OCLT_CLI_H
#define OCLT_CLI_H

#include <stddef.h>
#include <stdint.h>

#define OCLT_MAX_VARIANTS 32

/* What --size means for a chapter. */
typedef enum {
    OCLT_SIZE_COUNT, /* one element count, e.g. --size 1000000 or --size 2^20 */
    OCLT_SIZE_MNK    /* matmul shape: --size N (square) or --size MxNxK */
} oclt_size_kind;

/* Chapter-specific options a chapter can switch on. */
enum {
    OCLT_OPT_TYPE = 1 << 0,  /* --type NAME, one of spec->types */
    OCLT_OPT_LOCAL = 1 << 1, /* --local N, a power of two (limits checked later on the device) */
    OCLT_OPT_OP = 1 << 2,    /* --op NAME, one of spec->ops */
    OCLT_OPT_TRACE = 1 << 3, /* --trace FILE, a writable path */
    OCLT_OPT_TUNE = 1 << 4   /* --tune[=quick|wide|N]: search the chapter's tuning on the device */
};

/* Shared options a program that does not use them leaves out (an exercise's solution that runs
 * once, or always checks): then they are unknown options, not silently ignored. */
enum {
    OCLT_OMIT_REPS = 1 << 0,     /* --reps: the program times nothing */
    OCLT_OMIT_NO_CHECK = 1 << 1, /* --no-check: the program always checks */
    OCLT_OMIT_CSV = 1 << 2,      /* --csv: the program writes no rows */
    OCLT_OMIT_SIZE = 1 << 3,     /* --size: the program picks its own sizes */
    OCLT_OMIT_SEED = 1 << 4      /* --seed: the program has no random inputs */
};

typedef struct {
    const char *name;        /* as given to --variant */
    const char *description; /* one line for --list-variants */
    int on_by_default;       /* 0: runs only when named (e.g. a racy counter-example) */
} oclt_variant_info;

/* What a chapter tells the parser about itself. */
typedef struct {
    const char *chapter; /* folder name, e.g. "04_reduction_naive_to_cascade" */
    const char *summary; /* one line for --help */
    oclt_size_kind size_kind;
    size_t default_size[3]; /* COUNT: [0]; MNK: M, N, K */
    const char *size_help;  /* --help text for --size when it is not an element count */
    int default_reps;
    const oclt_variant_info *variants; /* may be NULL for a chapter without variants */
    size_t variant_count;
    unsigned extra_options;   /* OCLT_OPT_* */
    unsigned omit_options;    /* OCLT_OMIT_* */
    const char *const *types; /* for --type, NULL-terminated; [0] is the default */
    const char *const *ops;   /* for --op, NULL-terminated; [0] is the default */
} oclt_cli_spec;

typedef struct {
    const char *platform; /* NULL: default choice */
    const char *device;   /* NULL: default choice */
    int list_devices;
    size_t size[3]; /* COUNT: size[0]; MNK: M, N, K */
    int size_given;
    int selected[OCLT_MAX_VARIANTS]; /* 1 where the variant runs */
    int variants_given;
    int reps;
    uint64_t seed;
    int check;            /* 0 with --no-check */
    const char *csv_path; /* NULL: no CSV */
    int type;             /* index into spec->types */
    size_t local;         /* 0: chosen from the device */
    int op;               /* index into spec->ops */
    const char *trace_path;
    int tune;       /* --tune: 0 not given, 1 quick, 2 wide */
    int tune_limit; /* --tune=N: at most N candidates (0: the mode's own space) */
} oclt_options;

/* Returned by oclt_parse_command_line when the chapter should go on. */
#define OCLT_CONTINUE (-1)

/* Parses argv. Returns OCLT_CONTINUE to go on, or an exit code: 0 after --help or
 * --list-variants, OCLT_EXIT_USAGE after one line on stderr naming the bad value. */
int oclt_parse_command_line(int argc, char **argv, const oclt_cli_spec *spec, oclt_options *opt);

/* Parses a positive size: digits with an optional K/M/G (x1024) suffix, or 2^N. Returns 0 on
 * success; otherwise fills why (a short phrase) and returns -1. Overflow is an error. */
int oclt_parse_size(const char *text, size_t *value, const char **why);

/* Number of variants the command line selected. */
size_t oclt_selected_count(const oclt_cli_spec *spec, const oclt_options *opt);

/* Prints the usage error line "<chapter>: <message>" on stderr and returns OCLT_EXIT_USAGE.
 * Chapters use it for limits known only after querying the device (max allocation, --local). */
int oclt_usage_error(const oclt_cli_spec *spec, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif
