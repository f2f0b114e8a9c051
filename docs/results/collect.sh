#!/usr/bin/env bash
# docs/results/collect.sh [options] [-- chapter options]
#
# Runs chapters 01-06 with --csv on one device and keeps everything the docs show about it in
# docs/results/<name>/: results.csv (every row), <chapter>.txt (each program's output),
# clpeak.txt (when clpeak is installed), meta.txt (device, driver, date, commands). Then
# render.py draws the plots and rewrites the results blocks of the chapter pages from all the
# devices under docs/results/. Another device's results go to another folder, so adding one
# never touches the others.
#
#   --name NAME        folder name under docs/results (default: from the device name)
#   --profile P        cpu | gpu | tiny: the sizes to run (default: gpu for a GPU, else cpu)
#   --out DIR          write the results to DIR instead of docs/results/<name>
#   --build DIR        where the programs are (default: build, built by ./run.sh --build-only)
#   --no-docs          draw the plots into the results folder but leave the docs pages alone
#   --no-render        do not run render.py at all
#   -- ARGS            passed to every chapter, e.g. -- -p NVIDIA -d 0
#
# Example: docs/results/collect.sh --name nvidia-h200 -- -p nvidia
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name="" profile="" out="" build="$top/build" docs=1 render=1
while [ $# -gt 0 ]; do
    case $1 in
        --name) name=$2; shift 2 ;;
        --profile) profile=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --no-docs) docs=0; shift ;;
        --no-render) render=0; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "collect.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
chapter_args=("$@")
bin="$build/bin"
[ -x "$bin/01_platform_query" ] || {
    echo "collect.sh: no programs in $bin: build first (./run.sh --build-only)" >&2; exit 2; }
case ${profile:-auto} in auto|cpu|gpu|tiny) ;; *)
    echo "collect.sh: --profile must be cpu, gpu or tiny" >&2; exit 2 ;; esac

# The chosen device, as chapter 01 reports it.
probe=$("$bin/01_platform_query" --size 64 --reps 1 "${chapter_args[@]}" 2>/dev/null)
device=$(sed -n 's/^  CL_DEVICE_NAME  *//p' <<<"$probe" | head -n 1)
[ -n "$device" ] || { echo "collect.sh: chapter 01 found no device" >&2; exit 1; }
device_type=$(sed -n 's/^  CL_DEVICE_TYPE  *//p' <<<"$probe" | head -n 1)
platform=$(sed -n 's/^  platform \(.*\) (driver .*/\1/p' <<<"$probe" | head -n 1)
driver=$(sed -n 's/^  platform .* (driver \(.*\))$/\1/p' <<<"$probe" | head -n 1)
indices=$(sed -n 's/^  clpeak\/clinfo indices  *//p' <<<"$probe" | head -n 1)
if [ -z "$profile" ]; then
    case $device_type in *GPU*) profile=gpu ;; *) profile=cpu ;; esac
