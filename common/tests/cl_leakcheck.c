/* cl_leakcheck: finds the OpenCL objects a program never releases.
 *
 *   LD_PRELOAD=build/lib/libcl_leakcheck.so build/bin/04_reduction_naive_to_cascade ...
 *
 * The library stands between the program and libOpenCL (the ICD loader). Every call that makes
 * an object (context, command queue, memory object, sampler, program, kernel, event, sub-device,
 * SVM allocation) is recorded with its handle, the call's name and the calling stack;
 * clRetain* adds one reference to the handle and clRelease* takes one away. When the process
 * ends it prints
 *     cl_leakcheck: N OpenCL objects not released (C created: ...)
 * and a line per object still held, and turns an exit status of 0 into 3 when N > 0.
 *
 * Only the exported clXxx symbols are interposed, so only the program's own calls are seen (and
 * those of libraries it links, such as CLBlast). The loader reaches the driver (PoCL) through the
 * ICD dispatch table, and the driver calls its own functions directly: the driver's internal
 * references (a kernel holds its program, a queue its context) are never counted. The counts are
 * the application's references, which is exactly what it must give back.
 *
 * Not seen: objects made by extension functions fetched with clGetExtensionFunctionAddress*,
 * and interop calls (cl_gl.h, ...). Retain/release calls on such handles are counted in a note.
 *
 * Environment: OCLT_LEAKCHECK_TRACE=1 prints every recorded call on stderr.
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- The table of live objects ------------------------------------------------------------ */

typedef enum {
    KIND_CONTEXT,
    KIND_QUEUE,
    KIND_MEM,
    KIND_SAMPLER,
    KIND_PROGRAM,
    KIND_KERNEL,
    KIND_EVENT,
    KIND_DEVICE,
    KIND_SVM,
    KIND_COUNT
} kind;

static const char *const kind_name[KIND_COUNT] = {
    "cl_context",    "cl_command_queue", "cl_mem",   "cl_sampler",
    "cl_program",    "cl_kernel",        "cl_event", "cl_device_id (sub-device)",
    "SVM allocation"};
static const char *const kind_singular[KIND_COUNT] = {"context", "command queue", "memory object",
                                                      "sampler", "program",       "kernel",
                                                      "event",   "sub-device",    "SVM allocation"};
static const char *const kind_plural[KIND_COUNT] = {
    "contexts", "command queues", "memory objects", "samplers",       "programs",
    "kernels",  "events",         "sub-devices",    "SVM allocations"};

#define CALLERS 3

typedef struct entry {
    struct entry *next;
    const void *handle;
    const char *call;             /* the call that made it */
    const void *callers[CALLERS]; /* return addresses into the program, innermost first */
    unsigned long long serial;
    long references; /* the application's: 1 at creation, +1 per retain, -1 per release */
    kind kind;
} entry;

#define BUCKETS 4096
static entry *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long created_total, created_by_kind[KIND_COUNT], serial_counter;
static unsigned long long untracked_calls; /* retain/release of handles never seen created */
static long live_objects;
static int trace;
static int any_call; /* the process made an OpenCL call: the report is printed */
static pid_t owner;  /* the process the table belongs to (a forked child stays silent) */

static size_t bucket_of(const void *handle) {
    uintptr_t h = (uintptr_t)handle;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 40) % BUCKETS;
}

/* The entry of a handle (table_lock held), and the link that points to it. */
static entry **find(const void *handle) {
    entry **link = &table[bucket_of(handle)];
    while (*link && (*link)->handle != handle) link = &(*link)->next;
    return link;
}

#define CALLER __builtin_return_address(0)

/* The caller of the interposed call and the callers above it: the call may sit in a helper
 * (common/program.c's oclt_create_kernel), and its caller is the line to fix. */
static void calling_stack(const void *caller, const void **callers) {
    void *frames[16];
    int count = backtrace(frames, 16), first = 0;
    while (first < count && frames[first] != caller) ++first; /* skip this library's frames */
    callers[0] = caller;
    for (int i = 1; i < CALLERS; ++i) callers[i] = first + i < count ? frames[first + i] : NULL;
}

