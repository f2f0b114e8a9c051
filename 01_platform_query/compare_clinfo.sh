#!/bin/sh
# compare_clinfo.sh PROGRAM: the values chapter 01 prints for its chosen device must equal what
# `clinfo --raw` reports for the device of the same name. Exit 77 (skip) without clinfo.
program=$1
if ! command -v clinfo >/dev/null 2>&1; then
    echo "clinfo is not installed: skipping (Debian/Ubuntu: apt-get install clinfo)"
    exit 77
fi
ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
# PoCL derives CL_DEVICE_GLOBAL_MEM_SIZE from the memory free at the moment, so the two programs
# can see different values on a busy machine: compare up to three times before calling it a
# difference.
for attempt in 1 2 3; do
    "$program" --size 1024 --reps 1 >"$ours"
    case $? in
    0) ;;
    77) echo "no OpenCL device: skipping"; exit 77 ;;
    *) echo "chapter 01 failed"; exit 1 ;;
    esac
    clinfo --raw >"$theirs"
    # The block after "Chosen device" holds "  CL_NAME value" lines.
    value() { sed -n '/^Chosen device/,$p' "$ours" | awk -v key="$1" '$1 == key { $1 = ""; sub(/^ +/, ""); print; exit }'; }
    name=$(value CL_DEVICE_NAME)
    [ -n "$name" ] || { echo "no chosen-device block in the output"; exit 1; }
    # clinfo prefixes each device line with [PLATFORM/INDEX]; find the tag of our device.
    # (value() rebuilds the line from its fields, which squeezes runs of spaces: squeeze clinfo's
    # name the same way before comparing.)
    tag=$(awk -v name="$name" '$2 == "CL_DEVICE_NAME" { line = $0; sub(/^[^ ]+ +CL_DEVICE_NAME +/, "", line); gsub(/ +/, " ", line); sub(/ $/, "", line); if (line == name) { print $1; exit } }' "$theirs")
    [ -n "$tag" ] || { echo "clinfo does not list a device named '$name'"; exit 1; }
    status=0
    for key in CL_DEVICE_MAX_COMPUTE_UNITS CL_DEVICE_MAX_WORK_GROUP_SIZE CL_DEVICE_LOCAL_MEM_SIZE CL_DEVICE_GLOBAL_MEM_SIZE; do
        mine=$(value $key)
        ref=$(awk -v tag="$tag" -v key="$key" '$1 == tag && $2 == key { print $3; exit }' "$theirs")
        if [ "$mine" = "$ref" ] && [ -n "$mine" ]; then
            echo "ok    $key = $mine"
        else
            echo "DIFF  $key: chapter 01 says '$mine', clinfo says '$ref'"
            status=1
        fi
    done
    echo "device: $name ($tag), attempt $attempt"
    [ $status -eq 0 ] && exit 0
done
exit 1
