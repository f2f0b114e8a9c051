#!/bin/sh
# --tune and its cache, end to end, in a private cache folder (XDG_CACHE_HOME):
#   1. --tune=2 on a tiny problem finishes, prints the winner and writes the cache;
#   2. the next run reads the cache and uses exactly the cached parameters;
#   3. a corrupt line is reported on stderr and ignored, the good line still used;
#   4. a cached entry that breaks a constraint is reported and ignored (the defaults are used);
#   5. an entry written before FMA_ROWS existed is used, with FMA_ROWS=4 (the order it was tuned
#      with).
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
exit 0
