"""unison-bench's figures, from the files it writes.

Usage: plot.py RESULTS_DIR
Reads RESULTS_DIR/unison_bench.csv and ceilings.csv (the ceilings the run measured) and writes
there, as SVG with its text kept as text (crisp at any zoom, searchable in the page):
  headline.svg   each family's headline case (a seed size of its tutorial, where the tutorials'
                 tools run too): every implementation's speedup over NumPy on the same machine
                 (where NumPy has no form of the case, over the tutorial's Numba code on the
                 CPU, else over Unison's Serial backend), log scale;
                 hatched and marked "check failed" where its result failed its check;
  roofline_<backend>.svg  for each Unison backend: each case that counts flops at its
                 arithmetic intensity (flops per byte) and GFLOP/s, under the ceilings measured
                 in the same run (each memory level's fastest stream, the FMA rate); each case that
                 counts bytes only at its GB/s, beside each level's rate; the marker says the
                 family, the colour the ceiling the case is set against (its fraction of peak
                 in the tables is its distance to that ceiling);
  times_<family>.svg  each case's median time per call on every implementation that ran it,
                 a fixed height per case (log scale);
  crossover.svg  time against size for each crossover sweep (--crossover), a line per backend,
                 the GPU also with the host copies: where the GPU overtakes the CPU;
  diffusion.png  the diffusion workload's field before and after its steps and the last
                 Laplacian, as the tutorial shows them (from diffusion_*.npy, when the suite ran
                 it), at twice the pixels it is shown at;
  plotted.json   the rooflines' points and ceilings as drawn (read by check_roofline.py).
Every figure gives an implementation the same colour (IMPLEMENTATIONS).
Needs matplotlib; exits with code 3 and a one-line message when it is missing, 2 for a missing
or malformed CSV.
"""
import csv
import json
import math
import os
import sys

# The implementations in the order the figures show them, with their colours: Unison's backends
# in blues, Unison called from Python in greens, the peers in other hues.
IMPLEMENTATIONS = {
    "Serial": "#6baed6", "OpenMP": "#2171b5", "Cuda": "#08306b",
    "python_serial": "#a1d99b", "python_openmp": "#41ab5d", "python_cuda": "#006d2c",
    "numpy": "#969696", "numba_cpu": "#fd8d3c", "plain_c": "#8c6d31",
    "numba_cuda": "#d62728", "cupy": "#9467bd", "cuda_c": "#e377c2",
}
OTHER_COLOURS = ["#bcbd22", "#17becf", "#7f7f7f", "#393b79"]
# The ceilings' colours (memory levels from the innermost out, then the FMA rate).
CEILING_COLOURS = {"L2": "#1b9e77", "L3": "#7570b3", "DRAM": "#d95f02", "FMA": "#e7298a"}
FAMILY_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def colour(name, seen={}):
    if name in IMPLEMENTATIONS:
        return IMPLEMENTATIONS[name]
    return seen.setdefault(name, OTHER_COLOURS[len(seen) % len(OTHER_COLOURS)])


def rank(name):
    order = list(IMPLEMENTATIONS)
    return order.index(name) if name in order else len(order)


