#!/bin/sh
# --tune and its cache, end to end, in a private cache folder (XDG_CACHE_HOME):
#   1. --tune=2 on a tiny problem finishes, prints the winner and writes the cache;
#   2. the next run reads the cache and uses exactly the cached parameters;
#   3. a corrupt line is reported on stderr and ignored, the good line still used;
#   4. a cached entry that breaks a constraint is reported and ignored (the defaults are used);
#   5. an entry written before FMA_ROWS existed is used, with FMA_ROWS=4 (the order it was tuned
#      with);
#   6. a key given twice, a value with a sign, a sixth field or a GFLOP/s that is not a number:
#      each reported and ignored;
#   7. --tune with an advanced key in OCLT_MATMUL_TUNE: every candidate keeps that key, and the
#      narrowed winner is not saved;
#   8. --tune after a cache whose last line has no newline: the new entry is a line of its own.
# usage: tune_cache.sh PROGRAM FOLDER
exe=$1
dir=$2
size=40x36x20
rm -rf "$dir" && mkdir -p "$dir" || exit 1
XDG_CACHE_HOME=$dir
export XDG_CACHE_HOME
cache=$dir/opencl-tutorial/matmul_tune.txt
fail() {
    echo "tune_cache: $1"
    for f in "$dir"/*.out "$dir"/*.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
    exit 1
}

"$exe" --tune=2 --variant warp_tiled --size $size --reps 1 >"$dir/tune.out" 2>"$dir/tune.err"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "--tune=2 exited $rc"
grep -q "tune     \[2/2\]" "$dir/tune.out" || fail "--tune=2 did not try two candidates"
grep -q "tune     best" "$dir/tune.out" || fail "--tune printed no winner"
[ -s "$cache" ] || fail "no cache written at $cache"
params=$(awk -F '\t' '!/^#/ { print $4 }' "$cache")
[ -n "$params" ] || fail "the cache holds no entry"

"$exe" --variant warp_tiled --size $size --reps 1 >"$dir/read.out" 2>"$dir/read.err" ||
    fail "the run after --tune failed"
grep -q "advanced $params for size class .*(tuned here (cache $cache))" "$dir/read.out" ||
    fail "the run after --tune did not use the cached parameters $params"
cp "$cache" "$dir/good.txt" || exit 1

echo "not a cache line" >>"$cache"
"$exe" --variant warp_tiled --size $size --reps 1 >"$dir/corrupt.out" 2>"$dir/corrupt.err" ||
    fail "a corrupt cache line made the run fail"
grep -q "matmul_tune.txt line 3 ignored" "$dir/corrupt.err" || fail "corrupt line not reported"
grep -q "tuned here" "$dir/corrupt.out" || fail "the good line was not used beside a corrupt one"

sed "s/BM=[0-9]*,/BM=7,/" "$cache" >"$cache.bad" && mv "$cache.bad" "$cache"
"$exe" --variant warp_tiled --size $size --reps 1 >"$dir/broken.out" 2>"$dir/broken.err" ||
    fail "an impossible cached tuning made the run fail"
grep -q "matmul_tune.txt line 2 ignored: .*BM=7" "$dir/broken.err" ||
    fail "an impossible cached tuning was not reported"
grep -q "tuned here" "$dir/broken.out" && fail "an impossible cached tuning was used"

sed "s/,FMA_ROWS=[0-9]*//" "$dir/good.txt" >"$cache"
old_params=$(awk -F '\t' '!/^#/ { print $4 }' "$cache")
case $old_params in *FMA_ROWS*) fail "could not remove FMA_ROWS from $old_params" ;; esac
"$exe" --variant warp_tiled --size $size --reps 1 >"$dir/old.out" 2>"$dir/old.err" ||
    fail "a cache line without FMA_ROWS made the run fail"
grep -q "advanced $old_params,FMA_ROWS=4 for size class .*(tuned here" "$dir/old.out" ||
    fail "a cache line without FMA_ROWS was not used with FMA_ROWS=4"
for edit in "s/GROUP_M=[0-9]*/GROUP_M=1,GROUP_M=2/" "s/GROUP_M=[0-9]*/GROUP_M=+1/" \
    "s/\$/\tmore/" "s/\t[0-9.]*\$/\tfast/"; do
    sed "$edit" "$dir/good.txt" >"$cache"
    "$exe" --variant warp_tiled --size $size --reps 1 >"$dir/edit.out" 2>"$dir/edit.err" ||
        fail "a bad cache line ($edit) made the run fail"
    grep -q "matmul_tune.txt line 2 ignored" "$dir/edit.err" || fail "bad line ($edit) not reported"
    grep -q "tuned here" "$dir/edit.out" && fail "a bad cache line ($edit) was used"
done

rm -f "$cache"
OCLT_MATMUL_TUNE=GROUP_M=3 "$exe" --tune=2 --variant warp_tiled --size $size --reps 1 \
    >"$dir/fixed.out" 2>"$dir/fixed.err" || fail "--tune with OCLT_MATMUL_TUNE failed"
[ "$(grep -c "tune     \[[0-9]/2\] .*GROUP_M=3," "$dir/fixed.out")" -eq 2 ] ||
    fail "a --tune candidate did not keep GROUP_M=3 from OCLT_MATMUL_TUNE"
grep -q "not saved in the cache" "$dir/fixed.out" || fail "a narrowed --tune was saved"
[ -e "$cache" ] && fail "a narrowed --tune wrote the cache"

printf "other device\tdriver\tlarge\t%s\t1.0" "$params" >"$cache" # no newline at the end
"$exe" --tune=1 --variant warp_tiled --size $size --reps 1 >"$dir/append.out" 2>"$dir/append.err" ||
    fail "--tune after a cache without a last newline failed"
[ "$(grep -vc '^#' "$cache")" -eq 2 ] || fail "the new entry was not written on a line of its own"
"$exe" --variant warp_tiled --size $size --reps 1 >"$dir/append2.out" 2>"$dir/append2.err" ||
    fail "the run after the appended entry failed"
grep -q "tuned here" "$dir/append2.out" || fail "the appended entry was not used"
exit 0
