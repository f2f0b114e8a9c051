#!/bin/sh
# fake_device.sh LIBRARY PROGRAM [ARGS...]
# Runs PROGRAM with cl_fake_device preloaded (LIBRARY: libcl_fake_device.so, from
# common/tests/cl_fake_device.c), which makes the device look like a more limited one as the
# OCLT_FAKE_* variables of the environment say (see that file). The exit status is PROGRAM's,
# except that a skip (77) under the library is a failure (1) where the program does not skip
# without it.
library=$1
shift
if [ ! -f "$library" ]; then echo "no fake-device library at $library" >&2; exit 1; fi
# (A sanitized program accepts the library ahead of the ASan runtime: the sanitizer build sets
# verify_asan_link_order=0 by default, sanitizer_options.c.)
# A program that skips here by itself (no OpenCL device, or a feature this device lacks): skip,
# as every other test does; asked by running it once without the library. Under the library, a
# program that skips has not fitted itself to the device it was shown: that fails.
"$@" >/dev/null 2>&1
if [ $? -eq 77 ]; then echo "the program skips here without the fake device too: skipping"; exit 77; fi
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
status=$?
if [ $status -eq 77 ]; then
    echo "FAIL: the program skipped under the fake device instead of fitting itself to it" >&2
    exit 1
fi
exit $status
