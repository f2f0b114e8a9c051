#!/bin/sh
# split_k's slices in the deep size class (autotune.c, one_round_split): unless the cache or
# OCLT_MATMUL_TUNE gives SPLIT_K, the host takes units / blocks (at least 1, at most 256), so
# that the work-groups make one round at one group per compute unit:
#   1. C of 1 block and of 4 blocks: the printed SPLIT_K is that count, and the result passes;
#   2. SPLIT_K given in OCLT_MATMUL_TUNE still wins.
# usage: deep_split.sh PROGRAM FOLDER (an empty cache folder, so that no cached tuning applies)
exe=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
XDG_CACHE_HOME=$dir
export XDG_CACHE_HOME
block="BM=32,BN=16,BK=8,TM=4,TN=4,VW=4,WIM=2,WIN=2"
fail() {
    echo "deep_split: $1"
    cat "$dir/run.out"
    exit 1
}
run() { # TUNE SIZE
    OCLT_MATMUL_TUNE=$1 "$exe" --variant split_k --size "$2" --reps 1 >"$dir/run.out" 2>&1
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || fail "OCLT_MATMUL_TUNE=$1 --size $2 exited $rc"
    line=$(grep '^  advanced' "$dir/run.out")
}
for case in 32x16x4096:1 64x32x4096:4; do
    size=${case%:*} blocks=${case#*:}
    run "$block" "$size"
    units=$(echo "$line" | sed -n 's/.*one round of work-groups on \([0-9]*\) compute units.*/\1/p')
    split=$(echo "$line" | sed -n 's/.*SPLIT_K=\([0-9]*\): one round.*/\1/p')
    [ -n "$units" ] && [ -n "$split" ] || fail "no one-round split at $size: $line"
    want=$((units / blocks))
    [ $want -lt 1 ] && want=1
    [ $want -gt 256 ] && want=256
    [ "$split" = "$want" ] || fail "$size ($blocks blocks, $units units): SPLIT_K=$split, want $want"
    echo "deep_split: $size, $blocks blocks on $units compute units: SPLIT_K=$split"
done
run "$block,SPLIT_K=3" 32x16x4096
echo "$line" | grep -q "^  advanced $block,GROUP_M=[0-9]*,SPLIT_K=3 " ||
    fail "SPLIT_K=3 in OCLT_MATMUL_TUNE not used: $line"
echo "deep_split: SPLIT_K from OCLT_MATMUL_TUNE kept"
