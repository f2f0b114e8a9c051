/* Error names, fix-it hints and the check used around every OpenCL call. */
#ifndef OCLT_ERRORS_H
#define OCLT_ERRORS_H

#include <CL/cl.h>
#include <CL/cl_ext.h> /* extension codes such as CL_PLATFORM_NOT_FOUND_KHR */

/* Exit codes shared by every chapter (CTest treats 77 as SKIP). */
enum {
    OCLT_EXIT_OK = 0,    /* every check passed */
    OCLT_EXIT_FAIL = 1,  /* a check failed or an OpenCL call failed */
    OCLT_EXIT_USAGE = 2, /* bad command line: one line on stderr, no OpenCL work done */
    OCLT_EXIT_SKIP = 77  /* no OpenCL device, or the device lacks what was asked for */
};

/* "CL_INVALID_VALUE" for -30; every code of the OpenCL 3.0 headers, extensions included.
 * Unknown codes give "unknown OpenCL error". */
const char *oclt_error_name(cl_int err);

/* One sentence on what usually causes err, or NULL when there is nothing useful to say. */
const char *oclt_error_hint(cl_int err);

/* "CL_QUEUED", "CL_SUBMITTED", "CL_RUNNING", "CL_COMPLETE" for an event's execution status;
 * a negative status (a command that ended with an error) gives the error's name. */
const char *oclt_execution_status_name(cl_int status);

/* Prints "file:line: call failed: NAME (code)" plus the hint when err != CL_SUCCESS.
 * Returns err, so callers can write: if (OCLT_CHECK(clFinish(q))) goto release_queue; */
cl_int oclt_check(cl_int err, const char *call, const char *file, int line);

#define OCLT_CHECK(call)          oclt_check((call), #call, __FILE__, __LINE__)
/* For calls that return an object and report through an errcode_ret argument. */
#define OCLT_CHECK_ERR(err, what) oclt_check((err), (what), __FILE__, __LINE__)

/* Number of entries in the name table, and access to them (for the test that enumerates
 * every code of the installed headers). */
size_t oclt_error_table_size(void);
cl_int oclt_error_table_code(size_t i);

#endif