static void record_created(kind k, const void *handle, const char *call, const void *caller) {
    if (!handle) return;
    const void *callers[CALLERS];
    calling_stack(caller, callers);
    pthread_mutex_lock(&table_lock);
    entry **link = find(handle);
    entry *e = *link;
    if (e) {
        /* Still in the table: it was freed through a call not seen here and handed out again.
         * The entry is reused for the new object. */
    } else if ((e = calloc(1, sizeof *e)) != NULL) {
        e->handle = handle;
        *link = e;
        ++live_objects;
    } else {
        pthread_mutex_unlock(&table_lock);
        return;
    }
    e->kind = k;
    e->call = call;
    for (int i = 0; i < CALLERS; ++i) e->callers[i] = callers[i];
    e->references = 1;
    e->serial = ++serial_counter;
    ++created_total;
    ++created_by_kind[k];
    pthread_mutex_unlock(&table_lock);
    if (trace) fprintf(stderr, "cl_leakcheck: %s -> %s %p\n", call, kind_name[k], handle);
}

static void record_retain(kind k, const void *handle, const char *call) {
    long references = -1;
    pthread_mutex_lock(&table_lock);
    entry *e = *find(handle);
    if (e)
        references = ++e->references;
    else if (k != KIND_DEVICE) /* root devices are not reference counted */
        ++untracked_calls;
    pthread_mutex_unlock(&table_lock);
    if (trace && (e || k != KIND_DEVICE))
        fprintf(stderr, "cl_leakcheck: %s(%p) -> %ld references\n", call, handle, references);
}

/* A release takes the reference before the real call, so that the handle cannot be freed and
 * handed out again by another thread while it is still in the table. `undo` restores it when
 * the real call fails. */
typedef struct {
    int taken;
    entry copy;
} taken_reference;

static void take_reference(kind k, const void *handle, const char *call, taken_reference *undo) {
    long references = -1;
    undo->taken = 0;
    pthread_mutex_lock(&table_lock);
    entry **link = find(handle);
    entry *e = *link;
    if (e) {
        undo->taken = 1;
        undo->copy = *e;
        references = --e->references;
        if (references == 0) {
            *link = e->next;
            free(e);
            --live_objects;
        }
    } else if (k != KIND_DEVICE) {
        ++untracked_calls;
    }
    pthread_mutex_unlock(&table_lock);
    if (trace && (undo->taken || k != KIND_DEVICE))
        fprintf(stderr, "cl_leakcheck: %s(%p) -> %ld references\n", call, handle, references);
}

static void give_back(const taken_reference *undo) {
    if (!undo->taken) return;
    pthread_mutex_lock(&table_lock);
    entry **link = find(undo->copy.handle);
    if (*link) {
        ++(*link)->references;
    } else if ((*link = malloc(sizeof **link)) != NULL) {
        **link = undo->copy;
        (*link)->next = NULL;
        ++live_objects;
    }
    pthread_mutex_unlock(&table_lock);
}

/* For tests of the checker itself (common/tests/leak_selftest.c finds them with dlsym). */
EXPORT long cl_leakcheck_references(const void *handle) {
    pthread_mutex_lock(&table_lock);
    entry *e = *find(handle);
    long references = e ? e->references : 0;
    pthread_mutex_unlock(&table_lock);
    return references;
}

EXPORT long cl_leakcheck_live_objects(void) {
    pthread_mutex_lock(&table_lock);
    long live = live_objects;
    pthread_mutex_unlock(&table_lock);
    return live;
}

EXPORT unsigned long long cl_leakcheck_created_objects(void) {
    pthread_mutex_lock(&table_lock);
    unsigned long long created = created_total;
    pthread_mutex_unlock(&table_lock);
    return created;
}

/* ---- The report at exit ------------------------------------------------------------------ */

