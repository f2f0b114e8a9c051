#!/bin/sh
# oclgrind.sh [--expect-race] [--no-uninitialized] [--allow-api CALL:ERROR]... PROGRAM [ARGS...]
# Runs PROGRAM under Oclgrind (a simulated OpenCL device that checks every memory access) with
# --data-races --uninitialized --check-api. Passes when the program exits 0 and Oclgrind reports
# nothing; with --expect-race, passes only when Oclgrind reports a data race (the program's own
# check may fail then); --no-uninitialized leaves out that plugin, for a program that meets one
# of its false reports (docs/appendix_driver_quirks.md). Kernel reports go to Oclgrind's log;
# --check-api's reports of a refused API call ("OpenCL runtime error detected") go to stderr,
# and fail the test too, unless --allow-api names that call and error: a call the program makes
# on purpose to show the refusal (e.g. clCreateProgramWithBinary:CL_INVALID_BINARY).
# Exit 77 (skip) when oclgrind is not installed.
expect_race=0
uninitialized=--uninitialized
allowed=" "
while :; do
    case "${1:-}" in
    --expect-race) expect_race=1; shift ;;
    --no-uninitialized) uninitialized=""; shift ;;
    --allow-api) allowed="$allowed$2 "; shift 2 ;;
    *) break ;;
    esac
done
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "oclgrind is not installed: skipping (Debian/Ubuntu: apt-get install oclgrind)"
    exit 77
fi
log=$(mktemp) err=$(mktemp)
trap 'rm -f "$log" "$err"' EXIT
oclgrind --data-races $uninitialized --check-api --max-errors 20 --log "$log" "$@" 2>"$err"
status=$?
cat "$err" >&2
# Each API report: "Oclgrind - OpenCL runtime error detected", then "Function: NAME" and
# "Error: CODE" lines. The ones not allowed fail the test.
api=$(awk '/OpenCL runtime error detected/ { want = 2; fn = ""; next }
           want && /Function:/ { fn = $2; want--; next }
           want && /Error:/ { print fn ":" $2; want = 0 }' "$err")
refused=""
for report in $api; do
    case "$allowed" in *" $report "*) ;; *) refused="$refused $report" ;; esac
done
if [ -s "$log" ]; then
    echo "---- oclgrind reported:"
    head -n 60 "$log"
fi
if [ $expect_race -eq 1 ]; then
    if grep -q "data race" "$log"; then
        echo "PASS: oclgrind found the expected data race"
        exit 0
    fi
    echo "FAIL: oclgrind found no data race where one was expected"
    exit 1
fi
if [ $status -eq 77 ]; then exit 77; fi
if [ $status -ne 0 ]; then echo "FAIL: program exit status $status under oclgrind"; exit 1; fi
if [ -s "$log" ]; then echo "FAIL: oclgrind reported errors"; exit 1; fi
if [ -n "$refused" ]; then echo "FAIL: oclgrind reported refused API calls:$refused"; exit 1; fi
echo "PASS: no oclgrind reports"
