#!/usr/bin/env bash
# Runs the test programs of a build's tests folder one after the other, with the same Google Test
# options, and says how many passed (CTest runs them with their own filters: ctest --test-dir).
#   tools/run-tests.sh DIR [PATTERN] [-- gtest options...]
#     DIR      a build's tests folder (build/cuda/tests)
#     PATTERN  which programs: a glob on their names (default unison_tests_*: every one)
# Exit status: 1 if any program failed, else 0.
set -uo pipefail
dir=${1:?usage: run-tests.sh DIR [PATTERN] [-- gtest options...]}
shift
pattern='unison_tests_*'
if [ $# -gt 0 ] && [ "$1" != -- ]; then pattern=$1; shift; fi
[ "${1:-}" = -- ] && shift
status=0 programs=0 failed=0
for program in "$dir"/$pattern; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  programs=$((programs + 1))
  echo "=== $(basename "$program")"
  if ! "$program" "$@"; then status=1 failed=$((failed + 1)); fi
done
echo "run-tests.sh: $programs programs, $failed failed"
[ "$programs" -gt 0 ] || status=1
exit $status
