#!/usr/bin/env python3
"""Compares unison-bench runs case by case: python3 tools/compare-runs.py A.csv B.csv [C.csv ...]
(unison_bench.csv files). For each backend, each consecutive pair's ratio of medians (later over
earlier) over the cases both ran: their geometric mean, the median and 90th percentile of the
change either way, and the range; then the cases of the last pair whose time changed by more than
LIMIT (default 5 %, env COMPARE_LIMIT) on a GPU backend. A pair of runs of the same code gives the
noise to read the others against."""
import csv
import math
import os
import sys


def load(path):
    return {(r['case'], r['backend']): float(r['median_s']) for r in csv.DictReader(l for l in open(path) if not l.startswith('#'))
            if float(r['median_s'] or 0) > 0}


def main(paths):
    runs = [load(p) for p in paths]
    backends = sorted({k[1] for r in runs for k in r if k[1] in ('Serial', 'OpenMP', 'Cuda')},
                      key=['Serial', 'OpenMP', 'Cuda'].index)
    for be in backends:
        for i in range(1, len(runs)):
            a, b = runs[i - 1], runs[i]
            rs = [b[k] / a[k] for k in b if k[1] == be and k in a]
            if not rs:
                continue
            ch = sorted(abs(math.log(r)) for r in rs)
            g = math.exp(sum(math.log(r) for r in rs) / len(rs))
            print(f"{be:7s} {os.path.basename(os.path.dirname(paths[i])) or paths[i]} over "
                  f"{os.path.basename(os.path.dirname(paths[i - 1])) or paths[i - 1]}: {len(rs)} cases, "
                  f"geometric mean {g:.3f}, median change {math.exp(ch[len(ch) // 2]):.3f}x, "
                  f"90th percentile {math.exp(ch[int(0.9 * len(ch))]):.3f}x, range {min(rs):.2f}-{max(rs):.2f}")
    limit = float(os.environ.get('COMPARE_LIMIT', '0.05'))
    a, b = runs[-2], runs[-1]
    print(f"Cuda cases of the last pair that changed by more than {limit:.0%}:")
    for r, k in sorted(((b[k] / a[k], k) for k in b if k[1] == 'Cuda' and k in a),
                       key=lambda t: -abs(math.log(t[0]))):
        if abs(math.log(r)) > math.log(1 + limit):
            print(f"  {r:.3f}  {k[0]:60s} {a[k] * 1e6:11.1f} -> {b[k] * 1e6:11.1f} us")


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
