#!/usr/bin/env bash
# Fuzzes the .npy parser for SECONDS (default 60) with libFuzzer, from the seed corpus in
# tests/fuzz/corpus, after first replaying every seed and every past finding
# (tests/fuzz/regressions/). Every input is limited to 10 s and the process to 512 MB of memory
# (-rss_limit_mb; -malloc_limit_mb for any one allocation): the parser allocates no more than
# its input. Exit code 0: nothing found. A finding is written to build/fuzz/artifacts/; add it to
# tests/fuzz/regressions/ (and a test to tests/test_npy.cpp) once fixed. Needs clang++ with its libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
#   bash tests/fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=build/fuzz
CXX=${UNISON_FUZZ_CXX:-clang++} cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build"
mkdir -p "$build/corpus" "$build/artifacts"
# Replay: every seed and every past finding, once each.
limits=(-timeout=10 -rss_limit_mb=512 -malloc_limit_mb=512)
"$build/npy_fuzz" "${limits[@]}" -runs=0 tests/fuzz/corpus tests/fuzz/regressions 2>&1 | tail -n 2
# Fuzz: new inputs go to build/fuzz/corpus (the first directory); the seeds are read only.
rc=0
"$build/npy_fuzz" -max_total_time="$seconds" "${limits[@]}" -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" "$build/corpus" tests/fuzz/corpus \
  > "$build/fuzz.log" 2>&1 || rc=$?
grep -E '^Done|stat::number_of_executed_units|ERROR|SUMMARY|artifact' "$build/fuzz.log" || true
if [ "$rc" -ne 0 ]; then tail -n 40 "$build/fuzz.log"; echo "npy_fuzz: finding, exit $rc" >&2; fi
exit "$rc"
