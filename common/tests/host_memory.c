/* oclt_require_host_memory: a usage error (exit code 2, one line) when the host's arrays, plus
 * a CPU device's buffers, exceed the machine's memory; 0 when they fit; a GPU's buffers do not
 * count. No OpenCL device is opened: only the device's type matters. */
#include "oclt.h"

#include <stdio.h>

/* The test builds no kernels: an empty table of embedded kernel files (see program.h). */
const oclt_embedded_file oclt_embedded_kernels[] = {{0, 0, 0}};
const size_t oclt_embedded_kernel_count = 0;

int main(void) {
    const oclt_cli_spec spec = {.chapter = "host_memory_test", .summary = "test"};
    const oclt_device cpu = {.type = CL_DEVICE_TYPE_CPU}, gpu = {.type = CL_DEVICE_TYPE_GPU};
    const cl_ulong usable = oclt_os_usable_memory(), all = (cl_ulong)-1;
    if (!usable) {
#if defined(__linux__) || defined(__APPLE__) || defined(_WIN32)
        printf("FAIL: no memory size on a system that has the call for it\n");
        return 1;
#else
        printf("SKIP: this system does not say how much memory it has\n");
        return 77;
#endif
    }
    printf("usable memory: %llu bytes\n", (unsigned long long)usable);
    const struct {
        const oclt_device *dev;
        cl_ulong host, buffers;
        int expected;
        const char *why;
    } cases[] = {
        {&cpu, 1, 1, 0, "a few bytes fit"},
        {&cpu, usable, 0, 0, "exactly the machine's memory fits"},
        {&cpu, usable + 1, 0, 2, "one byte more does not"},
        {&cpu, usable / 2 + 1, usable / 2 + 1, 2, "a CPU's buffers count"},
        {&gpu, usable / 2 + 1, usable / 2 + 1, 0, "a GPU's buffers do not"},
        {&cpu, 1, all, 2, "an overflowing sum does not fit"},
        {&gpu, all, 0, 2, "nor the largest size"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const int got = oclt_require_host_memory(&spec, cases[i].dev, cases[i].host,
                                                 cases[i].buffers, "--size");
        printf("%-40s %s (returned %d)\n", cases[i].why, got == cases[i].expected ? "ok" : "WRONG",
               got);
        failures += got != cases[i].expected;
    }
    return failures != 0;
}