def load(path):
    with open(path, newline="") as f:  # (the run's context: the lines starting with '#')
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    need = {"workload", "case", "backend", "median_s", "gb_per_s", "gflop_per_s", "peak",
            "peak_fraction", "check", "function", "kind", "headline", "peak_rate", "peer"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(f"{path}: not a unison-bench CSV (columns {sorted(need)} expected)")
    for r in rows:
        for key in ("median_s", "gb_per_s", "gflop_per_s", "peak_fraction", "peak_rate"):
            r[key] = float(r[key])
        r["headline"] = r["headline"] == "1"
        r["peer"] = r["peer"] == "1"
    return rows


def load_ceilings(path):
    """{backend: {resource: rate}} in the file's order (memory levels innermost first, FMA)."""
    ceilings = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                ceilings.setdefault(r["backend"], {})[r["resource"]] = float(r["rate"])
    return ceilings


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def time_text(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"


def rate_text(gb_per_s, unit="GB/s"):
    """A rate with 3 significant digits: "14.8 GB/s", "1.86 TB/s" (or GFLOP/s, TFLOP/s)."""
    if gb_per_s >= 1000:
        return f"{gb_per_s / 1000:.3g} T{unit[1:]}"
    return f"{gb_per_s:.3g} {unit}"


def ratio_text(x):
    return f"{x:.3g}x" if x < 1000 else f"{x:.0f}x"


def wrapped(name, width):
    """A case's name on lines of at most width characters, broken after its slashes."""
    lines, line = [], ""
    for part in name.split("/"):
        piece = part if not line else "/" + part
        if line and len(line) + len(piece) > width:
            lines.append(line + "/")
            line = part
        else:
            line += piece
    return "\n".join(lines + [line])


def save(fig, path):
    fig.savefig(path, bbox_inches="tight")
    return path


def fit_texts_in(fig, ax):
    """Raises a log y axis's top until every text drawn in the axes (the bars' labels) ends
    below it."""
    import math
    for _ in range(3):
        fig.canvas.draw()
        box = ax.get_window_extent()
        top = max((t.get_window_extent().y1 for t in ax.texts), default=box.y1)
        if top <= box.y1 - 2:
            return
        low, high = ax.get_ylim()
        decades = math.log10(high / low)
        # the pixels above the frame, as decades at the axis's scale after the change
        over = (top - box.y1 + 6) / box.height
        ax.set_ylim(low, high * 10 ** (decades * over / max(0.05, 1 - over)))


def plot_headline(plt, rows, out):
    """The headline chart: speedup over NumPy (else Serial) per family's headline case."""
    cases = ordered(r["case"] for r in rows if r["headline"] and r["median_s"] > 0)
    if not cases:
        return None
    groups = []
    for case in cases:
        mine = sorted((r for r in rows if r["case"] == case and r["median_s"] > 0),
                      key=lambda r: rank(r["backend"]))
        base = next((r for b in ("numpy", "numba_cpu", "Serial") for r in mine if r["backend"] == b),
                    mine[0])
        groups.append((mine[0]["workload"], case, base, mine))
    units = sum(max(3, len(g[3])) + 0.8 for g in groups)  # the x axis: a unit per bar
    width = min(14.5, max(9.0, 2.4 + 0.36 * units))
    fig, ax = plt.subplots(figsize=(width, 4.4))
    # a group's label wraps to the width of its bars: about 13 characters of 8.5 points an inch
    chars_per_unit = (width - 2.4) / units * 13
    x, ticks, labels, used = 0.0, [], [], []
    for family, case, base, mine in groups:
        start = x
        for r in mine:
            speedup = base["median_s"] / r["median_s"]
            failed = r["check"] == "fail"
            ax.bar(x, speedup, width=0.8, color=colour(r["backend"]), edgecolor="#b00" if failed else "none",
                   hatch="xx" if failed else None, linewidth=1.2 if failed else 0, zorder=3)
            ax.annotate(ratio_text(speedup) + (" check failed" if failed else ""), (x, speedup),
                        xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        rotation=90, fontsize=8, color="#b00" if failed else "#333")
            if r["backend"] not in used:
                used.append(r["backend"])
            x += 1
        ticks.append((start + x - 1) / 2)
        over = "" if base["backend"] == "numpy" else f"\n(over {base['backend']}:\nno NumPy form)"
        room = max(10, int(chars_per_unit * (max(3, len(mine)) + 0.6)))
        labels.append(f"{family}\n{wrapped(case, room)}{over}")
        # (a group of few bars keeps the room of three for its label)
        x += 0.8 + max(0, 3 - len(mine))
        ticks[-1] += max(0, 3 - len(mine)) / 2
        x_shift = max(0, 3 - len(mine)) / 2
        for patch in ax.patches[-len(mine):]:
            patch.set_x(patch.get_x() + x_shift)
        for text in ax.texts[-len(mine):]:
            text.xy = (text.xy[0] + x_shift, text.xy[1])
    ax.set_yscale("log")
    ax.axhline(1, color="#444", linewidth=0.8, zorder=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=8.5)
    ax.set_xlim(-0.8, x - 0.4)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high)
    fit_texts_in(fig, ax)
    ax.set_ylabel("speedup over NumPy (x, log scale)", fontsize=9)
    ax.set_title("Each family's seed-size case: every implementation's speedup over NumPy on this "
                 "machine (higher is faster)", fontsize=10, loc="left")
    ax.grid(axis="y", alpha=0.3, zorder=0)
    from matplotlib.patches import Patch
    handles = [Patch(color=colour(b), label=b) for b in sorted(used, key=rank)]
    handles.append(Patch(facecolor="white", edgecolor="#b00", hatch="xx", label="check failed"))
    ax.legend(handles=handles, fontsize=8.5, loc="upper left", bbox_to_anchor=(1.005, 1),
              frameon=False)
    path = save(fig, os.path.join(out, "headline.svg"))
    plt.close(fig)
    return path


def roofline_points(rows, backend, ceilings):
    """The points a backend's roofline draws: each of its cases that counts bytes or flops."""
    points = []
    for r in rows:
        if r["peer"] or r["backend"] != backend or (r["gb_per_s"] <= 0 and r["gflop_per_s"] <= 0):
            continue
        point = {"case": r["case"], "family": r["workload"], "peak": r["peak"],
                 "peak_fraction": r["peak_fraction"]}
        if r["gflop_per_s"] > 0:
            point["panel"] = "flops"
            # (no bytes counted, the fma case: at the right end of the axis)
            point["x"] = r["gflop_per_s"] / r["gb_per_s"] if r["gb_per_s"] > 0 else None
            # The rate on the resource its fraction is taken against: a case that streams its
            # results to DRAM from a working set in a cache counts that resource's bytes only.
            if r["peak"] and r["peak"] != "FMA" and point["x"]:
                point["y"] = r["peak_rate"] * point["x"]
            else:
                point["y"] = r["gflop_per_s"]
        else:
            point["panel"] = "bytes"
            point["x"] = None
            point["y"] = r["peak_rate"] if r["peak"] else r["gb_per_s"]
        points.append(point)
    return points


def plot_roofline(plt, rows, backend, ceilings, out):
    points = roofline_points(rows, backend, ceilings)
    if not points:
        return None, points
    flops = [p for p in points if p["panel"] == "flops"]
    bytes_only = [p for p in points if p["panel"] == "bytes"]
    families = ordered(r["workload"] for r in rows if not r["peer"])
    marker = {f: FAMILY_MARKERS[i % len(FAMILY_MARKERS)] for i, f in enumerate(families)}
    levels = [(k, v) for k, v in ceilings.items() if k != "FMA"]
    fma = ceilings.get("FMA")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [2.2, 1]})
    xs = [p["x"] for p in flops if p["x"]]
    lo = min(xs + [0.05]) / 4
    hi = max(xs + [20.0]) * 8
    for p in flops:
        if p["x"] is None:
            p["x_drawn"] = hi / 2  # no bytes counted: at the right end
        else:
            p["x_drawn"] = p["x"]
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    above = None  # the rate of the line whose label was drawn above it
    for name, rate in levels:  # (innermost first: each at least as fast as the next)
        ys = [min(rate * x, fma) if fma else rate * x for x in grid]
        left.plot(grid, ys, color=CEILING_COLOURS.get(name, "#555"), linewidth=1.2,
                  label=f"{name} stream {rate_text(rate)}")
        right.axhline(rate, color=CEILING_COLOURS.get(name, "#555"), linewidth=1.2)
        # a label above its line, or below it where the line above is close (labels apart)
        below = above is not None and above / rate < 1.6
        right.annotate(f"{name} {rate_text(rate)}", (1, rate), xycoords=("axes fraction", "data"),
                       xytext=(-2, -2 if below else 2), textcoords="offset points", ha="right",
                       va="top" if below else "bottom", fontsize=7.5,
                       color=CEILING_COLOURS.get(name, "#555"))
        above = None if below else rate
    if fma:
        left.axhline(fma, color=CEILING_COLOURS["FMA"], linewidth=1.2, linestyle="--",
                     label=f"FMA {rate_text(fma, 'GFLOP/s')}")
    for p in flops:
        c = CEILING_COLOURS.get(p["peak"], "white")
        left.scatter(p["x_drawn"], p["y"], marker=marker[p["family"]], s=36, zorder=3,
                     facecolor=c if p["peak"] else "white", edgecolor="#222", linewidth=0.6)
    for i, p in enumerate(sorted(bytes_only, key=lambda p: families.index(p["family"]))):
        p["x_drawn"] = families.index(p["family"]) + 0.7 * ((i * 0.618) % 1 - 0.5)
        c = CEILING_COLOURS.get(p["peak"], "white")
        right.scatter(p["x_drawn"], p["y"], marker=marker[p["family"]], s=30, zorder=3,
                      facecolor=c if p["peak"] else "white", edgecolor="#222", linewidth=0.6)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlim(lo, hi)
    left.set_xlabel("arithmetic intensity (flops per byte moved)", fontsize=9)
    left.set_ylabel("GFLOP/s", fontsize=9)
    left.set_title(f"{backend}: cases that count flops, under the measured ceilings", fontsize=9.5, loc="left")
    left.grid(alpha=0.3, which="both")
    right.set_yscale("log")
    shown = sorted({families.index(p["family"]) for p in bytes_only})
    right.set_xticks(shown)
    right.set_xticklabels([families[i] for i in shown], rotation=30, ha="right", fontsize=8)
    right.set_xlim(-0.6, max(shown + [0]) + 0.6)
    right.set_ylabel("GB/s", fontsize=9)
    right.set_title("cases that count bytes only", fontsize=9.5, loc="left")
    right.grid(axis="y", alpha=0.3, which="both")
    from matplotlib.lines import Line2D
    family_handles = [Line2D([], [], marker=marker[f], linestyle="", markerfacecolor="white",
                             markeredgecolor="#222", label=f) for f in families
                      if any(p["family"] == f for p in points)]
    first = left.legend(fontsize=7.5, loc="upper left", title="ceilings (this run)", title_fontsize=7.5)
    left.add_artist(first)
    left.legend(handles=family_handles + [Line2D([], [], marker="o", linestyle="", markerfacecolor="white",
                                                 markeredgecolor="#222", label="no ceiling (host copies)")],
                fontsize=7.5, loc="lower right", title="marker: family; fill: its ceiling", title_fontsize=7.5)
    fig.tight_layout()
    path = save(fig, os.path.join(out, f"roofline_{backend}.svg"))
    plt.close(fig)
    return path, points