/* The status the program passed to exit() (or returned from main). The report itself runs
 * later, as this library's destructor: after atexit handlers and C++ static destructors (which
 * may still release objects, e.g. CLBlast's program cache), and before libOpenCL unloads. */
static int exit_status;

#ifdef __GLIBC__
static void remember_exit_status(int status, void *unused) {
    (void)unused;
    exit_status = status;
}
#endif

__attribute__((constructor)) static void start(void) {
    const char *t = getenv("OCLT_LEAKCHECK_TRACE");
    trace = t && *t && *t != '0';
    owner = getpid();
#ifdef __GLIBC__
    on_exit(remember_exit_status, NULL);
#endif /* elsewhere the status is unknown and taken as 0 */
}

static int by_serial(const void *a, const void *b) {
    const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
    return (x->serial > y->serial) - (x->serial < y->serial);
}

/* "called from FILE+0xOFFSET +0xOFFSET ...": a frame in the same file as the one before it
 * gives only its offset, so that one addr2line command takes them all. */
static void print_callers(const void *const *callers) {
    const char *previous = NULL;
    for (int i = 0; i < CALLERS && callers[i]; ++i) {
        Dl_info info;
        if (!dladdr(callers[i], &info) || !info.dli_fname) break;
        /* The return address minus one lies in the call instruction: addr2line names its line. */
        unsigned long offset =
            (unsigned long)((uintptr_t)callers[i] - (uintptr_t)info.dli_fbase - 1);
        const char *file = info.dli_fname[0] ? info.dli_fname : "?";
        if (i == 0)
            fprintf(stderr, ", called from %s+0x%lx", file, offset);
        else if (previous && strcmp(previous, file) == 0)
            fprintf(stderr, " +0x%lx", offset);
        else
            fprintf(stderr, " %s+0x%lx", file, offset);
        previous = file;
    }
}

__attribute__((destructor)) static void report(void) {
    /* Silent in processes that made no OpenCL call (e.g. a compiler the driver runs) and in
     * forked children, whose copy of the table is their parent's. */
    if (!__atomic_load_n(&any_call, __ATOMIC_RELAXED) || getpid() != owner) return;
    pthread_mutex_lock(&table_lock);
    fprintf(stderr, "cl_leakcheck: %ld OpenCL object%s not released (%llu created", live_objects,
            live_objects == 1 ? "" : "s", created_total);
    const char *separator = ": ";
    for (int k = 0; k < KIND_COUNT; ++k) {
        if (!created_by_kind[k]) continue;
        fprintf(stderr, "%s%llu %s", separator, created_by_kind[k],
                created_by_kind[k] == 1 ? kind_singular[k] : kind_plural[k]);
        separator = ", ";
    }
    fprintf(stderr, ")\n");

    long shown = 0;
    entry **leaked = live_objects > 0 ? malloc((size_t)live_objects * sizeof *leaked) : NULL;
    if (leaked) {
        for (size_t b = 0; b < BUCKETS; ++b)
            for (entry *e = table[b]; e && shown < live_objects; e = e->next) leaked[shown++] = e;
        qsort(leaked, (size_t)shown, sizeof *leaked, by_serial);
        const long max_lines = 100;
        for (long i = 0; i < shown && i < max_lines; ++i) {
            const entry *e = leaked[i];
            fprintf(stderr, "  %s %p from %s, %ld reference%s held", kind_name[e->kind], e->handle,
                    e->call, e->references, e->references == 1 ? "" : "s");
            print_callers(e->callers);
            fputc('\n', stderr);
        }
        if (shown > max_lines) fprintf(stderr, "  ... and %ld more\n", shown - max_lines);
        fprintf(stderr, "  (innermost caller first; addr2line -f -e <file> <offsets...> names the "
                        "functions, and with -g their lines)\n");
        free(leaked);
    }
    if (untracked_calls)
        fprintf(stderr,
                "cl_leakcheck: note: %llu retain/release calls on handles it never saw created "
                "(objects from extension or interop calls, or a release after the last one)\n",
                untracked_calls);
    long leaks = live_objects;
    pthread_mutex_unlock(&table_lock);
    if (leaks > 0 && exit_status == 0) {
        fprintf(stderr, "cl_leakcheck: exit status 0 -> 3 (OpenCL objects not released)\n");
        _exit(3);
    }
}

