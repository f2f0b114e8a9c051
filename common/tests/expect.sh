#!/bin/sh
# expect.sh [--no-file PATH] [--stdout] CODE REGEX PROGRAM [ARGS...]
# Runs PROGRAM and passes when its exit status is CODE and its stderr (with --stdout: its
# stdout) has a line matching the extended regex REGEX. For usage errors (CODE 2) stderr must be
# exactly one line, and nothing may be printed on stdout: bad input is refused before any work.
# With --no-file, PATH (e.g.
# the --csv file of the run) is removed first and must not exist afterwards: no partial output.
# Exit status 77 where CODE is not 77 means the program found no OpenCL device for a case that
# needs one (a bad --platform or --device index is only known as such once platforms are listed):
# the test is skipped (77), as every other test is on such a machine.
no_file="" stream=stderr
while :; do
    case $1 in
        --no-file) no_file=$2; shift 2; rm -f "$no_file" ;;
        --stdout) stream=stdout; shift ;;
        *) break ;;
    esac
done
code=$1 regex=$2
shift 2
err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
"$@" >"$out" 2>"$err"
status=$?
echo "command: $*"
echo "exit status: $status (expected $code)"
echo "stderr:"; sed 's/^/  /' "$err"
if [ "$status" -gt 128 ]; then
    echo "FAIL: killed by signal $((status - 128))"; exit 1
fi
if [ "$status" -eq 77 ] && [ "$code" -ne 77 ]; then
    echo "SKIP: no OpenCL device for this case"; exit 77
fi
if [ "$status" -ne "$code" ]; then
    echo "FAIL: wrong exit status"; exit 1
fi
if [ $stream = stdout ]; then
    echo "stdout:"; sed 's/^/  /' "$out"
    matched=$out
else
    matched=$err
fi
if ! grep -Eq -- "$regex" "$matched"; then
    echo "FAIL: $stream does not match: $regex"; exit 1
fi
if [ "$code" -eq 2 ]; then
    lines=$(wc -l <"$err")
    if [ "$lines" -ne 1 ]; then echo "FAIL: expected one line on stderr, got $lines"; exit 1; fi
    if [ -s "$out" ]; then echo "FAIL: stdout not empty:"; cat "$out"; exit 1; fi
fi
if [ -n "$no_file" ] && [ -e "$no_file" ]; then
    echo "FAIL: the run left an output file behind: $no_file"; rm -f "$no_file"; exit 1
fi
echo "PASS"
