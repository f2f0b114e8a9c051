/* leak_selftest: the test of cl_leakcheck itself; run it with the checker preloaded
 * (common/tests/leakcheck.sh does).
 *
 *   leak_selftest clean   makes and releases every kind of object the checker tracks. After
 *                         each step it asks the checker for its counts: they must be the
 *                         program's own references (the driver's internal retains, such as a
 *                         kernel's hold on its program, must not show), and at the end the
 *                         checker must have seen exactly the objects this program made.
 *   leak_selftest leak    leaves four objects behind: a buffer, a kernel, a marker event and a
 *                         program retained once too often. The checker must list them and turn
 *                         the exit status 0 into 3.
 *
 * Exit status: 0 (the checker's exit status 3 when it finds leaks), 1 when the checker's
 * counts are wrong, 77 without an OpenCL device.
 */
/* It calls the deprecated 1.1 entry points too (clEnqueueMarker, clCreateImage2D). */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long (*references)(const void *handle);
static long (*live_objects)(void);
static unsigned long long (*created_objects)(void);

static unsigned long long made; /* objects this program created */
static long held;               /* objects this program has not released yet */
static int failures;

/* Records an object the program just made (NULL: the call failed, nothing to count). */
#define MADE(object) ((object) ? (++made, ++held, 1) : 0)

