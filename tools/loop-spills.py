#!/usr/bin/env python3
"""Loops whose body stores vector registers to the stack: reads `objdump -d -C --no-show-raw-insn`
output on stdin and prints, for each function with such a loop, the loop's size in
instructions, its vector arithmetic and its vector stores to and loads from the stack (%rsp or
%rbp), most stores first. A compiler that keeps a kernel's accumulators in memory shows up here
(the Serial probes of the git history)."""
import re
import sys

func = re.compile(r"^[0-9a-f]+ <(.*)>:$")
insn = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
jump = re.compile(r"^j[a-z]+$")
store = re.compile(r"^v?mov[au]p[sd]$|^vmovdq[au](32|64)?$")
vector = re.compile(r"%[yz]mm")

def loops(name, body):
    out = []
    addrs = [a for a, _, _ in body]
    for i, (a, op, args) in enumerate(body):
        if not jump.match(op):
            continue
        t = args.split()[0] if args else ""
        try:
            target = int(t, 16)
        except ValueError:
            continue
        if target >= a or target < addrs[0]:
            continue
        start = next((j for j in range(i, -1, -1) if addrs[j] <= target and (j == 0 or addrs[j - 1] < target)), None)
        if start is None:
            continue
        span = body[start:i + 1]
        if len(span) > 400:
            continue
        arith = sum(1 for _, o, g in span if vector.search(g) and re.match(r"^v(fn?m(add|sub)|add|sub|mul|div|max|min)", o))
        st = sum(1 for _, o, g in span if store.match(o) and vector.search(g) and re.search(r"\(%r[sb]p\)$", g))
        ld = sum(1 for _, o, g in span if store.match(o) and vector.search(g) and re.search(r"\(%r[sb]p\),%[yz]mm", g))
        if st >= 2 and arith >= 4:
            out.append((st, ld, arith, len(span)))
    return out

name, body, found = None, [], []
def flush():
    if name and body:
        for st, ld, arith, n in loops(name, body):
            found.append((st, ld, arith, n, name))
for line in sys.stdin:
    m = func.match(line)
    if m:
        flush()
        name, body = m.group(1), []
        continue
    m = insn.match(line)
    if m and name:
        body.append((int(m.group(1), 16), m.group(2), m.group(3)))
flush()
found.sort(key=lambda f: -f[0])
for st, ld, arith, n, name in found[:60]:
    print(f"{st:3d} stack stores {ld:3d} loads {arith:3d} vector arithmetic in a loop of {n:3d}: {name[:220]}")
print(f"{len(found)} such loops")
