#!/usr/bin/env python3
"""The opcodes of the device functions whose names contain PATTERN, counted, from `cuobjdump -sass`
output on stdin: one line per function (its instructions in all) and the most frequent opcodes.
Usage: cuobjdump -sass BINARY | sass-ops.py PATTERN [TOP]"""
import re
import sys

pattern = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
text = sys.stdin.read()
for part in re.split(r"\n\s*Function : ", text)[1:]:
    name = part.split("\n", 1)[0]
    if pattern not in name:
        continue
    ops = {}
    for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)", part):
        op = m.group(1) + m.group(2)
        ops[op] = ops.get(op, 0) + 1
    print(f"{sum(ops.values())} instructions: {name[:160]}")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items(), key=lambda x: -x[1])[:top]))
