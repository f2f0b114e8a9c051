#!/bin/sh
# check_trace.sh PROGRAM [ARGS...]
# Runs PROGRAM ARGS --trace FILE and passes when the program passes, FILE is valid JSON
# (python3 -m json.tool), FILE holds exactly as many complete events ("ph": "X") as the program
# reported profiled commands ("trace: N profiled commands ..."), every one of them with a name,
# integer pid/tid and ts, dur >= 0, and no FILE.tmp is left behind.
# Exit 77 (skip) without python3.
if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 is not installed: skipping the JSON check"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace="$dir/trace.json"
"$@" --trace "$trace" >"$dir/out" 2>&1
status=$?
cat "$dir/out"
if [ $status -eq 77 ]; then echo "SKIP: the program skipped"; exit 77; fi
if [ $status -ne 0 ]; then echo "FAIL: program exit status $status"; exit 1; fi
reported=$(sed -n 's/^trace: \([0-9][0-9]*\) profiled commands.*/\1/p' "$dir/out")
if [ -z "$reported" ]; then echo "FAIL: no 'trace: N profiled commands' line"; exit 1; fi
if [ -e "$trace.tmp" ]; then echo "FAIL: $trace.tmp was left behind"; exit 1; fi
if ! python3 -m json.tool "$trace" >/dev/null; then echo "FAIL: the trace is not JSON"; exit 1; fi
found=$(python3 -c '
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
complete = [e for e in events if e.get("ph") == "X"]
for e in complete:
    assert isinstance(e["name"], str) and e["name"], e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    assert e["ts"] >= 0 and e["dur"] >= 0, e
print(len(complete))
' "$trace") || { echo "FAIL: malformed trace events"; exit 1; }
echo "trace file: $found complete events; program reported $reported profiled commands"
if [ "$found" -ne "$reported" ]; then echo "FAIL: the counts differ"; exit 1; fi
if [ "$reported" -eq 0 ]; then echo "FAIL: no profiled command in the trace"; exit 1; fi
echo "PASS"
