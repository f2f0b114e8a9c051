/* The shared command line: parsing and validation, before any OpenCL work. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "errors.h"
#include "os.h"
#include "program.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int oclt_usage_error(const oclt_cli_spec *spec, const char *format, ...) {
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    /* One line whatever the user typed: a newline or other control character in an echoed
     * value is shown as '?'. */
    for (char *c = message; *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    fprintf(stderr, "%s: %s\n", spec->chapter, message);
    return OCLT_EXIT_USAGE;
}

/* Digits only, no sign, no junk: returns 0, or -1 for anything else, or -2 on overflow. */
static int parse_u64(const char *text, uint64_t *value) {
    if (!isdigit((unsigned char)text[0])) return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') return -1;
    if (errno == ERANGE) return -2;
    *value = v;
    return 0;
}

int oclt_parse_size(const char *text, size_t *value, const char **why) {
    if (text[0] == '-') {
        *why = "must be positive";
        return -1;
    }
    if (!isdigit((unsigned char)text[0])) {
        *why = "is not a number";
        return -1;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE) {
        *why = "is too large";
        return -1;
    }
    if (*end == '^') { /* 2^N */
        uint64_t exponent = 0;
        int parsed = parse_u64(end + 1, &exponent);
        if (v != 2 || parsed == -1) {
            *why = "is not a number (powers are written 2^N)";
            return -1;
        }
        if (parsed == -2 || exponent >= sizeof(size_t) * CHAR_BIT) {
            *why = "is too large";
            return -1;
        }
        v = 1ull << exponent;
    } else if (*end != '\0') {
        unsigned shift = 0;
        switch (*end) {
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            *why = "has trailing characters";
            return -1;
        }
        if (end[1] != '\0') {
            *why = "has trailing characters";
            return -1;
        }
        if (v > (SIZE_MAX >> shift)) {
            *why = "is too large";
            return -1;
        }
        v <<= shift;
    }
    if (v == 0) {
        *why = "must be at least 1";
        return -1;
    }
    if (v > SIZE_MAX) {
        *why = "is too large";
        return -1;
    }
    *value = (size_t)v;
    return 0;
}

/* MxNxK, or N for a square problem. */
static int parse_shape(const oclt_cli_spec *spec, const char *text, size_t shape[3]) {
    char copy[128];
    if (strlen(text) >= sizeof copy) return oclt_usage_error(spec, "--size '%s' is too long", text);
    strcpy(copy, text);
    char *parts[4] = {0};
    int count = 0;
    char *cursor = copy;
    for (;;) {
        char *x = strpbrk(cursor, "xX");
        if (count == 3) return oclt_usage_error(spec, "--size '%s' has more than 3 parts", text);
        parts[count++] = cursor;
        if (!x) break;
        *x = '\0';
        cursor = x + 1;
    }
    if (count != 1 && count != 3)
        return oclt_usage_error(spec, "--size '%s' must be N or MxNxK", text);
    static const char *const names[3] = {"M", "N", "K"};
    for (int i = 0; i < count; ++i) {
        const char *why = NULL;
        if (parts[i][0] == '\0')
            return oclt_usage_error(spec, "--size '%s': %s is missing", text, names[i]);
        if (oclt_parse_size(parts[i], &shape[i], &why) != 0)
            return oclt_usage_error(spec, "--size '%s': %s '%s' %s", text,
                                    count == 1 ? "N" : names[i], parts[i], why);
    }
    if (count == 1) shape[1] = shape[2] = shape[0];
    return 0;
}

/* A file we may create or append to: an existing writable regular file, or a new name in an
 * existing writable directory. A file that is written whole and then renamed over the old one
 * (`replaced`: --trace) needs a writable directory even when it exists. Nothing is created. */
