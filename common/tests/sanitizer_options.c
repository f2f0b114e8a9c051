/* Default options of the sanitizers in a -DOCLT_SANITIZE=ON build, linked into every program
 * (common/tests/sanitizers.cmake). ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS in the
 * environment still override them. */
#include "oclt_lsan_suppressions.h" /* OCLT_LSAN_SUPPRESSIONS: lsan.supp as a C string */

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__lsan_default_suppressions(void);

/* Catch a pointer to a local used after its function returned, too. Oclgrind and the leak
 * checker are preloaded ahead of the ASan runtime; neither defines an allocation function, so
 * that order is safe and the runtime need not refuse it. */
const char *__asan_default_options(void) {
    return "detect_stack_use_after_return=1:verify_asan_link_order=0";
}

/* Where the undefined behaviour happened, not only the line. */
const char *__ubsan_default_options(void) {
    return "print_stacktrace=1";
}

/* Leaks of the OpenCL driver stack are not reported (see lsan.supp). */
const char *__lsan_default_suppressions(void) {
    return OCLT_LSAN_SUPPRESSIONS;
}
