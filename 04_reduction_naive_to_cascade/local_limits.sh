#!/bin/sh
# local_limits.sh PROGRAM [ARGS...]
# Finds the largest --local this device accepts by trying powers of two from 2^16 down: the
# first that is not a usage error must run and pass, and the one above it must have been
# refused with exit 2 and one line naming the limit it broke.
program=$1
shift
local_size=65536
while [ "$local_size" -ge 2 ]; do
    err=$("$program" --local "$local_size" "$@" 2>&1 >/dev/null)
    status=$?
    if [ "$status" -ne 2 ]; then
        echo "largest accepted --local: $local_size (exit status $status)"
        if [ "$local_size" -eq 65536 ]; then
            echo "FAIL: --local 65536 was accepted; expected a limit below it"
            exit 1
        fi
        echo "refused --local $((local_size * 2)): $refused"
        if ! printf '%s\n' "$refused" | grep -Eq "exceeds (CL_DEVICE_MAX_WORK_GROUP_SIZE|CL_DEVICE_MAX_WORK_ITEM_SIZES|CL_KERNEL_WORK_GROUP_SIZE)|CL_DEVICE_LOCAL_MEM_SIZE"; then
            echo "FAIL: the refusal does not name the limit"
            exit 1
        fi
        [ "$status" -eq 0 ] || [ "$status" -eq 77 ] || { echo "FAIL"; exit 1; }
        echo "PASS"
        exit "$status"
    fi
    refused=$err
    local_size=$((local_size / 2))
done
echo "FAIL: every --local down to 2 was refused"
exit 1
