#!/usr/bin/env python3
"""Checks the rooflines plot.py drew (RESULTS_DIR/plotted.json) against the run they come from
(unison_bench.csv, ceilings.csv):
  - every case of a Unison backend that declares bytes or flops is drawn on its backend's roofline;
  - each roofline's ceilings are the run's measured ceilings (ceilings.csv);
  - each point agrees with its printed fraction of peak: its rate over the ceiling named by its
    peak (that memory level's line at the point's intensity, or the FMA rate) is the table's
    fraction; a point without a peak (a case timed with its host copies) has none;
  - with --strict (a reference run's data, not a smoke run's noise): no point above its ceilings
    by more than the suite's 1.05.

Usage: check_roofline.py RESULTS_DIR [--strict] [--plot PLOT_PY]
--plot: draw the figures afresh first, with PLOT_PY, from copies of RESULTS_DIR's unison_bench.csv
and ceilings.csv in a temporary folder (a reference run's kept data, which holds no plotted.json).
Exit code 0 when every check passes, 1 otherwise (each failure printed). Standard library only.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

STRICT_LIMIT = 1.05


def main(argv):
    args = [a for a in argv[1:] if a != "--strict"]
    plot = None
    if "--plot" in args and args.index("--plot") + 1 < len(args):
        at = args.index("--plot")
        plot = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    if plot:
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("unison_bench.csv", "ceilings.csv"):
                shutil.copyfile(os.path.join(args[0], name), os.path.join(tmp, name))
            drawn = subprocess.run([sys.executable, plot, tmp], capture_output=True, text=True)
            if drawn.returncode != 0:
                print(f"check_roofline: FAIL: {plot} exited {drawn.returncode}: {drawn.stderr.strip()[-300:]}")
                return 1
            return check(tmp, "--strict" in argv)
    return check(args[0], "--strict" in argv)


def check(folder, strict):
    with open(os.path.join(folder, "unison_bench.csv"), newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    with open(os.path.join(folder, "ceilings.csv"), newline="") as f:
        ceilings = {}
        for r in csv.DictReader(f):
            ceilings.setdefault(r["backend"], {})[r["resource"]] = float(r["rate"])
    with open(os.path.join(folder, "plotted.json")) as f:
        plotted = json.load(f)["backends"]
    failures = []
    drawn = fractions = 0
    for r in rows:
        if r["peer"] == "1" or (float(r["gb_per_s"]) <= 0 and float(r["gflop_per_s"]) <= 0):
            continue
        backend, case = r["backend"], r["case"]
        mine = plotted.get(backend)
        if mine is None:
            failures.append(f"{backend}: no roofline, though {case} counts bytes or flops")
            continue
        points = [p for p in mine["points"] if p["case"] == case]
        if len(points) != 1:
            failures.append(f"{case} on {backend}: drawn {len(points)} times, not once")
            continue
        drawn += 1
        p, peak, fraction = points[0], r["peak"], float(r["peak_fraction"])
        if p["peak"] != peak:
            failures.append(f"{case} on {backend}: drawn against {p['peak']!r}, the table says {peak!r}")
            continue
        if not peak:
            continue
        rate = mine["ceilings"].get(peak)
        if rate is None:
            failures.append(f"{case} on {backend}: no {peak} ceiling drawn")
            continue
        if p["panel"] == "flops" and peak != "FMA":
            ceiling = rate * p["x"]  # the level's line at the point's intensity
        else:
            ceiling = rate
        got = p["y"] / ceiling
        fractions += 1
        # (the CSV prints the fraction to 4 decimals)
        if abs(got - fraction) > 1e-3 * max(1.0, fraction) + 6e-5:
            failures.append(f"{case} on {backend}: the point is {got:.4f} of its {peak} ceiling, "
                            f"the table says {fraction:.4f}")
        if strict and got > STRICT_LIMIT:
            failures.append(f"{case} on {backend}: {got:.3f} of its {peak} ceiling, above {STRICT_LIMIT}")
    for backend, mine in plotted.items():
        if mine["ceilings"] != ceilings.get(backend, {}):
            failures.append(f"{backend}: the ceilings drawn {mine['ceilings']} are not the run's "
                            f"{ceilings.get(backend, {})}")
    for f in failures:
        print("check_roofline: FAIL:", f)
    print(f"check_roofline: {drawn} cases drawn on {len(plotted)} rooflines, {fractions} points "
          f"against their ceilings{' (strict)' if strict else ''}, {len(failures)} failures")
    return 1 if failures or not drawn else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
