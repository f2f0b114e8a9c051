#!/bin/sh
# split_k's slices in the deep size class (autotune.c, fill_rounds_split): unless the cache or
# OCLT_MATMUL_TUNE gives SPLIT_K, the host takes the table row's SPLIT_K, raised to the count S
# that finishes soonest: S slices of B blocks run in ceil(B*S/units) rounds of
# ceil(k-steps/S) + 4 k-steps each; the fewest slices of the least time, within 8 rounds, at
# most 256:
#   1. C of 1, 4 and 3 blocks: the printed counts are those (recomputed here, and on 2 compute
#      units also the known 2, 1 and 2), and the result passes;
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
for case in 32x16x4096:1 64x32x4096:4 96x16x4096:3; do
    size=${case%:*} blocks=${case#*:}
    run "$block" "$size"
    counts=$(echo "$line" |
        sed -n 's/.*SPLIT_K=\([0-9]*\): the row.s \([0-9]*\), or the slices that fill the rounds of work-groups on \([0-9]*\) compute units (\([0-9]*\)) if more.*/\1 \2 \3 \4/p')
    [ -n "$counts" ] || fail "no count of slices at $size: $line"
    set -- $counts
    split=$1 row=$2 units=$3 fill=$4
    want=$(awk -v b="$blocks" -v u="$units" -v k=512 'BEGIN {
        best = 1; least = -1
        for (s = 1; s <= 256 && s <= k; ++s) {
            rounds = int((b * s + u - 1) / u)
            if (s > 1 && rounds > 8) break
            time = rounds * (int((k + s - 1) / s) + 4)
            if (least < 0 || time < least) { best = s; least = time }
        }
        print best }')
    if [ "$units" = 2 ]; then # worked by hand: 1 block: 2 slices; 4: 1; 3: 2 (3 rounds of 256 k-steps)
        case $blocks in 1 | 3) [ "$want" = 2 ] ;; 4) [ "$want" = 1 ] ;; esac || fail "awk gave $want"
    fi
    [ "$fill" = "$want" ] || fail "$size ($blocks blocks, $units units): $fill slices, want $want"
    [ $row -gt $want ] && want=$row
    [ "$split" = "$want" ] || fail "$size: SPLIT_K=$split, want $want (the row's $row, filling $fill)"
    echo "deep_split: $size, $blocks blocks on $units compute units, the row's $row: SPLIT_K=$split"
done
run "$block,SPLIT_K=3" 32x16x4096
echo "$line" | grep -q "^  advanced $block,GROUP_M=[0-9]*,SPLIT_K=3,FMA_ROWS=[0-9]* " ||
    fail "SPLIT_K=3 in OCLT_MATMUL_TUNE not used: $line"
echo "deep_split: SPLIT_K from OCLT_MATMUL_TUNE kept"
