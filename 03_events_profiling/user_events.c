/* Chapter 03: events the host controls and events that call the host.
 *   user_events       a user event holds a chain back until the host sets it;
 *   user_event_error  a user event set to an error cancels everything waiting on it;
 *   callbacks         clSetEventCallback, and event reference counts.
 */
#include "lesson.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const chain_names[3] = {"write x", "affine_map", "read y"};

/* A user event starts CL_SUBMITTED (clCreateUserEvent); returns 1 (and says so) otherwise. */
static int check_new_user_event(cl_event gate) {
    cl_int initial = execution_status(gate);
    printf("    clCreateUserEvent: the new user event is %s\n",
           oclt_execution_status_name(initial));
    if (initial == CL_SUBMITTED) return 0;
    fprintf(stderr, "  a new user event must be CL_SUBMITTED, this one is %s\n",
            oclt_execution_status_name(initial));
    return 1;
}

/* ---- user_events: the host decides when a chain may start --------------------------------
 * A user event is an event the host completes itself, with clSetUserEventStatus. Put in a wait
 * list it holds the command (and everything after it) back: a way to enqueue work early and
 * release it when some host-side condition is met (a file read, a network message). */
void scenario_user_events(lesson *L) {
    if (skip_if_flush_finishes(L, "user_events")) return;
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    oclt_status status = OCLT_FAIL;
    double ms = -1.0;
    size_t failures = 0;
    int gate_set = 0;
    int32_t *peek = malloc(bytes), *poison = malloc(bytes);
    chain_setup c = {0};
    cl_command_queue peeker = NULL;
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    cl_context context = L->dev->context;
    if (!peek || !poison) fprintf(stderr, "  out of host memory\n");
    if (!peek || !poison ||
        chain_open(L, &c, context, L->program, "affine_map", n, L->trace_device,
                   "user events: chain") ||
        !(peeker = lesson_queue(L, context, L->dev->device, 0, -1, "user events: peek", NULL)))
        goto release;
    oclt_poison_host(poison, bytes);
    gate = clCreateUserEvent(context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release;
    failures += check_new_user_event(gate);

    if (chain_start(L, &c, gate, &ev) || OCLT_CHECK(clFlush(c.queue))) goto release;
    /* The host goes on with other work; the chain must not move meanwhile. */
    oclt_os_sleep_ms(20);
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    printf("    chain enqueued and flushed behind the user event; 20 ms later:\n");
    failures += print_states("states:", chain, chain_names, 3);
    /* Proof that the kernel has not run: y, read through a second queue that does not wait
     * for the gate, still holds the poison. */
    if (OCLT_CHECK(clEnqueueReadBuffer(peeker, c.y_buf, CL_TRUE, 0, bytes, peek, 0, NULL, NULL)))
        goto release;
    if (memcmp(peek, poison, bytes) != 0) {
        fprintf(stderr, "  y changed while the chain was held back by the user event\n");
        ++failures;
    } else {
        printf("      y on the device still holds the poison: nothing has run\n");
    }
    double released = oclt_now_ms();
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) goto release;
    gate_set = 1;
    /* A user event's status is set once: the specification says a second call returns
     * CL_INVALID_OPERATION. Shown, not checked: NVIDIA's driver 580 returns CL_SUCCESS (see
     * docs/appendix_driver_quirks.md); both calls here ask for CL_COMPLETE. */
    err = clSetUserEventStatus(gate, CL_COMPLETE);
    printf("    clSetUserEventStatus a second time: %s%s\n", oclt_error_name(err),
           err == CL_INVALID_OPERATION
               ? ", as the specification requires"
               : " (NOTE: the specification requires CL_INVALID_OPERATION; this driver differs)");
    if (OCLT_CHECK(clWaitForEvents(1, &ev.read))) goto release;
    ms = oclt_now_ms() - released;
    printf("    clSetUserEventStatus(CL_COMPLETE): the chain ran and was read back %.3f ms "
           "later\n",
           ms);
    failures += check_affine(L, "y", c.x, c.y, n, AFFINE_A, AFFINE_B);
    if (trace_chain(L, &ev, c.track, " (after the user event)")) goto release;
    status = verdict(L, failures);
release:
    if (gate && !gate_set) clSetUserEventStatus(gate, HOST_CANCELLED);
    release_chain(&ev);
    if (gate) clReleaseEvent(gate);
    finish_and_release(peeker);
    chain_close(&c);
    free(peek);
    free(poison);
    oclt_report_result(L->report, "user_events", L->size_text, ms, -1.0, NULL, status,
                       "host ms from clSetUserEventStatus to the data read back");
}

