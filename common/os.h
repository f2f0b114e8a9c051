/* The few operating-system calls the tutorial needs, in one place: a monotonic clock, a
 * sleep, a seed from the clock, the size of physical memory, and what kind of file a path
 * names. POSIX (Linux, macOS) is what CI builds and runs; the Windows branches follow the
 * documented Win32 calls and are untried. Chapter code calls these instead of any OS header. */
#ifndef OCLT_OS_H
#define OCLT_OS_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds of a clock that never jumps (CLOCK_MONOTONIC), for host-side timing. */
double oclt_os_monotonic_ms(void);

/* Sleeps for about `ms` milliseconds (at least that long, or until a signal). */
void oclt_os_sleep_ms(double ms);

/* Gives the rest of this thread's time slice to other threads (sched_yield), for a host loop
 * that polls while the runtime's threads work. */
void oclt_os_yield(void);

/* A number that differs between runs (wall clock and process id), for a fresh seed. */
uint64_t oclt_os_entropy(void);

/* Bytes of memory this process may use: the machine's physical memory, or on Linux its control
 * group's limit (a container's --memory) when that is smaller; 0 when the system does not say. */
uint64_t oclt_os_usable_memory(void);

/* The smallest memory limit on this process's cgroup path (v2 memory.max, v1
 * memory.limit_in_bytes), read from the file proc_cgroup (/proc/self/cgroup) under the
 * directory root (/sys/fs/cgroup); 0 when no limit is set or found. Takes its paths as
 * arguments so that a test can give it a made-up tree. */
uint64_t oclt_os_cgroup_memory_limit(const char *proc_cgroup, const char *root);

typedef enum {
    OCLT_PATH_MISSING,
    OCLT_PATH_FILE,
    OCLT_PATH_DIRECTORY,
    OCLT_PATH_OTHER
} oclt_path_kind;

/* Creates the directory `path` (its parent must exist). Returns 0 when it exists afterwards,
 * -1 when it could not be made. */
int oclt_os_make_directory(const char *path);

/* What `path` names, and whether this process may write to it. */
oclt_path_kind oclt_os_path_kind(const char *path);
int oclt_os_writable(const char *path);

/* The longest file name (one path component) the file system of directory `dir` takes. */
size_t oclt_os_name_max(const char *dir);

#endif
