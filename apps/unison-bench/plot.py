"""unison-bench's plots, from the CSV it writes.

Usage: plot.py RESULTS_DIR
Reads RESULTS_DIR/unison_bench.csv and writes there:
  times.png  the median time of every case on every backend, one panel per workload family
             (logarithmic axis: CPU and GPU times differ by orders of magnitude);
  peak.png   each case's achieved GB/s or GFLOP/s as a fraction of its backend's peak measured in
             the same run (the copy case's GB/s, the library GEMM's GFLOP/s), one panel per
             backend, with the peak at 100 %;
  crossover.png  time against size for each crossover sweep (--crossover), a line per backend,
             the GPU also with the host copies: where the GPU overtakes the CPU;
  diffusion.png  the diffusion workload's field before and after its steps and the last
             Laplacian, as the tutorial shows them (from diffusion_*.npy, when the suite ran it).
Needs matplotlib; exits with code 3 and a one-line message when it is missing, 2 for a missing
or malformed CSV.
"""
import csv
import os
import sys


def load(path):
    with open(path, newline="") as f:  # (the run's context: the lines starting with '#')
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    need = {"workload", "case", "backend", "median_s", "peak", "peak_fraction"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(f"{path}: not a unison-bench CSV (columns {sorted(need)} expected)")
    for r in rows:
        r["median_s"] = float(r["median_s"])
        r["peak_fraction"] = float(r["peak_fraction"])
    return rows


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def plot_times(plt, rows, out):
    workloads = ordered(r["workload"] for r in rows)
    backends = ordered(r["backend"] for r in rows)
    cases = {w: ordered(r["case"] for r in rows if r["workload"] == w) for w in workloads}
    heights = [max(1, len(cases[w])) for w in workloads]
    fig, axes = plt.subplots(len(workloads), 1, figsize=(11, 0.32 * sum(heights) * len(backends) / 2 + 1.2 * len(workloads)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    bar = 0.8 / len(backends)
    for ax, w in zip(axes[:, 0], workloads):
        for j, b in enumerate(backends):
            times = {r["case"]: r["median_s"] for r in rows if r["workload"] == w and r["backend"] == b}
            ys = [i + j * bar for i, c in enumerate(cases[w]) if c in times]
            xs = [times[c] for c in cases[w] if c in times]
            ax.barh(ys, xs, height=bar, color=f"C{j % 10}")
        ax.set_yticks([i + bar * (len(backends) - 1) / 2 for i in range(len(cases[w]))])
        ax.set_yticklabels(cases[w], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_title(w, fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    # One colour per backend (or peer) in every panel; the legend from patches, since a panel
    # may have no bar of some backend.
    from matplotlib.patches import Patch
    axes[0, 0].legend(handles=[Patch(color=f"C{j % 10}", label=b) for j, b in enumerate(backends)],
                      fontsize=8, loc="lower right")
    axes[-1, 0].set_xlabel("median time per call (s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_peak(plt, rows, out):
    rows = [r for r in rows if r["peak"]]
    backends = ordered(r["backend"] for r in rows)
    if not backends:
        return False
    fig, axes = plt.subplots(1, len(backends), figsize=(5.5 * len(backends), 0.22 * max(
        len([r for r in rows if r["backend"] == b]) for b in backends) + 1.5), squeeze=False)
    for ax, b in zip(axes[0], backends):
        mine = [r for r in rows if r["backend"] == b]
        ax.barh(range(len(mine)), [100 * r["peak_fraction"] for r in mine],
                color=["tab:orange" if r["peak"] == "gemm" else "tab:blue" for r in mine])
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels([r["case"] for r in mine], fontsize=6)
        ax.invert_yaxis()
        ax.axvline(100, color="k", lw=0.8)
        ax.set_title(f"{b}: % of measured peak (blue: copy GB/s, orange: GEMM GFLOP/s)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def size_of(label):
    if "x" in label:
        a, b = label.split("x")
        return float(a) * float(b)
    return float(label)


def plot_crossover(plt, rows, out):
    sweeps = {}
    for r in rows:
        parts = r["case"].split("/")
        if len(parts) != 4 or parts[0] != "crossover":
            continue
        key = r["backend"] + ("" if parts[3] == "device" else " with copies")
        sweeps.setdefault(parts[1], {}).setdefault(key, []).append((size_of(parts[2]), r["median_s"]))
    if not sweeps:
        return False
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5 * len(sweeps), 4), squeeze=False)
    for ax, (sweep, lines) in zip(axes[0], sweeps.items()):
        for key, points in lines.items():
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], "--o" if "copies" in key else "-o", label=key, ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(sweep, fontsize=9)
        ax.set_xlabel("values (cells)")
        ax.set_ylabel("median time per call (s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) != 2:
        print("plot.py: usage: plot.py RESULTS_DIR", file=sys.stderr)
        return 2
    folder = argv[1]
    try:
        rows = load(os.path.join(folder, "unison_bench.csv"))
    except (OSError, ValueError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed: no plots", file=sys.stderr)
        return 3
    written = [os.path.join(folder, "times.png")]
    plot_times(plt, rows, written[0])
    if plot_peak(plt, rows, os.path.join(folder, "peak.png")):
        written.append(os.path.join(folder, "peak.png"))
    if plot_crossover(plt, rows, os.path.join(folder, "crossover.png")):
        written.append(os.path.join(folder, "crossover.png"))
    names = ["initial", "field", "laplacian"]
    paths = [os.path.join(folder, f"diffusion_{n}.npy") for n in names]
    if all(os.path.exists(p) for p in paths):
        import numpy as np
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
        for ax, name, path in zip(axes, ["initial field", "field after the steps", "Laplacian of the last step"], paths):
            data = np.load(path)
            if name.startswith("Laplacian"):
                limit = float(np.abs(data).max()) or 1.0
                image = ax.imshow(data, cmap="RdBu_r", vmin=-limit, vmax=limit)
            else:
                image = ax.imshow(data, cmap="viridis")
            ax.set_title(name, fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
            fig.colorbar(image, ax=ax, fraction=0.046)
        fig.tight_layout()
        written.append(os.path.join(folder, "diffusion.png"))
        fig.savefig(written[-1], dpi=100)
        plt.close(fig)
    print("plot.py: wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
