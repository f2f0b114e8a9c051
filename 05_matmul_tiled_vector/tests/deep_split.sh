#!/bin/sh
# split_k's slices in the deep size class (autotune.c, one_round_split): unless the cache or
# OCLT_MATMUL_TUNE gives SPLIT_K, the host takes the table row's SPLIT_K, raised to
# units / blocks (at least 1, at most 256) so that the work-groups make one round at one group
# per compute unit:
#   1. C of 1 block and of 4 blocks: the printed counts are those, and the result passes;
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
    counts=$(echo "$line" |
        sed -n 's/.*SPLIT_K=\([0-9]*\): the row.s \([0-9]*\), or one round of work-groups on \([0-9]*\) compute units (\([0-9]*\)) if more.*/\1 \2 \3 \4/p')
    [ -n "$counts" ] || fail "no count of slices at $size: $line"
    set -- $counts
    split=$1 row=$2 units=$3 round=$4
    want=$((units / blocks))
    [ $want -lt 1 ] && want=1
    [ $want -gt 256 ] && want=256
    [ "$round" = "$want" ] || fail "$size ($blocks blocks, $units units): one round $round, want $want"
    [ $row -gt $want ] && want=$row
    [ "$split" = "$want" ] || fail "$size: SPLIT_K=$split, want $want (the row's $row, one round $round)"
    echo "deep_split: $size, $blocks blocks on $units compute units, the row's $row: SPLIT_K=$split"
done
run "$block,SPLIT_K=3" 32x16x4096
echo "$line" | grep -q "^  advanced $block,GROUP_M=[0-9]*,SPLIT_K=3 " ||
    fail "SPLIT_K=3 in OCLT_MATMUL_TUNE not used: $line"
echo "deep_split: SPLIT_K from OCLT_MATMUL_TUNE kept"
