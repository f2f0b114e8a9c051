#!/bin/sh
# kernel_limit.sh LIBRARY LIMIT PROGRAM [ARGS...]
# Runs PROGRAM with cl_kernel_limit preloaded (LIBRARY: libcl_kernel_limit.so, from
# common/tests/cl_kernel_limit.c), so that every kernel allows at most LIMIT work-items per group,
# as NVIDIA's driver 580 reports 256 for every kernel on a device of 1024: the code that fits
# groups to a kernel's limit then runs on any implementation. The exit status is PROGRAM's.
library=$1 limit=$2
shift 2
if [ ! -f "$library" ]; then echo "no kernel-limit library at $library" >&2; exit 1; fi
# As in leakcheck.sh: a sanitized program wants its runtime first; the library defines no
# allocation function, so the order is safe.
if ldd "$1" 2>/dev/null | grep -Eq 'lib(asan|clang_rt\.asan)'; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    export ASAN_OPTIONS
fi
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" OCLT_KERNEL_WORK_GROUP_LIMIT=$limit exec "$@"
