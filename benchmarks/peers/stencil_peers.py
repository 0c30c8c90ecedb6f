"""The peers of Unison's diffusion and convolution benchmarks, timed on the same machine in the
same run (docs/workloads.md sections 3 and 4), at the sizes of the run's cases (the manifest:
peer_timing.cases).

Diffusion, 2000 x 2000 float32 at the seed size (the side scaled by the square root of F), time
per step:
  - numba_tutorial: the tutorial's Numba CUDA kernel as published (8x8 blocks, updates the field
    in place while neighbouring blocks read it: racy), with and without writing the Laplacian;
  - cuda_c: a hand-written CUDA C kernel (through CuPy's RawKernel): 32x8 blocks, a shared-memory
    tile with a one-cell halo, race-free (two buffers), every step's Laplacian written; the
    steps captured in a CUDA graph, as a careful CUDA programmer would launch them;
  - numba_cpu_parallel: @njit(parallel=True) over rows on the CPU cores, race-free, every
    step's Laplacian.
Convolution, valid mode, unison-bench's four sizes (1e8 float32 with 5 taps, 1e6 float64 with 5,
1e7 float32 with 33 and with 257), beside its "direct" cases:
  - CPU (always; NumPy and Numba): numba_cpu, the tutorial's kernel as @njit(parallel=True), a
    prange over the outputs (each output summed in a local, not accumulated into y); numpy,
    np.convolve(x, k, 'valid') (one thread). Wall time (time.perf_counter): two warm-up calls
    (the first compiles), then the median of at least three calls (more, up to 20, within about
    a second). Checked against np.convolve in float64 on the first 1,000,003 outputs:
    ||y - ref|| / ||ref|| within 1e-5 sqrt(taps) (float64: 1e-12 sqrt(taps)), unison-bench's
    tolerance.
  - GPU, 1e8 float32 with 5 taps: the tutorial's Numba CUDA kernel (one thread per output; it
    accumulates into y, so y is zeroed first and that is not timed), and cupy.convolve.

GPU cases: warm-up, then CUDA events around a loop (steps) or the median of 20 calls.
Sweep past the caches (unison-bench --sizes; the part "sizes", on a GPU), from a field uniform in
[0.5, 1) at 2000^2 to 16384^2 (scaled), time per step:
  - cuda_c_naive: a naive CUDA C kernel (through CuPy's RawKernel), one thread a cell reading its
    neighbours from memory, 32x8 blocks, two buffers; every step with its Laplacian and final
    only; in a CUDA graph.
  - the published codes EBISU and AN5D, final only, where UNISON_PUBLISHED_STENCILS names their
    builds (published_stencils.py: what they compute and how they are timed).

Usage: stencil_peers.py [gpu] [cpu] [convolve] [sizes] [--scale=F]
         (all three by default: gpu, the GPU diffusion; cpu, the CPU diffusion; convolve, the CPU
         convolution and, where CuPy and a CUDA device are found, the GPU one; without them the
         GPU parts say they are skipped)
       stencil_peers.py save FILE.npy
         (the 2000 x 2000 diffusion start field, for UNISON_BENCH_FIELD=FILE.npy unison-bench-cases)
"""
import math
import sys
import time

import numpy as np

from peer_timing import cases, gpu_missing, median_cpu_ms, peer_args, record, relative_error
from published_stencils import time_published

try:  # the CPU parts' Numba (without it, the numpy peer alone)
    import numba
    from numba import njit, prange
    NUMBA_MISSING = ""
except ImportError as e:
    numba, prange, NUMBA_MISSING = None, range, f"{type(e).__name__}: {e}"

    def njit(**_):
        return lambda f: f

SEED_N = 2000
COEFF = np.float32(0.25)
TPB = 8
SAMPLE = 1_000_003  # the convolution's outputs checked against the float64 reference

# Bound by gpu_setup() (the GPU parts only: the CPU parts need neither CuPy nor Numba's CUDA).
cp = cuda = float32 = None


