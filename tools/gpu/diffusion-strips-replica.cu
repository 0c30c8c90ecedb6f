// A probe, not part of the library: CUDA C replicas of the diffusion's GPU strip kernels
// (include/unison/detail/diffusion/strips.hpp, float, 16-byte chunks, whole chunks only) and
// variants of them, timed at the sizes given (default 2000 4096 8192 16384 cells a side) beside a
// copy of one field and a naive kernel (one thread a cell); each variant's result is checked bit
// for bit against the naive kernel's. Variants: strip rows S, rows loaded ahead P, streaming or
// plain stores, the neighbours across the chunk by warp shuffles; two steps a pass with D rows
// loaded ahead, or with the outer neighbours by shuffles (the shuffle variants need a side that
// is a multiple of 128). Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o replica tools/gpu/diffusion-strips-replica.cu
//   ./replica 8192 16384
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x)                                                          \
  do {                                                                 \
    cudaError_t e = (x);                                               \
    if (e) {                                                           \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

__device__ __forceinline__ void st(float c, float u, float d, float l, float r, float k, float& lap,
                                   float& v) {
  float sum = (u + d) + (l + r);
  lap = fmaf(4.f, c, -sum);
  v = fmaf(-k, lap, c);
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long n4) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n4) b[i] = a[i];
}

__global__ void naive(const float* f, float* nx, float* lp, int R, int C, float k, int wl) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= R || c >= C) return;
  long i = (long)r * C + c;
  float lap, v;
  st(f[i], r > 0 ? f[i - C] : 0.f, r + 1 < R ? f[i + C] : 0.f, c > 0 ? f[i - 1] : 0.f,
     c + 1 < C ? f[i + 1] : 0.f, k, lap, v);
  nx[i] = v;
  if (wl) lp[i] = lap;
}

// Unison's DiffusionStrips, K = 4 floats, full chunks (C % 4 == 0).
// SM: 0 plain stores, 1 lapl streaming (as Unison), 2 both streaming.
// MAP: 0 chunk-fastest (as Unison), 1 strips-fastest inside a block (block = 32 chunks x 8 strips)
template <int P, int SM, int MAP>
__global__ void __launch_bounds__(256)
    strips(const float* __restrict__ f, float* __restrict__ nx, float* __restrict__ lp, long R,
           long C, long chunks, int S, float k) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long nstrips = (R + S - 1) / S;
  if (i >= chunks * nstrips) return;
  long ch, sp;
  if (MAP == 0) {
    ch = i % chunks;
    sp = i / chunks;
  } else {
    // blocks tile (32 chunks) x (8 strips); block order: chunk blocks fastest
    long b = blockIdx.x, cb = (chunks + 31) / 32;
    long bc = b % cb, bs = b / cb;
    ch = bc * 32 + threadIdx.x % 32;
    sp = bs * 8 + threadIdx.x / 32;
    if (ch >= chunks || sp >= nstrips) return;
  }
  long c0 = ch * 4, r0 = sp * S;
  long r1 = min(r0 + S, R);
  auto load = [&](long r) -> float4 {
    if (r < 0 || r >= R) return make_float4(0, 0, 0, 0);
    return *reinterpret_cast<const float4*>(f + r * C + c0);
  };
  float4 w[P + 2];
#pragma unroll
  for (int j = 0; j < P + 2; ++j)
    w[j] = r0 - 1 + j <= r1 ? load(r0 - 1 + j) : make_float4(0, 0, 0, 0);
  for (long r = r0; r < r1; ++r) {
    float4 ahead = r + P + 1 <= r1 ? load(r + P + 1) : make_float4(0, 0, 0, 0);
    float left = c0 > 0 ? f[r * C + c0 - 1] : 0.f;
    float right = c0 + 4 < C ? f[r * C + c0 + 4] : 0.f;
    float4 v, l;
    st(w[1].x, w[0].x, w[2].x, left, w[1].y, k, l.x, v.x);
    st(w[1].y, w[0].y, w[2].y, w[1].x, w[1].z, k, l.y, v.y);
    st(w[1].z, w[0].z, w[2].z, w[1].y, w[1].w, k, l.z, v.z);
    st(w[1].w, w[0].w, w[2].w, w[1].z, right, k, l.w, v.w);
    float4* pn = reinterpret_cast<float4*>(nx + r * C + c0);
    float4* pl = reinterpret_cast<float4*>(lp + r * C + c0);
    if (SM == 0) {
      *pn = v;
      *pl = l;
    } else if (SM == 1) {
      *pn = v;
      __stcs(pl, l);
    } else {
      __stcs(pn, v);
      __stcs(pl, l);
    }
#pragma unroll
    for (int j = 0; j + 1 < P + 2; ++j) w[j] = w[j + 1];
    w[P + 1] = ahead;
  }
}

