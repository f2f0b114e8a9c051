/* The operating-system calls of the tutorial (see os.h). */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L
#endif
#ifdef __APPLE__
#define _DARWIN_C_SOURCE /* _POSIX_C_SOURCE alone hides _SC_PHYS_PAGES on macOS */
#endif
#include "os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <windows.h>
#else
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

double oclt_os_monotonic_ms(void) {
#ifdef _WIN32
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart * 1e3 / (double)frequency.QuadPart;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
#endif
}

void oclt_os_sleep_ms(double ms) {
    if (ms <= 0) return;
#ifdef _WIN32
    Sleep((DWORD)(ms + 0.5));
#else
    struct timespec pause = {(time_t)(ms / 1e3),
                             (long)((ms - 1e3 * (double)(time_t)(ms / 1e3)) * 1e6)};
    nanosleep(&pause, NULL);
#endif
}

void oclt_os_yield(void) {
#ifdef _WIN32
    SwitchToThread();
#else
    sched_yield();
#endif
}

uint64_t oclt_os_entropy(void) {
#ifdef _WIN32
    LARGE_INTEGER count;
    QueryPerformanceCounter(&count);
    return (uint64_t)count.QuadPart ^ ((uint64_t)_getpid() << 32);
#else
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^ (uint64_t)getpid();
#endif
}

/* The number in a cgroup limit file, or 0 for none: "max" (cgroup v2), a missing or unreadable
 * file, or v1's "no limit", a page-rounded 2^63 - 1 (any value of 2^62 or more counts as none). */
static uint64_t read_limit_file(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    char text[32] = "";
    const int read = fgets(text, sizeof text, file) != NULL;
    fclose(file);
    if (!read || text[0] < '0' || text[0] > '9') return 0;
    char *end = NULL;
    const unsigned long long value = strtoull(text, &end, 10);
    return (*end == '\n' || *end == '\0') && value < (1ull << 62) ? (uint64_t)value : 0;
}

uint64_t oclt_os_cgroup_memory_limit(const char *proc_cgroup, const char *root) {
    FILE *file = fopen(proc_cgroup, "r");
    if (!file) return 0;
    uint64_t limit = 0;
    char line[1024];
    while (fgets(line, sizeof line, file)) {
        /* "hierarchy-id:controllers:path": v2's single line is "0::/path"; v1's memory line
         * names the controller "memory". Each sits under its own mount below root. */
        char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
        if (!second || second[1] != '/') continue;
        second[strcspn(second, "\n")] = '\0';
        const int v2 = strncmp(line, "0::", 3) == 0;
        const int v1 = !v2 && strncmp(first + 1, "memory:", 7) == 0;
        if (!v1 && !v2) continue;
        const char *mount = v2 ? "" : "/memory",
                   *name = v2 ? "memory.max" : "memory.limit_in_bytes";
        /* The limit of each cgroup on the path counts, from this one up to the root. */
        char dir[1024];
        if (snprintf(dir, sizeof dir, "%s", second + 1) >= (int)sizeof dir) continue;
        for (;;) {
            char path[2048];
            const size_t length = strlen(dir);
            snprintf(path, sizeof path, "%s%s%s%s%s", root, mount, dir,
                     length && dir[length - 1] == '/' ? "" : "/", name);
            const uint64_t here = read_limit_file(path);
            if (here && (!limit || here < limit)) limit = here;
            char *slash = strrchr(dir, '/');
            if (!slash || (slash == dir && dir[1] == '\0')) break;
            slash[slash == dir] = '\0'; /* "/a/b" -> "/a" -> "/" */
        }
    }
    fclose(file);
    return limit;
}

uint64_t oclt_os_usable_memory(void) {
#ifdef _WIN32
    MEMORYSTATUSEX status = {.dwLength = sizeof status};
    return GlobalMemoryStatusEx(&status) ? (uint64_t)status.ullTotalPhys : 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t bytes = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
#ifdef __linux__
    /* A container's memory limit is its control group's, which sysconf does not see. */
    const uint64_t limit = oclt_os_cgroup_memory_limit("/proc/self/cgroup", "/sys/fs/cgroup");
    if (limit && (!bytes || limit < bytes)) bytes = limit;
#endif
    return bytes;
#else
    return 0;
#endif
}

int oclt_os_make_directory(const char *path) {
#ifdef _WIN32
    if (_mkdir(path) == 0) return 0;
#else
    if (mkdir(path, 0755) == 0) return 0;
#endif
    return oclt_os_path_kind(path) == OCLT_PATH_DIRECTORY ? 0 : -1;
}

oclt_path_kind oclt_os_path_kind(const char *path) {
#ifdef _WIN32
    struct _stat st;
    if (_stat(path, &st) != 0) return OCLT_PATH_MISSING;
    if (st.st_mode & _S_IFREG) return OCLT_PATH_FILE;
    if (st.st_mode & _S_IFDIR) return OCLT_PATH_DIRECTORY;
#else
    struct stat st;
    if (stat(path, &st) != 0) return OCLT_PATH_MISSING;
    if (S_ISREG(st.st_mode)) return OCLT_PATH_FILE;
    if (S_ISDIR(st.st_mode)) return OCLT_PATH_DIRECTORY;
#endif
    return OCLT_PATH_OTHER;
}

int oclt_os_writable(const char *path) {
#ifdef _WIN32
    return _access(path, 2) == 0;
#else
    return access(path, W_OK) == 0;
#endif
}

size_t oclt_os_name_max(const char *dir) {
#if defined(_WIN32) || !defined(_PC_NAME_MAX)
    (void)dir;
    return 255;
#else
    const long max = pathconf(dir, _PC_NAME_MAX);
    return max > 0 ? (size_t)max : 255;
#endif
}
