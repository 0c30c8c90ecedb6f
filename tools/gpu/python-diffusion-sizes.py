"""unison.diffuse on CuPy arrays at 2000^2 to 16384^2 float32, beside a naive CUDA C kernel
compiled by CuPy (one thread a cell, f_next and lapl written every step) and CuPy's copy of one
field: per step, CUDA events around calls of `steps` steps on the default stream, the median of
5 calls after one. Run by tools/gpu/gpu-python-diffusion-sizes.sh."""
import cupy as cp
import unison

NAIVE = cp.RawKernel(r"""
extern "C" __global__ void step(const float* f, float* next, float* lapl, int rows, int cols,
                                float coeff) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  long i = (long)r * cols + c;
  float sum = (r > 0 ? f[i - cols] : 0.f) + (r + 1 < rows ? f[i + cols] : 0.f) +
              (c > 0 ? f[i - 1] : 0.f) + (c + 1 < cols ? f[i + 1] : 0.f);
  float lap = 4.f * f[i] - sum;
  next[i] = f[i] - coeff * lap;
  lapl[i] = lap;
}""", "step")


def median_us(call, reps=5):
    call()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        a.record()
        call()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b) * 1000)
    return sorted(times)[len(times) // 2]


print("grid | steps a call | every step | final_only | naive CUDA C every step | copy of one field "
      "(us per step; copy per call)")
for n in (2000, 4096, 8192, 16384):
    steps = 100 if n <= 4096 else 40 if n <= 8192 else 20
    f = cp.random.rand(n, n, dtype=cp.float32)
    lapl = cp.empty_like(f)
    g, h = f.copy(), cp.empty_like(f)
    every = median_us(lambda: unison.diffuse(f, steps, 0.2, lapl)) / steps
    final = median_us(lambda: unison.diffuse(f, steps, 0.2, lapl, laplacian="final_only")) / steps
    grid, block = ((n + 31) // 32, (n + 7) // 8), (32, 8)

    def naive():
        x, y = g, h
        for _ in range(steps):
            NAIVE(grid, block, (x, y, lapl, cp.int32(n), cp.int32(n), cp.float32(0.2)))
            x, y = y, x

    peer = median_us(naive) / steps
    copy = median_us(lambda: h.__setitem__(Ellipsis, g))
    print(f"{n}^2 | {steps} | {every:.1f} | {final:.1f} | {peer:.1f} | {copy:.1f}", flush=True)