/* ---- user_event_error: cancelling a chain ------------------------------------------------
 * clSetUserEventStatus with a negative value marks the user event as failed. The specification
 * terminates the commands that wait on it directly: they end with a negative status (typically
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST). Commands further down the chain may be
 * terminated too or may run: PoCL and NVIDIA's driver 580 terminate the whole chain, and the
 * scenario reports a later command that runs as a NOTE, not a failure. The specification allows a
 * context whose commands were terminated to become unusable, so this scenario gets a context
 * of its own. */

/* Any negative status is an error; which value is the runtime's choice (PoCL gives -1, which as
 * an error code would read CL_DEVICE_NOT_FOUND and means nothing of the kind here). */
static void print_cancelled_state(const char *what, cl_int status) {
    if (status >= 0)
        printf("      %-10s %s\n", what, oclt_execution_status_name(status));
    else if (status == HOST_CANCELLED)
        printf("      %-10s failed, status %d (the host's own code)\n", what, (int)status);
    else if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        printf("      %-10s failed, status %d (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)\n",
               what, (int)status);
    else
        printf("      %-10s failed, status %d (the runtime's own error value)\n", what,
               (int)status);
}

void scenario_user_event_error(lesson *L) {
    if (skip_if_flush_finishes(L, "user_event_error")) return;
    const size_t n = L->n, bytes = n * sizeof(int32_t);
    oclt_status status = OCLT_FAIL;
    size_t failures = 0;
    int gate_set = 0;
    int32_t *poison = malloc(bytes);
    cl_context context = NULL;
    cl_program program = NULL;
    chain_setup c = {0};
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (!poison) {
        fprintf(stderr, "  out of host memory\n");
        goto release;
    }
    oclt_poison_host(poison, bytes);
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                          (cl_context_properties)L->dev->platform, 0};
    context = clCreateContext(properties, 1, &L->dev->device, NULL, NULL, &err);
    if (OCLT_CHECK_ERR(err, "clCreateContext (user_event_error)")) goto release;
    /* Failed commands have no timestamps: this queue stays out of the trace. */
    if (!(program = lesson_build(L, context, 1, &L->dev->device, NULL)) ||
        chain_open(L, &c, context, program, "affine_map", n, -1, "user event error"))
        goto release;
    gate = clCreateUserEvent(context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release;

    if (chain_start(L, &c, gate, &ev) || OCLT_CHECK(clFlush(c.queue))) goto release;
    printf("    chain enqueued behind a user event; the host cancels it with "
           "clSetUserEventStatus(%d)\n",
           HOST_CANCELLED);
    if (OCLT_CHECK(clSetUserEventStatus(gate, HOST_CANCELLED))) goto release;
    gate_set = 1;
    /* The specification terminates "all enqueued commands that wait on this user event": the
     * write. Whether the kernel and the read, which wait on the write, are terminated too is
     * the runtime's choice; the ones that ran are a NOTE. Expected to fail: not an OCLT_CHECK. */
    err = clWaitForEvents(1, &ev.write);
    printf("      clWaitForEvents(write) returned %s (%d)%s\n", oclt_error_name(err), (int)err,
           err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? ", as expected" : "");
    if (err == CL_SUCCESS) {
        fprintf(stderr, "  clWaitForEvents succeeded on the cancelled write\n");
        ++failures;
    }
    clWaitForEvents(1, &ev.read); /* the read is done either way: terminated or run */
    const cl_event chain[3] = {ev.write, ev.kernel, ev.read};
    print_cancelled_state("user event", execution_status(gate));
    cl_int read_state = CL_COMPLETE;
    for (int i = 0; i < 3; ++i) {
        cl_int state = execution_status(chain[i]);
        print_cancelled_state(chain_names[i], state);
        if (i == 2) read_state = state;
        if (state >= 0 && i == 0) {
            fprintf(stderr, "  %s ended with %s instead of an error status\n", chain_names[i],
                    oclt_execution_status_name(state));
            ++failures;
        } else if (state >= 0) {
            printf("      NOTE: this runtime ran %s after the terminated write (the "
                   "specification terminates only the commands that wait on the user event)\n",
                   chain_names[i]);
        }
    }
    /* A terminated read never wrote into y. */
    if (read_state < 0 && memcmp(c.y, poison, bytes) != 0) {
        fprintf(stderr, "  the cancelled read wrote into y\n");
        ++failures;
    } else if (read_state < 0) {
        printf("      the host's y still holds the poison: the read did not run\n");
    }
    status = failures ? OCLT_FAIL : OCLT_PASS; /* the check is of states, not of data */
release:
    if (gate && !gate_set) clSetUserEventStatus(gate, HOST_CANCELLED);
    release_chain(&ev);
    if (gate) clReleaseEvent(gate);
    chain_close(&c); /* its clFinish may report the failure again; nothing is left to run */
    if (program) clReleaseProgram(program);
    if (context) clReleaseContext(context);
    free(poison);
    oclt_report_result(L->report, "user_event_error", L->size_text, -1.0, -1.0, NULL, status,
                       "the command waiting on the user event failed");
}

