#!/usr/bin/env bash
# Registers, shared memory, stack and local memory of Unison's kernels in build/cuda (from
# cuobjdump), and whether any of them touches local memory (LDL/STL in the SASS).
# Usage: tools/gpu/gpu-resources.sh [binary] [kernel name regex]
bin=${1:-build/cuda/benchmarks/unison-bench-cases}
pattern=${2:-unison}
cuobjdump -res-usage "$bin" 2>/dev/null | python3 -c '
import re, subprocess, sys
pattern = re.compile(sys.argv[1])
lines = sys.stdin.read().splitlines()
for a, b in zip(lines, lines[1:]):
    m = re.match(r"\s*Function (\S+):", a)
    if not m:
        continue
    name = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
    if not pattern.search(name):
        continue
    kernel = re.search(r"unison::detail::(\w+)<", name)
    layout = "Left" if "LayoutLeft" in name else "Right"
    value = "double" if "double" in name else "float"
    print(f"{kernel.group(1) if kernel else name[:60]:<20} {value:<6} {layout:<5} {b.strip()}")
' "$pattern" | sort | uniq
