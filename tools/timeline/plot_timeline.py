#!/usr/bin/env python3
"""Draws the timeline of one halo exchange period of the distributed diffusion from the files
that tools/timeline/cupti_timeline.cpp writes (PREFIX.<rank>.csv, one a rank), and prints what
ran in it.

    plot_timeline.py PREFIX OUT.svg [--period N]

The period: from the start of one halo packing kernel on rank 0 to the start of the next one
(one exchange: halo_depth steps), the N-th last (default 3: the last calls' ends are left out).
One lane a stream of each rank; the names come from the kernels' functors
(unison::mpi::detail::HaloStrips, or HaloStencilRows in older traces: the interior or the whole
block, HaloStencilFrame: the cells around the interior, HaloPack and HaloUnpack: the halos), the
copies through host memory from CUPTI's copy records."""
import argparse
import csv
import glob
import re

KINDS = [  # (pattern in the kernel's name, label, colour)
    ("HaloStrips", "update (interior or block)", "#4477aa"),
    ("HaloStencilRows", "update (interior or block)", "#4477aa"),
    ("HaloStencilFrame", "edge cells", "#ee6677"),
    ("HaloPack", "pack halos", "#228833"),
    ("HaloUnpack", "unpack halos", "#ccbb44"),
    ("copy device to host", "copy to host", "#66ccee"),
    ("copy host to device", "copy to GPU", "#aa3377"),
]
OTHER = ("other", "#bbbbbb")


def classify(name):
    for pattern, label, colour in KINDS:
        if pattern in name:
            return label, colour
    return OTHER


def read(path):
    with open(path) as f:
        return [
            (int(r["stream"]), int(r["start_ns"]), int(r["end_ns"]), r["name"])
            for r in csv.DictReader(f)
        ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix")
    ap.add_argument("out")
    ap.add_argument("--period", type=int, default=3)
    args = ap.parse_args()
    files = sorted(glob.glob(args.prefix + ".*.csv"),
                   key=lambda p: int(re.search(r"\.(\d+)\.csv$", p).group(1)))
    # Files of no records come from processes that started CUDA without doing GPU work.
    ranks = [r for r in (read(p) for p in files) if r]
    packs = sorted(s for _, s, _, n in ranks[0] if "HaloPack" in n)
    if len(packs) < args.period + 1:
        raise SystemExit("fewer halo exchanges than --period asks for")
    t0, t1 = packs[-args.period - 1], packs[-args.period]

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lanes, bars, totals = [], [], {}
    for rank, records in enumerate(ranks):
        inside = [r for r in records if r[2] > t0 and r[1] < t1]
        for stream in sorted({r[0] for r in inside}):
            lane = len(lanes)
            lanes.append(f"rank {rank}, stream {stream}")
            for _, s, e, name in (r for r in inside if r[0] == stream):
                label, colour = classify(name)
                width = (min(e, t1) - max(s, t0)) / 1e3  # the part inside the period
                bars.append((lane, (max(s, t0) - t0) / 1e3, width, colour, label))
                totals[(rank, label)] = totals.get((rank, label), 0) + width
    fig, ax = plt.subplots(figsize=(11, 0.5 * len(lanes) + 1.5))
    seen = set()
    for lane, start, width, colour, label in bars:
        ax.broken_barh([(start, width)], (lane - 0.4, 0.8), color=colour,
                       label=None if label in seen else label)
        seen.add(label)
    ax.set_yticks(range(len(lanes)), lanes)
    ax.invert_yaxis()
    ax.set_xlabel("µs from the start of the halo packing on rank 0")
    ax.set_xlim(0, (t1 - t0) / 1e3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"period: {(t1 - t0) / 1e3:.1f} µs")
    for (rank, label), us in sorted(totals.items()):
        print(f"rank {rank}: {label}: {us:.1f} µs")


if __name__ == "__main__":
    main()
