#!/bin/sh
# oclgrind_vector_types.sh PROGRAM [VARIANT]
# types.cl's vector_table under Oclgrind, for what Oclgrind can check there: every memory access,
# data races and API use (--data-races --check-api). The shared common/tests/oclgrind.sh cannot
# be used because of two defects of Oclgrind 21.10 (Debian 12):
#   * its --uninitialized plugin maps shuffle lanes by the width of the result, not of the
#     source: lanes 8..15 of a 16-wide vector read into a narrower one (v.odd, v.hi.odd) are
#     reported as uninitialized, and some such shuffles crash it. The plugin is left out here.
#   * its convert_int_rtp / convert_int_rtn round negative non-integers the wrong way, and its
#     convert_int_sat(NaN) gives INT_MIN where OpenCL C requires 0. The program's comparison
#     with C then fails (exit 1) in exactly those columns; that is accepted, a difference in any
#     other column is not.
# PoCL runs and checks every column (test 02_buffers_mapping.demos). Exit 77 without oclgrind.
# VARIANT (default vector_types) may name another step whose kernels meet the first defect only,
# such as image_bilinear (read_imagef with CLK_FILTER_LINEAR looks uninitialized to the plugin):
# it must then pass outright.
program=$1
variant=${2:-vector_types}
command -v oclgrind >/dev/null 2>&1 || { echo "no oclgrind: skipping (apt-get install oclgrind)"; exit 77; }
log=$(mktemp) err=$(mktemp)
trap 'rm -f "$log" "$err"' EXIT
oclgrind --data-races --check-api --max-errors 20 --log "$log" \
    "$program" --variant "$variant" --size 4K --reps 1 2>"$err"
status=$?
cat "$err"
# --check-api's reports of a refused call go to stderr, not to the log.
if grep -q "OpenCL runtime error detected" "$err"; then
    echo "FAIL: oclgrind reported a refused API call"
    exit 1
fi
if [ -s "$log" ]; then
    echo "---- oclgrind reported:"
    head -n 60 "$log"
    echo "FAIL: oclgrind reported errors"
    exit 1
fi
case $status in
0) echo "PASS: no oclgrind reports, and the program's own check passed"; exit 0 ;;
77) exit 77 ;;
1) [ "$variant" = vector_types ] || { echo "FAIL: $variant failed its check under oclgrind"; exit 1; } ;;
*) echo "FAIL: program exit status $status under oclgrind"; exit 1 ;;
esac
summary=$(grep "table entries differ from C, in:" "$err")
if [ -z "$summary" ]; then
    echo "FAIL: exit status 1 without a table difference (an OpenCL error?)"
    exit 1
fi
unexpected=$(echo "$summary" | grep -o '\[[^]]*\]' |
    grep -v -x -e '\[convert_int_rtp(x)\]' -e '\[convert_int_rtn(x)\]' \
        -e '\[convert_int_sat(big)\]' -e '\[convert_int_sat_rte(big)\]')
if [ -n "$unexpected" ]; then
    echo "FAIL: entries differ in columns Oclgrind is not known to get wrong:" $unexpected
    exit 1
fi
echo "PASS: no oclgrind reports; only Oclgrind's known conversion defects differ from C"
