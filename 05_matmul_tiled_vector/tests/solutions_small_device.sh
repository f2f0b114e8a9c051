#!/bin/sh
# The solutions on a device whose work-groups are smaller than their 16 x 16 tiles (Oclgrind
# with OCLGRIND_MAX_WGSIZE=32): every variant must say SKIP with the reason, and the program exit
# 77, not FAIL on a refused launch. 77 here too when Oclgrind is not installed.
# usage: solutions_small_device.sh PROGRAM
command -v oclgrind >/dev/null 2>&1 || { echo "oclgrind is not installed: skipping"; exit 77; }
out=$(OCLGRIND_MAX_WGSIZE=32 oclgrind "$1" --size 17x19x13 --reps 1 2>&1)
rc=$?
echo "$out"
skipped=$(echo "$out" | grep -c 'SKIP  (needs work-groups of 16 x 16 items')
if [ $rc -ne 77 ] || [ "$skipped" -ne 5 ]; then
    echo "FAIL: want exit 77 and 5 variants skipped for their tile size; got exit $rc, $skipped"
    exit 1
fi
echo "PASS: every solution skipped, exit 77"
