#!/usr/bin/env bash
# .ci/pocl6-chroot.sh [ctest arguments...]
# .ci/pocl6-chroot.sh --program NAME [program arguments...]
#
# Runs the test suite on a second OpenCL implementation: PoCL 6.0 from Debian 13 (trixie),
# which has sub-groups and work-group collective functions (Debian 12's PoCL 3.1 has neither).
# The chroot is made once with debootstrap (about a minute and 1.3 GB) and cached in
# $OCLT_CHROOT (default /var/cache/opencl-tutorial/trixie) for later runs on the same machine.
# CI runs this from .ci/run; learners through ./run.sh --pocl6 (--program 06_subgroup_builtin:
# builds only that program and runs it with the given arguments) and ./test.sh --pocl6.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no debootstrap, archive unreachable);
# with --program, the program's own exit status (1 also when the build fails; its 77 means the
# program skipped), and 78 where the chroot could not be set up.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=${OCLT_CHROOT:-/var/cache/opencl-tutorial/trixie}
# python3: the mutation tests (common/tests/mutate.py) run here too.
packages="pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers clinfo cmake gcc libc6-dev make python3"

program=""
if [ "${1:-}" = "--program" ]; then
    program=${2:?--program needs a program name}
    shift 2
fi

say() { printf '[pocl6-chroot] %s\n' "$*"; }
skip() { say "SKIPPED: $*"; [ -n "$program" ] && exit 78; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "making a chroot needs root"

# One run at a time per chroot: runs share its mounts and its /build directory.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9

# The host's Debian mirror when the host is Debian (an Ubuntu mirror has no trixie).
mirror=""
debian_host=0
grep -qs '^ID=debian' /etc/os-release && debian_host=1
sources=/etc/apt/sources.list.d/debian.sources
[ $debian_host -eq 1 ] || sources=/nonexistent
[ -f "$sources" ] && mirror=$(awk '$1 == "URIs:" { print $2; exit }' "$sources")
if [ -z "$mirror" ] && [ $debian_host -eq 1 ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}

mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done
    mounted=()
}
trap unmount_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM # so that the EXIT trap unmounts when CI stops the run
# Mounts left by a run that was killed (this run holds the lock: nobody else uses them).
stale_mounts() { awk -v r="$1" 'index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r; }
for stale in $(stale_mounts "$root") $(stale_mounts "$root.partial"); do
    umount -l "$stale" 2>/dev/null
done
mount_into() { # mount_into <chroot> <source> <target inside> [options]
    mkdir -p "$1$3"
    mount ${4:+-o "$4"} --bind "$2" "$1$3" && mounted+=("$1$3")
}
mount_system() {
    mkdir -p "$1/proc" "$1/sys" "$1/dev"
    mount -t proc proc "$1/proc" && mounted+=("$1/proc")
    mount_into "$1" /sys /sys
    mount_into "$1" /dev /dev
}

if [ ! -f "$root/.ready" ]; then
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "installing debootstrap"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap \
            >/dev/null; } || skip "debootstrap is not installed and could not be installed"
    fi
    build="$root.partial"
    rm -rf "$build"
    mkdir -p "$(dirname "$root")"
    say "step 1/3: creating a Debian trixie chroot in $root from $mirror (about a minute" \
        "and 1.3 GB, once)"
    keyring=()
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
        keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
    if ! debootstrap "${keyring[@]}" --variant=minbase trixie "$build" "$mirror" \
        >"$build.log" 2>&1; then
        tail -n 5 "$build.log"
        rm -rf "$build"
        skip "debootstrap failed (is the Debian archive reachable?)"
    fi
    mount_system "$build"
    say "step 2/3: installing $packages in the chroot"
    if ! chroot "$build" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends $packages" >>"$build.log" 2>&1; then
        tail -n 5 "$build.log"
        unmount_all
        rm -rf "$build"
        skip "could not install PoCL in the chroot (is the Debian archive reachable?)"
    fi
    unmount_all
    echo "$packages" >"$build/.ready"
    mv "$build" "$root"
    rm -f "$build.log"
fi

mount_system "$root"
# A chroot cached by an earlier version of this script may lack packages added since: add them.
if [ "$(cat "$root/.ready")" != "$packages" ]; then
    say "adding packages to the cached chroot: $packages"
    if ! chroot "$root" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends $packages" >"$root.log" 2>&1; then
        tail -n 5 "$root.log"
        skip "could not add packages to the chroot (is the Debian archive reachable?)"
    fi
    echo "$packages" >"$root/.ready"
fi
mount_into "$root" "$here" /src ro || { say "FAIL: cannot mount the source tree"; exit 1; }
say "$(chroot "$root" sh -c 'clinfo -l 2>/dev/null | tr -s " " | tr "\n" " "')"
# Every tree that runs here shares /build, and a copied tree keeps its files' old times, which
# make would take for "up to date": build from scratch (under a minute). PoCL's kernel cache
# lives in the chroot too and is kept, so repeated runs on this machine start warm.
rm -rf "$root/build"
if [ -n "$program" ]; then
    say "building $program from $here and running it on PoCL 6"
    # shellcheck disable=SC2016 # $(nproc) and "$@" expand inside the chroot
    chroot "$root" sh -c '
        program=$1
        shift
        cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release >/build.log 2>&1 &&
        cmake --build /build --target "$program" -j "$(nproc)" >>/build.log 2>&1 ||
            { tail -n 40 /build.log; echo "[pocl6-chroot] FAIL: the build failed"; exit 1; }
        "/build/bin/$program" "$@"' sh "$program" "$@"
    exit $?
fi
# shellcheck disable=SC2016 # $(nproc) and "$@" expand inside the chroot
chroot "$root" env OCLT_REQUIRE_SUBGROUPS=1 sh -c '
    start=$(date +%s)
    cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DOCLT_WERROR=ON >/build.log 2>&1 &&
    cmake --build /build -j "$(nproc)" >>/build.log 2>&1 || { tail -n 40 /build.log; exit 100; }
    echo "[pocl6-chroot] built in $(($(date +%s) - start)) s (log: $0/build.log)"
    ctest --test-dir /build --output-on-failure -j "$(nproc)" "$@"' "$root" "$@"
status=$?
case $status in
    0) say "PASSED on PoCL 6 (Debian trixie)" ;;
    100) say "FAIL: the build failed in the chroot (log: $root/build.log)" ;;
    *) failed=$(cut -d: -f2 "$root/build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null |
                    head -n 5 | tr '\n' ' ')
       say "FAIL: tests failed on PoCL 6${failed:+: $failed}" ;;
esac
exit $((status != 0))
