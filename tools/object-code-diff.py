#!/usr/bin/env python3
"""Compares the machine code of two builds function by function, for a change meant to move code
without changing it.

    tools/object-code-diff.py BEFORE AFTER [--rename OLD=NEW ...] [--kernels] [--unnumbered] [--list N]

BEFORE, AFTER: an object file each, or several joined by commas (a source split into several
files: the functions of each side are pooled). Each function's instructions come from
`objdump -d -r -C`, with addresses, offsets into functions and sections, and local labels read
away; --rename replaces OLD by NEW in the names of BEFORE's functions and their callees (a
namespace renamed). --kernels compares the kernels only: functors' operator() and Kokkos's parallel
dispatch. Prints how many functions are identical, differ, or are found on one side only, and the
first N (default 10) of each list. --unnumbered reads away the numbers of lambdas ("{lambda(...)#3}"),
which shift when a function gains or loses a lambda, in names and calls alike, and counts the
functions of AFTER that have an identical twin (same name and code) in BEFORE; with --kernels, the
kernels are Kokkos's parallel dispatch and the operator() of every functor outside the benchmark
harness (unison::bench's lambdas and std::function's handlers are host code). With --unnumbered,
--registers sorts the functions of AFTER without a twin by how far they are from BEFORE's function
of the same name: the same but for padding (no-ops) and register names, the same instructions in
another order (the same count of each mnemonic), or other instructions; GCC's register allocation
and scheduling move with the rest of a translation unit even where a function's source is unchanged.
"""
import argparse
import collections
import re
import subprocess


def functions(paths, renames):
    found = {}
    for path in paths.split(","):
        text = subprocess.run(["objdump", "-d", "-r", "-C", "--no-show-raw-insn", path],
                              capture_output=True, text=True, check=True).stdout
        body = None
        for line in text.splitlines():
            head = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
            if head:
                name = head.group(1)
                for old, new in renames:
                    name = name.replace(old, new)
                body = [] if name not in found else None
                if body is not None:
                    found[name] = body
                continue
            if body is None or not line.strip() or line.startswith("Disassembly"):
                continue
            insn = re.sub(r"^\s*[0-9a-f]+:\s*", "", line)
            insn = re.sub(r"\b[0-9a-f]+ <", "<", insn)
            insn = re.sub(r"<\.L[^>]*>", "<.L>", insn)
            insn = re.sub(r"\+0x[0-9a-f]+>", "+X>", insn)
            insn = re.sub(r"\.LC\d+|\.L\w+", ".L", insn)
            insn = re.sub(r"(\.rodata|\.bss|\.data|\.text)[\w.]*\+0x[0-9a-f]+", r"\1+X", insn)
            insn = re.sub(r"R_X86_64_\w+\s+(\.rodata|\.L)\S*", "R const", insn)
            for old, new in renames:
                insn = insn.replace(old, new)
            body.append(insn)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    parser.add_argument("--kernels", action="store_true")
    parser.add_argument("--unnumbered", action="store_true")
    parser.add_argument("--list", type=int, default=10)
    parser.add_argument("--registers", action="store_true")
    args = parser.parse_args()
    renames = [tuple(r.split("=", 1)) for r in args.rename]
    a, b = functions(args.before, renames), functions(args.after, [])
    if args.unnumbered:
        return unnumbered(a, b, args)
    kernel = re.compile(r"Kokkos::Impl::Parallel\w*<.*>::(execute|exec_range|exec_team|exec_work)"
                        r"|operator\(\)")
    names = [n for n in a if not args.kernels or kernel.search(n)]
    same = [n for n in names if n in b and a[n] == b[n]]
    differ = [n for n in names if n in b and a[n] != b[n]]
    gone = [n for n in names if n not in b]
    new = [n for n in b if n not in a and (not args.kernels or kernel.search(n))]
    print(f"{args.after}: {len(same)} functions identical, {len(differ)} differ, "
          f"{len(gone)} only before, {len(new)} only after")
    for label, items in (("differs", differ), ("only before", gone), ("only after", new)):
        for n in items[:args.list]:
            print(f"  {label}: {n[:200]}")


def unnumbered(a, b, args):
    strip = lambda text: re.sub(r"#\d+\}", "#}", text)
    dispatch = re.compile(r"Kokkos::Impl::Parallel\w*<.*>::(execute|exec_range|exec_team|exec_work)")
    functor = lambda n: ("operator()" in n and not n.startswith("unison::bench::")
                         and "_Function_handler" not in n)
    def pool(found):
        counts = collections.Counter()
        for name, body in found.items():
            if args.kernels and not (dispatch.search(name) or functor(name)):
                continue
            counts[(strip(name), tuple(strip(line) for line in body))] += 1
        return counts
    before, after = pool(a), pool(b)
    twins = sum((before & after).values())
    print(f"{args.after}: {twins} of {sum(after.values())} functions with an identical twin before "
          f"({sum(before.values())} before)")
    for (name, _), _count in list((after - before).items())[:args.list]:
        print(f"  no twin: {name[:200]}")
    if args.registers:
        classify(before, after, args)


# A body without no-ops, its registers renamed in order of first use.
def canonical(body):
    names, out = {}, []
    for line in body:
        if re.match(r"(nop|xchg\s+%ax,%ax|data16|cs nop)", line):
            continue
        out.append(re.sub(r"%[a-z0-9]+", lambda m: names.setdefault(m.group(0), f"%r{len(names)}"),
                          line))
    return tuple(out)


def mnemonics(body):
    return collections.Counter(line.split()[0] for line in canonical(body) if line.split())


def classify(before, after, args):
    by_name = collections.defaultdict(list)
    for (name, body) in before:
        by_name[name].append(body)
    kinds = collections.Counter()
    for (name, body), count in (after - before).items():
        olds = by_name.get(name, [])
        if any(canonical(old) == canonical(body) for old in olds):
            kind = "the same but for padding and register names"
        elif any(mnemonics(old) == mnemonics(body) for old in olds):
            kind = "the same instructions in another order or registers"
        elif olds:
            kind = "other instructions"
        else:
            kind = "no function of that name before"
        kinds[kind] += count
        if kind in ("other instructions", "no function of that name before"):
            print(f"  {kind}: {name[:200]}")
    for kind, count in kinds.items():
        print(f"without a twin, {kind}: {count}")


if __name__ == "__main__":
    main()
