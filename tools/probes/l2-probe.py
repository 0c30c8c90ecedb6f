"""Does the H100's L2 keep a field between kernels? Time, in a CUDA graph of 200 launches, a
float4 copy that ping-pongs between two buffers of B MB (what diffusion's f and f_next do), with
and without a second output of B MB written with streaming stores (what every step's Laplacian
adds). Below the HBM time (bytes / ~3 TB/s) means the L2 served part of it.
Usage (GPU machine): python3 tools/probes/l2-probe.py"""
import cupy as cp

src = r'''
extern "C" __global__ void copy(const float4* __restrict__ a, float4* __restrict__ b,
                                float4* __restrict__ c, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) { float4 v = a[i]; b[i] = v; if (c) __stcs(c + i, v); }
}'''
kernel = cp.RawKernel(src, 'copy')
stream = cp.cuda.Stream(non_blocking=True)
for mb in (4, 8, 12, 16, 20, 24, 32):
    n = mb * (1 << 20) // 16
    bufs = [cp.ones(n * 4, dtype=cp.float32) for _ in range(3)]
    for third in (False, True):
        with stream:
            g = None
            stream.begin_capture()
            for k in range(200):
                a, b = (bufs[0], bufs[1]) if k % 2 == 0 else (bufs[1], bufs[0])
                kernel(((n + 255) // 256,), (256,), (a, b, bufs[2] if third else cp.uint64(0), cp.int64(n)))
            g = stream.end_capture()
            g.launch(stream)
            stream.synchronize()
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            times = []
            for _ in range(5):
                e0.record(stream)
                g.launch(stream)
                e1.record(stream)
                e1.synchronize()
                times.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3 / 200)
        t = sorted(times)[2]
        moved = mb * (3 if third else 2) * 1.048576e6
        print(f"buffers {mb:3d} MB, {'read+write+stream' if third else 'read+write       '}: "
              f"{t:7.2f} us per copy, {moved / t / 1e6:5.2f} TB/s effective")
