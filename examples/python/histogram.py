"""The tutorials' histogram: counts of normal samples in 100 bins over [-4, 4).

    python3 histogram.py            # NumPy arrays: the OpenMP backend
    python3 histogram.py --cupy     # CuPy arrays: the GPU
"""
import sys
import time
from typing import Any

import numpy as np

import unison

xp: Any = np  # NumPy, or CuPy with --cupy: the same calls on either
if "--cupy" in sys.argv:
    import cupy

    xp = cupy

x = xp.asarray(np.random.default_rng(2).standard_normal(10_000_000).astype(np.float32))
t0 = time.perf_counter()
counts = unison.histogram(x, -4.0, 4.0, bins=100)
if xp is not np:
    xp.cuda.get_current_stream().synchronize()
t = time.perf_counter() - t0
want, _ = xp.histogram(x, bins=100, range=(-4.0, 4.0))
moved = int(abs(counts - want).sum())
print(f"histogram of {x.shape[0]} values: {t * 1e3:.2f} ms; {int(counts.sum())} counted, "
      f"{moved} placed differently from {xp.__name__}.histogram (values within a rounding of an edge)")
assert moved < 10