static int check_writable_path(const oclt_cli_spec *spec, const char *option, const char *path,
                               int replaced) {
    if (path[0] == '\0') return oclt_usage_error(spec, "%s needs a file name", option);
    const oclt_path_kind kind = oclt_os_path_kind(path);
    if (kind != OCLT_PATH_MISSING) {
        if (kind != OCLT_PATH_FILE)
            return oclt_usage_error(spec, "%s '%s' is not a regular file", option, path);
        if (!oclt_os_writable(path))
            return oclt_usage_error(spec, "%s '%s' is not writable", option, path);
        if (!replaced) return 0;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        strcpy(dir, ".");
    } else if (slash == path) {
        strcpy(dir, "/");
    } else {
        size_t len = (size_t)(slash - path);
        if (len >= sizeof dir) return oclt_usage_error(spec, "%s path is too long", option);
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    if (oclt_os_path_kind(dir) != OCLT_PATH_DIRECTORY)
        return oclt_usage_error(spec, "%s '%s': directory '%s' does not exist", option, path, dir);
    if (!oclt_os_writable(dir))
        return oclt_usage_error(spec, "%s '%s': directory '%s' is not writable", option, path, dir);
    /* A name the file system cannot hold (stat says ENAMETOOLONG, which reads as missing);
     * --trace writes NAME.tmp first, 4 characters more. */
    const size_t name_length = strlen(slash ? slash + 1 : path) + (replaced ? 4 : 0);
    if (strlen(path) + 4 >= sizeof dir || name_length > oclt_os_name_max(dir))
        return oclt_usage_error(
            spec, "%s '%.60s...': the name is longer than the file system takes", option, path);
    return 0;
}

static int find_choice(const char *const *choices, const char *value) {
    for (int i = 0; choices && choices[i]; ++i)
        if (strcmp(choices[i], value) == 0) return i;
    return -1;
}

static void print_choices(FILE *out, const char *const *choices) {
    for (int i = 0; choices && choices[i]; ++i) fprintf(out, "%s%s", i ? "|" : "", choices[i]);
}

static int select_variants(const oclt_cli_spec *spec, const char *list, oclt_options *opt) {
    if (spec->variant_count == 0)
        return oclt_usage_error(spec, "this chapter has no variants to choose from");
    memset(opt->selected, 0, sizeof opt->selected);
    const char *item = list;
    for (;;) {
        size_t len = strcspn(item, ",");
        if (len == 0) return oclt_usage_error(spec, "--variant '%s' has an empty name", list);
        size_t found = spec->variant_count;
        for (size_t v = 0; v < spec->variant_count; ++v)
            if (strlen(spec->variants[v].name) == len &&
                strncmp(spec->variants[v].name, item, len) == 0)
                found = v;
        if (found == spec->variant_count) {
            fprintf(stderr, "%s: unknown variant '%.*s' (known:", spec->chapter, (int)len, item);
            for (size_t v = 0; v < spec->variant_count; ++v)
                fprintf(stderr, " %s", spec->variants[v].name);
            fputs(")\n", stderr);
            return OCLT_EXIT_USAGE;
        }
        opt->selected[found] = 1;
        if (item[len] == '\0') break;
        item += len + 1;
    }
    opt->variants_given = 1;
    return 0;
}

static void print_help(const oclt_cli_spec *spec) {
    printf("%s: %s\n\nUsage: %s [options]\n\n", spec->chapter, spec->summary, spec->chapter);
    printf("Device choice:\n"
           "  -p, --platform P     platform index or case-insensitive name substring\n"
           "                       (default: $OCLT_PLATFORM, else the platform of the first GPU)\n"
           "  -d, --device D       device index or name substring (default: $OCLT_DEVICE,\n"
           "                       else the first GPU on any platform, else the first device)\n"
           "      --devices        list every platform and device with its indices, then exit\n"
           "Problem and measurement:\n");
    if (spec->omit_options & OCLT_OMIT_SIZE)
        ; /* the program picks its own sizes */
    else if (spec->size_help)
        printf("      --size S         %s\n", spec->size_help);
    else if (spec->size_kind == OCLT_SIZE_MNK)
        printf("      --size S         N (square) or MxNxK; K/M/G suffixes and 2^N allowed "
               "(default %zux%zux%zu)\n",
               spec->default_size[0], spec->default_size[1], spec->default_size[2]);
    else
        printf("      --size N         element count; K/M/G suffixes and 2^N allowed "
               "(default %zu)\n",
               spec->default_size[0]);
    if (spec->variant_count)
        printf("      --variant A[,B]  run only these variants (default: all but the "
               "counter-examples)\n"
               "      --list-variants  print the variants, then exit\n");
    if (spec->extra_options & OCLT_OPT_TYPE) {
        printf("      --type T         element type: ");
        print_choices(stdout, spec->types);
        printf(" (default %s)\n", spec->types[0]);
    }
    if (spec->extra_options & OCLT_OPT_OP) {
        printf("      --op OP          operation: ");
        print_choices(stdout, spec->ops);
        printf(" (default %s)\n", spec->ops[0]);
    }
    if (spec->extra_options & OCLT_OPT_LOCAL)
        printf("      --local L        work-group size, a power of two within the device's and "
               "kernel's limits\n");
    if (!(spec->omit_options & OCLT_OMIT_REPS))
        printf("      --reps R         timed repetitions after a warm-up; median reported "
               "(default %d)\n",
               spec->default_reps);
    if (!(spec->omit_options & OCLT_OMIT_SEED))
        printf("      --seed S         random seed for the inputs (default: new each run, "
               "printed)\n");
    if (!(spec->omit_options & OCLT_OMIT_NO_CHECK))
        printf("      --no-check       skip the comparison with the CPU reference\n");
    if (!(spec->omit_options & OCLT_OMIT_CSV))
        printf("      --csv FILE       append one row per variant: "
               "chapter,variant,device,size,time_ms,figure,unit,check,e2e_ms\n");
    if (spec->extra_options & OCLT_OPT_TRACE)
        printf("      --trace FILE     write the profiled commands as Chrome trace-event JSON\n");
    if (spec->extra_options & OCLT_OPT_TUNE)
        printf(
            "      --tune[=M]       search the tuning on this device and size, check every "
            "candidate, cache the best\n"
            "                       (M: quick, the default; wide; or N, at most N candidates)\n");
    printf("  -h, --help           this text\n\n"
           "Exit status: 0 all checks passed, 1 a check or OpenCL call failed, 2 usage error,\n"
           "77 skipped (no OpenCL device, or the device lacks a needed feature).\n"
           "Kernel sources are built into the program; OCLT_KERNEL_DIR=DIR loads DIR/<name>.cl "
           "instead\n(DIR must hold every one of the program's .cl files).\n");
}

static void print_variants(const oclt_cli_spec *spec) {
    for (size_t v = 0; v < spec->variant_count; ++v)
        printf("%-20s %s%s\n", spec->variants[v].name, spec->variants[v].description,
               spec->variants[v].on_by_default ? "" : " (only when named)");
}

static uint64_t fresh_seed(void) {
    return oclt_os_entropy() % 1000000007u; /* short enough to retype */
}

enum {
    OPT_DEVICES = 256,
    OPT_SIZE,
    OPT_VARIANT,
    OPT_LIST_VARIANTS,
    OPT_REPS,
    OPT_SEED,
    OPT_NO_CHECK,
    OPT_CSV,
    OPT_TYPE,
    OPT_LOCAL,
    OPT_OP,
    OPT_TRACE,
    OPT_TUNE,
    OPT_HELP /* --help has a value of its own, so that --help=x is told from -h (see default:) */
};

/* The length of "--name" in "--name=value". */
static int option_name_length(const char *arg) {
    const char *equals = strchr(arg, '=');
    return equals ? (int)(equals - arg) : (int)strlen(arg);
}

/* How many long options `arg` ("--dev" or "--dev=x") is a prefix of. */
static int prefix_matches(const struct option *longopts, const char *arg) {
    if (strncmp(arg, "--", 2) != 0) return 0;
    const int length = option_name_length(arg) - 2;
    int matches = 0;
    for (const struct option *o = longopts; o->name; ++o)
        matches += length > 0 && strncmp(o->name, arg + 2, (size_t)length) == 0;
    return matches;
}

int oclt_parse_command_line(int argc, char **argv, const oclt_cli_spec *spec, oclt_options *opt) {
    memset(opt, 0, sizeof *opt);
    for (int i = 0; i < 3; ++i) opt->size[i] = spec->default_size[i];
    opt->reps = spec->default_reps;
    opt->check = 1;
    for (size_t v = 0; v < spec->variant_count && v < OCLT_MAX_VARIANTS; ++v)
        opt->selected[v] = spec->variants[v].on_by_default;

    struct option longopts[20];
    int n = 0;
    longopts[n++] = (struct option){"platform", required_argument, NULL, 'p'};
    longopts[n++] = (struct option){"device", required_argument, NULL, 'd'};
    longopts[n++] = (struct option){"devices", no_argument, NULL, OPT_DEVICES};
    if (!(spec->omit_options & OCLT_OMIT_SIZE))
        longopts[n++] = (struct option){"size", required_argument, NULL, OPT_SIZE};
    if (!(spec->omit_options & OCLT_OMIT_REPS))
        longopts[n++] = (struct option){"reps", required_argument, NULL, OPT_REPS};
    if (!(spec->omit_options & OCLT_OMIT_SEED))
        longopts[n++] = (struct option){"seed", required_argument, NULL, OPT_SEED};
    if (!(spec->omit_options & OCLT_OMIT_NO_CHECK))
        longopts[n++] = (struct option){"no-check", no_argument, NULL, OPT_NO_CHECK};
    if (!(spec->omit_options & OCLT_OMIT_CSV))
        longopts[n++] = (struct option){"csv", required_argument, NULL, OPT_CSV};
    longopts[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    if (spec->variant_count) {
        longopts[n++] = (struct option){"variant", required_argument, NULL, OPT_VARIANT};
        longopts[n++] = (struct option){"list-variants", no_argument, NULL, OPT_LIST_VARIANTS};
    }
    if (spec->extra_options & OCLT_OPT_TYPE)
        longopts[n++] = (struct option){"type", required_argument, NULL, OPT_TYPE};
    if (spec->extra_options & OCLT_OPT_LOCAL)
        longopts[n++] = (struct option){"local", required_argument, NULL, OPT_LOCAL};
    if (spec->extra_options & OCLT_OPT_OP)
        longopts[n++] = (struct option){"op", required_argument, NULL, OPT_OP};
    if (spec->extra_options & OCLT_OPT_TRACE)
        longopts[n++] = (struct option){"trace", required_argument, NULL, OPT_TRACE};
    if (spec->extra_options & OCLT_OPT_TUNE)
        longopts[n++] = (struct option){"tune", optional_argument, NULL, OPT_TUNE};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    int seed_given = 0;
    opterr = 0; /* we print our own one-line messages */
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":p:d:h", longopts, NULL)) != -1) {
        const char *why = NULL;
        uint64_t number = 0;
        int rc = 0;
        switch (c) {
        case 'p':
            opt->platform = optarg;
            break;
        case 'd':
            opt->device = optarg;
            break;
        case OPT_DEVICES:
            opt->list_devices = 1;
            break;
        case OPT_SIZE:
            opt->size_given = 1;
            if (spec->size_kind == OCLT_SIZE_MNK) {
                rc = parse_shape(spec, optarg, opt->size);
                if (rc) return rc;
            } else if (oclt_parse_size(optarg, &opt->size[0], &why) != 0) {
                return oclt_usage_error(spec, "--size '%s' %s", optarg, why);
            }
            break;
        case OPT_VARIANT:
            rc = select_variants(spec, optarg, opt);
            if (rc) return rc;
            break;
        case OPT_LIST_VARIANTS:
            print_variants(spec);
            return OCLT_EXIT_OK;
        case OPT_REPS:
            if (optarg[0] == '-')
                return oclt_usage_error(spec, "--reps '%s' must be positive", optarg);
            rc = parse_u64(optarg, &number);
            if (rc == -1)
                return oclt_usage_error(spec, "--reps '%s' is not a whole number", optarg);
            if (rc == -2 || number < 1 || number > 100000)
                return oclt_usage_error(spec, "--reps '%s' must be between 1 and 100000", optarg);
            opt->reps = (int)number;
            break;
        case OPT_SEED:
            rc = parse_u64(optarg, &opt->seed);
            if (rc == -2)
                return oclt_usage_error(spec, "--seed '%s' is too large (at most 2^64-1)", optarg);
            if (rc != 0)
                return oclt_usage_error(spec, "--seed '%s' is not a non-negative whole number",
                                        optarg);
            seed_given = 1;
            break;
        case OPT_NO_CHECK:
            opt->check = 0;
            break;
        case OPT_CSV:
            rc = check_writable_path(spec, "--csv", optarg, 0);
            if (rc) return rc;
            opt->csv_path = optarg;
            break;
        case OPT_TRACE:
            rc = check_writable_path(spec, "--trace", optarg, 1);
            if (rc) return rc;
            opt->trace_path = optarg;
            break;
        case OPT_TUNE: /* --tune, --tune=quick, --tune=wide or --tune=N (at most N candidates) */
            opt->tune = 1;
            if (!optarg || strcmp(optarg, "quick") == 0) break;
            if (strcmp(optarg, "wide") == 0) {
                opt->tune = 2;
                break;
            }
            rc = parse_u64(optarg, &number);
            if (rc != 0 || number < 1 || number > 100000)
                return oclt_usage_error(spec,
                                        "--tune='%s': give quick, wide or a number of candidates "
                                        "from 1 to 100000",
                                        optarg);
            opt->tune_limit = (int)number;
            break;
        case OPT_TYPE:
            opt->type = find_choice(spec->types, optarg);
            if (opt->type < 0) {
                fprintf(stderr, "%s: unknown --type '%s' (known: ", spec->chapter, optarg);
                print_choices(stderr, spec->types);
                fputs(")\n", stderr);
                return OCLT_EXIT_USAGE;
            }
            break;
        case OPT_OP:
            opt->op = find_choice(spec->ops, optarg);
            if (opt->op < 0) {
                fprintf(stderr, "%s: unknown --op '%s' (known: ", spec->chapter, optarg);
                print_choices(stderr, spec->ops);
                fputs(")\n", stderr);
                return OCLT_EXIT_USAGE;
            }
            break;
        case OPT_LOCAL:
            if (oclt_parse_size(optarg, &opt->local, &why) != 0)
                return oclt_usage_error(spec, "--local '%s' %s", optarg, why);
            if (opt->local & (opt->local - 1))
                return oclt_usage_error(spec, "--local '%s' must be a power of two", optarg);
            break;
        case 'h':
        case OPT_HELP:
            print_help(spec);
            return OCLT_EXIT_OK;
        case ':':
            return oclt_usage_error(spec, "option '%s' needs a value", argv[optind - 1]);
        default:
            /* A short option, perhaps inside a group (-zz), where optind has not moved past
             * the group yet. */
            if (optopt > 0 && optopt < OPT_DEVICES)
                return oclt_usage_error(spec, "unknown option '-%c' (see --help)", optopt);
            /* A known long option given a value it does not take: --no-check=1. */
            if (optopt >= OPT_DEVICES)
                return oclt_usage_error(spec, "option '%.*s' takes no value",
                                        option_name_length(argv[optind - 1]), argv[optind - 1]);
            /* getopt_long takes a unique prefix of a long option (--si for --size); a prefix
             * of two (--dev: --device, --devices) is ambiguous, not unknown. */
            if (prefix_matches(longopts, argv[optind - 1]) > 1)
                return oclt_usage_error(spec, "option '%.*s' is ambiguous (see --help)",
                                        option_name_length(argv[optind - 1]), argv[optind - 1]);
            return oclt_usage_error(spec, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return oclt_usage_error(spec, "unexpected argument '%s' (see --help)", argv[optind]);

    const char *env_platform = getenv("OCLT_PLATFORM");
    const char *env_device = getenv("OCLT_DEVICE");
    if (!opt->platform && env_platform && *env_platform) opt->platform = env_platform;
    if (!opt->device && env_device && *env_device) opt->device = env_device;
    if (opt->platform && !*opt->platform)
        return oclt_usage_error(spec, "--platform needs an index or a name");
    if (opt->device && !*opt->device)
        return oclt_usage_error(spec, "--device needs an index or a name");
    const char *missing = oclt_kernel_dir_missing();
    if (missing)
        return oclt_usage_error(spec,
                                "OCLT_KERNEL_DIR=%s holds no readable %s (the program reads "
                                "every kernel file from there)",
                                getenv("OCLT_KERNEL_DIR"), missing);
    if (!seed_given) opt->seed = fresh_seed();
    return OCLT_CONTINUE;
}

size_t oclt_selected_count(const oclt_cli_spec *spec, const oclt_options *opt) {
    size_t count = 0;
    for (size_t v = 0; v < spec->variant_count; ++v) count += opt->selected[v] != 0;
    return count;
}
