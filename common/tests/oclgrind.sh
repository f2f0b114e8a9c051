#!/bin/sh
# oclgrind.sh [--expect-race] [--no-uninitialized] PROGRAM [ARGS...]
# Runs PROGRAM under Oclgrind (a simulated OpenCL device that checks every memory access) with
# --data-races --uninitialized --check-api. Passes when the program exits 0 and Oclgrind reports
# nothing; with --expect-race, passes only when Oclgrind reports a data race (the program's own
# check may fail then); --no-uninitialized leaves out that plugin, for a program that meets one
# of its false reports (docs/appendix_driver_quirks.md). Exit 77 (skip) when oclgrind is not
# installed.
expect_race=0
uninitialized=--uninitialized
if [ "${1:-}" = "--expect-race" ]; then expect_race=1; shift; fi
if [ "${1:-}" = "--no-uninitialized" ]; then uninitialized=""; shift; fi
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "oclgrind is not installed: skipping (Debian/Ubuntu: apt-get install oclgrind)"
    exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
oclgrind --data-races $uninitialized --check-api --max-errors 20 --log "$log" "$@"
status=$?
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
echo "PASS: no oclgrind reports"