// Warp-shuffle variant: each thread K=4 cells, left/right from neighbouring lanes (shuffles),
// warp edge lanes load their one outside neighbour.
template <int P>
__global__ void __launch_bounds__(256)
    strips_shfl(const float* __restrict__ f, float* __restrict__ nx, float* __restrict__ lp, long R,
                long C, long chunks, int S, float k) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long nstrips = (R + S - 1) / S;
  bool live = i < chunks * nstrips;
  long ch = i % chunks, sp = i / chunks;
  if (!live) {
    ch = 0;
    sp = nstrips;
  }
  long c0 = ch * 4, r0 = sp * S;
  long r1 = min(r0 + S, R);
  int lane = threadIdx.x & 31;
  auto load = [&](long r) -> float4 {
    if (!live || r < 0 || r >= R) return make_float4(0, 0, 0, 0);
    return *reinterpret_cast<const float4*>(f + r * C + c0);
  };
  float4 w[P + 2];
#pragma unroll
  for (int j = 0; j < P + 2; ++j)
    w[j] = r0 - 1 + j <= r1 ? load(r0 - 1 + j) : make_float4(0, 0, 0, 0);
  // all lanes of a warp share r0 only if the warp does not straddle a strip boundary: require
  // chunks % 32 == 0 (sizes here are multiples of 128 cells).
  for (long r = r0; r < r1; ++r) {
    float4 ahead = r + P + 1 <= r1 ? load(r + P + 1) : make_float4(0, 0, 0, 0);
    float left = __shfl_up_sync(0xffffffffu, w[1].w, 1);
    float right = __shfl_down_sync(0xffffffffu, w[1].x, 1);
    if (lane == 0) left = c0 > 0 ? f[r * C + c0 - 1] : 0.f;
    if (lane == 31) right = c0 + 4 < C ? f[r * C + c0 + 4] : 0.f;
    float4 v, l;
    st(w[1].x, w[0].x, w[2].x, left, w[1].y, k, l.x, v.x);
    st(w[1].y, w[0].y, w[2].y, w[1].x, w[1].z, k, l.y, v.y);
    st(w[1].z, w[0].z, w[2].z, w[1].y, w[1].w, k, l.z, v.z);
    st(w[1].w, w[0].w, w[2].w, w[1].z, right, k, l.w, v.w);
    if (live) {
      *reinterpret_cast<float4*>(nx + r * C + c0) = v;
      __stcs(reinterpret_cast<float4*>(lp + r * C + c0), l);
    }
#pragma unroll
    for (int j = 0; j + 1 < P + 2; ++j) w[j] = w[j + 1];
    w[P + 1] = ahead;
  }
}

