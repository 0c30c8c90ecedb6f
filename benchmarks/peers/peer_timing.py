"""What the peer scripts share: their command line (--scale=F), the run's cases and their sizes
(its manifest), wall-clock timing, whether a GPU stack is present, and the record of each result that
unison-bench reads into its table."""
import csv
import importlib
import json
import math
import os
import sys
import time
from types import SimpleNamespace

import numpy as np


def peer_args(parts=(), flags=(), argv=None):
    """The script's command line: `--scale=F` (unison-bench's --scale, 0 < F <= 1; default 1),
    the flags it takes ("--no-numba") and positional parts from `parts` ("gpu", "cpu"). Returns
    (scale, the parts given in their order, the flags given); exits with code 2 on anything else."""
    scale, chosen, given = 1.0, [], set()
    for a in sys.argv[1:] if argv is None else argv:
        if a.startswith("--scale="):
            try:
                scale = float(a[len("--scale="):])
            except ValueError:
                scale = float("nan")
            if not 0 < scale <= 1:
                sys.exit(f"{os.path.basename(sys.argv[0])}: --scale: '{a[8:]}' is not a number "
                         "above 0 and at most 1")
        elif a in flags:
            given.add(a)
        elif a in parts:
            chosen.append(a)
        else:
            sys.exit(f"{os.path.basename(sys.argv[0])}: unknown argument '{a}' (--scale=F"
                     + "".join(f", {p}" for p in (*flags, *parts)) + ")")
    return scale, chosen, given


def cases(function, where, kind="workload", with_copies=False, start=""):
    """The cases of this unison-bench run that time `function`, as its manifest lists them (the
    file UNISON_BENCH_MANIFEST names: unison-bench writes it and sets the variable for its
    peers; by hand, `unison-bench --list --json > FILE` with the run's options): those of `kind`,
    with or without the host copies, whose name starts with `start`, registered on the CPU's
    backends (where="cpu": OpenMP's, else Serial's), the GPU's ("gpu": Cuda's) or the first of
    the backends `where` names that has any (a tuple: ("Serial", "OpenMP")), in the manifest's
    order. Each is a SimpleNamespace: `name` (the case, "hypot/1e6/device") and its
    sizes by name (`n`, `rows`, ...) as integers. A peer times exactly these: no size or name is
    rebuilt here."""
    path = os.environ.get("UNISON_BENCH_MANIFEST")
    if not path:
        sys.exit(f"{os.path.basename(sys.argv[0])}: no manifest: run it from unison-bench, or set "
                 "UNISON_BENCH_MANIFEST to the output of `unison-bench --list --json`")
    with open(path) as f:
        listed = [c for c in json.load(f)["cases"]
                  if c["function"] == function and c["kind"] == kind
                  and c["with_copies"] == with_copies and c["name"].startswith(start)]
    order = {"cpu": ("OpenMP", "Serial"), "gpu": ("Cuda",)}.get(where, where)
    for backend in order:
        on = [c for c in listed if backend in c["backends"]]
        if on:
            return [SimpleNamespace(name=c["name"], **{k: int(v) for k, v in c["sizes"].items()})
                    for c in on]
    return []


def median_wall_ms(fn, reps, sync=lambda: None):
    """Median milliseconds of fn() followed by sync(), over reps calls after one warm-up call."""
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def median_cpu_ms(fn, warmups=2, least=3, most=20, budget_s=1.0):
    """Median wall milliseconds (time.perf_counter) of fn() on the CPU: `warmups` calls first
    (the first call of a Numba function compiles it), then timed calls, at least `least` of
    them, more while they take under budget_s in all, at most `most`."""
    for _ in range(warmups):
        fn()
    times, spent = [], 0.0
    while len(times) < least or (len(times) < most and spent < budget_s):
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
        times.append(t * 1e3)
        spent += t
    return float(np.median(times))


def relative_error(got, ref):
    """||got - ref|| / ||ref|| in float64 (||got - ref|| where ref is all zeros)."""
    got = np.asarray(got, dtype=np.float64).ravel()
    ref = np.asarray(ref, dtype=np.float64).ravel()
    # (sums of squares, not np.linalg.norm: a BLAS call leaves NumPy's OpenBLAS threads spinning
    # for a while, which slows the next timed OpenMP call in this process)
    norm = math.sqrt(float(np.sum(np.square(ref))))
    diff = math.sqrt(float(np.sum(np.square(got - ref))))
    return float(diff / norm if norm > 0 else diff)


def gpu_missing():
    """Why the GPU peers cannot run here (no CuPy, no CUDA device, no Numba CUDA), or ''."""
    try:
        np.row_stack = np.vstack  # numba-cuda fails to import with NumPy 2.5 without it (GPU.md)
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
        from numba import cuda
        if not cuda.is_available():
            return "Numba finds no CUDA device"
    except Exception as e:  # ImportError, or CUDA's own errors without a driver
        return f"{type(e).__name__}: {e}".splitlines()[0]
    return ""


def numba_missing():
    """Why Numba's CPU peers cannot run here (no Numba), or ''."""
    try:
        importlib.import_module("numba")
    except Exception as e:
        return f"{type(e).__name__}: {e}".splitlines()[0]
    return ""


def record(case, peer, ms, error=None, tolerance=None):
    """Appends one result to the CSV file named by UNISON_PEERS_CSV (unison-bench sets it and reads
    the rows into its table; without it nothing is written): the unison-bench case the result
    stands beside ("histogram/f32/1e8/bins100"), the peer ("numba_cuda", "cupy", "numba_cpu",
    "numpy"), its median milliseconds per call (per step for a diffusion), and its check against
    the float64 reference in that case's measure (error and tolerance; None: not checked)."""
    path = os.environ.get("UNISON_PEERS_CSV")
    if not path:
        return
    with open(path, "a", newline="") as f:
        csv.writer(f).writerow([case, peer, f"{ms / 1e3:.6g}",
                                "" if error is None else f"{error:.4g}",
                                "" if tolerance is None else f"{tolerance:.4g}"])


def run_parts(cpu, gpu, scale):
    """The CPU part, then the GPU part where a GPU and CuPy are there (else says why not)."""
    print(f"scale {scale:g}")
    cpu(scale)
    why = gpu_missing()
    if why:
        print(f"skipped the gpu part: {why}")
    else:
        gpu(scale)
    return 0


def run_chosen_parts(cpu, gpu):
    """A peer script's main with the parts "gpu" and "cpu" on its command line (both where it
    names neither; --scale=F): the GPU part first where a GPU and CuPy are there (else says why
    not), then the CPU part."""
    scale, what, _ = peer_args(parts=("gpu", "cpu"))
    what = what or ["gpu", "cpu"]
    print(f"scale {scale:g}")
    if "gpu" in what:
        why = gpu_missing()
        if why:
            print(f"skipped the gpu part: {why}")
        else:
            gpu(scale)
    if "cpu" in what:
        cpu(scale)
    return 0
