"""The tutorials' 2-D diffusion of the "jagged image", on Unison's kernels.

    python3 diffusion.py            # NumPy arrays: the OpenMP backend
    python3 diffusion.py --cupy     # CuPy arrays: the GPU
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

f = unison.jagged_field(xp.empty((2000, 2000), dtype=xp.float32))  # the seed image, in place
t0 = time.perf_counter()
lapl = unison.diffuse(f, 1000, 0.1, laplacian="final_only")  # f advanced in place
t = time.perf_counter() - t0
print(f"1000 steps of 2000 x 2000: {t:.3f} s ({t / 1000 * 1e6:.0f} us a step); "
      f"field sum {float(f.sum()):.6g}, last Laplacian's largest magnitude {float(abs(lapl).max()):.3g}")