/* ---- callbacks: being told instead of asking ---------------------------------------------
 * clSetEventCallback registers a function that the runtime calls, on a thread of its own,
 * when the command reaches a state (CL_COMPLETE; CL_SUBMITTED and CL_RUNNING too since 1.2),
 * and tells it that state (or a negative error code if the command was terminated).
 * A callback must be short and must not block on OpenCL (no clFinish, no blocking calls):
 * here it only records what it was told, through atomics, and the host thread looks. Note
 * that clWaitForEvents may return before the callback has run: wait for the callback itself. */

typedef struct {
    const char *command;
    cl_int wanted;     /* the state the callback was registered for */
    atomic_int calls;  /* written by the runtime's thread, read by the host's */
    atomic_int status; /* the state the callback was told */
    atomic_int order;  /* 1 for the first callback of the scenario to run, 2 for the next... */
    atomic_int *sequence;
} callback_record;

static void CL_CALLBACK record_callback(cl_event event, cl_int status, void *user_data) {
    (void)event;
    callback_record *record = user_data;
    atomic_store(&record->status, status);
    atomic_store(&record->order, atomic_fetch_add(record->sequence, 1) + 1);
    atomic_fetch_add(&record->calls, 1); /* last: the host reads the rest after seeing this */
}

static cl_uint reference_count(cl_event event) {
    cl_uint count = 0;
    OCLT_CHECK(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof count, &count, NULL));
    return count;
}

