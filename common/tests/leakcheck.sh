#!/bin/sh
# leakcheck.sh LIBRARY [--expect-leaks N [REGEX...] --] PROGRAM [ARGS...]
# Runs PROGRAM with the OpenCL object leak checker preloaded (LIBRARY: libcl_leakcheck.so, from
# common/tests/cl_leakcheck.c) and reads its report, the line
#     cl_leakcheck: N OpenCL objects not released (C created: ...)
# Passes when the program exits 0, the checker ran, the program made at least one object and
# released them all. Exit 77 (skip) when the program skips.
# --expect-leaks N: the checker's own test; passes only when exactly N objects are reported,
# the exit status is the checker's 3, and stderr matches every REGEX.
library=$1
shift
expect_leaks="" regexes=""
if [ "${1:-}" = "--expect-leaks" ]; then
    expect_leaks=$2
    shift 2
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        regexes="$regexes
$1"
        shift
    done
    shift
fi
if [ ! -f "$library" ]; then echo "FAIL: no leak checker at $library"; exit 1; fi

# A sanitized program accepts the checker ahead of the ASan runtime: the sanitizer build sets
# verify_asan_link_order=0 by default (sanitizer_options.c). (The runtime itself is not
# preloaded: processes the driver starts, such as a linker, would get it.)
err=$(mktemp)
trap 'rm -f "$err"' EXIT
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" "$@" 2>"$err"
status=$?
echo "command: $*"
echo "exit status: $status"
echo "stderr:"
sed 's/^/  /' "$err"

summary=$(grep -E '^cl_leakcheck: [0-9]+ OpenCL objects? not released \([0-9]+ created' "$err" |
          tail -n 1)
if [ $status -eq 77 ] && [ -z "$expect_leaks" ]; then echo "SKIP: the program skipped"; exit 77; fi
if [ -z "$summary" ]; then
    [ $status -eq 77 ] && { echo "SKIP: the program skipped"; exit 77; }
    echo "FAIL: no report from cl_leakcheck: not preloaded, or the program made no OpenCL call"
    exit 1
fi
leaks=$(echo "$summary" | sed -E 's/^cl_leakcheck: ([0-9]+) .*/\1/')
created=$(echo "$summary" | sed -E 's/.*\(([0-9]+) created.*/\1/')

if [ -n "$expect_leaks" ]; then
    [ $status -eq 77 ] && { echo "SKIP: the program skipped"; exit 77; }
    if [ "$leaks" -ne "$expect_leaks" ]; then
        echo "FAIL: expected $expect_leaks unreleased objects, the checker found $leaks"; exit 1
    fi
    if [ $status -ne 3 ]; then echo "FAIL: exit status $status, expected the checker's 3"; exit 1; fi
    failed=0
    echo "$regexes" | while IFS= read -r regex; do
        [ -z "$regex" ] && continue
        if ! grep -Eq -- "$regex" "$err"; then echo "FAIL: stderr does not match: $regex"; exit 1; fi
    done || failed=1
    [ $failed -eq 0 ] || exit 1
    echo "PASS: the checker found the $leaks objects left behind on purpose"
    exit 0
fi

if [ $status -gt 128 ]; then echo "FAIL: killed by signal $((status - 128))"; exit 1; fi
if [ "$leaks" -ne 0 ]; then echo "FAIL: $leaks OpenCL objects not released"; exit 1; fi
if [ $status -ne 0 ]; then echo "FAIL: exit status $status"; exit 1; fi
if [ "$created" -eq 0 ]; then
    echo "FAIL: the program made no OpenCL object, so nothing was checked"; exit 1
fi
echo "PASS: all $created OpenCL objects released"