/* ---- Interposed calls --------------------------------------------------------------------- */

static void *find_next(const char *name) {
    __atomic_store_n(&any_call, 1, __ATOMIC_RELAXED);
    void *symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        fprintf(stderr, "cl_leakcheck: %s is not in the OpenCL library loaded after it\n", name);
        abort();
    }
    return symbol;
}

/* `next_` is the definition of `name` that the program would have called: libOpenCL's. */
#define NEXT(name)                                                                                 \
    static __typeof__(&name) next_cache_;                                                          \
    __typeof__(&name) next_ = __atomic_load_n(&next_cache_, __ATOMIC_ACQUIRE);                     \
    if (!next_) {                                                                                  \
        next_ = (__typeof__(&name))find_next(#name);                                               \
        __atomic_store_n(&next_cache_, next_, __ATOMIC_RELEASE);                                   \
    }

/* A call that returns a new object. */
#define CREATE(kind, name, ...)                                                                    \
    NEXT(name);                                                                                    \
    __typeof__(next_(__VA_ARGS__)) object_ = next_(__VA_ARGS__);                                   \
    record_created(kind, object_, #name, CALLER);                                                  \
    return object_

/* An enqueue call whose last argument is the optional event it makes. */
#define ENQUEUE(name, event, ...)                                                                  \
    NEXT(name);                                                                                    \
    cl_int err_ = next_(__VA_ARGS__);                                                              \
    if (err_ == CL_SUCCESS && (event)) record_created(KIND_EVENT, *(event), #name, CALLER);        \
    return err_

#define RETAIN(kind, name, handle)                                                                 \
    NEXT(name);                                                                                    \
    cl_int err_ = next_(handle);                                                                   \
    if (err_ == CL_SUCCESS) record_retain(kind, handle, #name);                                    \
    return err_

#define RELEASE(kind, name, handle)                                                                \
    NEXT(name);                                                                                    \
    taken_reference undo_;                                                                         \
    take_reference(kind, handle, #name, &undo_);                                                   \
    cl_int err_ = next_(handle);                                                                   \
    if (err_ != CL_SUCCESS) give_back(&undo_);                                                     \
    return err_

/* clRetain<Object> and clRelease<Object>, for the handles of one kind. */
#define RETAIN_AND_RELEASE(kind, Object, handle_type)                                              \
    EXPORT CL_API_ENTRY cl_int CL_API_CALL clRetain##Object(handle_type handle) {                  \
        RETAIN(kind, clRetain##Object, handle);                                                    \
    }                                                                                              \
    EXPORT CL_API_ENTRY cl_int CL_API_CALL clRelease##Object(handle_type handle) {                 \
        RELEASE(kind, clRelease##Object, handle);                                                  \
    }

/* Devices (only sub-devices are reference counted) */

EXPORT CL_API_ENTRY cl_int CL_API_CALL
clCreateSubDevices(cl_device_id in_device, const cl_device_partition_property *properties,
                   cl_uint num_devices, cl_device_id *out_devices, cl_uint *num_devices_ret) {
    NEXT(clCreateSubDevices);
    cl_uint made = 0;
    cl_int err = next_(in_device, properties, num_devices, out_devices, &made);
    if (num_devices_ret) *num_devices_ret = made;
    if (err == CL_SUCCESS && out_devices)
        for (cl_uint i = 0; i < made && i < num_devices; ++i)
            record_created(KIND_DEVICE, out_devices[i], "clCreateSubDevices", CALLER);
    return err;
}
RETAIN_AND_RELEASE(KIND_DEVICE, Device, cl_device_id)

/* Contexts */

EXPORT CL_API_ENTRY cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices, const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret) {
    CREATE(KIND_CONTEXT, clCreateContext, properties, num_devices, devices, pfn_notify, user_data,
           errcode_ret);
}
EXPORT CL_API_ENTRY cl_context CL_API_CALL
clCreateContextFromType(const cl_context_properties *properties, cl_device_type device_type,
                        void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
                        void *user_data, cl_int *errcode_ret) {
    CREATE(KIND_CONTEXT, clCreateContextFromType, properties, device_type, pfn_notify, user_data,
           errcode_ret);
}
RETAIN_AND_RELEASE(KIND_CONTEXT, Context, cl_context)

/* Command queues */

EXPORT CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                   const cl_queue_properties *properties, cl_int *errcode_ret) {
    CREATE(KIND_QUEUE, clCreateCommandQueueWithProperties, context, device, properties,
           errcode_ret);
}
EXPORT CL_API_ENTRY cl_command_queue CL_API_CALL
clCreateCommandQueue(cl_context context, cl_device_id device,
                     cl_command_queue_properties properties, cl_int *errcode_ret) {
    CREATE(KIND_QUEUE, clCreateCommandQueue, context, device, properties, errcode_ret);
}
RETAIN_AND_RELEASE(KIND_QUEUE, CommandQueue, cl_command_queue)

/* Memory objects: buffers, sub-buffers, images, pipes */

EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                                      size_t size, void *host_ptr,
                                                      cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateBuffer, context, flags, size, host_ptr, errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL
clCreateBufferWithProperties(cl_context context, const cl_mem_properties *properties,
                             cl_mem_flags flags, size_t size, void *host_ptr, cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateBufferWithProperties, context, properties, flags, size, host_ptr,
           errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                         cl_buffer_create_type type,
                                                         const void *info, cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateSubBuffer, buffer, flags, type, info, errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                                     const cl_image_format *format,
                                                     const cl_image_desc *desc, void *host_ptr,
                                                     cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateImage, context, flags, format, desc, host_ptr, errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(
    cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
    const cl_image_format *format, const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateImageWithProperties, context, properties, flags, format, desc,
           host_ptr, errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                                       const cl_image_format *format, size_t width,
                                                       size_t height, size_t row_pitch,
                                                       void *host_ptr, cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateImage2D, context, flags, format, width, height, row_pitch, host_ptr,
           errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                                       const cl_image_format *format, size_t width,
                                                       size_t height, size_t depth,
                                                       size_t row_pitch, size_t slice_pitch,
                                                       void *host_ptr, cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreateImage3D, context, flags, format, width, height, depth, row_pitch,
           slice_pitch, host_ptr, errcode_ret);
}
EXPORT CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                                    cl_uint packet_size, cl_uint max_packets,
                                                    const cl_pipe_properties *properties,
                                                    cl_int *errcode_ret) {
    CREATE(KIND_MEM, clCreatePipe, context, flags, packet_size, max_packets, properties,
           errcode_ret);
}
RETAIN_AND_RELEASE(KIND_MEM, MemObject, cl_mem)

/* Shared virtual memory: clSVMAlloc is given back by clSVMFree or clEnqueueSVMFree */

EXPORT CL_API_ENTRY void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags,
                                                 size_t size, cl_uint alignment) {
    CREATE(KIND_SVM, clSVMAlloc, context, flags, size, alignment);
}
EXPORT CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
    NEXT(clSVMFree);
    if (svm_pointer) {
        taken_reference undo;
        take_reference(KIND_SVM, svm_pointer, "clSVMFree", &undo);
    }
    next_(context, svm_pointer);
}