def plot_family_times(plt, rows, family, out):
    mine = [r for r in rows if r["workload"] == family and r["median_s"] > 0]
    cases = ordered(r["case"] for r in mine)
    impls = sorted(ordered(r["backend"] for r in mine), key=rank)
    if not cases:
        return None
    bar = 0.19  # inches per bar: a fixed height per case
    per_case = [len([r for r in mine if r["case"] == c]) for c in cases]
    height = bar * (sum(per_case) + 0.6 * len(cases)) + 1.3
    fig, ax = plt.subplots(figsize=(10, height))
    y, ticks = 0.0, []
    for case, n in zip(cases, per_case):
        here = sorted((r for r in mine if r["case"] == case), key=lambda r: rank(r["backend"]))
        for j, r in enumerate(here):
            failed = r["check"] == "fail"
            ax.barh(y + j, r["median_s"], height=0.85, color=colour(r["backend"]),
                    hatch="xx" if failed else None, edgecolor="#b00" if failed else "none", zorder=3)
            ax.annotate(time_text(r["median_s"]) + (" check failed" if failed else ""), (r["median_s"], y + j),
                        xytext=(2, 0), textcoords="offset points", va="center", fontsize=8,
                        color="#b00" if failed else "#333")
        ticks.append(y + (n - 1) / 2)
        y += n + 0.6
    ax.set_yticks(ticks)
    ax.set_yticklabels(cases, fontsize=9)
    ax.set_ylim(y - 0.4, -0.8)
    ax.set_xscale("log")
    left, right = ax.get_xlim()
    ax.set_xlim(left, right * 6)  # room for the labels
    from matplotlib.ticker import FuncFormatter
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: time_text(v)))
    ax.set_xlabel("median time per call (log scale; a diffusion case: per step; shorter is faster)", fontsize=8.5)
    ax.set_title(f"{family}: time per call of each case on each implementation", fontsize=10, loc="left")
    ax.grid(axis="x", alpha=0.3, zorder=0)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=colour(b), label=b) for b in impls], fontsize=8.5,
              loc="lower center", bbox_to_anchor=(0.5, 1.02 + 0.35 / height), ncol=min(len(impls), 8), frameon=False)
    fig.tight_layout()
    path = save(fig, os.path.join(out, f"times_{family}.svg"))
    plt.close(fig)
    return path


