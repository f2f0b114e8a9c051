#!/usr/bin/env bash
# ./test.sh [ctest arguments...]
#   Same setup as run.sh (install what is missing, build into build/), then ctest over every
#   chapter. Exit status is non-zero when any test fails. Examples:
#     ./test.sh                     everything
#     ./test.sh -L ch04             all of one chapter's tests (labels: ch01..ch06, usage, oclgrind,
#                                   mutation, solutions, leaks, fake_device, foundation, bad_input,
#                                   docs; ctest --test-dir build --print-labels lists them)
#     ./test.sh -R prime            tests whose name matches a regex (chapter 04's prime sizes)
#     ./test.sh --pocl6 [args]      chapter 06's tests (or these ctest arguments) on PoCL 6.0,
#                                   in the Debian 13 chroot CI uses (see ./run.sh --pocl6)
set -u
cd "$(dirname "$0")" || exit 1
case ${1:-} in
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
if [ "${1:-}" = "--pocl6" ]; then
    shift
    exec ./run.sh --pocl6-tests "$@"
fi
./run.sh --build-only || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
# --no-tests=error: a label or regex that matches nothing (-L ch1) fails instead of passing.
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" "$@"
