"""What the peer scripts share: their command line (--scale=F), unison-bench's sizes at that
scale, wall-clock timing, whether a GPU stack is present, and the record of each result that
unison-bench reads into its table."""
import csv
import importlib
import math
import os
import sys
import time

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


def scaled(n, scale, least=1, dims=1):
    """unison::bench::scaled: the size n times the scale (a side of a 2-D or 3-D shape times
    its square or cube root), rounded half away from zero as llround does, at least `least`;
    the same number as unison-bench's, so that a result lands on its case's row."""
    x = float(n) * (scale if dims == 1 else math.pow(scale, 1.0 / dims))
    whole = math.floor(x)
    v = int(whole) + (1 if x - whole >= 0.5 else 0)
    return max(v, least)


def size_tag(n):
    """unison::bench::size_tag: 100000000 -> "1e8" (powers of ten); other sizes as they are."""
    m, e = n, 0
    while m >= 10 and m % 10 == 0:
        m //= 10
        e += 1
    return f"1e{e}" if m == 1 else str(n)


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
