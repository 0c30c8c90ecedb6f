#!/usr/bin/env python3
"""The H100 section's tables of docs/PERFORMANCE.md from a unison-bench run:
    python3 tools/performance-tables.py benchmarks/results/h100
reads unison_bench.json (Unison's medians and spreads) and peers.csv in that folder and prints the
Markdown tables (per case: each backend's median, in brackets the spread where above 30 % and the
fraction of the same run's peak that unison-bench gave it, with the peak's name, "0.93 L3", from
unison_bench.csv; the fastest CPU peer and the fastest GPU peer that passed their check, else the
fastest, marked)."""
import csv
import json
import sys
from pathlib import Path

folder = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/h100")
runs = {}
for b in json.load(open(folder / "unison_bench.json"))["benchmarks"]:
    name = b["run_name"] if "run_name" in b else b["name"]
    agg = b.get("aggregate_name")
    if agg not in ("median", "cv") or "peer" in b:  # (the peers' entries: peers.csv has them)
        continue
    parts = name.split("/")
    # <case>/<backend>/iterations:.../repeats:.../manual_time
    i = next(k for k, p in enumerate(parts) if p.startswith("iterations:"))
    case, backend = "/".join(parts[:i - 1]), parts[i - 1]
    r = runs.setdefault((case, backend), {})
    if agg == "median":
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        r["t"] = b["real_time"] * unit
        for k in ("GB/s", "GFLOP/s"):
            if k in b:
                r[k] = b[k]
    else:
        r["cv"] = b["real_time"]
peers = {}
for row in csv.reader(open(folder / "peers.csv")):
    if not row or row[0] == "case":
        continue
    case, peer, t, err, tol = row[:5]
    ok = err == "" or tol == "" or float(err) <= float(tol)
    peers.setdefault(case, []).append((float(t), peer, ok))
# The fraction of a peak unison-bench gave each row, and which peak ("L2", "L3", "DRAM", "FMA").
fraction = {}
for row in csv.DictReader(line for line in open(folder / "unison_bench.csv") if not line.startswith("#")):
    if row["peak"]:
        fraction[(row["case"], row["backend"])] = (float(row["peak_fraction"]), row["peak"])
peak = {b: runs.get(("copy/1e8/device", b), {}).get("GB/s") for b in ("Serial", "OpenMP", "Cuda")}
fma = {b: runs.get(("fma/f32/device", b), {}).get("GFLOP/s") for b in ("Serial", "OpenMP", "Cuda")}


def ftime(t):
    for unit, f in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if t >= f:
            v = t / f
            return (f"{v:.3g}" if v < 1000 else f"{v:.0f}") + " " + unit
    return f"{t:.3g} s"


def cell(case, backend, flops=False, frac=True):
    r = runs.get((case, backend))
    if not r or "t" not in r:
        return "—"
    s = ftime(r["t"])
    notes = []
    if r.get("cv", 0) > 0.3:
        notes.append(f"±{r['cv'] * 100:.0f} %")
    if frac and (case, backend) in fraction:
        f, level = fraction[(case, backend)]
        notes.append(f"{f:.2f} {level}")
    return s + (" (" + ", ".join(notes) + ")" if notes else "")


CPU, GPU = ("plain_c", "numba_cpu", "numpy"), ("numba_cuda", "cupy", "cuda_c")


def peer(case, which):
    got = sorted(p for p in peers.get(case, []) if p[1] in which)
    if not got:
        return "—"
    ok = [p for p in got if p[2]]
    t, name, passed = (ok or got)[0]
    return f"{name} {ftime(t)}" + ("" if passed else " (check failed)")


def row(label, cases, backends=("Serial", "OpenMP", "Cuda"), flops=False):
    cells = [" / ".join(cell(c, b, flops) for c in cases) for b in backends]
    cpu = " / ".join(peer(c, CPU) for c in cases)
    gpu = " / ".join(peer(c, GPU) for c in cases)
    print(f"| {label} | " + " | ".join(cells) + f" | {cpu} | {gpu} |")