static void expect(int ok, const char *what, long got, long want, int line) {
    if (ok) return;
    printf("FAIL (line %d): %s: checker says %ld, expected %ld\n", line, what, got, want);
    ++failures;
}
#define EXPECT_REFS(handle, n)                                                                     \
    expect(references(handle) == (n), "references of " #handle, references(handle), (n), __LINE__)
#define EXPECT_LIVE() expect(live_objects() == held, "live objects", live_objects(), held, __LINE__)

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS) {                                                                  \
            printf("FAIL: %s returned %d (line %d)\n", #call, (int)err_, __LINE__);                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define RELEASE(call)                                                                              \
    do {                                                                                           \
        CHECK(call);                                                                               \
        --held;                                                                                    \
    } while (0)

static const char *source =
    "__kernel void fill(__global int *p, int v) { p[get_global_id(0)] = v; }\n";

static int version_of(const char *text) {
    int major = 0, minor = 0;
    if (sscanf(text, "OpenCL %d.%d", &major, &minor) != 2) return 0;
    return major * 100 + minor * 10;
}

static void device_string(cl_device_id device, cl_device_info param, char *out, size_t size) {
    out[0] = '\0';
    clGetDeviceInfo(device, param, size, out, NULL);
    out[size - 1] = '\0';
}

static cl_program build(cl_context context, cl_device_id device) {
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    MADE(program);
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    return program;
}

/* Every object kind and every enqueue call that can return an event, made and released. */
static void clean_run(cl_platform_id platform, cl_device_id device) {
    char text[256];
    device_string(device, CL_DEVICE_VERSION, text, sizeof text);
    const int version = version_of(text);
    cl_int err = CL_SUCCESS;
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};

    /* Contexts and queues: the queue's hold on the context is the driver's, not counted. */
    cl_context context = clCreateContext(properties, 1, &device, NULL, NULL, &err);
    CHECK(err);
    MADE(context);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    MADE(queue);
    EXPECT_REFS(context, 1);
    if (version >= 200) {
        cl_command_queue queue2 = clCreateCommandQueueWithProperties(context, device, NULL, &err);
        CHECK(err);
        MADE(queue2);
        CHECK(clRetainCommandQueue(queue2));
        EXPECT_REFS(queue2, 2);
        CHECK(clReleaseCommandQueue(queue2));
        RELEASE(clReleaseCommandQueue(queue2));
    }
    cl_context context2 = clCreateContextFromType(properties, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
    CHECK(err);
    MADE(context2);
    EXPECT_LIVE();
    RELEASE(clReleaseContext(context2));
    CHECK(clRetainContext(context));
    EXPECT_REFS(context, 2);
    CHECK(clReleaseContext(context));
    EXPECT_REFS(context, 1);
    /* Root devices are not reference counted: retaining one changes nothing. */
    CHECK(clRetainDevice(device));
    CHECK(clReleaseDevice(device));
    EXPECT_LIVE();

    /* Buffers: a sub-buffer holds its parent inside the driver, not in the counts. */
    const size_t bytes = 4096;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    MADE(buffer);
    cl_mem buffer2 = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    MADE(buffer2);
    cl_buffer_region region = {0, 256};
    cl_mem sub =
        clCreateSubBuffer(buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK(err);
    MADE(sub);
    EXPECT_REFS(buffer, 1);
    EXPECT_REFS(sub, 1);
    if (version >= 300) {
        cl_mem with_properties =
            clCreateBufferWithProperties(context, NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
        CHECK(err);
        MADE(with_properties);
        RELEASE(clReleaseMemObject(with_properties));
    }
    EXPECT_LIVE();

    /* Programs and kernels: a kernel's hold on its program is the driver's. */
    cl_program program = build(context, device);
    cl_kernel kernel = clCreateKernel(program, "fill", &err);
    CHECK(err);
    MADE(kernel);
    EXPECT_REFS(program, 1);
    cl_kernel all[4] = {NULL, NULL, NULL, NULL};
    cl_uint count = 0;
    CHECK(clCreateKernelsInProgram(program, 4, all, &count));
    for (cl_uint i = 0; i < count; ++i) MADE(all[i]);
    for (cl_uint i = 0; i < count; ++i) RELEASE(clReleaseKernel(all[i]));
    if (version >= 210) {
        cl_kernel clone = clCloneKernel(kernel, &err);
        if (MADE(clone)) RELEASE(clReleaseKernel(clone));
    }
    CHECK(clRetainProgram(program));
    EXPECT_REFS(program, 2);
    CHECK(clReleaseProgram(program));
    EXPECT_REFS(program, 1);

    size_t binary_size = 0;
    CHECK(
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size, NULL));
    unsigned char *binary = malloc(binary_size ? binary_size : 1);
    if (!binary) exit(1);
    CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
    const unsigned char *binaries[1] = {binary};
    cl_program from_binary =
        clCreateProgramWithBinary(context, 1, &device, &binary_size, binaries, NULL, &err);
    CHECK(err);
    MADE(from_binary);
    free(binary);
    RELEASE(clReleaseProgram(from_binary));

    cl_program compiled = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    MADE(compiled);
    if (clCompileProgram(compiled, 1, &device, "", 0, NULL, NULL, NULL, NULL) == CL_SUCCESS) {
        cl_program linked = clLinkProgram(context, 1, &device, "", 1, &compiled, NULL, NULL, &err);
        if (MADE(linked)) RELEASE(clReleaseProgram(linked)); /* even a failed link's program */
    }
    RELEASE(clReleaseProgram(compiled));
    EXPECT_LIVE();

    /* Events from every kind of enqueue call. */
    cl_int value = 7, host[64] = {0};
    CHECK(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    CHECK(clSetKernelArg(kernel, 1, sizeof value, &value));
    cl_event events[32];
    int n = 0;
    size_t global = 64, origin[3] = {0, 0, 0}, rect[3] = {16, 2, 1};
    CHECK(
        clEnqueueFillBuffer(queue, buffer, &value, sizeof value, 0, bytes, 0, NULL, &events[n++]));
    CHECK(clEnqueueWriteBuffer(queue, buffer2, CL_FALSE, 0, sizeof host, host, 0, NULL,
                               &events[n++]));
    CHECK(clEnqueueCopyBuffer(queue, buffer, buffer2, 0, 0, 256, 0, NULL, &events[n++]));
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, &events[n++]));
    CHECK(clEnqueueTask(queue, kernel, 0, NULL, &events[n++]));
    CHECK(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, &events[n++]));
    CHECK(clEnqueueReadBufferRect(queue, buffer, CL_TRUE, origin, origin, rect, 64, 0, 64, 0, host,
                                  0, NULL, &events[n++]));
    CHECK(clEnqueueWriteBufferRect(queue, buffer2, CL_TRUE, origin, origin, rect, 64, 0, 64, 0,
                                   host, 0, NULL, &events[n++]));
    CHECK(clEnqueueCopyBufferRect(queue, buffer, buffer2, origin, origin, rect, 64, 0, 64, 0, 0,
                                  NULL, &events[n++]));
    void *mapped =
        clEnqueueMapBuffer(queue, buffer, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, &events[n++], &err);
    CHECK(err);
    CHECK(clEnqueueUnmapMemObject(queue, buffer, mapped, 0, NULL, &events[n++]));
    CHECK(clEnqueueMigrateMemObjects(queue, 1, &buffer, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                     NULL, &events[n++]));
    CHECK(clEnqueueMarkerWithWaitList(queue, 0, NULL, &events[n++]));
    CHECK(clEnqueueBarrierWithWaitList(queue, 0, NULL, &events[n++]));
    CHECK(clEnqueueMarker(queue, &events[n++]));
    for (int i = 0; i < n; ++i) MADE(events[i]);
    CHECK(clEnqueueMarkerWithWaitList(queue, 0, NULL, NULL)); /* no event asked: none counted */
    EXPECT_LIVE();
    CHECK(clRetainEvent(events[0]));
    EXPECT_REFS(events[0], 2);
    CHECK(clReleaseEvent(events[0]));
    CHECK(clWaitForEvents((cl_uint)n, events));
    for (int i = 0; i < n; ++i) RELEASE(clReleaseEvent(events[i]));

    cl_event user = clCreateUserEvent(context, &err);
    CHECK(err);
    MADE(user);
    CHECK(clSetUserEventStatus(user, CL_COMPLETE));
    RELEASE(clReleaseEvent(user));
    EXPECT_LIVE();

    /* Images and samplers, where the device has them. */
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    if (images) {
        cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 4;
        desc.image_height = 4;
        cl_mem image = clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
        CHECK(err);
        MADE(image);
        cl_mem image2 = clCreateImage2D(context, CL_MEM_READ_WRITE, &format, 4, 4, 0, NULL, &err);
        CHECK(err);
        MADE(image2);
        size_t whole[3] = {4, 4, 1}, row_pitch = 0;
        cl_uint color[4] = {1, 2, 3, 4};
        unsigned char pixels[64] = {0};
        n = 0;
        CHECK(clEnqueueFillImage(queue, image, color, origin, whole, 0, NULL, &events[n++]));
        CHECK(clEnqueueWriteImage(queue, image2, CL_TRUE, origin, whole, 0, 0, pixels, 0, NULL,
                                  &events[n++]));
        CHECK(
            clEnqueueCopyImage(queue, image, image2, origin, origin, whole, 0, NULL, &events[n++]));
        CHECK(clEnqueueReadImage(queue, image, CL_TRUE, origin, whole, 0, 0, pixels, 0, NULL,
                                 &events[n++]));
        CHECK(clEnqueueCopyImageToBuffer(queue, image, buffer, origin, whole, 0, 0, NULL,
                                         &events[n++]));
        CHECK(clEnqueueCopyBufferToImage(queue, buffer, image, 0, origin, whole, 0, NULL,
                                         &events[n++]));
        void *pixels_mapped = clEnqueueMapImage(queue, image, CL_TRUE, CL_MAP_READ, origin, whole,
                                                &row_pitch, NULL, 0, NULL, &events[n++], &err);
        CHECK(err);
        CHECK(clEnqueueUnmapMemObject(queue, image, pixels_mapped, 0, NULL, &events[n++]));
        for (int i = 0; i < n; ++i) MADE(events[i]);
        CHECK(clWaitForEvents((cl_uint)n, events));
        for (int i = 0; i < n; ++i) RELEASE(clReleaseEvent(events[i]));
        cl_sampler sampler =
            clCreateSampler(context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        CHECK(err);
        MADE(sampler);
        CHECK(clRetainSampler(sampler));
        EXPECT_REFS(sampler, 2);
        CHECK(clReleaseSampler(sampler));
        RELEASE(clReleaseSampler(sampler));
        if (version >= 200) {
            cl_sampler_properties sampler_properties[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                                          0};
            cl_sampler sampler2 = clCreateSamplerWithProperties(context, sampler_properties, &err);
            CHECK(err);
            MADE(sampler2);
            RELEASE(clReleaseSampler(sampler2));
        }
        RELEASE(clReleaseMemObject(image2));
        RELEASE(clReleaseMemObject(image));
        EXPECT_LIVE();
    }

    /* Sub-devices, where the device can be split. */
    cl_uint max_sub_devices = 0;
    clGetDeviceInfo(device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max_sub_devices,
                    &max_sub_devices, NULL);
    if (max_sub_devices >= 2) {
        cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
        cl_device_id subs[2];
        cl_uint got = 0;
        if (clCreateSubDevices(device, equally, 2, subs, &got) == CL_SUCCESS) {
            if (got > 2) got = 2;
            for (cl_uint i = 0; i < got; ++i) MADE(subs[i]);
            CHECK(clRetainDevice(subs[0]));
            EXPECT_REFS(subs[0], 2);
            CHECK(clReleaseDevice(subs[0]));
            EXPECT_LIVE();
            for (cl_uint i = 0; i < got; ++i) RELEASE(clReleaseDevice(subs[i]));
        }
    }

    /* Shared virtual memory, where the device has it. */
    cl_device_svm_capabilities svm = 0;
    if (version >= 200 &&
        clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) == CL_SUCCESS &&
        (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        void *p = clSVMAlloc(context, CL_MEM_READ_WRITE, 256, 0);
        if (MADE(p)) {
            EXPECT_LIVE();
            clSVMFree(context, p);
            --held;
        }
        void *q[1] = {clSVMAlloc(context, CL_MEM_READ_WRITE, 256, 0)};
        if (MADE(q[0])) {
            cl_event freed = NULL;
            CHECK(clEnqueueSVMFree(queue, 1, q, NULL, NULL, 0, NULL, &freed));
            --held;
            MADE(freed);
            EXPECT_LIVE();
            CHECK(clWaitForEvents(1, &freed));
            RELEASE(clReleaseEvent(freed));
        }
    }

    CHECK(clFinish(queue));
    RELEASE(clReleaseKernel(kernel));
    RELEASE(clReleaseProgram(program));
    RELEASE(clReleaseMemObject(sub));
    RELEASE(clReleaseMemObject(buffer2));
    RELEASE(clReleaseMemObject(buffer));
    RELEASE(clReleaseCommandQueue(queue));
    RELEASE(clReleaseContext(context));
    EXPECT_LIVE();
    expect(created_objects() == made, "objects created", (long)created_objects(), (long)made,
           __LINE__);
    printf("leak_selftest: made and released %llu objects; the checker counted %llu\n", made,
           created_objects());
}

/* Four objects left behind on purpose. */
static void leaky_run(cl_platform_id platform, cl_device_id device) {
    cl_int err = CL_SUCCESS;
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context context = clCreateContext(properties, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &err); /* leaked */
    CHECK(err);
    cl_program program = build(context, device);
    cl_kernel kernel = clCreateKernel(program, "fill", &err); /* leaked */
    CHECK(err);
    CHECK(clRetainProgram(program)); /* one retain too many: the program leaks */
    CHECK(clReleaseProgram(program));
    cl_event marker = NULL; /* leaked */
    CHECK(clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker));
    CHECK(clFinish(queue));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
    (void)buffer;
    (void)kernel;
    printf("leak_selftest: left a buffer, a kernel, a marker event and a program behind\n");
}

int main(int argc, char **argv) {
    int leak = argc == 2 && strcmp(argv[1], "leak") == 0;
    if (argc != 2 || (!leak && strcmp(argv[1], "clean") != 0)) {
        fprintf(stderr, "usage: leak_selftest clean|leak\n");
        return 2;
    }
    references = (long (*)(const void *))dlsym(RTLD_DEFAULT, "cl_leakcheck_references");
    live_objects = (long (*)(void))dlsym(RTLD_DEFAULT, "cl_leakcheck_live_objects");
    created_objects =
        (unsigned long long (*)(void))dlsym(RTLD_DEFAULT, "cl_leakcheck_created_objects");
    if (!references || !live_objects || !created_objects) {
        printf("FAIL: cl_leakcheck is not preloaded (run through common/tests/leakcheck.sh)\n");
        return 1;
    }
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_uint platforms = 0;
    if (clGetPlatformIDs(1, &platform, &platforms) != CL_SUCCESS || platforms == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    if (leak)
        leaky_run(platform, device);
    else
        clean_run(platform, device);
    if (failures) printf("FAIL: %d wrong counts\n", failures);
    return failures ? 1 : 0;
}
