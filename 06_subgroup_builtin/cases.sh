#!/bin/sh
# cases.sh PROGRAM [ARGS...]
# Runs PROGRAM ARGS on the sizes every reduction must get right:
#   1 element; 1000 with work-groups of 256 (the Khronos SDK sample's sub-group loop returns 960
#   there with sub-groups of 32), once more with intel_sub_group forced to sub-groups of 8 (32
#   sub-group totals to fold by 8 work-items: the case that checks the fold on a device, such as
#   PoCL 6.0, that gives sub_group_reduce one sub-group per work-group), in a GPU's order with
#   one element per load, so that every work-item of the first group holds an input and no
#   sub-group total is the identity; a prime above 10^6, in
#   the device's default shape and in a GPU's (interleaved order, float4 loads); 5003 with work-groups of 32 and a tuning
#   that takes 3 passes; 300 with work-groups of 8 (smaller than most sub-groups and warps);
#   a prime in blocked order with UNROLL=4 (each chunk ends in a remainder loop, which a CPU's
#   default UNROLL=1 never runs); 47 with work-groups of 4 and VEC=16 (15 left-over elements for
#   8 work-items or fewer on a 2-core CPU: the tail's grid-stride loop must go round).
# Passes when no case fails; exit 77 (skip) when every case skipped (the device lacks the
# variant); a case that skips while others pass is shown but does not fail the test.
ran=0 failed=0
run_case() { # run_case "description" [VAR=value] ARGS...
    what=$1
    shift
    echo "==== $what"
    env "$@"
    status=$?
    case $status in
        0) ran=$((ran + 1)) ;;
        77) echo "(skipped: $what)" ;;
        *) echo "FAILED ($status): $what"; failed=$((failed + 1)) ;;
    esac
}
program=$1
shift
run_case "one element" "$program" "$@" --size 1 --reps 1
run_case "1000 elements, work-groups of 256" "$program" "$@" --size 1000 --local 256 --reps 1
run_case "1000 elements, work-groups of 256, intel sub-groups of 8" \
    OCLT_SUBGROUP_TUNE=SUB_GROUP=8,ORDER=interleaved,VEC=1,UNROLL=1 \
    "$program" "$@" --size 1000 --local 256 --reps 1
run_case "a prime, 1000003" "$program" "$@" --size 1000003 --reps 1
run_case "a prime, 1000003, in a GPU's shape" \
    OCLT_SUBGROUP_TUNE=ORDER=interleaved,VEC=4,UNROLL=4,GROUPS_PER_CU=4 \
    "$program" "$@" --size 1000003 --reps 1
run_case "5003 elements in 3 passes" OCLT_SUBGROUP_TUNE=VEC=1,UNROLL=1,GROUPS_PER_CU=64 \
    "$program" "$@" --size 5003 --local 32 --reps 1
run_case "300 elements, work-groups of 8" "$program" "$@" --size 300 --local 8 --reps 1
run_case "1000003 in blocked order, 4 loads per step (a remainder of each work-item's chunk)" \
    OCLT_SUBGROUP_TUNE=ORDER=blocked,VEC=4,UNROLL=4 "$program" "$@" --size 1000003 --reps 1
run_case "47 elements, work-groups of 4, float16 loads (a tail wider than the grid)" \
    OCLT_SUBGROUP_TUNE=VEC=16,UNROLL=1 "$program" "$@" --size 47 --local 4 --reps 1
if [ $failed -gt 0 ]; then echo "$failed case(s) failed"; exit 1; fi
if [ $ran -eq 0 ]; then echo "every case skipped"; exit 77; fi
echo "all cases passed"