// Unison's DiffusionStripsTwoSteps (no First, no Laplacian), with D rows loaded ahead.
struct FR {
  float v[8];
};
struct GR {
  float v[6];
};
template <int D>
__global__ void __launch_bounds__(256) two(const float* __restrict__ f, float* __restrict__ nx,
                                           long R, long C, long chunks, int S, float k) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long nstrips = (R + S - 1) / S;
  if (i >= chunks * nstrips) return;
  long c0 = (i % chunks) * 4, r0 = (i / chunks) * S;
  long r1 = min(r0 + S, R);
  auto at = [&](long r, long c) { return (c >= 0 && c < C) ? f[r * C + c] : 0.f; };
  auto load = [&](long r) -> FR {
    FR a;
    if (r < 0 || r >= R || r > r1 + 1) {
#pragma unroll
      for (int e = 0; e < 8; ++e) a.v[e] = 0;
      return a;
    }
    a.v[0] = at(r, c0 - 2);
    a.v[1] = at(r, c0 - 1);
    float4 m = *reinterpret_cast<const float4*>(f + r * C + c0);
    a.v[2] = m.x;
    a.v[3] = m.y;
    a.v[4] = m.z;
    a.v[5] = m.w;
    a.v[6] = at(r, c0 + 4);
    a.v[7] = at(r, c0 + 5);
    return a;
  };
  auto first = [&](const FR& u, const FR& m, const FR& d, long r) -> GR {
    GR g;
#pragma unroll
    for (int e = 0; e < 6; ++e) {
      long c = c0 - 1 + e;
      float l, v;
      st(m.v[e + 1], u.v[e + 1], d.v[e + 1], m.v[e], m.v[e + 2], k, l, v);
      g.v[e] = (r >= 0 && r < R && c >= 0 && c < C) ? v : 0.f;
    }
    return g;
  };
  FR fa = load(r0 - 2), fb = load(r0 - 1);
  FR q[3 + D];  // q[j] = row r + j
#pragma unroll
  for (int j = 0; j < 3 + D; ++j) q[j] = load(r0 + j);
  GR ga = first(fa, fb, q[0], r0 - 1), gb = first(fb, q[0], q[1], r0);
  for (long r = r0; r < r1; ++r) {
    FR ahead = load(r + 3 + D);
    GR gc = first(q[0], q[1], q[2], r + 1);
    float4 v;
    float l;
    st(gb.v[1], ga.v[1], gc.v[1], gb.v[0], gb.v[2], k, l, v.x);
    st(gb.v[2], ga.v[2], gc.v[2], gb.v[1], gb.v[3], k, l, v.y);
    st(gb.v[3], ga.v[3], gc.v[3], gb.v[2], gb.v[4], k, l, v.z);
    st(gb.v[4], ga.v[4], gc.v[4], gb.v[3], gb.v[5], k, l, v.w);
    *reinterpret_cast<float4*>(nx + r * C + c0) = v;
#pragma unroll
    for (int j = 0; j + 1 < 3 + D; ++j) q[j] = q[j + 1];
    q[2 + D] = ahead;
    ga = gb;
    gb = gc;
  }
}

// Two steps with the row's outer neighbours from the neighbouring lanes (shuffles); lanes 0 and 31
// load theirs. Requires chunks % 32 == 0 (a warp in one strip and one row segment).
template <int D>
__global__ void __launch_bounds__(256) two_shfl(const float* __restrict__ f, float* __restrict__ nx,
                                                long R, long C, long chunks, int S, float k) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long nstrips = (R + S - 1) / S;
  bool live = i < chunks * nstrips;
  long c0 = (i % chunks) * 4, r0 = live ? (i / chunks) * S : R;
  long r1 = min(r0 + S, R);
  int lane = threadIdx.x & 31;
  auto at = [&](long r, long c) { return (c >= 0 && c < C) ? f[r * C + c] : 0.f; };
  auto load = [&](long r) -> FR {
    FR a;
    bool in = live && r >= 0 && r < R && r <= r1 + 1;
    float4 m = in ? *reinterpret_cast<const float4*>(f + r * C + c0) : make_float4(0, 0, 0, 0);
    a.v[2] = m.x;
    a.v[3] = m.y;
    a.v[4] = m.z;
    a.v[5] = m.w;
    a.v[0] = __shfl_up_sync(0xffffffffu, m.z, 1);
    a.v[1] = __shfl_up_sync(0xffffffffu, m.w, 1);
    a.v[6] = __shfl_down_sync(0xffffffffu, m.x, 1);
    a.v[7] = __shfl_down_sync(0xffffffffu, m.y, 1);
    if (lane == 0) {
      a.v[0] = in ? at(r, c0 - 2) : 0.f;
      a.v[1] = in ? at(r, c0 - 1) : 0.f;
    }
    if (lane == 31) {
      a.v[6] = in ? at(r, c0 + 4) : 0.f;
      a.v[7] = in ? at(r, c0 + 5) : 0.f;
    }
    return a;
  };
  auto first = [&](const FR& u, const FR& m, const FR& d, long r) -> GR {
    GR g;
#pragma unroll
    for (int e = 0; e < 6; ++e) {
      long c = c0 - 1 + e;
      float l, v;
      st(m.v[e + 1], u.v[e + 1], d.v[e + 1], m.v[e], m.v[e + 2], k, l, v);
      g.v[e] = (r >= 0 && r < R && c >= 0 && c < C) ? v : 0.f;
    }
    return g;
  };
  FR fa = load(r0 - 2), fb = load(r0 - 1);
  FR q[3 + D];
