# The timing behind python-timing.txt: PYTHONPATH=<build>/python OMP_PROC_BIND=false python3 python-timing.py,
# the two builds alternated (before, after, before, ...); both built with -DUNISON_KOKKOS_SOURCE=INSTALLED
# on one installed Kokkos 4.6.01, -DUNISON_ENABLE_PYTHON=ON, Serial and OpenMP.
# Times the Python module's histogram (float64) and matmul_core (float32, float64) of one build:
# python3 pytime.py  (PYTHONPATH selects the build). Prints the median of 30 calls each, in us.
import time, numpy as np, unison
rng = np.random.default_rng(1)
x = rng.random(4_000_000)
A32 = rng.random((2000, 40, 40), dtype=np.float32); B32 = rng.random((2000, 40, 40), dtype=np.float32)
A64 = A32.astype(np.float64); B64 = B32.astype(np.float64)
def med(f, n=30):
    f(); t = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
    t.sort(); return t[n // 2] * 1e6
for name, f in [("histogram f64 4e6 100 bins", lambda: unison.histogram(x, 0.0, 1.0, bins=100)),
                ("matmul_core f32 2000x40x40", lambda: unison.matmul_core(A32, B32)),
                ("matmul_core f64 2000x40x40", lambda: unison.matmul_core(A64, B64))]:
    print(f"{name}: {med(f):.0f}")

# The second table: matmul_core of float32 with out=, 41 calls (argv[1] names the build).
# # (second script)
# rng = np.random.default_rng(1)
# A32 = rng.random((2000, 40, 40), dtype=np.float32); B32 = rng.random((2000, 40, 40), dtype=np.float32)
# out = np.empty_like(A32)
# def med(f, n=41):
#     f(); t = []
#     for _ in range(n):
#         t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
#     t.sort(); return t[n // 2] * 1e6, t[0] * 1e6
# m, lo = med(lambda: unison.matmul_core(A32, B32, out=out))
# print(f"{sys.argv[1]} matmul_core f32 2000x40x40 out=: median {m:.0f} us, min {lo:.0f}")
