"""What the peer scripts share: wall-clock timing, whether a GPU stack is present, and the
record of each result that unison-bench reads into its table."""
import csv
import os
import time

import numpy as np


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