#pragma unroll
  for (int j = 0; j < 3 + D; ++j) q[j] = load(r0 + j);
  GR ga = first(fa, fb, q[0], r0 - 1), gb = first(fb, q[0], q[1], r0);
  for (long r = r0; r < r0 + S; ++r) {  // uniform trip count across the warp
    FR ahead = load(r + 3 + D);
    GR gc = first(q[0], q[1], q[2], r + 1);
    float4 v;
    float l;
    st(gb.v[1], ga.v[1], gc.v[1], gb.v[0], gb.v[2], k, l, v.x);
    st(gb.v[2], ga.v[2], gc.v[2], gb.v[1], gb.v[3], k, l, v.y);
    st(gb.v[3], ga.v[3], gc.v[3], gb.v[2], gb.v[4], k, l, v.z);
    st(gb.v[4], ga.v[4], gc.v[4], gb.v[3], gb.v[5], k, l, v.w);
    if (live && r < r1) *reinterpret_cast<float4*>(nx + r * C + c0) = v;
#pragma unroll
    for (int j = 0; j + 1 < 3 + D; ++j) q[j] = q[j + 1];
    q[2 + D] = ahead;
    ga = gb;
    gb = gc;
  }
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Launch>
static float timeit(Launch&& launch, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaGetLastError());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.f);
  }
  CK(cudaGetLastError());
  return median(t);
}

