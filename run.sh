#!/usr/bin/env bash
# ./run.sh [chapter options...]
#   Installs what is missing, builds into build/, runs chapters 01 -> 06 on the default device
#   (or the one chosen with -p/-d, passed on to every chapter with any other option), and ends
#   with a one-screen summary. -p, -d, --reps, --seed and --no-check suit every chapter; a
#   chapter that refuses an option (exit 2) stops the run with exit 2.
# ./run.sh --help            this text
# ./run.sh --build-only      install what is missing and build; run nothing (test.sh uses it)
# ./run.sh --pocl6 [chapter 06 options]
#   Runs chapter 06 on PoCL 6.0 (sub-groups, work-group collectives), in the Debian 13 chroot
#   that CI uses (.ci/pocl6-chroot.sh): made once (about a minute and 1.3 GB of disk, needs
#   root or sudo and debootstrap), then reused. ./test.sh --pocl6 runs chapter 06's tests there.
# Environment: OCLT_CMAKE_ARGS (extra cmake arguments, e.g. -DOCLT_WERROR=ON),
#              OCLT_NO_INSTALL=1 (never call the package manager),
#              OCLT_CHROOT (where --pocl6 keeps its chroot; default
#              /var/cache/opencl-tutorial/trixie).
set -u
cd "$(dirname "$0")" || exit 1

chapters=(01_first_program 01_platform_query 02_buffers_mapping 03_events_profiling
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

# Whether apt-get may install packages here: not with OCLT_NO_INSTALL=1, without apt-get, or
# without root or sudo. Sets apt_prefix to "" (root) or "sudo" for the apt-get calls.
apt_prefix=""
can_apt_install() {
    apt_prefix=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && apt_prefix="sudo"
    [ "${OCLT_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null 2>&1 &&
        { [ "$(id -u)" -eq 0 ] || [ -n "$apt_prefix" ]; }
}

# apt-get update, at most once per run.
apt_updated=0
apt_update_once() {
    [ $apt_updated -eq 1 ] && return 0
    $apt_prefix apt-get update -qq >/dev/null 2>&1 && apt_updated=1
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
    if ! can_apt_install; then
        if [ $essential_missing -eq 1 ]; then
            say "cannot install them here; install these packages (or your system's equivalents)" \
                "and run again: ${missing[*]}"
            return 1
        fi
        say "cannot install them here; going on without them"
        return 0
    fi
    say "installing with apt-get: ${missing[*]}"
    if ! { apt_update_once &&
           DEBIAN_FRONTEND=noninteractive $apt_prefix apt-get install -y -qq --no-install-recommends \
               "${missing[@]}" >/dev/null; }; then
        if [ $essential_missing -eq 1 ]; then
            say "apt-get failed; install these packages and run again: ${missing[*]}"
            return 1
        fi
        say "apt-get failed for optional packages (${missing[*]}); going on without them"
    fi
    return 0
}

# Libraries that chapters use when present (chapter 05's CLBlast and OpenBLAS baselines):
# installed one at a time when possible; a failure only makes their rows SKIP.
have_library() {
    case $1 in
        libclblast-dev) any_exists /usr/include/clblast.h /usr/local/include/clblast.h ;;
        libopenblas-dev)
            any_exists /usr/lib/*/libopenblas.so /usr/lib/*/openblas*/libopenblas.so \
                /usr/lib64/libopenblas.so /usr/local/lib/libopenblas.so ;;
    esac
}

