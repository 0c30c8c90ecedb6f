"""The Python module on device arrays, for a machine with an NVIDIA GPU and a build with Cuda:
CuPy arrays inside a non-blocking stream with no manual synchronisation before the results are
read on that stream, PyTorch tensors and Numba device arrays where those are installed. Each
result is compared with NumPy's float64 reference; prints one line per check and exits 1 if any
fails."""

import sys

import numpy as np

import unison

failures = []


def check(name, got, want, rtol=2e-5, atol=1e-6):
    try:
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want, rtol=rtol, atol=atol)
        print(f"ok   {name}")
    except AssertionError as e:
        failures.append(name)
        print(f"FAIL {name}: {e}")


def expect_error(name, kind, fn):
    try:
        fn()
    except kind as e:
        print(f"ok   {name}: {type(e).__name__}: {e}")
        return
    except Exception as e:  # noqa: BLE001
        failures.append(name)
        print(f"FAIL {name}: {type(e).__name__}: {e}")
        return
    failures.append(name)
    print(f"FAIL {name}: no error")


assert "cuda" in unison.backends(), unison.backends()
rng = np.random.default_rng(5)
x_h = rng.standard_normal(1_000_003).astype(np.float32)
f_h = rng.random((301, 257)).astype(np.float32)


def gaussian(x):
    x = x.astype(np.float64)
    return np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)


def diffuse_ref(f, steps, coeff):
    f = f.astype(np.float64)
    for _ in range(steps):
        p = np.pad(f, 1)
        lap = 4 * f - ((p[:-2, 1:-1] + p[2:, 1:-1]) + (p[1:-1, :-2] + p[1:-1, 2:]))
        f = f - coeff * lap
    return f, lap


try:
    import cupy as cp
except ImportError:
    cp = None

if cp is not None:
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.asarray(x_h)
        y = unison.gaussian_pdf(x, 0.0, 1.0)  # on s, CuPy's current stream
        z = unison.add(y, 1.0)
        strided = unison.add(x[0:999_999:3], x[1:1_000_000:3])
        f = cp.asarray(f_h)
        nxt, lap1 = unison.diffusion_step(f, 0.1)
        g = f.copy()
        lap = unison.diffuse(g, 20, 0.1)
        h = unison.histogram(x, -4.0, 4.0, bins=100)
        norms = unison.l2_norm(f)
        y_h, z_h, st_h, nxt_h, g_h, lap_h, h_h, n_h = (
            cp.asnumpy(a, stream=s) for a in (y, z, strided, nxt, g, lap, h, norms))
        s.synchronize()
    assert type(y) is cp.ndarray and y.dtype == cp.float32
    check("cupy gaussian_pdf (non-blocking stream)", y_h, gaussian(x_h))
    check("cupy add after it on the stream", z_h, gaussian(x_h) + 1)
    check("cupy add on strided views", st_h,
          x_h[0:999_999:3].astype(np.float64) + x_h[1:1_000_000:3])
    rf, rl = diffuse_ref(f_h, 1, 0.1)
    check("cupy diffusion_step", nxt_h, rf, atol=1e-5)
    rf, rl = diffuse_ref(f_h, 20, 0.1)
    check("cupy diffuse 20 steps", g_h, rf, atol=1e-4)
    check("cupy diffuse's last Laplacian", lap_h, rl, atol=1e-4)
    x64 = x_h.astype(np.float64)
    inside = x64[(x64 >= -4) & (x64 < 4)]
    want_h = np.bincount(np.floor((inside + 4) / 0.08).astype(np.int64), minlength=100)
    check("cupy histogram", h_h, want_h, rtol=0, atol=2)  # values within a rounding of an edge
    check("cupy l2_norm", n_h, np.sqrt((f_h.astype(np.float64) ** 2).sum(axis=1)))
    pi = unison.monte_carlo_pi(1_000_001, seed=7, backend="cuda")
    check("monte_carlo_pi on cuda equals the host's", pi, unison.monte_carlo_pi(1_000_001, seed=7))
    expect_error("cupy with a host out", ValueError,
                 lambda: unison.add(cp.ones(3, cp.float32), 1.0, out=np.zeros(3, np.float32)))
    expect_error("cupy float64 into float32", TypeError,
                 lambda: unison.add(cp.ones(3), 1.0, out=cp.zeros(3, cp.float32)))
    expect_error("cupy reversed view (CuPy exports a copy of it)", ValueError,
                 lambda: unison.add(cp.ones(5)[::-1], 1.0))
    expect_error("cupy reversed view as the output", ValueError,
                 lambda: unison.add(cp.ones(5), 1.0, out=cp.zeros(5)[::-1]))
    expect_error("cupy on the serial backend", ValueError,
                 lambda: unison.add(cp.ones(5), 1.0, backend="serial"))
else:
    print("skip cupy: not installed")

try:
    import torch
except ImportError:
    torch = None
if torch is not None and torch.cuda.is_available():
    t = torch.from_numpy(x_h).cuda()
    r = unison.gaussian_pdf(t, 0.0, 1.0)
    assert isinstance(r, torch.Tensor) and r.is_cuda
    check("torch gaussian_pdf (current stream)", r.cpu().numpy(), gaussian(x_h))
else:
    print("skip torch: not installed or no GPU")

try:
    from numba import cuda as ncuda
except ImportError:
    ncuda = None
if ncuda is not None:
    d = ncuda.to_device(x_h)
    r = unison.add(d, 2.0)
    check("numba device array (CUDA Array Interface)", r.copy_to_host(),
          x_h.astype(np.float64) + 2)
else:
    print("skip numba")

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