def gpu_setup():
    """Imports CuPy and Numba's CUDA target and compiles (lazily, at first launch) the tutorial's
    kernels; returns them by name."""
    global cp, cuda, float32
    import cupy
    from numba import cuda as numba_cuda, float32 as numba_float32
    cp, cuda, float32 = cupy, numba_cuda, numba_float32
    return {f.__name__: cuda.jit(f) for f in (nb_diffusion, nb_diffusion_nolapl, nb_conv)}


def field(n):
    # The tutorial's jagged image.
    from numpy import fft
    j, k = n, n
    r = np.random.default_rng(3966789)
    f = r.random(size=(j, k), dtype=np.float32)
    f = fft.fftshift(fft.fft2(f))
    radius = 1 + np.sqrt((np.arange(j).reshape(-1, 1) - j // 2) ** 2 +
                         (np.arange(k).reshape(1, -1) - k // 2) ** 2)
    f = f * (radius ** -1.7)
    f = fft.ifft2(fft.ifftshift(f)) * (radius < 0.45 * j)
    f = f.real * (f.real > np.percentile(f.real, 70))
    return np.ascontiguousarray(f, dtype=np.float32)


SHA = TPB + 2


# The tutorial's CUDA kernels, compiled by gpu_setup() (cuda.jit).
def nb_diffusion(field, lapl):
    x, y = cuda.grid(2)
    sh = cuda.shared.array(shape=(SHA, SHA), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if tx == 0 and x > 0:
        sh[0, ty + 1] = field[x - 1, y]
    if ty == 0 and y > 0:
        sh[tx + 1, 0] = field[x, y - 1]
    if tx == TPB - 1 and x < field.shape[0] - 1:
        sh[-1, ty + 1] = field[x + 1, y]
    if ty == TPB - 1 and y < field.shape[1] - 1:
        sh[tx + 1, -1] = field[x, y + 1]
    sh[tx + 1, ty + 1] = field[x, y]
    val = 4 * sh[tx + 1, ty + 1]
    cuda.syncthreads()
    if x > 0:
        val -= sh[tx, ty + 1]
    if y > 0:
        val -= sh[tx + 1, ty]
    if x < field.shape[0] - 1:
        val -= sh[tx + 2, ty + 1]
    if y < field.shape[1] - 1:
        val -= sh[tx + 1, ty + 2]
    if x < field.shape[0] and y < field.shape[1]:
        lapl[x, y] = val
        field[x, y] -= val * 0.25


def nb_diffusion_nolapl(field):
    x, y = cuda.grid(2)
    sh = cuda.shared.array(shape=(SHA, SHA), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if tx == 0 and x > 0:
        sh[0, ty + 1] = field[x - 1, y]
    if ty == 0 and y > 0:
        sh[tx + 1, 0] = field[x, y - 1]
    if tx == TPB - 1 and x < field.shape[0] - 1:
        sh[-1, ty + 1] = field[x + 1, y]
    if ty == TPB - 1 and y < field.shape[1] - 1:
        sh[tx + 1, -1] = field[x, y + 1]
    sh[tx + 1, ty + 1] = field[x, y]
    val = 4 * sh[tx + 1, ty + 1]
    cuda.syncthreads()
    if x > 0:
        val -= sh[tx, ty + 1]
    if y > 0:
        val -= sh[tx + 1, ty]
    if x < field.shape[0] - 1:
        val -= sh[tx + 2, ty + 1]
    if y < field.shape[1] - 1:
        val -= sh[tx + 1, ty + 2]
    if x < field.shape[0] and y < field.shape[1]:
        field[x, y] -= val * 0.25


CUDA_C = r"""
extern "C" __global__ void __launch_bounds__(256)
step(const float* __restrict__ f, float* __restrict__ next, float* __restrict__ lapl, int nx,
     int ny, float coeff) {
  __shared__ float t[8 + 2][32 + 2];
  const int j = blockIdx.x * 32 + threadIdx.x, i = blockIdx.y * 8 + threadIdx.y;
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  auto at = [&](int a, int b) { return a >= 0 && a < nx && b >= 0 && b < ny ? f[a * ny + b] : 0.f; };
  t[ty][tx] = at(i, j);
  if (threadIdx.y == 0) t[0][tx] = at(i - 1, j);
  if (threadIdx.y == 7) t[9][tx] = at(i + 1, j);
  if (threadIdx.x == 0) t[ty][0] = at(i, j - 1);
  if (threadIdx.x == 31) t[ty][33] = at(i, j + 1);
  __syncthreads();
  if (i < nx && j < ny) {
    float l = 4.f * t[ty][tx] - ((t[ty - 1][tx] + t[ty + 1][tx]) + (t[ty][tx - 1] + t[ty][tx + 1]));
    lapl[i * ny + j] = l;
    next[i * ny + j] = t[ty][tx] - coeff * l;
  }
}
"""


def time_steps_gpu(launch, steps):
    launch(0)
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for s in range(steps):
        launch(s)
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / steps * 1e3  # us per step


def time_steps_graph(launch, chunk, steps):
    """Microseconds a step of launch(0), launch(1), ... captured once in a CUDA graph of `chunk`
    steps and replayed steps // chunk times in a non-blocking stream (after one untimed replay),
    between CUDA events. The caller makes sure the data is ready first (the stream does not wait
    for the default stream)."""
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for s in range(chunk):
            launch(s)
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        for _ in range(steps // chunk):
            graph.launch(stream)
        end.record(stream)
        end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / (steps // chunk * chunk) * 1e3


def streaming_cases(where):
    """The run's every-step and final-only streaming diffusion cases (their 2000 x 2000 field at
    the seed size) on `where`'s backend: (every_step, final_only), None where the run has none."""
    def first(start):
        found = cases("diffusion", where, start=start)
        return found[0] if found else None
    return first("diffusion/every_step/streaming/"), first("diffusion/final_only/streaming/")


def diffusion_gpu(kernels, f0, every, final, steps=2000):
    """The peers beside `every` and `final` (streaming_cases("gpu")) from the field f0."""
    n = f0.shape[0]
    size = f"{n}x{n}"
    nb_diffusion, nb_diffusion_nolapl = kernels["nb_diffusion"], kernels["nb_diffusion_nolapl"]
    blocks = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    fd = cuda.to_device(f0)
    ld = cuda.device_array_like(f0)
    us = time_steps_gpu(lambda s: nb_diffusion[blocks, (TPB, TPB)](fd, ld), steps)
    print(f"diffusion/every_step/numba_tutorial/{size} {us:9.2f} us/step   (racy: in place)")
    if every:
        record(every.name, "numba_cuda", us / 1e3)  # racy: no check
    us = time_steps_gpu(lambda s: nb_diffusion_nolapl[blocks, (TPB, TPB)](fd), steps)
    print(f"diffusion/final_only/numba_tutorial/{size} {us:9.2f} us/step   (racy: in place)")
    if final:
        record(final.name, "numba_cuda", us / 1e3)

    kernel = cp.RawKernel(CUDA_C, "step", options=("-std=c++17",))
    a, b = cp.asarray(f0), cp.empty_like(cp.asarray(f0))
    lapl = cp.empty_like(a)
    grid, block = ((n + 31) // 32, (n + 7) // 8), (32, 8)
    bufs = [a, b]

    def launch(s):
        kernel(grid, block, (bufs[s % 2], bufs[(s + 1) % 2], lapl, np.int32(n), np.int32(n), COEFF))

    us = time_steps_gpu(launch, steps)
    print(f"diffusion/every_step/cuda_c_32x8/{size} {us:9.2f} us/step   (stream launches)")
    # The same kernels captured once in a graph of 100 steps, replayed.
    cp.cuda.Device().synchronize()
    us = time_steps_graph(launch, 100, steps)
    print(f"diffusion/every_step/cuda_c_32x8_graph/{size} {us:9.2f} us/step")
    graph_us = us
    # Check the CUDA C step against NumPy (float64) on one step.
    a[...] = cp.asarray(f0)
    launch(0)
    ref = f0.astype(np.float64)
    p = np.pad(ref, 1)
    ref_l = 4 * ref - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
    err = np.abs(cp.asnumpy(lapl) - ref_l).max() / np.abs(ref_l).max()
    print(f"  cuda_c check: max relative error of the Laplacian {err:.2e}")
    if every:
        record(every.name, "cuda_c", graph_us / 1e3)


# The naive kernel of the sweep past the caches: one thread a cell, every neighbour read from
# memory, no shared memory; writes the Laplacian where with_lapl is set.
NAIVE_C = r"""
extern "C" __global__ void __launch_bounds__(256)
naive_step(const float* __restrict__ f, float* __restrict__ next, float* __restrict__ lapl, int nx,
           int ny, float coeff, int with_lapl) {
  const long long j = blockIdx.x * 32ll + threadIdx.x, i = blockIdx.y * 8ll + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const long long c = i * ny + j;
  const float up = i > 0 ? f[c - ny] : 0.f, down = i + 1 < nx ? f[c + ny] : 0.f;
  const float left = j > 0 ? f[c - 1] : 0.f, right = j + 1 < ny ? f[c + 1] : 0.f;
  const float l = 4.f * f[c] - ((up + down) + (left + right));
  if (with_lapl) lapl[c] = l;
  next[c] = f[c] - coeff * l;
}
"""
def diffusion_sizes_gpu():
    """cuda_c_naive beside unison-bench --sizes: the naive kernel from a field uniform in [0.5, 1)
    at each GPU side of the sweep, every step (with the Laplacian) and final only, its steps
    captured in a CUDA graph of 20 and replayed (about a third of a second of steps a size); the
    every-step kernel checked over one step against a float64 reference computed by CuPy."""
    kernel = cp.RawKernel(NAIVE_C, "naive_step", options=("-std=c++17",))
    # (the sides of the run's sweep on the GPU, each with its every-step and final-only case by
    # the backend's own choice: "diffusion/sizes/<which>/<n>x<n>", not a named algorithm's)
    sides = {}
    for which in ("every_step", "final_only"):
        start = f"diffusion/sizes/{which}/"
        for c in cases("diffusion", "gpu", kind="sizes", start=start):
            if "/" not in c.name[len(start):]:
                sides.setdefault(c.rows, {})[which] = c.name
    for n, named in sorted(sides.items()):
        size = f"{n}x{n}"
        f0 = cp.random.default_rng(11).uniform(0.5, 1.0, (n, n), dtype=cp.float64).astype(cp.float32)
        bufs = [f0.copy(), cp.empty_like(f0)]
        lapl = cp.empty_like(f0)
        # (The graph runs in a non-blocking stream: the field must be made before it starts, and
        # the memory the pool handed out must no longer be in use by the work above.)
        cp.cuda.Device().synchronize()
        grid, block = ((n + 31) // 32, (n + 7) // 8), (32, 8)
        chunk = 20
        total = max(100, int(2e4 * (2000 / n) ** 2)) // chunk * chunk
        for which, with_lapl in (("every_step", 1), ("final_only", 0)):
            if which not in named:
                continue

            def launch(s):
                kernel(grid, block, (bufs[s % 2], bufs[(s + 1) % 2], lapl, np.int32(n), np.int32(n),
                                     COEFF, np.int32(with_lapl)))

            us = time_steps_graph(launch, chunk, total)
            error = tolerance = None
            if with_lapl:
                bufs[0][...] = f0
                launch(0)
                cp.cuda.Device().synchronize()
                ref = cp.pad(f0.astype(cp.float64), 1)
                ref = ref[1:-1, 1:-1] - 0.25 * (4 * ref[1:-1, 1:-1] - ref[:-2, 1:-1] - ref[2:, 1:-1]
                                                 - ref[1:-1, :-2] - ref[1:-1, 2:])
                error = float(cp.sqrt(cp.sum((bufs[1] - ref) ** 2) / cp.sum(ref ** 2)))
                tolerance = 1e-5
                del ref
            print(f"diffusion/sizes/{which}/{size} cuda_c_naive {us:9.2f} us/step"
                  + (f"   error {error:.2e}" if error is not None else ""))
            record(named[which], "cuda_c_naive", us / 1e3, error, tolerance)
        del bufs, lapl, f0
        cp.get_default_memory_pool().free_all_blocks()
        if "final_only" in named:  # (the published codes, where built: published_stencils.py)
            time_published(n, named["final_only"], record)


@njit(parallel=True, fastmath=False)
def nb_cpu_step(f, nxt, lapl, coeff):
    nx, ny = f.shape
    for i in prange(nx):
        for j in range(ny):
            c = f[i, j]
            up = f[i - 1, j] if i > 0 else np.float32(0)
            down = f[i + 1, j] if i + 1 < nx else np.float32(0)
            left = f[i, j - 1] if j > 0 else np.float32(0)
            right = f[i, j + 1] if j + 1 < ny else np.float32(0)
            l = 4 * c - up - down - left - right
            lapl[i, j] = l
            nxt[i, j] = c - coeff * l


def diffusion_cpu(f0, every):
    # Two windows of steps from the jagged field: 2-201, and 201-500, the steps unison-bench-cases
    # times (a warm-up call and a calibration call of 100 steps each, then 3 timed calls). The
    # cost per step changes with the step: the diffusion fronts entering the field's zero
    # regions are subnormal numbers, which are slow on x86 CPUs, for a few hundred steps.
    if NUMBA_MISSING:
        print(f"skipped the cpu part: {NUMBA_MISSING}")
        return
    n = f0.shape[0]
    size = f"{n}x{n}"
    a, b, lapl = f0.copy(), np.empty_like(f0), np.empty_like(f0)
    done = 0
    for first, last in ((2, 201), (201, 500)):
        while done < first - 1:
            nb_cpu_step(a, b, lapl, COEFF)
            a, b = b, a
            done += 1
        t0 = time.perf_counter()
        for s in range(first, last + 1):
            nb_cpu_step(a, b, lapl, COEFF)
            a, b = b, a
        done = last
        us = (time.perf_counter() - t0) / (last - first + 1) * 1e6
        print(f"diffusion/every_step/numba_cpu_parallel/{size} {us:9.2f} us/step   "
              f"(steps {first}-{last}, {numba.get_num_threads()} threads)")
    # The window unison-bench times (steps 201-500).
    record(every.name, "numba_cpu", us / 1e3)


def convolve_cases(where):
    """The run's convolve cases on `where`'s backend (their "direct" rows, with the data on the
    device): (case, NumPy type, n, taps); at the seed sizes float32 1e8 with 5 taps, float64 1e6
    with 5, float32 1e7 with 33 and with 257."""
    found = []
    for dtype, kind in ((np.float32, "f32"), (np.float64, "f64")):
        for c in cases("convolve", where, start=f"convolve/valid/{kind}/"):
            if c.name.endswith("/direct"):
                found.append((c, dtype))
    return found


@njit(parallel=True)
def nb_cpu_convolve(x, k, y, zero):
    # The tutorial's kernel on the CPU's cores: output i of the valid convolution,
    # sum_j x[i + K - 1 - j] k[j], one prange iteration each (summed in a local: y is written,
    # not accumulated into, so its prior contents do not matter).
    m = k.size
    for i in prange(y.size):
        acc = zero
        for j in range(m):
            acc += x[i + m - 1 - j] * k[j]
        y[i] = acc


def convolve_cpu():
    if NUMBA_MISSING:
        print(f"skipped the numba_cpu peers: {NUMBA_MISSING}")
    for c, dtype in convolve_cases("cpu"):
        case, n, taps = c.name, c.n, c.taps
        rng = np.random.default_rng(1)
        x = rng.uniform(-1, 1, n).astype(dtype)
        k = rng.uniform(-1, 1, taps).astype(dtype)
        y = np.empty(n - taps + 1, dtype)
        ref = np.convolve(x[:SAMPLE + taps - 1].astype(np.float64), k.astype(np.float64), "valid")
        tolerance = (1e-5 if dtype == np.float32 else 1e-12) * max(1.0, math.sqrt(taps))
        out = {}
        peers = [("numpy", lambda: out.__setitem__("y", np.convolve(x, k, "valid")), 1)]
        if not NUMBA_MISSING:
            zero = dtype(0)
            peers.insert(0, ("numba_cpu", lambda: (nb_cpu_convolve(x, k, y, zero), out.__setitem__("y", y)), 2))
        for peer, fn, warmups in peers:
            ms = median_cpu_ms(fn, warmups=warmups)
            err = relative_error(out["y"][:SAMPLE], ref)
            print(f"{case} {peer:10s} {ms:10.3f} ms   rel.err {err:.1e}"
                  f"{'' if err <= tolerance else f'  FAIL (> {tolerance:.1e})'}", flush=True)
            record(case, peer, ms, err, tolerance)
        x = y = out = None  # freed before the next case


def median_ms(fn, reps=20):
    for _ in range(3):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def nb_conv(x, k, y):
    i = cuda.grid(1)
    if (i >= k.size - 1) and (i < x.size):
        for j in range(k.size):
            y[i - k.size + 1] += x[i - j] * k[j]


def convolve_gpu(kernels):
    # (the float32 cases of 5 taps: 1e8 values at the seed size)
    for c, dtype in convolve_cases("gpu"):
        if dtype == np.float32 and c.taps == 5:
            convolve_gpu_case(kernels, c.name, c.n, c.taps)


def convolve_gpu_case(kernels, case, n, m):
    nb_conv = kernels["nb_conv"]
    rng = np.random.default_rng(1)
    x = cp.asarray(rng.uniform(-1, 1, n).astype(np.float32))
    k = cp.asarray(rng.uniform(-1, 1, m).astype(np.float32))
    y = cp.zeros(n - m + 1, dtype=np.float32)
    threads = 128
    blocks = (n + threads - 1) // threads
    xd, kd, yd = cuda.as_cuda_array(x), cuda.as_cuda_array(k), cuda.as_cuda_array(y)
    ms = median_ms(lambda: nb_conv[blocks, threads](xd, kd, yd))
    print(f"{case[:-len('/direct')]}/numba_tutorial {ms:8.3f} ms   (accumulates into y)")
    record(case, "numba_cuda", ms)
    y.fill(0)
    nb_conv[blocks, threads](xd, kd, yd)
    ref = np.convolve(cp.asnumpy(x[:100000]).astype(np.float64), cp.asnumpy(k).astype(np.float64), "valid")
    print(f"  numba check: max abs error {np.abs(cp.asnumpy(y[:ref.size]) - ref).max():.2e}")
    ms = median_ms(lambda: cp.convolve(x, k, "valid"))
    print(f"{case[:-len('/direct')]}/cupy {ms:8.3f} ms")
    record(case, "cupy", ms)


def main():
    if sys.argv[1:2] == ["save"]:  # the start field as .npy, for UNISON_BENCH_FIELD
        if len(sys.argv) != 3:
            sys.exit("usage: stencil_peers.py save FILE.npy")
        np.save(sys.argv[2], field(SEED_N))
        return 0
    scale, what, _ = peer_args(parts=("gpu", "cpu", "convolve", "sizes"))
    what = what or ["gpu", "cpu", "convolve"]
    gpu_every, gpu_final = streaming_cases("gpu") if "gpu" in what else (None, None)
    cpu_every, _ = streaming_cases("cpu") if "cpu" in what else (None, None)
    kernels = None
    if "gpu" in what or "convolve" in what or "sizes" in what:
        why = gpu_missing()
        if why:
            print(f"skipped the gpu parts (diffusion, convolve and sizes): {why}")
        else:
            kernels = gpu_setup()
            print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"scale {scale:g}; cpu threads: {numba.get_num_threads() if numba else '(no numba)'}")
    # (the start field at the side of the run's cases: 2000 at the seed size)
    if "gpu" in what and kernels and (gpu_every or gpu_final):
        diffusion_gpu(kernels, field((gpu_every or gpu_final).rows), gpu_every, gpu_final)
    if "sizes" in what and kernels:
        diffusion_sizes_gpu()
    if "convolve" in what:
        convolve_cpu()
        if kernels:
            convolve_gpu(kernels)
    if "cpu" in what and cpu_every:
        diffusion_cpu(field(cpu_every.rows), cpu_every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
