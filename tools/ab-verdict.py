#!/usr/bin/env python3
"""Two trees' unison-bench runs taken in alternation, case by case: for each case and backend, the
median over the runs of each tree, their ratio (after over before), and whether the after tree
was slower in every run than the before tree in every run by more than the same-code spread of
that case (the larger of the two trees' slowest-over-fastest ratios). Prints one line per such
case, then the count and the geometric mean of the ratios per backend.

    tools/ab-verdict.py --before A.csv [A2.csv ...] --after B.csv [B2.csv ...]
"""
import argparse
import csv
import math
import statistics


def load(path):
    rows = csv.DictReader(line for line in open(path) if not line.startswith("#"))
    return {(r["case"], r["backend"]): float(r["median_s"]) for r in rows
            if r["backend"] in ("Serial", "OpenMP", "Cuda") and float(r["median_s"] or 0) > 0}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", nargs="+", required=True)
    p.add_argument("--after", nargs="+", required=True)
    args = p.parse_args()
    before, after = [load(x) for x in args.before], [load(x) for x in args.after]
    keys = sorted(set.intersection(*(set(r) for r in before + after)))
    ratios, slower = {}, []
    for k in keys:
        b, a = [r[k] for r in before], [r[k] for r in after]
        ratio = statistics.median(a) / statistics.median(b)
        ratios.setdefault(k[1], []).append(ratio)
        spread = max(max(b) / min(b), max(a) / min(a))
        if min(a) > max(b) and ratio > spread:
            slower.append((k, ratio, spread, b, a))
    for (case, backend), ratio, spread, b, a in slower:
        print(f"slower beyond the noise: {case} on {backend}: {ratio:.2f}x (same-code spread "
              f"{spread:.2f}; before {min(b) * 1e3:.3g}-{max(b) * 1e3:.3g} ms, after "
              f"{min(a) * 1e3:.3g}-{max(a) * 1e3:.3g} ms)")
    for backend, rs in ratios.items():
        g = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"{backend}: {len(rs)} cases, after over before: geometric mean {g:.3f}, "
              f"range {min(rs):.2f}-{max(rs):.2f}; slower beyond the noise: "
              f"{sum(1 for s in slower if s[0][1] == backend)}")


if __name__ == "__main__":
    main()