def size_of(label):
    if "x" in label:
        a, b = label.split("x")
        return float(a) * float(b)
    return float(label)


def plot_crossover(plt, rows, out):
    sweeps = {}
    for r in rows:
        parts = r["case"].split("/")
        if r["kind"] != "crossover" or len(parts) != 4:
            continue
        key = (r["backend"], parts[3] != "device")
        sweeps.setdefault(parts[1], {}).setdefault(key, []).append((size_of(parts[2]), r["median_s"]))
    if not sweeps:
        return None
    fig, axes = plt.subplots(1, len(sweeps), figsize=(4.6 * len(sweeps), 3.8), squeeze=False)
    for ax, (sweep, lines) in zip(axes[0], sweeps.items()):
        for (backend, copies), points in sorted(lines.items(), key=lambda kv: (rank(kv[0][0]), kv[0][1])):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], "--o" if copies else "-o",
                    color=colour(backend), label=backend + (" with the host copies" if copies else ""), ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(sweep, fontsize=9)
        ax.set_xlabel("values (cells)", fontsize=8.5)
        ax.set_ylabel("median time per call (s)", fontsize=8.5)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = save(fig, os.path.join(out, "crossover.svg"))
    plt.close(fig)
    return path


def plot_diffusion(plt, folder):
    names = ["initial", "field", "laplacian"]
    paths = [os.path.join(folder, f"diffusion_{n}.npy") for n in names]
    if not all(os.path.exists(p) for p in paths):
        return None
    import numpy as np
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 4.1))
    for ax, name, path in zip(axes, ["initial field", "field after the steps", "Laplacian of the last step"], paths):
        data = np.load(path)
        if name.startswith("Laplacian"):
            limit = float(np.abs(data).max()) or 1.0
            image = ax.imshow(data, cmap="RdBu_r", vmin=-limit, vmax=limit)
        else:
            image = ax.imshow(data, cmap="viridis")
        ax.set_title(name, fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    path = os.path.join(folder, "diffusion.png")
    fig.savefig(path, dpi=200)  # shown at half its pixels: twice the density
    plt.close(fig)
    return path


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
    plt.rcParams["svg.fonttype"] = "none"  # text as text: searchable, crisp
    plt.rcParams["svg.hashsalt"] = "unison-bench"  # the same SVG for the same data
    ceilings = load_ceilings(os.path.join(folder, "ceilings.csv"))
    written = [plot_headline(plt, rows, folder)]
    plotted = {"backends": {}}
    for backend in ordered(r["backend"] for r in rows if not r["peer"]):
        path, points = plot_roofline(plt, rows, backend, ceilings.get(backend, {}), folder)
        written.append(path)
        plotted["backends"][backend] = {"ceilings": ceilings.get(backend, {}), "points": points}
    for family in ordered(r["workload"] for r in rows):
        written.append(plot_family_times(plt, rows, family, folder))
    written.append(plot_crossover(plt, rows, folder))
    written.append(plot_diffusion(plt, folder))
    with open(os.path.join(folder, "plotted.json"), "w") as f:
        json.dump(plotted, f, indent=1)
    written = [w for w in written if w]
    print("plot.py: wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