install_optional_libraries() {
    local pkg missing=()
    for pkg in libclblast-dev libopenblas-dev; do have_library "$pkg" || missing+=("$pkg"); done
    if [ ${#missing[@]} -eq 0 ]; then
        say "optional libraries present: libclblast-dev, libopenblas-dev"
        return 0
    fi
    if ! can_apt_install; then
        say "optional libraries not installed: ${missing[*]} (cannot install here; chapter" \
            "05's library rows will SKIP)"
        return 0
    fi
    say "installing optional libraries with apt-get: ${missing[*]}"
    apt_update_once
    for pkg in "${missing[@]}"; do
        if DEBIAN_FRONTEND=noninteractive $apt_prefix apt-get install -y -qq --no-install-recommends \
            "$pkg" >/dev/null 2>&1; then
            say "installed $pkg"
        else
            say "could not install $pkg (optional: chapter 05's row for it will SKIP)"
        fi
    done
    return 0
}

# ---- --pocl6: chapter 06 on PoCL 6.0 in the Debian 13 chroot CI uses ------------------------
# pocl6 program|tests ARGS...: checks what the chroot needs (one line and exit 1 when it cannot
# be had), then runs .ci/pocl6-chroot.sh, through sudo when not root.
pocl6() {
    local mode=$1 root=${OCLT_CHROOT:-/var/cache/opencl-tutorial/trixie} sudo="" status
    shift
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            say "--pocl6 needs root or sudo (it makes and enters a chroot); neither is available"
            return 1
        }
        sudo="sudo"
    fi
    if [ -f "$root/.ready" ]; then
        say "--pocl6: PoCL 6.0 chroot ready in $root; building chapter 06 there (under a minute)"
    else
        if ! command -v debootstrap >/dev/null 2>&1 && ! command -v apt-get >/dev/null 2>&1; then
            say "--pocl6 needs debootstrap, which is not installed and cannot be installed" \
                "here (no apt-get)"
            return 1
        fi
        local parent free_kb
        parent=$(dirname "$root")
        while [ ! -d "$parent" ]; do parent=$(dirname "$parent"); done
        free_kb=$(df -Pk "$parent" 2>/dev/null | awk 'NR == 2 { print $4 }')
        if [ -n "$free_kb" ] && [ "$free_kb" -lt 1600000 ]; then
            say "--pocl6 needs about 1.3 GB of disk in $parent; only $((free_kb / 1024)) MB free"
            return 1
        fi
        say "--pocl6: making the PoCL 6.0 chroot in $root, once: about a minute and 1.3 GB" \
            "of disk (later runs reuse it; delete the folder to reclaim the space)"
    fi
    if [ "$mode" = program ]; then
        $sudo env "OCLT_CHROOT=$root" bash .ci/pocl6-chroot.sh --program 06_subgroup_builtin "$@"
    else
        [ $# -gt 0 ] || set -- -L ch06
        $sudo env "OCLT_CHROOT=$root" bash .ci/pocl6-chroot.sh "$@"
    fi
    status=$?
    # 77 from the test suite, 78 with a program (whose own 77 is a skip of its variants): the
    # chroot could not be set up.
    if { [ "$mode" != program ] && [ $status -eq 77 ]; } || [ $status -eq 78 ]; then
        say "--pocl6 could not set up PoCL 6.0 here (the reason is on the line above)"
        return 1
    fi
    return $status
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
        if [ "$ch" = 01_first_program ]; then
            # The raw first program takes only --size and --seed, and writes no CSV.
            "build/bin/$ch"
            status=$?
            case $status in
                0) summary+=("$ch	vector_add	PASS	") ;;
                77) summary+=("$ch	-	SKIP	(no OpenCL platform)") ;;
                *) failures=$((failures + 1))
                   summary+=("$ch	(program)	FAIL	exit status $status") ;;
            esac
            continue
        fi
        "build/bin/$ch" --csv "$csv" "$@"
        status=$?
        local rows
        rows=$(csv_rows "$ch" "$csv" 2>/dev/null)
        [ -n "$rows" ] && summarise_chapter "$ch" "$rows"
        case $status in
            0) ;;
            2) # a usage error: the same options would be refused again, so stop here
               echo "[run.sh] $ch refused the options '$*' (exit 2, the line above). Options" \
                    "go to every chapter: -p, -d, --reps, --seed and --no-check suit all;" \
                    "--size and --variant mean something else in each." >&2
               rm -f "$csv"
               return 2 ;;
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
case ${1:-} in
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --build-only) build_only=1; shift ;;
    --pocl6) shift; pocl6 program "$@"; exit $? ;;
    --pocl6-tests) shift; pocl6 tests "$@"; exit $? ;; # ./test.sh --pocl6
esac
install_missing || exit 1
install_optional_libraries
build || exit 1
[ $build_only -eq 1 ] && exit 0
run_chapters "$@"
