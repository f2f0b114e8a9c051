#!/bin/sh
# A program on a device smaller than it needs (Oclgrind with OCLGRIND_MAX_WGSIZE and
# OCLGRIND_LOCAL_MEM_SIZE): it must exit 77 (SKIP) and print PATTERN on COUNT lines, not FAIL on
# a refused launch or call it a usage error. 77 here too when Oclgrind is not installed.
# usage: small_device_skip.sh MAX_WGSIZE LOCAL_MEM_BYTES COUNT PATTERN PROGRAM [ARGS...]
command -v oclgrind >/dev/null 2>&1 || { echo "oclgrind is not installed: skipping"; exit 77; }
wgsize=$1 local_mem=$2 count=$3 pattern=$4
shift 4
out=$(OCLGRIND_MAX_WGSIZE=$wgsize OCLGRIND_LOCAL_MEM_SIZE=$local_mem oclgrind "$@" 2>&1)
rc=$?
echo "$out"
found=$(echo "$out" | grep -c -- "$pattern")
if [ $rc -ne 77 ] || [ "$found" -ne "$count" ]; then
    echo "FAIL: want exit 77 and $count line(s) with '$pattern'; got exit $rc, $found"
    exit 1
fi
echo "PASS: skipped as it should (exit 77)"
