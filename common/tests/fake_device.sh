#!/bin/sh
# fake_device.sh LIBRARY PROGRAM [ARGS...]
# Runs PROGRAM with cl_fake_device preloaded (LIBRARY: libcl_fake_device.so, from
# common/tests/cl_fake_device.c), which makes the device look like a more limited one as the
# OCLT_FAKE_* variables of the environment say (see that file). The exit status is PROGRAM's.
library=$1
shift
if [ ! -f "$library" ]; then echo "no fake-device library at $library" >&2; exit 1; fi
# As in leakcheck.sh: a sanitized program wants its runtime first; the library defines no
# allocation function, so the order is safe.
if ldd "$1" 2>/dev/null | grep -Eq 'lib(asan|clang_rt\.asan)'; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    export ASAN_OPTIONS
fi
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"
