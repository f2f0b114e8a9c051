#!/usr/bin/env bash
# ./run.sh [chapter options...]
#   Installs what is missing, builds into build/, runs chapters 01 -> 06 on the default device
#   (or the one chosen with -p/-d, passed on to every chapter with any other option), and ends
#   with a one-screen summary.
# ./run.sh --build-only      install what is missing and build; run nothing (test.sh uses it)
# Environment: OCLT_CMAKE_ARGS (extra cmake arguments, e.g. -DOCLT_WERROR=ON),
#              OCLT_NO_INSTALL=1 (never call the package manager).
set -u
cd "$(dirname "$0")" || exit 1

chapters=(01_platform_query 02_buffers_mapping 03_events_profiling
          04_reduction_naive_to_cascade 05_matmul_tiled_vector 06_subgroup_builtin)

say() { printf '[run.sh] %s\n' "$*"; }

# ---- 1. Install what is missing ---------------------------------------------------------------
any_exists() {
    local f
    for f in "$@"; do [ -e "$f" ] && return 0; done
    return 1
}

# Each line: package, then the test that tells it is already there.
have_package_needs() {
    case $1 in
        gcc) command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 ;;
        make) command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1 ;;
        cmake) command -v cmake >/dev/null 2>&1 ;;
        opencl-c-headers) [ -f /usr/include/CL/cl.h ] || [ -f /usr/local/include/CL/cl.h ] ;;
        ocl-icd-opencl-dev)
            any_exists /usr/lib/*/libOpenCL.so /usr/lib/libOpenCL.so /usr/lib64/libOpenCL.so \
                /usr/local/lib/libOpenCL.so ;;
        pocl-opencl-icd)
            any_exists /etc/OpenCL/vendors/*pocl*.icd ||
                { command -v dpkg-query >/dev/null 2>&1 &&
                  dpkg-query -W -f='${Status}' pocl-opencl-icd 2>/dev/null | grep -q 'ok installed'; } ;;
        clinfo) command -v clinfo >/dev/null 2>&1 ;;
    esac
}

# What the build cannot do without (clinfo and PoCL are wanted, but another driver will do).
essential() { case $1 in gcc|make|cmake|opencl-c-headers|ocl-icd-opencl-dev) return 0 ;; esac; return 1; }

install_missing() {
    local missing=() essential_missing=0 pkg
    for pkg in gcc make cmake opencl-c-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo; do
        if ! have_package_needs "$pkg"; then
            missing+=("$pkg")
            essential "$pkg" && essential_missing=1
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        say "all prerequisites present; nothing to install"
        return 0
    fi
    # pocl-opencl-icd is not needed when some other OpenCL driver is installed.
    if [ $essential_missing -eq 0 ] && any_exists /etc/OpenCL/vendors/*.icd; then
        say "optional packages missing: ${missing[*]} (an OpenCL driver is already installed)"
    else
        say "missing: ${missing[*]}"
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
    fi
    if [ "${OCLT_NO_INSTALL:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1 ||
       { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
        if [ $essential_missing -eq 1 ]; then
            say "cannot install them here; install these packages (or your system's equivalents)" \
                "and run again: ${missing[*]}"
            return 1
        fi
        say "cannot install them here; going on without them"
        return 0
    fi
    say "installing with apt-get: ${missing[*]}"
    if ! { $sudo apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
               "${missing[@]}" >/dev/null; }; then
        if [ $essential_missing -eq 1 ]; then
            say "apt-get failed; install these packages and run again: ${missing[*]}"
            return 1
        fi
        say "apt-get failed for optional packages (${missing[*]}); going on without them"
    fi
    return 0
}

# ---- 2. Configure and build ---------------------------------------------------------------
build() {
    local jobs
    jobs=$(nproc 2>/dev/null || echo 2)
    # shellcheck disable=SC2086
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${OCLT_CMAKE_ARGS:-} >build.log 2>&1 &&
        cmake --build build -j "$jobs" >>build.log 2>&1
    local status=$?
    if [ $status -ne 0 ]; then
        tail -n 40 build.log
        say "build failed (full log: build.log)"
        return 1
    fi
    say "built into build/ (log: build.log)"
}

# ---- 3. Run the chapters and summarise -------------------------------------------------------
# Prints "variant|check|figure|unit" for each CSV row of one chapter (fields may be quoted).
csv_rows() {
    awk -v chapter="$1" '
        function field(line, n,    i, c, f, quoted, count, out) {
            count = 1; out = ""; quoted = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (quoted) {
                    if (c == "\"") {
                        if (substr(line, i + 1, 1) == "\"") { if (count == n) out = out c; i++ }
                        else quoted = 0
                    } else if (count == n) out = out c
                } else if (c == "\"") quoted = 1
                else if (c == ",") count++
                else if (count == n) out = out c
            }
            return out
        }
        NR > 1 && field($0, 1) == chapter {
            printf "%s|%s|%s|%s\n", field($0, 2), field($0, 8), field($0, 6), field($0, 7)
        }' "$2"
}

# Adds one chapter's CSV rows to the summary, keeping it to one screen: checks without a
# figure that passed become one line; a variant measured at several sizes keeps its last
# (largest) size; parts of a measurement ("map_read/memcpy" beside "map_read") are left out.
summarise_chapter() {
    local ch=$1 rows=$2 variant check figure unit passed=() order=() v
    declare -A line=()
    while IFS='|' read -r variant check figure unit; do
        if [ -z "$figure" ] && [ "$check" = PASS ]; then
            passed+=("$variant")
            continue
        fi
        [ -n "$figure" ] && printf -v figure '%.2f %s' "$figure" "$unit"
        [ -n "${line[$variant]+x}" ] || order+=("$variant")
        line[$variant]="$ch	$variant	$check	$figure"
    done <<<"$rows"
    if [ ${#passed[@]} -gt 0 ]; then
        local names="${passed[*]}"
        [ ${#names} -gt 60 ] && names="${names:0:57}..."
        summary+=("$ch	${#passed[@]} checks	PASS	$names")
    fi
    for v in "${order[@]}"; do
        [[ $v == */* && -n "${line[${v%%/*}]+x}" ]] && continue
        summary+=("${line[$v]}")
    done
}

