/* The operating-system calls of the tutorial (see os.h). */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L
#endif
#ifdef __APPLE__
#define _DARWIN_C_SOURCE /* _POSIX_C_SOURCE alone hides _SC_PHYS_PAGES on macOS */
#endif
#include "os.h"

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

uint64_t oclt_os_physical_memory(void) {
#ifdef _WIN32
    MEMORYSTATUSEX status = {.dwLength = sizeof status};
    return GlobalMemoryStatusEx(&status) ? (uint64_t)status.ullTotalPhys : 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
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