/* Samplers */

EXPORT CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context context, const cl_sampler_properties *properties, cl_int *errcode_ret) {
    CREATE(KIND_SAMPLER, clCreateSamplerWithProperties, context, properties, errcode_ret);
}
EXPORT CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context,
                                                           cl_bool normalized_coords,
                                                           cl_addressing_mode addressing_mode,
                                                           cl_filter_mode filter_mode,
                                                           cl_int *errcode_ret) {
    CREATE(KIND_SAMPLER, clCreateSampler, context, normalized_coords, addressing_mode, filter_mode,
           errcode_ret);
}
RETAIN_AND_RELEASE(KIND_SAMPLER, Sampler, cl_sampler)

/* Programs */

EXPORT CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context,
                                                                     cl_uint count,
                                                                     const char **strings,
                                                                     const size_t *lengths,
                                                                     cl_int *errcode_ret) {
    CREATE(KIND_PROGRAM, clCreateProgramWithSource, context, count, strings, lengths, errcode_ret);
}
EXPORT CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list, const size_t *lengths,
    const unsigned char **binaries, cl_int *binary_status, cl_int *errcode_ret) {
    CREATE(KIND_PROGRAM, clCreateProgramWithBinary, context, num_devices, device_list, lengths,
           binaries, binary_status, errcode_ret);
}
EXPORT CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const char *kernel_names, cl_int *errcode_ret) {
    CREATE(KIND_PROGRAM, clCreateProgramWithBuiltInKernels, context, num_devices, device_list,
           kernel_names, errcode_ret);
}
EXPORT CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il,
                                                                 size_t length,
                                                                 cl_int *errcode_ret) {
    CREATE(KIND_PROGRAM, clCreateProgramWithIL, context, il, length, errcode_ret);
}
/* A failed link may still return a program (to read its log): it must be released too. */
EXPORT CL_API_ENTRY cl_program CL_API_CALL clLinkProgram(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list, const char *options,
    cl_uint num_input_programs, const cl_program *input_programs,
    void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data, cl_int *errcode_ret) {
    CREATE(KIND_PROGRAM, clLinkProgram, context, num_devices, device_list, options,
           num_input_programs, input_programs, pfn_notify, user_data, errcode_ret);
}
RETAIN_AND_RELEASE(KIND_PROGRAM, Program, cl_program)

