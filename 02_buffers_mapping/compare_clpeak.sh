#!/bin/sh
# compare_clpeak.sh PROGRAM [-p P -d D] [--size S] [--reps R]
# The benchmark expectation of chapter 02 (not a test): on one device, each transfer figure of
# this chapter at 256 MiB within 15% of what `clpeak --transfer-bandwidth` reports for the same
# test, or the difference explained in docs/02_buffers_mapping.md. Runs both programs and prints
# the pairs side by side. -p/-d are passed to both (clpeak numbers devices within a platform,
# as this chapter does when -p is given). Needs clpeak (Debian: apt-get install clpeak).
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: compare_clpeak.sh PROGRAM [-p P -d D] [--size S] [--reps R]" \
         "(PROGRAM: build/bin/02_buffers_mapping${1:+; '$1' is not an executable})" >&2
    exit 2
fi
program=$1
shift
if ! command -v clpeak >/dev/null 2>&1; then
    echo "clpeak is not installed (Debian/Ubuntu: apt-get install clpeak)"
    exit 77
fi
clpeak_args="" ours_args="--size 256M"
while [ $# -gt 0 ]; do
    case $1 in
    -p | -d) clpeak_args="$clpeak_args $1 $2"; ours_args="$ours_args $1 $2"; shift 2 ;;
    *) ours_args="$ours_args $1"; shift ;;
    esac
done
clpeak_out=$(mktemp) csv=$(mktemp)
trap 'rm -f "$clpeak_out" "$csv"' EXIT
rm -f "$csv"
echo "clpeak --transfer-bandwidth$clpeak_args"
# shellcheck disable=SC2086
clpeak --transfer-bandwidth $clpeak_args >"$clpeak_out" 2>&1 || { cat "$clpeak_out"; exit 1; }
grep -E "Device|Driver" "$clpeak_out"
echo "$program --variant bandwidth $ours_args"
# shellcheck disable=SC2086
"$program" --variant bandwidth $ours_args --csv "$csv" >/dev/null || exit 1
# The pairs: clpeak's label, then this chapter's CSV variant for the same measurement.
awk -F, -v pairs='enqueueWriteBuffer=write_blocking;enqueueReadBuffer=read_blocking;enqueueWriteBuffer non-blocking=write_nonblocking;enqueueReadBuffer non-blocking=read_nonblocking;enqueueMapBuffer(for read)=map_read/map;memcpy from mapped ptr=map_read/memcpy;enqueueUnmap(after write)=map_write/unmap;memcpy to mapped ptr=map_write/memcpy' '
    FNR == 1 { file++ }
    file == 1 && index($0, ":") {          # clpeak: "label : value"
        split($0, kv, ":"); k = kv[1]; v = kv[2]
        gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/[ \t]/, "", v); theirs[k] = v
    }
    file == 2 && FNR > 1 && $7 == "GB/s" { # ours: the CSV rows of the largest size
        if ($4 + 0 > size) { size = $4 + 0; delete ours }
        if ($4 + 0 == size) ours[$2] = $6
    }
    END {
        n = split(pairs, list, ";")
        for (i = 1; i <= n; ++i) {
            split(list[i], p, "="); label[i] = p[1]; variant[i] = p[2]
            t = theirs[label[i]] + 0; o = ours[variant[i]] + 0
            if (i <= 4 || label[i] ~ /memcpy/) { if (t > real_t) real_t = t; if (o > real_o) real_o = o }
        }
        printf "\n%-32s %12s %12s %8s  %s\n", "clpeak test", "clpeak GB/s", "ours GB/s", "ours/cl",
               "ours (CSV variant at " size " bytes)"
        for (i = 1; i <= n; ++i) {
            t = theirs[label[i]] + 0; o = ours[variant[i]] + 0
            if (t <= 0 || o <= 0) { printf "%-32s %12s %12s %8s  %s: missing\n", label[i], "-", "-", "-", variant[i]; continue }
            r = o / t
            verdict = (r >= 0.85 && r <= 1.15) ? "within 15%" : "differs by more than 15%"
            # Like newer clpeak versions: a map/unmap 5x faster than any real transfer moved no data.
            if (t > 5 * real_t && o > 5 * real_o) verdict = "zero-copy in both: no data moved"
            printf "%-32s %12.2f %12.2f %8.2f  %s: %s\n", label[i], t, o, r, variant[i], verdict
        }
    }' "$clpeak_out" "$csv"