void scenario_callbacks(lesson *L) {
    enum { MAX_RECORDS = 5 };
    const size_t n = L->n;
    oclt_status status = OCLT_FAIL;
    size_t failures = 0;
    int gate_set = 0, record_count = 0;
    /* Static: a late callback may still write here after this function has returned. */
    static atomic_int sequence;
    static callback_record records[MAX_RECORDS];
    atomic_store(&sequence, 0);
    chain_setup c = {0};
    cl_event gate = NULL;
    chain_events ev = {0};
    cl_int err = CL_SUCCESS;
    if (chain_open(L, &c, L->dev->context, L->program, "affine_map", n, L->trace_device,
                   "callbacks"))
        goto release;
    gate = clCreateUserEvent(L->dev->context, &err);
    if (OCLT_CHECK_ERR(err, "clCreateUserEvent")) goto release;

    /* The gate keeps the chain still while the callbacks are registered, so that every one of
     * them sees its state change happen. */
    if (chain_start(L, &c, gate, &ev)) goto release;
    struct {
        const char *command;
        cl_event event;
        cl_int wanted;
    } wanted[MAX_RECORDS] = {{"write x", ev.write, CL_COMPLETE},
                             {"affine_map", ev.kernel, CL_COMPLETE},
                             {"read y", ev.read, CL_COMPLETE},
                             {"affine_map", ev.kernel, CL_SUBMITTED},
                             {"affine_map", ev.kernel, CL_RUNNING}};
    /* CL_SUBMITTED and CL_RUNNING callbacks are OpenCL 1.2 (1.1 has CL_COMPLETE only). */
    int wanted_count = L->dev->platform_version >= 120 ? 5 : 3;
    for (int i = 0; i < wanted_count; ++i) {
        callback_record *r = &records[record_count];
        r->command = wanted[i].command;
        r->wanted = wanted[i].wanted;
        atomic_store(&r->calls, 0);
        atomic_store(&r->status, 1000);
        atomic_store(&r->order, 0);
        r->sequence = &sequence;
        if (OCLT_CHECK(clSetEventCallback(wanted[i].event, wanted[i].wanted, record_callback, r)))
            goto release;
        ++record_count;
    }
    printf("    %d callbacks registered; the host opens the gate and waits for the read\n",
           record_count);
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) goto release;
    gate_set = 1;
    if (OCLT_CHECK(clWaitForEvents(1, &ev.read))) goto release;
    int pending = 0;
    for (int i = 0; i < record_count; ++i) pending += atomic_load(&records[i].calls) == 0;
    printf("      when clWaitForEvents returned, %d of %d callbacks had not run yet\n", pending,
           record_count);
    /* Wait for the callbacks themselves (they run on the runtime's thread). */
    const double deadline = oclt_now_ms() + 10e3;
    for (int i = 0; i < record_count; ++i)
        while (atomic_load(&records[i].calls) == 0 && oclt_now_ms() < deadline) {
            oclt_os_sleep_ms(0.1);
        }
    for (int i = 0; i < record_count; ++i) {
        const callback_record *r = &records[i];
        int calls = atomic_load(&r->calls);
        cl_int told = atomic_load(&r->status);
        printf("      %-10s callback for %-12s ran %d time(s), #%d in order, told %s\n", r->command,
               oclt_execution_status_name(r->wanted), calls, atomic_load(&r->order),
               calls ? oclt_execution_status_name(told) : "-");
        /* Called once, with the state it was registered for (nothing was terminated). A later
         * state is a deviation, noted rather than failed: Oclgrind 21.10 tells its CL_SUBMITTED
         * and CL_RUNNING callbacks CL_COMPLETE. */
        if (calls == 1 && told >= 0 && told < r->wanted) {
            printf("      NOTE: told %s, not %s as the specification says: a quirk of this "
                   "runtime\n",
                   oclt_execution_status_name(told), oclt_execution_status_name(r->wanted));
        } else if (calls != 1 || told != r->wanted) {
            fprintf(stderr, "  the %s callback of %s: %d call(s), status %d\n",
                    oclt_execution_status_name(r->wanted), r->command, calls, (int)told);
            ++failures;
        }
    }
    failures += check_affine(L, "y", c.x, c.y, n, AFFINE_A, AFFINE_B);
    if (trace_chain(L, &ev, c.track, " (callbacks)")) goto release;

    /* Reference counts: every clRetainEvent needs its clReleaseEvent; the event is freed when
     * the count reaches 0 (and the runtime is done with it). The count is for finding leaks,
     * not for program logic: it may change under you while the runtime holds references. */
    cl_uint before = reference_count(ev.kernel);
    if (OCLT_CHECK(clRetainEvent(ev.kernel))) goto release;
    cl_uint retained = reference_count(ev.kernel);
    if (OCLT_CHECK(clReleaseEvent(ev.kernel))) goto release;
    cl_uint released = reference_count(ev.kernel);
    printf("    CL_EVENT_REFERENCE_COUNT of the kernel's event: %u, after clRetainEvent %u, after "
           "clReleaseEvent %u\n",
           before, retained, released);
    /* The count is stale as soon as it is read (the runtime may take or drop references of its
     * own at any moment), so only what our own references promise is checked: while we hold
     * two the count is at least 2, after our release at least 1. (On a quiet runtime: before +
     * 1, then before.) */
    if (retained < 2 || released < 1) {
        fprintf(stderr, "  the reference count did not follow retain/release\n");
        ++failures;
    }
    status = verdict(L, failures);
release:
    if (gate && !gate_set) clSetUserEventStatus(gate, HOST_CANCELLED);
    release_chain(&ev); /* the last reference of each: no event is leaked */
    if (gate) clReleaseEvent(gate);
    chain_close(&c);
    oclt_report_result(L->report, "callbacks", L->size_text, -1.0, -1.0, NULL, status,
                       "each callback ran once with its state; retain/release counted");
}
