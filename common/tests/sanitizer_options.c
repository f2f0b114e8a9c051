/* Default options of the sanitizers in a -DOCLT_SANITIZE=ON build, linked into every program
 * (common/tests/sanitizers.cmake). ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS in the
 * environment still override them. */
#include "oclt_lsan_suppressions.h" /* OCLT_LSAN_SUPPRESSIONS: lsan.supp as a C string */

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__lsan_default_options(void);
const char *__lsan_default_suppressions(void);

/* Catch a pointer to a local used after its function returned, too. Oclgrind, the leak checker
 * and the fake device are preloaded ahead of the ASan runtime; none defines an allocation
 * function, so that order is safe and the runtime need not refuse it. */
const char *__asan_default_options(void) {
    return "detect_stack_use_after_return=1:verify_asan_link_order=0";
}

/* Where the undefined behaviour happened, not only the line. */
const char *__ubsan_default_options(void) {
    return "print_stacktrace=1";
}

/* LeakSanitizer's tracer crashed at exit ("Tracer caught signal 11") every time a program had
 * PoCL compile a kernel that its cache did not hold (7 of 7 runs of 01_first_program with an
 * empty cache, none with a warm one), while scanning the thread-local storage of the threads
 * the compiler left. use_tls=0 leaves thread-local storage out of the roots it scans: nothing
 * of the tutorial's own lives there, and it can only make LeakSanitizer report more, not less
 * (glibc's loader keeps a few blocks there: lsan.supp). print_suppressions=0: a run with a
 * suppressed block still prints one line of usage error, not a table of suppressions. */
const char *__lsan_default_options(void) {
    return "use_tls=0:print_suppressions=0";
}

/* Leaks of the OpenCL driver stack are not reported (see lsan.supp). */
const char *__lsan_default_suppressions(void) {
    return OCLT_LSAN_SUPPRESSIONS;
}
