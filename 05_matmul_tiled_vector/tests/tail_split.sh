#!/bin/sh
# tail_split's plan (tail_split.c): with blocks of 32 x 16 and N = 16 (one block per band of 32
# rows), M = (U + 1) * 32 makes U + 1 work-groups on U compute units: one round and a last one of
# a single group. The first U bands then go to whole_tiles and the last band to split_k in
# min(U, k-steps) slices, and the product passes; also with N = 12, where every block of the top
# is partial (edge_tiles). With M = 2U * 32 the last round is full (U
# groups), no split fills it better, and the step is whole_tiles on all of C. U is read from the
# program's own line, so the test holds on any device with at least 2 compute units (77 on one).
# usage: tail_split.sh PROGRAM
exe=$1
export OCLT_MATMUL_TUNE="BM=32,BN=16,BK=8,TM=4,TN=4,VW=4,WIM=2,WIN=2,GROUP_M=1,SPLIT_K=1"
fail() {
    echo "tail_split: $1"
    echo "$out"
    exit 1
}
run() { # SIZE
    out=$("$exe" --variant tail_split --size "$1" --reps 1 2>&1)
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || fail "--size $1 exited $rc"
    line=$(echo "$out" | grep '^  tail ')
    [ -n "$line" ] || fail "no plan printed at $1"
}
run 64x16x300
units=$(echo "$line" | sed -n 's/.*(\([0-9]*\) compute units*[,)].*/\1/p')
[ -n "$units" ] || fail "no count of compute units in: $line"
if [ "$units" -lt 2 ]; then
    echo "tail_split: $units compute unit: no last round to fill, skipping"
    exit 77
fi
k=300 k_steps=38 # ceil(300 / 8)
want=$units
[ "$want" -gt $k_steps ] && want=$k_steps
m=$(((units + 1) * 32))
run "${m}x16x$k"
expect="$((units * 32)) of $m rows by whole_tiles, the last 32 by split_k in $want slices of K"
echo "$line" | grep -qF "$expect" || fail "${m}x16x$k: want '$expect'"
echo "tail_split: ${m}x16x$k on $units compute units: $expect"
m=$((2 * units * 32))
run "${m}x16x$k"
echo "$line" | grep -q "no split fills the last round better" ||
    fail "${m}x16x$k: a split where none fills the last round better"
echo "tail_split: ${m}x16x$k: whole_tiles on all of C"
# The top's blocks all partial (N = 12 < BN: edge_tiles), the same plan.
m=$(((units + 1) * 32))
run "${m}x12x$k"
echo "$line" | grep -qF "$expect" || fail "${m}x12x$k: want '$expect'"
echo "tail_split: ${m}x12x$k: $expect"
# The last band partly outside C (M = U * 32 + 1: one row), K not a multiple of 8 (20: the
# origins stay multiples of 512 bytes, the largest alignment seen, for any U).
m=$((units * 32 + 1))
run "${m}x16x20"
echo "$line" | grep -qF "the last 1 by split_k" || fail "${m}x16x20: want the last row split"
echo "tail_split: ${m}x16x20: the last row by split_k"
