#!/usr/bin/env bash
# check_collect.sh BUILD_DIR: runs collect.sh at tiny sizes on the default device into a
# temporary folder and checks that every expected CSV row and every plot file is there.
# Exit 77 (skip) when no python3 with matplotlib is installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import matplotlib" >/dev/null 2>&1; then python=$candidate; break; fi
done
if [ -z "$python" ]; then
    echo "python3 with matplotlib is not installed (apt-get install python3-matplotlib): skipping"
    exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$here/collect.sh" --profile tiny --out "$out" --no-docs --build "$build" || {
    echo "FAIL: collect.sh failed"; exit 1; }
missing=0
expect_row() { # chapter variant-regex
    if ! awk -F, -v c="$1" -v v="^($2)$" 'NR > 1 && $1 == c && $2 ~ v { found = 1 } END { exit !found }' \
            "$out/results.csv"; then
        echo "missing CSV row: $1 $2"
        missing=$((missing + 1))
    fi
}
# Every default variant of every chapter, as --list-variants names them, has a row (some steps
# write one row per part instead: chapter 02's bandwidth per method, chapter 03's scenarios per
# measurement).
# The six chapter programs (not the first program nor the exercises' solutions, which
# collect.sh does not run).
for chapter in 01_platform_query 02_buffers_mapping 03_events_profiling \
               04_reduction_naive_to_cascade 05_matmul_tiled_vector 06_subgroup_builtin; do
    bin="$build/bin/$chapter"
    while read -r variant _; do
        case "$chapter/$variant" in
            02_buffers_mapping/bandwidth)
                for m in write_blocking read_blocking write_nonblocking read_nonblocking \
                         map_write map_read pinned_write pinned_read; do
                    expect_row "$chapter" "$m"
                done ;;
            03_events_profiling/coarse_fine_sync)
                expect_row "$chapter" coarse_sync; expect_row "$chapter" fine_sync ;;
            03_events_profiling/overlap)
                for m in overlap_serial overlap_pipelined; do
                    expect_row "$chapter" "$m"
                done ;;
            03_events_profiling/binaries)
                for m in build_source build_binary build_compile_link; do
                    expect_row "$chapter" "$m"
                done ;;
            03_events_profiling/divergence)
                for m in branch_mixed branch_uniform select_mixed select_uniform; do
                    expect_row "$chapter" "$m"
                done ;;
            03_events_profiling/launch_latency)
                for m in launch_latency launch_run launch_roundtrip; do expect_row "$chapter" "$m"; done ;;
            *) expect_row "$chapter" "$variant(/.*)?" ;;
        esac
    done < <("$bin" --list-variants | grep -v "(only when named)")
done
for plot in ch02_transfer.png ch03_latency_overlap.png ch04_reduction.png ch05_steps.png \
            ch05_roofline.png ch06_variants.png; do
    if [ ! -s "$out/$plot" ]; then echo "missing plot: $plot"; missing=$((missing + 1)); fi
done
for f in meta.txt 01_platform_query.txt 06_subgroup_builtin.txt; do
    [ -s "$out/$f" ] || { echo "missing file: $f"; missing=$((missing + 1)); }
done
echo "$(($(wc -l <"$out/results.csv") - 1)) CSV rows, $missing missing"
[ $missing -eq 0 ]