head = "| case | Serial | OpenMP | Cuda | CPU peer | GPU peer |\n|---|---|---|---|---|---|"
print("**elementwise and rowwise** (data on the device; rowwise in float32)\n")
print(head)
d = "/device"
row("`add_int64/1e5`", ["add_int64/1e5" + d])
row("`add_float32/1e5`", ["add_float32/1e5" + d])
row("`hypot/1e6`", ["hypot/1e6" + d])
row("`gaussian_pdf` 1e6 / 1e8", ["gaussian_pdf/1e6" + d, "gaussian_pdf/1e8" + d])
row("`polar_distance/1e6`", ["polar_distance/1e6" + d])
row("`zero_suppress/1e5`", ["zero_suppress/1e5" + d])
row("`make_pulses/1e5`", ["make_pulses/1e5" + d])
row("`hidden_layer_fused` 1e6 / 1e8", ["hidden_layer_fused/1e6" + d, "hidden_layer_fused/1e8" + d])
row("`hidden_layer_separate` 1e6 / 1e8", ["hidden_layer_separate/1e6" + d, "hidden_layer_separate/1e8" + d])
row("`l2_norm/1000000x2`", ["l2_norm/f32/1000000x2"])
row("`l2_norm/10000x1000`", ["l2_norm/f32/10000x1000"])
row("`matmul_core/100000x4x4x4`", ["matmul_core/f32/100000x4x4x4"])
print("\n**diffusion** (2000×2000 float32, per step; the `tiled` kernels in `table.txt`)\n")
print(head)
for v in ("every_step/streaming", "every_step/history", "every_step/plain", "final_only/streaming",
          "final_only/blocked", "final_only/plain"):
    row(f"`{v}`", [f"diffusion/{v}/2000x2000"])
row("`seed_run/every_step/automatic` (10,000 steps)", ["diffusion/seed_run/every_step/automatic/2000x2000"])
print("\n**convolve** (valid mode; direct / tiled kernel, the peers beside the direct one)\n")
print(head)
for c, flops in (("f32/1e8/taps5", False), ("f64/1e6/taps5", False), ("f32/1e7/taps33", False),
                 ("f32/1e7/taps257", True)):
    cases = [f"convolve/valid/{c}/direct", f"convolve/valid/{c}/tiled"]
    cells = [" / ".join(cell(x, b, flops) for x in cases) for b in ("Serial", "OpenMP", "Cuda")]
    print(f"| `{c}` | " + " | ".join(cells) + f" | {peer(cases[0], CPU)} | {peer(cases[0], GPU)} |")
print("\n**matmul_reduce** (float32; Serial at 1000×500×700, OpenMP and Cuda at 10000×5000×7000)\n")
print("| method | Serial | OpenMP | Cuda | CPU peer | GPU peer |\n|---|---|---|---|---|---|")
for m in ("tiled", "gemm", "gemm/workspace", "reassociated", "reassociated/workspace"):
    small, big = f"matmul_reduce/{m}/f32/1000x500x700", f"matmul_reduce/{m}/f32/10000x5000x7000"
    flops = "reassociated" not in m
    print(f"| `{m}` | {cell(small, 'Serial', flops, frac=False)} | {cell(big, 'OpenMP', flops)} | "
          f"{cell(big, 'Cuda', flops)} | {peer(big, CPU)} | {peer(big, GPU)} |")
print("\n**random numbers, histogram, small examples**\n")
print(head)
mc = "monte_carlo_pi/2e9"
print(f"| `monte_carlo_pi/2e9` (Serial: 2e8) | {cell('monte_carlo_pi/2e8', 'Serial')} | "
      f"{cell(mc, 'OpenMP')} | {cell(mc, 'Cuda')} | {peer(mc, CPU)} | {peer(mc, GPU)} |")
row("`histogram/f32/1e8/bins100`", ["histogram/f32/1e8/bins100"])
row("`atomic_counter/1e6`", ["atomic_counter/1e6"])
row("`rgb_to_grayscale/f32/4000x3000`", ["rgb_to_grayscale/f32/4000x3000"])
row("`rgb_to_grayscale/u8/4000x3000`", ["rgb_to_grayscale/u8/4000x3000"])
row("`loop_sum/1e4`", ["loop_sum/1e4"])
print(f"| `lucas/40` | {cell('lucas/40', 'Serial', frac=False)} | {cell('lucas/40', 'OpenMP', frac=False)} | "
      f"{cell('lucas/40', 'Cuda', frac=False)} | — | — |")
print(f"\n(the copy of 1e8 floats: Serial {peak['Serial']:.1f}, OpenMP {peak['OpenMP']:.1f}, Cuda {peak['Cuda']:.0f} GB/s; "
      f"fma Serial {fma['Serial']:.0f}, OpenMP {fma['OpenMP']:.0f}, Cuda {fma['Cuda']:.0f} GFLOP/s)")
