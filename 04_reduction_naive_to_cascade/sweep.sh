#!/bin/sh
# sweep.sh PROGRAM CSV [--rounds R] [--from K] [--to K] [-- chapter options]
# GB/s against n for n = 2^K, K = from..to (default 10..28): stream_read, reduce6, reduce7 and the
# advanced variants (SKIP where the device lacks them), float, both figures (kernel time and end
# to end), appended to CSV (the chapter's --csv format; docs/results/render.py plots it). Each
# round runs every size once, so the rounds are interleaved in time and a drift of the machine
# hits all sizes alike; render.py keeps the best round of each point.
# Example: 04_reduction_naive_to_cascade/sweep.sh build/bin/04_reduction_naive_to_cascade \
#              ch04_sweep.csv --rounds 3 -- -p nvidia
program=$1 csv=$2
[ -x "$program" ] && [ -n "$csv" ] || { echo "usage: sweep.sh PROGRAM CSV [--rounds R] [--from K] [--to K] [-- ARGS]" >&2; exit 2; }
shift 2
rounds=1 from=10 to=28
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        --to) to=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "sweep.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
variants=stream_read,reduce6,reduce7,reduce6_warp,reduce6_subgroup
status=0
round=1
while [ "$round" -le "$rounds" ]; do
    k=$from
    while [ "$k" -le "$to" ]; do
        # More repetitions where a run is short, so that each point is a median of many.
        reps=50
        [ "$k" -ge 24 ] && reps=20
        "$program" --type float --size "2^$k" --reps "$reps" --variant "$variants" --csv "$csv" \
            "$@" >/dev/null 2>&1
        rc=$?
        echo "round $round n=2^$k: exit status $rc"
        case $rc in 0|77) ;; *) status=1 ;; esac
        k=$((k + 1))
    done
    round=$((round + 1))
done
exit $status
