/* Chapter 02: what clGetMemObjectInfo says about a new buffer, printed on one line (step 1,
 * create_flags, calls it on every buffer it makes). */
#include "ch02.h"

#include <stdio.h>
#include <string.h>

static void flag_names(cl_mem_flags flags, char *out, size_t size) {
    static const struct {
        cl_mem_flags flag;
        const char *name;
    } names[] = {
        {CL_MEM_READ_WRITE, "READ_WRITE"},         {CL_MEM_READ_ONLY, "READ_ONLY"},
        {CL_MEM_WRITE_ONLY, "WRITE_ONLY"},         {CL_MEM_USE_HOST_PTR, "USE_HOST_PTR"},
        {CL_MEM_ALLOC_HOST_PTR, "ALLOC_HOST_PTR"}, {CL_MEM_COPY_HOST_PTR, "COPY_HOST_PTR"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (flags & names[i].flag) {
            if (out[0]) strncat(out, "|", size - strlen(out) - 1);
            strncat(out, names[i].name, size - strlen(out) - 1);
        }
}

/* clGetMemObjectInfo on a new buffer. Counts what contradicts the specification: the size,
 * the flags as given, the host pointer (ours with USE_HOST_PTR, else NULL). The map and
 * reference counts are only printed: the specification calls them stale the moment they are
 * returned, fit for debugging only. */
size_t show_mem_info(cl_mem buffer, cl_mem_flags flags, size_t bytes, const void *host_ptr) {
    size_t size = 0;
    cl_mem_flags got_flags = 0;
    void *got_host_ptr = NULL;
    cl_uint maps = 0, refs = 0;
    if (OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL)) ||
        OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof got_flags, &got_flags, NULL)) ||
        OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_HOST_PTR, sizeof got_host_ptr, &got_host_ptr,
                                      NULL)) ||
        OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_MAP_COUNT, sizeof maps, &maps, NULL)) ||
        OCLT_CHECK(clGetMemObjectInfo(buffer, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL)))
        return 1;
    char name[96];
    flag_names(flags, name, sizeof name);
    const int size_ok = size == bytes, flags_ok = got_flags == flags,
              host_ok = got_host_ptr == ((flags & CL_MEM_USE_HOST_PTR) ? host_ptr : NULL);
    printf("    %-28s size %-8zu flags %-9s host_ptr %-11s map count %u, refs %u\n", name, size,
           flags_ok ? "as given" : "WRONG",
           got_host_ptr == NULL       ? "NULL"
           : got_host_ptr == host_ptr ? "= ours"
                                      : "WRONG",
           maps, refs);
    if (!size_ok) fprintf(stderr, "  CL_MEM_SIZE %zu, expected %zu\n", size, bytes);
    return !size_ok + !flags_ok + !host_ok;
}
