"""The published 2-D 5-point GPU stencil codes as peers of unison-bench --sizes (final Laplacian
only), run from their own builds: EBISU (Zhang et al., ICS 2023) and AN5D (Matsumura et al.,
CGO 2020). Neither is part of Unison: fetch their public repositories, build them with the scripts
in published/ (which patch a copy of the checkout for CUDA 13 and sm_90, docs/benchmarks.md), and
name the folder that holds the builds in UNISON_PUBLISHED_STENCILS:

  $UNISON_PUBLISHED_STENCILS/ebisu/2d5pt_ebisu.exe        (published/build-ebisu.sh SRC DIR/ebisu)
  $UNISON_PUBLISHED_STENCILS/an5d/bin/j2d5pt-float-*      (published/build-an5d.sh SRC DIR/an5d)

Their step is not Unison's, and this is the closest equivalent: float32, an n x n field, every
cell updated each step from its 4 neighbours and itself, one read and one write of the field a
pass. EBISU weighs them (5 N + 12 W + 15 C + 12 E + 5 S) / 118 and clamps at the field's edges
(takes the edge cell for a neighbour outside); AN5D weighs them (5.1 N + 12.1 W + 15 C + 12.2 E +
5.2 S) / 118 over an n x n interior with a fixed border of one cell (its `-s n`), built with
--use_fast_math. Each program times its own launches (EBISU: CUDA events around its steps, after
its warm-up; AN5D: the wall clock between two device synchronisations, after a warm-up run); the
time per step is the median of three runs. Their results are not checked here (their own checks:
EBISU's --check, AN5D's -c).
"""
import glob
import math
import os
import re
import statistics
import subprocess

# EBISU's one line of results (tab-separated): arch, REAL words, nx, ny, steps asked, steps a
# launch, block, valid columns, <grid>, blocks a multiprocessor, shared memory, ring, ms, GCells/s.
EBISU_LINE = re.compile(r"^(\d+)\t([12])\t(\d+)\t(\d+)\t(\d+)\t(\d+)\t(\d+)\t(-?\d+)\t"
                        r"<(-?\d+),(-?\d+),(-?\d+)>\t\S+\t\S+\t\S+\t([0-9.]+)\t")
AN5D_LINE = re.compile(r"^Average:\s+[0-9.]+ GFLOPS,\s+([0-9.]+) ms")
RUNS = 3


def ebisu_us(exe, n, block):
    """EBISU's microseconds a step at n x n float32, with `block` threads a block (its --bdim)."""
    steps = 9 * max(10, int(100 * (8192 / n) ** 2))  # (it fuses 9 steps a launch)
    times = []
    for _ in range(RUNS):
        out = subprocess.run([exe, str(n), str(n), "--fp32", "--warmup", f"--iter={steps}",
                              f"--bdim={block}"], capture_output=True, text=True, timeout=300)
        text = out.stdout + out.stderr
        m = next((m for m in map(EBISU_LINE.match, text.splitlines()) if m), None)
        if out.returncode != 0 or "Cuda failure" in text or not m or m[2] != "1" or int(m[10]) <= 0:
            raise RuntimeError(f"EBISU at {n}x{n}, --bdim={block}: no result ({text.strip()[-300:]})")
        launches = max(1, -(-int(m[5]) // int(m[6])))
        times.append(float(m[12]) * 1e3 / (int(m[6]) * launches))
    return statistics.median(times)


def an5d_us(exe, n):
    """AN5D's microseconds a step at an n x n interior (float32)."""
    steps = max(1000, int(1000 * (8192 / n) ** 2))
    times = []
    for _ in range(RUNS):
        out = subprocess.run([exe, "-s", str(n), "-t", str(steps), "-n", "1"], capture_output=True,
                             text=True, timeout=300)
        m = next((m for m in map(AN5D_LINE.match, out.stdout.splitlines()) if m), None)
        if out.returncode != 0 or not m:
            raise RuntimeError(f"AN5D {os.path.basename(exe)} at {n}x{n}: no result "
                               f"({(out.stdout + out.stderr).strip()[-300:]})")
        times.append(float(m[1]) * 1e3 / steps)
    return statistics.median(times)


def programs():
    """The built peers under UNISON_PUBLISHED_STENCILS: (peer name, function of n giving
    microseconds a step); an empty list when the variable is unset."""
    root = os.environ.get("UNISON_PUBLISHED_STENCILS")
    if not root:
        return []
    found = []
    ebisu = os.path.join(root, "ebisu", "2d5pt_ebisu.exe")
    if os.access(ebisu, os.X_OK):
        for block in (256, 128):
            found.append((f"ebisu_bdim{block}", lambda n, b=block: ebisu_us(ebisu, n, b)))
    for exe in sorted(glob.glob(os.path.join(root, "an5d", "bin", "j2d5pt-float-*"))):
        config = os.path.basename(exe)[len("j2d5pt-float-"):]  # threads-steps-rows
        found.append((f"an5d_{config.replace('-', '_')}", lambda n, e=exe: an5d_us(e, n)))
    if not found:
        print(f"UNISON_PUBLISHED_STENCILS={root}: no EBISU or AN5D build found there")
    return found


def time_published(n, case, record):
    """Times every built peer at n x n and records each beside `case` (seconds a step)."""
    for name, us_of in programs():
        try:
            us = us_of(n)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print(f"{case} {name}: skipped: {e}")
            continue
        if math.isfinite(us) and us > 0:
            print(f"{case} {name} {us:9.2f} us/step")
            record(case, name, us / 1e3)
