/* Every negative status code defined in the installed OpenCL headers must have its name in
 * oclt_error_name(). The list below is extracted from the headers when CMake configures. */
#include "errors.h"

#include <stdio.h>
#include <string.h>

static const struct {
    int code;
    const char *name;
} header_codes[] = {
#include "header_error_codes.h"
};

/* name is one of the '/'-separated names in list. */
static int listed(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == '/') && (p[len] == '\0' || p[len] == '/')) return 1;
    return 0;
}

int main(void) {
    size_t count = sizeof header_codes / sizeof header_codes[0], missing = 0;
    for (size_t i = 0; i < count; ++i) {
        const char *got = oclt_error_name(header_codes[i].code);
        if (!listed(got, header_codes[i].name)) {
            printf("missing: %s (%d) gives \"%s\"\n", header_codes[i].name, header_codes[i].code,
                   got);
            ++missing;
        }
    }
    if (strcmp(oclt_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR") != 0 ||
        strcmp(oclt_error_name(12345), "unknown OpenCL error") != 0) {
        printf("spot checks failed\n");
        return 1;
    }
    /* Every core code (-1 to -72 of cl.h) also has a hint: what to look at next. */
    size_t unhinted = 0;
    for (size_t i = 0; i < oclt_error_table_size(); ++i) {
        const cl_int code = oclt_error_table_code(i);
        if (code < 0 && code >= -72 && !oclt_error_hint(code)) {
            printf("no hint: %s (%d)\n", oclt_error_name(code), (int)code);
            ++unhinted;
        }
    }
    printf("%zu header codes checked, %zu missing; table has %zu entries; %zu core codes without "
           "a hint\n",
           count, missing, oclt_error_table_size(), unhinted);
    return missing || unhinted ? 1 : 0;
}
