/* Chapter 03: watching a command's execution status (CL_EVENT_COMMAND_EXECUTION_STATUS) change
 * while a user event holds it back and after the host lets it go. Used by the profiling and
 * user_events scenarios. */
#include "lesson.h"

#include <stdio.h>

/* Prints the state of each command; returns how many are past CL_SUBMITTED, which no command
 * may be while the user event it waits on is still open. */
int print_states(const char *when, const cl_event *events, const char *const *names, int count) {
    int started = 0;
    printf("      %-16s", when);
    for (int i = 0; i < count; ++i) {
        cl_int state = execution_status(events[i]);
        printf("  %s %s", names[i], oclt_execution_status_name(state));
        if (state < CL_SUBMITTED) ++started;
    }
    printf("\n");
    if (started)
        fprintf(stderr, "  %d command(s) started before the user event they wait on was set\n",
                started);
    return started;
}

/* Sets the user event `gate` to CL_COMPLETE, then polls the commands until each one is complete
 * or failed, and prints every state it was seen in, starting from its state just before the
 * gate opened. A state shorter than one poll is never seen: CL_RUNNING of a short command often
 * is not. Returns the number of anomalies (a state going backwards, a failure, a time-out), or
 * -1 when clSetUserEventStatus failed. */
int walk_states(cl_event gate, const cl_event *events, const char *const *names, int count) {
    enum { MAX_COMMANDS = 4, MAX_SEEN = 8 };
    cl_int seen[MAX_COMMANDS][MAX_SEEN];
    int seen_count[MAX_COMMANDS] = {0}, anomalies = 0;
    for (int i = 0; i < count; ++i) seen[i][seen_count[i]++] = execution_status(events[i]);
    if (OCLT_CHECK(clSetUserEventStatus(gate, CL_COMPLETE))) return -1;
    const double deadline = oclt_now_ms() + 60e3;
    for (;;) {
        int all_done = 1;
        for (int i = 0; i < count; ++i) {
            cl_int state = execution_status(events[i]);
            if (state != seen[i][seen_count[i] - 1] && seen_count[i] < MAX_SEEN)
                seen[i][seen_count[i]++] = state;
            if (state > CL_COMPLETE) all_done = 0;
        }
        if (all_done) break;
        if (oclt_now_ms() > deadline) {
            fprintf(stderr, "  the chain did not complete within 60 s\n");
            return count;
        }
        oclt_os_yield(); /* leave the core to the runtime's threads on a CPU device */
    }
    for (int i = 0; i < count; ++i) {
        int saw_running = 0;
        printf("      %-10s", names[i]);
        for (int s = 0; s < seen_count[i]; ++s) {
            printf("%s%s", s ? " -> " : " ", oclt_execution_status_name(seen[i][s]));
            if (seen[i][s] == CL_RUNNING) saw_running = 1;
            if (s && seen[i][s] > seen[i][s - 1]) ++anomalies; /* went backwards */
        }
        if (seen[i][seen_count[i] - 1] != CL_COMPLETE) ++anomalies;
        printf("%s\n", saw_running ? "" : "   (CL_RUNNING lasted less than one poll)");
    }
    if (anomalies) fprintf(stderr, "  %d unexpected state change(s) in the walk\n", anomalies);
    return anomalies;
}