/* Kernels */

EXPORT CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program,
                                                         const char *kernel_name,
                                                         cl_int *errcode_ret) {
    CREATE(KIND_KERNEL, clCreateKernel, program, kernel_name, errcode_ret);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program,
                                                                cl_uint num_kernels,
                                                                cl_kernel *kernels,
                                                                cl_uint *num_kernels_ret) {
    NEXT(clCreateKernelsInProgram);
    cl_uint made = 0;
    cl_int err = next_(program, num_kernels, kernels, &made);
    if (num_kernels_ret) *num_kernels_ret = made;
    if (err == CL_SUCCESS && kernels)
        for (cl_uint i = 0; i < made && i < num_kernels; ++i)
            record_created(KIND_KERNEL, kernels[i], "clCreateKernelsInProgram", CALLER);
    return err;
}
EXPORT CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel,
                                                        cl_int *errcode_ret) {
    CREATE(KIND_KERNEL, clCloneKernel, source_kernel, errcode_ret);
}
RETAIN_AND_RELEASE(KIND_KERNEL, Kernel, cl_kernel)

/* Events: user events, and the `event` out-parameter of every enqueue call */

EXPORT CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context context,
                                                           cl_int *errcode_ret) {
    CREATE(KIND_EVENT, clCreateUserEvent, context, errcode_ret);
}
RETAIN_AND_RELEASE(KIND_EVENT, Event, cl_event)

EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                           cl_bool blocking, size_t offset,
                                                           size_t size, void *ptr, cl_uint n,
                                                           const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueReadBuffer, event, queue, buffer, blocking, offset, size, ptr, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, void *ptr, cl_uint n,
    const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueReadBufferRect, event, queue, buffer, blocking, buffer_origin, host_origin,
            region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n,
            wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                            cl_bool blocking, size_t offset,
                                                            size_t size, const void *ptr, cl_uint n,
                                                            const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueWriteBuffer, event, queue, buffer, blocking, offset, size, ptr, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueWriteBufferRect, event, queue, buffer, blocking, buffer_origin, host_origin,
            region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, n,
            wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                           const void *pattern, size_t pattern_size,
                                                           size_t offset, size_t size, cl_uint n,
                                                           const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueFillBuffer, event, queue, buffer, pattern, pattern_size, offset, size, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src,
                                                           cl_mem dst, size_t src_offset,
                                                           size_t dst_offset, size_t size,
                                                           cl_uint n, const cl_event *wait,
                                                           cl_event *event) {
    ENQUEUE(clEnqueueCopyBuffer, event, queue, src, dst, src_offset, dst_offset, size, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *src_origin,
                        const size_t *dst_origin, const size_t *region, size_t src_row_pitch,
                        size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
                        cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueCopyBufferRect, event, queue, src, dst, src_origin, dst_origin, region,
            src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue queue, cl_mem image,
                                                          cl_bool blocking, const size_t *origin,
                                                          const size_t *region, size_t row_pitch,
                                                          size_t slice_pitch, void *ptr, cl_uint n,
                                                          const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueReadImage, event, queue, image, blocking, origin, region, row_pitch,
            slice_pitch, ptr, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue queue, cl_mem image,
                                                           cl_bool blocking, const size_t *origin,
                                                           const size_t *region, size_t row_pitch,
                                                           size_t slice_pitch, const void *ptr,
                                                           cl_uint n, const cl_event *wait,
                                                           cl_event *event) {
    ENQUEUE(clEnqueueWriteImage, event, queue, image, blocking, origin, region, row_pitch,
            slice_pitch, ptr, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue queue, cl_mem image,
                                                          const void *fill_color,
                                                          const size_t *origin,
                                                          const size_t *region, cl_uint n,
                                                          const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueFillImage, event, queue, image, fill_color, origin, region, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue queue, cl_mem src,
                                                          cl_mem dst, const size_t *src_origin,
                                                          const size_t *dst_origin,
                                                          const size_t *region, cl_uint n,
                                                          const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueCopyImage, event, queue, src, dst, src_origin, dst_origin, region, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *src_origin, const size_t *region,
    size_t dst_offset, cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueCopyImageToBuffer, event, queue, src, dst, src_origin, region, dst_offset, n,
            wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(
    cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset, const size_t *dst_origin,
    const size_t *region, cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueCopyBufferToImage, event, queue, src, dst, src_offset, dst_origin, region, n,
            wait, event);
}
EXPORT CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                         cl_bool blocking, cl_map_flags flags,
                                                         size_t offset, size_t size, cl_uint n,
                                                         const cl_event *wait, cl_event *event,
                                                         cl_int *errcode_ret) {
    NEXT(clEnqueueMapBuffer);
    cl_int err = CL_SUCCESS;
    void *mapped = next_(queue, buffer, blocking, flags, offset, size, n, wait, event, &err);
    if (errcode_ret) *errcode_ret = err;
    if (err == CL_SUCCESS && event)
        record_created(KIND_EVENT, *event, "clEnqueueMapBuffer", CALLER);
    return mapped;
}
EXPORT CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(cl_command_queue queue, cl_mem image,
                                                        cl_bool blocking, cl_map_flags flags,
                                                        const size_t *origin, const size_t *region,
                                                        size_t *row_pitch, size_t *slice_pitch,
                                                        cl_uint n, const cl_event *wait,
                                                        cl_event *event, cl_int *errcode_ret) {
    NEXT(clEnqueueMapImage);
    cl_int err = CL_SUCCESS;
    void *mapped = next_(queue, image, blocking, flags, origin, region, row_pitch, slice_pitch, n,
                         wait, event, &err);
    if (errcode_ret) *errcode_ret = err;
    if (err == CL_SUCCESS && event) record_created(KIND_EVENT, *event, "clEnqueueMapImage", CALLER);
    return mapped;
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue,
                                                               cl_mem memobj, void *mapped_ptr,
                                                               cl_uint n, const cl_event *wait,
                                                               cl_event *event) {
    ENQUEUE(clEnqueueUnmapMemObject, event, queue, memobj, mapped_ptr, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueMigrateMemObjects(
    cl_command_queue queue, cl_uint num_mem_objects, const cl_mem *mem_objects,
    cl_mem_migration_flags flags, cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueMigrateMemObjects, event, queue, num_mem_objects, mem_objects, flags, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                       const size_t *global_offset, const size_t *global_size,
                       const size_t *local_size, cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueNDRangeKernel, event, queue, kernel, work_dim, global_offset, global_size,
            local_size, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel kernel,
                                                     cl_uint n, const cl_event *wait,
                                                     cl_event *event) {
    ENQUEUE(clEnqueueTask, event, queue, kernel, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNativeKernel(cl_command_queue queue, void(CL_CALLBACK *user_func)(void *), void *args,
                      size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list,
                      const void **args_mem_loc, cl_uint n, const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueNativeKernel, event, queue, user_func, args, cb_args, num_mem_objects,
            mem_list, args_mem_loc, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue,
                                                                   cl_uint n, const cl_event *wait,
                                                                   cl_event *event) {
    ENQUEUE(clEnqueueMarkerWithWaitList, event, queue, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue queue,
                                                                    cl_uint n, const cl_event *wait,
                                                                    cl_event *event) {
    ENQUEUE(clEnqueueBarrierWithWaitList, event, queue, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarker(cl_command_queue queue, cl_event *event) {
    ENQUEUE(clEnqueueMarker, event, queue, event);
}
/* Without a callback the runtime frees the pointers; with one, the callback does (and its
 * clSVMFree calls are seen). */
EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueSVMFree(cl_command_queue queue, cl_uint num_svm_pointers, void *svm_pointers[],
                 void(CL_CALLBACK *pfn_free_func)(cl_command_queue, cl_uint, void *[], void *),
                 void *user_data, cl_uint n, const cl_event *wait, cl_event *event) {
    NEXT(clEnqueueSVMFree);
    cl_int err =
        next_(queue, num_svm_pointers, svm_pointers, pfn_free_func, user_data, n, wait, event);
    if (err != CL_SUCCESS) return err;
    if (!pfn_free_func)
        for (cl_uint i = 0; i < num_svm_pointers; ++i) {
            taken_reference undo;
            if (svm_pointers[i])
                take_reference(KIND_SVM, svm_pointers[i], "clEnqueueSVMFree", &undo);
        }
    if (event) record_created(KIND_EVENT, *event, "clEnqueueSVMFree", CALLER);
    return err;
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking,
                                                          void *dst, const void *src, size_t size,
                                                          cl_uint n, const cl_event *wait,
                                                          cl_event *event) {
    ENQUEUE(clEnqueueSVMMemcpy, event, queue, blocking, dst, src, size, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue queue, void *svm_ptr,
                                                           const void *pattern, size_t pattern_size,
                                                           size_t size, cl_uint n,
                                                           const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueSVMMemFill, event, queue, svm_ptr, pattern, pattern_size, size, n, wait,
            event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue queue, cl_bool blocking,
                                                       cl_map_flags flags, void *svm_ptr,
                                                       size_t size, cl_uint n, const cl_event *wait,
                                                       cl_event *event) {
    ENQUEUE(clEnqueueSVMMap, event, queue, blocking, flags, svm_ptr, size, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue queue, void *svm_ptr,
                                                         cl_uint n, const cl_event *wait,
                                                         cl_event *event) {
    ENQUEUE(clEnqueueSVMUnmap, event, queue, svm_ptr, n, wait, event);
}
EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueSVMMigrateMem(cl_command_queue queue, cl_uint num_svm_pointers, const void **svm_pointers,
                       const size_t *sizes, cl_mem_migration_flags flags, cl_uint n,
                       const cl_event *wait, cl_event *event) {
    ENQUEUE(clEnqueueSVMMigrateMem, event, queue, num_svm_pointers, svm_pointers, sizes, flags, n,
            wait, event);
}
