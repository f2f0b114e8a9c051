/* oclt_os_cgroup_memory_limit: the smallest memory limit on this process's cgroup path, read
 * from made-up /proc/self/cgroup files and /sys/fs/cgroup trees written under the working
 * directory. Covers cgroup v2 (memory.max, "max" for none), v1 (memory.limit_in_bytes, a huge
 * value for none), a container's own namespace ("/"), limits set higher up the path, and files
 * that are missing or hold no number. No OpenCL device is used. */
#include "os.h"

#include <stdio.h>
#include <string.h>

static int write_file(const char *path, const char *text) {
    /* Make each parent directory first: "t/a/b/memory.max" needs "t", "t/a", "t/a/b". */
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (oclt_os_make_directory(dir) != 0) return -1;
        *slash = '/';
    }
    FILE *file = fopen(path, "w");
    if (!file) return -1;
    fputs(text, file);
    return fclose(file);
}

typedef struct {
    const char *name, *proc_cgroup;
    const char *files[3][2]; /* path under the tree's root, content */
    uint64_t expected;
} limit_case;

int main(void) {
    static const limit_case cases[] = {
        {"v2: a limit one level up",
         "0::/a/b\n",
         {{"a/memory.max", "1000000\n"}, {"a/b/memory.max", "max\n"}},
         1000000},
        {"v2: the smaller of two on the path",
         "0::/a/b\n",
         {{"a/memory.max", "1000000\n"}, {"a/b/memory.max", "4096\n"}},
         4096},
        {"v2: a container's own cgroup (\"/\")",
         "0::/\n",
         {{"memory.max", "536870912\n"}},
         536870912},
        {"v2: \"max\" everywhere is no limit",
         "0::/a\n",
         {{"memory.max", "max\n"}, {"a/memory.max", "max\n"}},
         0},
        {"v1: the memory controller's line",
         "12:cpu,cpuacct:/x\n4:memory:/x/y\n",
         {{"memory/x/y/memory.limit_in_bytes", "9223372036854771712\n"},
          {"memory/x/memory.limit_in_bytes", "2147483648\n"},
          {"cpu,cpuacct/x/memory.limit_in_bytes", "1024\n"}},
         2147483648u},
        {"v1: 2^63 rounded to pages is no limit",
         "4:memory:/x\n",
         {{"memory/x/memory.limit_in_bytes", "9223372036854771712\n"}},
         0},
        {"hybrid v1 and v2: the smaller",
         "0::/\n4:memory:/z\n",
         {{"memory.max", "8192\n"}, {"memory/z/memory.limit_in_bytes", "65536\n"}},
         8192},
        {"a file that holds no number", "0::/a\n", {{"a/memory.max", "12abc\n"}}, 0},
        {"no limit files at all", "0::/a/b\n", {{"unrelated", "1\n"}}, 0},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char root[64], proc[96], path[512];
        snprintf(root, sizeof root, "cgroup_limit_tree/%zu", i);
        snprintf(proc, sizeof proc, "cgroup_limit_tree/%zu.cgroup", i);
        int ok = write_file(proc, cases[i].proc_cgroup) == 0;
        for (size_t f = 0; f < 3 && cases[i].files[f][0]; ++f) {
            snprintf(path, sizeof path, "%s/%s", root, cases[i].files[f][0]);
            ok = ok && write_file(path, cases[i].files[f][1]) == 0;
        }
        if (!ok) {
            printf("FAIL: could not write the made-up tree under %s\n", root);
            return 1;
        }
        const uint64_t got = oclt_os_cgroup_memory_limit(proc, root);
        printf("%-40s %s (%llu, expected %llu)\n", cases[i].name,
               got == cases[i].expected ? "ok" : "WRONG", (unsigned long long)got,
               (unsigned long long)cases[i].expected);
        failures += got != cases[i].expected;
    }
    const uint64_t missing = oclt_os_cgroup_memory_limit("cgroup_limit_tree/none", ".");
    printf("%-40s %s\n", "no /proc/self/cgroup", missing == 0 ? "ok" : "WRONG");
    failures += missing != 0;
    printf(failures ? "FAIL: %d of the limits above are wrong\n" : "PASS\n", failures);
    return failures != 0;
}