fi
# PoCL lets its worker threads migrate between cores unless POCL_AFFINITY=1 pins them. Unpinned,
# about half the runs of chapter 05 on a 2-core machine stayed slow for the whole run (155-210
# against 268-284 GFLOP/s; the cause is not traced: docs/appendix_driver_quirks.md). Pinned,
# the figures repeat.
case $platform in *Portable*) export POCL_AFFINITY=${POCL_AFFINITY:-1} ;; esac
[ -n "$name" ] || name=$(tr 'A-Z' 'a-z' <<<"$device" | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
[ -n "$out" ] || out="$here/$name"
mkdir -p "$out" || exit 1
rm -f "$out/results.csv" "$out"/*.txt

# What each chapter runs, per profile. The sizes are the ones the docs discuss.
runs() {
    case $profile in
    tiny)
        echo "01_platform_query --size 1000 --reps 1"
        echo "02_buffers_mapping --size 64K --reps 1"
        echo "03_events_profiling --size 4096 --reps 1"
        echo "04_reduction_naive_to_cascade --size 100003 --reps 1"
        echo "05_matmul_tiled_vector --size 64 --reps 1"
        echo "06_subgroup_builtin --size 100003 --reps 1"
        ;;
    cpu)
        echo "01_platform_query"
        echo "02_buffers_mapping --size 256M --reps 5"
        echo "03_events_profiling --reps 5"
        echo "04_reduction_naive_to_cascade --size 2^26 --reps 10"
        echo "05_matmul_tiled_vector --size 1024 --reps 3"
        echo "05_matmul_tiled_vector --size 2048 --reps 3"
        echo "06_subgroup_builtin --size 2^20 --reps 50"
        echo "06_subgroup_builtin --size 2^26 --reps 10"
        ;;
    gpu)
        echo "01_platform_query"
        echo "02_buffers_mapping --size 256M --reps 10"
        echo "03_events_profiling --reps 10"
        echo "04_reduction_naive_to_cascade --size 2^28 --reps 20"
        echo "05_matmul_tiled_vector --size 1024 --reps 5"
        echo "05_matmul_tiled_vector --size 2048 --reps 5"
        echo "05_matmul_tiled_vector --size 4096 --reps 5"
        echo "05_matmul_tiled_vector --size 4097 --reps 5"
        echo "05_matmul_tiled_vector --size 8192 --reps 5"
        echo "05_matmul_tiled_vector --size 8192x8192x1024 --reps 5"
        echo "06_subgroup_builtin --size 2^20 --reps 50"
        echo "06_subgroup_builtin --size 2^28 --reps 20"
        ;;
    esac
}

status=0
commands=()
while read -r chapter args; do
    if [ ! -x "$bin/$chapter" ]; then
        echo "collect.sh: $chapter is not built; skipping it"
        continue
    fi
    # shellcheck disable=SC2086 # args is a list of options
    cmd=("$bin/$chapter" $args --csv "$out/results.csv" "${chapter_args[@]}")
    commands+=("$chapter $args ${chapter_args[*]}")
    echo "== $chapter $args ${chapter_args[*]}"
    start=$(date +%s)
    "${cmd[@]}" >>"$out/$chapter.txt" 2>&1
    rc=$?
    echo "   exit status $rc, $(($(date +%s) - start)) s"
    case $rc in 0|77) ;; *) status=1 ;; esac
done < <(runs)

# cuBLAS (torch.mm, TF32 off) at chapter 05's GPU sizes, in the same session, where torch with
# CUDA is installed: rows `cublas` in results.csv (05_matmul_tiled_vector/cublas_reference.py).
if [ "$profile" = gpu ] && python3 -c "import torch; assert torch.cuda.is_available()" \
    >/dev/null 2>&1; then
    shapes=$(sed -n 's/^05_matmul_tiled_vector,[a-z_0-9]*,[^,]*,\([0-9x]*\),.*/\1/p' \
        "$out/results.csv" | sort -u)
    if [ -n "$shapes" ]; then
        echo "== cublas_reference.py $(echo $shapes)"
        # shellcheck disable=SC2086 # one argument per shape
        python3 "$top/05_matmul_tiled_vector/cublas_reference.py" "$out/results.csv" "$device" \
            $shapes >"$out/cublas.txt" 2>&1 || echo "   cuBLAS reference failed; see cublas.txt"
        commands+=("05_matmul_tiled_vector/cublas_reference.py $(echo $shapes)")
    fi
fi

# Chapter 04's GB/s against n, 2^10..2^28, in interleaved rounds (render.py keeps the best of
# each point), and where torch with CUDA is installed, torch.sum (CUB) timed the same way right
# after it on the same GPU (04_reduction_naive_to_cascade/torch_sum_reference.py).
if [ "$profile" != tiny ] && [ -x "$bin/04_reduction_naive_to_cascade" ]; then
    rm -f "$out/ch04_sweep.csv" "$out/ch04_cub.csv"
    echo "== 04_reduction_naive_to_cascade/sweep.sh --rounds 3 ${chapter_args[*]}"
    "$top/04_reduction_naive_to_cascade/sweep.sh" "$bin/04_reduction_naive_to_cascade" \
        "$out/ch04_sweep.csv" --rounds 3 -- "${chapter_args[@]}" >"$out/ch04_sweep.txt" 2>&1 ||
        { echo "   sweep failed; see ch04_sweep.txt"; status=1; }
    commands+=("04_reduction_naive_to_cascade/sweep.sh --rounds 3 ${chapter_args[*]}")
    if [ "$profile" = gpu ] && python3 -c "import torch; assert torch.cuda.is_available()" \
        >/dev/null 2>&1; then
        echo "== torch_sum_reference.py"
        python3 "$top/04_reduction_naive_to_cascade/torch_sum_reference.py" "$out/ch04_cub.csv" \
            >>"$out/ch04_sweep.txt" 2>&1 || echo "   torch.sum reference failed; see ch04_sweep.txt"
    fi
fi

# clpeak's view of the same device, for the figures the chapters are compared with.
clpeak=${CLPEAK:-clpeak}
if [ "$profile" != tiny ] && command -v "$clpeak" >/dev/null 2>&1 && [ -n "$indices" ]; then
    echo "== clpeak $indices"
    # shellcheck disable=SC2086 # indices is "-p P -d D"
    timeout 900 "$clpeak" $indices --global-bandwidth --compute-sp --transfer-bandwidth \
        --kernel-latency >"$out/clpeak.txt" 2>&1 || echo "   clpeak failed; see clpeak.txt"
fi

{
    echo "name=$name"
    echo "device=$device"
    echo "platform=$platform"
    echo "driver=$driver"
    echo "date=$(date -u +%Y-%m-%d)"
    echo "profile=$profile"
    [ -n "${POCL_AFFINITY:-}" ] && echo "environment=POCL_AFFINITY=$POCL_AFFINITY"
    echo "host=$(uname -srm), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
    for c in "${commands[@]}"; do echo "command=$c"; done
} >"$out/meta.txt"
echo "results in $out"

if [ $render -eq 1 ]; then
    # A python3 that has matplotlib (the system one may, where a pyenv or venv one does not).
    python=""
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c "import matplotlib" >/dev/null 2>&1; then python=$candidate; break; fi
    done
    if [ -z "$python" ]; then
        echo "collect.sh: plots need python3 with matplotlib (Debian/Ubuntu: apt-get install" \
            "python3-matplotlib); results are in $out, not rendered" >&2
        exit 1
    fi
    render_args=()
    [ $docs -eq 1 ] || render_args+=(--no-docs)
    "$python" "$here/render.py" "${render_args[@]}" "$out" || status=1
fi
exit $status