int main(int argc, char** argv) {
  std::vector<long> sizes = {2000, 4096, 8192, 16384};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(atol(argv[i]));
  }
  const float k = 0.1f;
  for (long N : sizes) {
    const long R = N, C = N, n = N * N, chunks = C / 4;
    size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    srand(1);
    for (auto& x : h) x = rand() / float(RAND_MAX);
    float *f, *nx, *lp, *rn, *rl, *tmp;
    CK(cudaMalloc(&f, bytes));
    CK(cudaMalloc(&nx, bytes));
    CK(cudaMalloc(&lp, bytes));
    CK(cudaMalloc(&rn, bytes));
    CK(cudaMalloc(&rl, bytes));
    CK(cudaMalloc(&tmp, bytes));
    CK(cudaMemcpy(f, h.data(), bytes, cudaMemcpyHostToDevice));
    dim3 nb(32, 8), ng((C + 31) / 32, (R + 7) / 8);
    float tcopy =
        timeit([&] { copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)f, (float4*)tmp, n / 4); });
    float tnaive = timeit([&] { naive<<<ng, nb>>>(f, rn, rl, R, C, k, 1); });
    float tnaive0 = timeit([&] { naive<<<ng, nb>>>(f, rn, rl, R, C, k, 0); });
    naive<<<ng, nb>>>(f, rn, rl, R, C, k, 1);
    // reference two steps: rn -> tmp2 (use lp as scratch later)
    double rate = 8.0 * n / tcopy;  // bytes per us of the copy
    printf(
        "\nN=%ld  copy %.1f us (%.2f TB/s)  naive %.1f us (%.2f of copy)  naive-no-lapl %.1f us "
        "(%.2f)\n",
        N, tcopy, rate / 1e6, tnaive, 12.0 * n / tnaive / rate, tnaive0, 8.0 * n / tnaive0 / rate);
    std::vector<float> a(n), b(n), c(n), d(n);
    CK(cudaMemcpy(a.data(), rn, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), rl, bytes, cudaMemcpyDeviceToHost));
    auto check = [&](const char* name) {
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c.data(), nx, bytes, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(d.data(), lp, bytes, cudaMemcpyDeviceToHost));
      bool ok = !memcmp(a.data(), c.data(), bytes) && !memcmp(b.data(), d.data(), bytes);
      if (!ok) printf("  MISMATCH %s\n", name);
      CK(cudaMemset(nx, 0, bytes));
      CK(cudaMemset(lp, 0, bytes));
    };
    auto run_strips = [&](const char* name, auto kern, int S) {
      long nstr = (R + S - 1) / S, threads = chunks * nstr;
      long blocks = (threads + 255) / 256;
      auto go = [&] { kern<<<blocks, 256>>>(f, nx, lp, R, C, chunks, S, k); };
      float t = timeit(go);
      go();
      check(name);
      printf("  %-22s S=%-3d %8.1f us  %.3f of copy  %.2fx naive\n", name, S, t,
             12.0 * n / t / rate, tnaive / t);
    };
    auto run_strips_map1 = [&](const char* name, auto kern, int S) {
      long nstr = (R + S - 1) / S;
      long blocks = ((chunks + 31) / 32) * ((nstr + 7) / 8);
      auto go = [&] { kern<<<blocks, 256>>>(f, nx, lp, R, C, chunks, S, k); };
      float t = timeit(go);
      go();
      check(name);
      printf("  %-22s S=%-3d %8.1f us  %.3f of copy  %.2fx naive\n", name, S, t,
             12.0 * n / t / rate, tnaive / t);
    };
    for (int S : {1, 2, 4, 8, 16, 32, 64}) run_strips("strips P3 stcs(unison)", strips<3, 1, 0>, S);
    for (int S : {4, 8, 16, 32}) run_strips("strips P1 stcs", strips<1, 1, 0>, S);
    for (int S : {8, 16, 32}) run_strips("strips P3 both-cs", strips<3, 2, 0>, S);
    for (int S : {8, 16, 32, 64}) run_strips("shfl P3", strips_shfl<3>, S);
    // two steps: reference = naive twice without lapl
    naive<<<ng, nb>>>(f, rn, rl, R, C, k, 0);
    naive<<<ng, nb>>>(rn, tmp, rl, R, C, k, 0);
    CK(cudaMemcpy(a.data(), tmp, bytes, cudaMemcpyDeviceToHost));
    auto run_two = [&](const char* name, auto kern, int S) {
      long nstr = (R + S - 1) / S, threads = chunks * nstr;
      long blocks = (threads + 255) / 256;
      auto go = [&] { kern<<<blocks, 256>>>(f, nx, R, C, chunks, S, k); };
      float t = timeit(go);
      go();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c.data(), nx, bytes, cudaMemcpyDeviceToHost));
      if (memcmp(a.data(), c.data(), bytes)) printf("  MISMATCH %s\n", name);
      printf("  %-22s S=%-3d pass %8.1f us, per step %.1f us = %.2f x copy time\n", name, S, t,
             t / 2, t / 2 / tcopy);
    };
    for (int S : {8, 16, 32, 64}) run_two("two D1 (unison)", two<1>, S);
    for (int S : {16, 32, 64}) run_two("two D2", two<2>, S);
    for (int S : {16, 32, 64}) run_two("two D3", two<3>, S);
    for (int S : {8, 16, 32}) run_two("two shfl D1", two_shfl<1>, S);
    for (int S : {8, 16, 32}) run_two("two shfl D2", two_shfl<2>, S);
    CK(cudaFree(f));
    CK(cudaFree(nx));
    CK(cudaFree(lp));
    CK(cudaFree(rn));
    CK(cudaFree(rl));
    CK(cudaFree(tmp));
  }
}