run_chapters() {
    local csv status ch summary=() failures=0
    csv=$(mktemp)
    rm -f "$csv"
    for ch in "${chapters[@]}"; do
        if [ ! -x "build/bin/$ch" ]; then
            summary+=("$ch	-	not built	")
            continue
        fi
        echo
        echo "================================ $ch ================================"
        "build/bin/$ch" --csv "$csv" "$@"
        status=$?
        local rows
        rows=$(csv_rows "$ch" "$csv" 2>/dev/null)
        [ -n "$rows" ] && summarise_chapter "$ch" "$rows"
        case $status in
            0) ;;
            77) [ -z "$rows" ] && summary+=("$ch	-	SKIP	(no device or feature)") ;;
            *) failures=$((failures + 1))
               summary+=("$ch	(program)	FAIL	exit status $status") ;;
        esac
        if grep -q "FAIL" <<<"$rows"; then failures=$((failures + 1)); fi
    done
    rm -f "$csv"
    echo
    echo "Summary"
    printf '%-31s %-28s %-10s %s\n' chapter variant check "headline figure"
    local line
    for line in "${summary[@]}"; do
        IFS=$'\t' read -r ch variant check figure <<<"$line"
        printf '%-31s %-28s %-10s %s\n' "$ch" "$variant" "$check" "$figure"
    done
    return $((failures > 0))
}

build_only=0
if [ "${1:-}" = "--build-only" ]; then
    build_only=1
    shift
fi
install_missing || exit 1
build || exit 1
[ $build_only -eq 1 ] && exit 0
run_chapters "$@"
