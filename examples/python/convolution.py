"""The tutorials' 1-D convolution, np.convolve(x, k, mode), on Unison's kernel.

    python3 convolution.py            # NumPy arrays: the OpenMP backend
    python3 convolution.py --cupy     # CuPy arrays: the GPU, on CuPy's current stream
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

rng = np.random.default_rng(1)
x = xp.asarray(rng.standard_normal(10_000_000).astype(np.float32))
k = xp.asarray(rng.standard_normal(33).astype(np.float32))

y = unison.convolve(x, k, "valid")  # a new array of x's library
t0 = time.perf_counter()
unison.convolve(x, k, "valid", out=y)  # into an existing one: no allocation
if xp is not np:
    xp.cuda.get_current_stream().synchronize()
t = time.perf_counter() - t0

want = xp.convolve(x, k, "valid")
err = float(abs(y - want).max() / abs(want).max())
print(f"convolve of {x.shape[0]} values with {k.shape[0]} taps: {t * 1e3:.2f} ms, "
      f"relative difference from {xp.__name__}.convolve {err:.1e}")
assert err < 1e-5
