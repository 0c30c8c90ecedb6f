#!/usr/bin/env bash
# Runs the Cuda test suite under NVIDIA's compute-sanitizer, once per tool, on the GPU
# machine: memcheck (with leak checking), racecheck, synccheck and initcheck. Every report is
# kept in OUT/sanitize/<tool>.log and counted in OUT/sanitize/summary.txt; the exit code is 0
# only when every tool ran to the end with zero reports.
#
#   tools/gpu/gpu-sanitize.sh [TESTS] [TOOL...]
#     TESTS  a gtest filter (default '*/Cuda.*', every test body on the Cuda backend)
#     TOOL   any of memcheck racecheck synccheck initcheck (default: all four)
#
# UNISON_TESTS names the test programs, space-separated (default every build/cuda/tests/
# unison_tests_*_cuda; ones built on another machine can be copied there, with the shared libraries it needs that the GPU machine lacks in build/prebuilt/lib).
# Environment: UNISON_SANITIZE_TIMEOUT (seconds per tool, default 900), OUT (results folder).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
filter=${1:-'*/Cuda.*'}
shift || true
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
out=${OUT:-build/sanitize}/sanitize
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/prebuilt/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
binaries=${UNISON_TESTS:-$(ls build/cuda/tests/unison_tests_*_cuda)}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
"$sanitizer" --version | tail -n 1 | tee "$out/summary.txt"
status=0
for tool in "${tools[@]}"; do
  extra=()
  case $tool in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report analysis) ;;
  esac
  start=$(date +%s)
  rc=0
  : > "$out/$tool.log"
  : > "$out/$tool.tests.log"
  for binary in $binaries; do
    timeout "${UNISON_SANITIZE_TIMEOUT:-900}" "$sanitizer" --tool "$tool" "${extra[@]}" \
      --error-exitcode 86 --print-limit 50 --log-file "$out/$tool.one.log" \
      "$binary" --gtest_filter="$filter" >> "$out/$tool.tests.log" 2>&1 || rc=$?
    cat "$out/$tool.one.log" >> "$out/$tool.log"
  done
  # compute-sanitizer ends its log with "ERROR SUMMARY: N errors" (racecheck also: hazards).
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$out/$tool.log" | tr '\n' ' ')
  tests=$(grep -E '^\[  (PASSED|FAILED)  \]' "$out/$tool.tests.log" | tr '\n' ' ')
  line="$tool: exit $rc, $(( $(date +%s) - start )) s; ${summary:-no summary}; ${tests:-no test summary}"
  echo "$line" | tee -a "$out/summary.txt"
  [ "$rc" -eq 0 ] || status=1
done
exit "$status"
