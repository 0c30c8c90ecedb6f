/* unison-cuda-c: the best known GPU codes for three of unison-bench's cases, called directly from
   CUDA C++ without Kokkos, so that each Cuda result stands beside the library routine made for the
   same work, measured in the same run on the same GPU (the "cuda_c" peer; the diffusion's cuda_c
   peer, a naive stencil in a CUDA graph, comes from stencil_peers.py).

     unison-cuda-c [--scale=F] PART...

   PART: histogram (1e8 normal float32 values into 100 bins over [-4, 4) by CUB's
   DeviceHistogram::HistogramEven, and over the same 101 edges given as levels by
   DeviceHistogram::HistogramRange; with the part "sizes" also at 1e5 to 1e8 values, the sweep of
   unison-bench --sizes), random (monte_carlo_pi of 2e9 samples by a fused cuRAND
   Philox4x32-10 kernel, four uniform numbers a call, two points), matmul (matmul_reduce of 10000 x
   5000 x 7000 float32: cublasSgemm into an m x n matrix allocated once, then its column sums by
   cublasSgemv with a vector of ones, beside unison-bench's tiled and gemm cases; the reassociated
   form by two cublasSgemv, A's column sums then their product with B). Sizes are unison-bench's at
   the scale F (0 < F <= 1). Each case: two warm-up calls, then the median of at least 5 timed calls
   (CUDA events on one stream; more calls while they take under a second, at most 50), checked
   against a float64 reference in unison-bench's measure (the histogram: the number of values
   counted against the documented edges' count, sum over the bins of |count - reference|; pi: the
   relative error against five standard errors; matmul_reduce: each column's error over the sum of
   its terms' magnitudes). The histogram's read floor, a cub::DeviceReduce::Sum of the same values,
   is printed beside it. A line per case on stdout; with UNISON_PEERS_CSV set, the results are
   appended to that file (case,cuda_c,seconds,error,tolerance) for unison-bench.
   Without a CUDA device it prints "skipped: ..." and exits 0. Exit status 2 on a bad argument,
   1 on a CUDA or cuBLAS error. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <functional>
#include <string>
#include <vector>

namespace {

double scale = 1;

void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "unison-cuda-c: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}
void blas_check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "unison-cuda-c: %s: cuBLAS status %d\n", what, int(s));
  std::exit(1);
}
#define CHECK(call) cuda_check((call), #call)
#define BLAS(call) blas_check((call), #call)

// unison::bench::scaled: n times the scale (a side of a cube: its cube root), rounded to nearest,
// at least `least`.
std::int64_t scaled(std::int64_t n, std::int64_t least, int dims) {
  const double f = dims == 1 ? scale : std::pow(scale, 1.0 / dims);
  const std::int64_t v = std::llround(double(n) * f);
  return v < least ? least : v;
}

// unison::bench::size_tag: 100000000 -> "1e8"; other sizes as they are.
std::string size_tag(std::int64_t n) {
  int e = 0;
  std::int64_t m = n;
  while (m >= 10 && m % 10 == 0) m /= 10, ++e;
  return m == 1 ? "1e" + std::to_string(e) : std::to_string(n);
}

void record(const std::string& name, double seconds, double error, double tolerance) {
  const char* path = std::getenv("UNISON_PEERS_CSV");
  if (!path || !*path) return;
  FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fprintf(f, "%s,cuda_c,%.6g,%.4g,%.4g\n", name.c_str(), seconds, error, tolerance);
  std::fclose(f);
}

// The median time in seconds of calls of fn on stream s (CUDA events around each call).
double median_seconds(cudaStream_t s, const std::function<void()>& fn) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int w = 0; w < 2; ++w) fn();
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  double total = 0;
  while (t.size() < 5 || (total < 1 && t.size() < 50)) {
    CHECK(cudaEventRecord(start, s));
    fn();
    CHECK(cudaEventRecord(stop, s));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    t.push_back(ms * 1e-3);
    total += ms * 1e-3;
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

__global__ void fill_normal(float* x, std::int64_t n, unsigned long long seed) {
  curandStatePhilox4_32_10_t g;
  const std::int64_t i0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  curand_init(seed, i0, 0, &g);
  for (std::int64_t i = i0; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = curand_normal(&g);
}

__global__ void fill_uniform(float* x, std::int64_t n, unsigned long long seed) {
  curandStatePhilox4_32_10_t g;
  const std::int64_t i0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  curand_init(seed, i0, 0, &g);
  for (std::int64_t i = i0; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = 2 * curand_uniform(&g) - 1;  // (-1, 1]
}

// Each thread draws `per_thread` pairs of points from its own Philox subsequence (one
// curand_uniform4 call each) and the block adds its hits to *hits with one atomic.
__global__ void pi_hits(unsigned long long seed, std::int64_t per_thread,
                        unsigned long long* hits) {
  curandStatePhilox4_32_10_t g;
  const std::int64_t id = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &g);
  unsigned int count = 0;
  for (std::int64_t i = 0; i < per_thread; ++i) {
    const float4 u = curand_uniform4(&g);
    count += (u.x * u.x + u.y * u.y <= 1.0f) + (u.z * u.z + u.w * u.w <= 1.0f);
  }
  for (int o = 16; o > 0; o /= 2) count += __shfl_down_sync(0xffffffffu, count, o);
  __shared__ unsigned int warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = count;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long sum = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) sum += warp_sums[w];
    atomicAdd(hits, sum);
  }
}

int multiprocessors() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms;
}

// histogram/edges/f32/1e8/bins100: the equal-bins case's 101 edges (e_k = fma(k, width, -4) in
// double, e_100 = 4) given as levels to cub::DeviceHistogram::HistogramRange. Its levels are of
// the samples' type: each the smallest float at or above its edge, so that a float compares with
// it as with the edge. CUB's last bin is half open (NumPy's and Unison's closed one also counts a
// value of exactly 4): the check counts by Unison's rule.
void run_histogram_range(cudaStream_t s) {
  const int sms = multiprocessors();
  const std::int64_t n = scaled(100000000, 1, 1);
  const int nbins = 100;
  const double width = 8.0 / nbins;
  std::vector<double> edges(nbins + 1);
  std::vector<float> levels(nbins + 1);
  for (int k = 0; k <= nbins; ++k) {
    edges[k] = k == nbins ? 4.0 : std::fma(double(k), width, -4.0);
    float t = float(edges[k]);
    if (double(t) < edges[k]) t = std::nextafter(t, INFINITY);
    levels[k] = t;
  }
  float* x = nullptr;
  float* d_levels = nullptr;
  int* counts = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_levels, (nbins + 1) * sizeof(float)));
  CHECK(cudaMalloc(&counts, nbins * sizeof(int)));
  CHECK(cudaMemcpyAsync(d_levels, levels.data(), (nbins + 1) * sizeof(float),
                        cudaMemcpyHostToDevice, s));
  fill_normal<<<sms * 8, 256, 0, s>>>(x, n, 7);
  CHECK(cudaGetLastError());
  std::size_t bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramRange(nullptr, bytes, x, counts, nbins + 1, d_levels, n, s));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, bytes));
  const double t = median_seconds(s, [&] {
    CHECK(cub::DeviceHistogram::HistogramRange(temp, bytes, x, counts, nbins + 1, d_levels, n, s));
  });
  std::vector<float> hx(n);
  std::vector<int> got(nbins);
  CHECK(cudaMemcpyAsync(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(got.data(), counts, nbins * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<std::int64_t> ref(nbins, 0);
  for (const float f : hx) {
    const double v = f;
    if (!(v >= edges[0] && v <= edges[nbins])) continue;
    int lo = v == edges[nbins] ? nbins - 1 : 0, hi = nbins;  // edges[lo] <= v < edges[hi]
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      (v >= edges[mid] ? lo : hi) = mid;
    }
    ++ref[lo];
  }
  std::int64_t off = 0;
  for (int k = 0; k < nbins; ++k) off += std::llabs(got[k] - ref[k]);
  const std::string name = "histogram/edges/f32/" + size_tag(n) + "/bins100";
  std::printf(
      "%-40s %10.4f ms  %7.1f GB/s  cub::DeviceHistogram::HistogramRange; %lld counts off "
      "the edges' (%s)\n",
      name.c_str(), t * 1e3, n * 4.0 / t / 1e9, (long long)off, off ? "FAIL" : "pass");
  record(name, t, double(off), 0);
  CHECK(cudaFree(temp));
  CHECK(cudaFree(counts));
  CHECK(cudaFree(d_levels));
  CHECK(cudaFree(x));
}

// histogram/f32/1e8/bins100
// At seed_n values (scaled); `sweep`: named as the case of the sweep past the caches.
void run_histogram(cudaStream_t s, std::int64_t seed_n = 100000000, bool sweep = false) {
  const int sms = multiprocessors();
  const std::int64_t n = scaled(seed_n, 1, 1);
  const double xmin = -4, xmax = 4;
  const int nbins = 100;
  float* x = nullptr;
  int* counts = nullptr;
  float* sum = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&counts, nbins * sizeof(int)));
  CHECK(cudaMalloc(&sum, sizeof(float)));
  fill_normal<<<sms * 8, 256, 0, s>>>(x, n, 7);
  CHECK(cudaGetLastError());
  std::size_t hist_bytes = 0, sum_bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, hist_bytes, x, counts, nbins + 1, float(xmin),
                                            float(xmax), n, s));
  CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, x, sum, n, s));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, std::max(hist_bytes, sum_bytes)));
  const double t = median_seconds(s, [&] {
    CHECK(cub::DeviceHistogram::HistogramEven(temp, hist_bytes, x, counts, nbins + 1, float(xmin),
                                              float(xmax), n, s));
  });
  const double read =
      median_seconds(s, [&] { CHECK(cub::DeviceReduce::Sum(temp, sum_bytes, x, sum, n, s)); });
  std::vector<float> hx(n);
  std::vector<int> got(nbins);
  CHECK(cudaMemcpyAsync(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(got.data(), counts, nbins * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  // The documented edges: e_k = fma(k, width, xmin) in double, e_nbins = xmax.
  const double width = (xmax - xmin) / nbins;
  const auto edge = [&](int k) { return k >= nbins ? xmax : std::fma(double(k), width, xmin); };
  std::vector<std::int64_t> ref(nbins, 0);
  for (const float f : hx) {
    const double v = f;
    if (!(v >= xmin && v < xmax)) continue;
    int lo = 0, hi = nbins;  // edge(lo) <= v < edge(hi)
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      (v >= edge(mid) ? lo : hi) = mid;
    }
    ++ref[lo];
  }
  std::int64_t off = 0;
  for (int k = 0; k < nbins; ++k) off += std::llabs(got[k] - ref[k]);
  const std::string name =
      std::string(sweep ? "histogram/sizes/f32/" : "histogram/f32/") + size_tag(n) + "/bins100";
  std::printf(
      "%-40s %10.4f ms  %7.1f GB/s  cub::DeviceHistogram::HistogramEven; %lld counts off "
      "the documented edges' (%s)\n",
      name.c_str(), t * 1e3, n * 4.0 / t / 1e9, (long long)off, off ? "FAIL" : "pass");
  std::printf(
      "%-40s %10.4f ms  %7.1f GB/s  cub::DeviceReduce::Sum of the same values (the read "
      "floor)\n",
      name.c_str(), read * 1e3, n * 4.0 / read / 1e9);
  record(name, t, double(off), 0);
  CHECK(cudaFree(temp));
  CHECK(cudaFree(sum));
  CHECK(cudaFree(counts));
  CHECK(cudaFree(x));
}

// monte_carlo_pi/2e9
void run_random(cudaStream_t s) {
  const int sms = multiprocessors();
  const std::int64_t samples = scaled(2000000000, 1, 1);
  const int threads = 256, blocks = sms * 16;
  const std::int64_t per_thread =
      std::max<std::int64_t>(1, samples / 2 / (std::int64_t(blocks) * threads));
  const std::int64_t drawn = per_thread * 2 * blocks * threads;
  unsigned long long* hits = nullptr;
  CHECK(cudaMalloc(&hits, sizeof *hits));
  const double t = median_seconds(s, [&] {
    CHECK(cudaMemsetAsync(hits, 0, sizeof *hits, s));
    pi_hits<<<blocks, threads, 0, s>>>(2024, per_thread, hits);
    CHECK(cudaGetLastError());
  });
  unsigned long long h = 0;
  CHECK(cudaMemcpyAsync(&h, hits, sizeof h, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  const double pi = 4.0 * double(h) / double(drawn);
  const double p = M_PI / 4, se = 4 * std::sqrt(p * (1 - p) / double(drawn));
  const double err = std::fabs(pi - M_PI) / M_PI, tol = 5 * se / M_PI;
  // (unison-bench's name of its case of this many samples)
  const std::string name = "monte_carlo_pi/" + (samples == 2000000000  ? std::string("2e9")
                                                : samples == 200000000 ? std::string("2e8")
                                                                       : std::to_string(samples));
  std::printf(
      "%-40s %10.4f ms  %7.3g samples/s  fused cuRAND Philox4x32-10 (%lld samples): %.7f "
      "(%s)\n",
      name.c_str(), t * 1e3, double(drawn) / t, (long long)drawn, pi, err <= tol ? "pass" : "FAIL");
  record(name, t, err, tol);
  CHECK(cudaFree(hits));
}

void matmul(cudaStream_t s) {
  const int sms = multiprocessors();
  const std::int64_t m = scaled(10000, 1, 3), k = scaled(5000, 1, 3), n = scaled(7000, 1, 3);
  const std::string size = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  float *A, *B, *C, *ones, *colA, *out;
  CHECK(cudaMalloc(&A, m * k * sizeof(float)));
  CHECK(cudaMalloc(&B, k * n * sizeof(float)));
  CHECK(cudaMalloc(&C, m * n * sizeof(float)));
  CHECK(cudaMalloc(&ones, std::max(m, k) * sizeof(float)));
  CHECK(cudaMalloc(&colA, k * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  fill_uniform<<<sms * 8, 256, 0, s>>>(A, m * k, 11);
  fill_uniform<<<sms * 8, 256, 0, s>>>(B, k * n, 12);
  CHECK(cudaGetLastError());
  {
    std::vector<float> one(std::max(m, k), 1.0f);
    CHECK(cudaMemcpy(ones, one.data(), one.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  cublasHandle_t h;
  BLAS(cublasCreate(&h));
  BLAS(cublasSetStream(h, s));
  const float one = 1, zero = 0;
  // Row-major A (m x k), B (k x n), C (m x n) are column-major A^T, B^T, C^T: C^T = B^T A^T.
  const auto gemm = [&] {
    BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, B, int(n), A,
                     int(k), &zero, C, int(n)));
  };
  // Column j of C summed: (C^T 1)_j, C^T being n x m column-major.
  const auto column_sums = [&] {
    BLAS(cublasSgemv(h, CUBLAS_OP_N, int(n), int(m), &one, C, int(n), ones, 1, &zero, out, 1));
  };
  // A's column sums (A^T 1: A^T is k x m column-major), then out = B^T colA (B^T: n x k).
  const auto reassociated = [&] {
    BLAS(cublasSgemv(h, CUBLAS_OP_N, int(k), int(m), &one, A, int(k), ones, 1, &zero, colA, 1));
    BLAS(cublasSgemv(h, CUBLAS_OP_N, int(n), int(k), &one, B, int(n), colA, 1, &zero, out, 1));
  };
  std::vector<float> hA(m * k), hB(k * n);
  CHECK(cudaMemcpy(hA.data(), A, hA.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hB.data(), B, hB.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> sum(k, 0), abs_sum(k, 0), ref(n), mag(n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t t = 0; t < k; ++t)
      sum[t] += hA[i * k + t], abs_sum[t] += std::fabs(hA[i * k + t]);
  for (std::int64_t j = 0; j < n; ++j) {
    double r = 0, a = 0;
    for (std::int64_t t = 0; t < k; ++t)
      r += sum[t] * hB[t * n + j], a += abs_sum[t] * std::fabs(hB[t * n + j]);
    ref[j] = r, mag[j] = a > 0 ? a : 1;
  }
  const auto error = [&] {
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    double e = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double d = std::fabs(got[j] - ref[j]) / mag[j];
      e = std::isnan(d) ? INFINITY : std::max(e, d);
    }
    return e;
  };
  const double tol = 1e-5, flops = 2.0 * double(m) * k * n;
  const double t_gemm = median_seconds(s, gemm);
  const double t_full = median_seconds(s, [&] {
    gemm();
    column_sums();
  });
  const double e_full = error();
  for (const char* method : {"tiled", "gemm", "gemm/workspace"})
    record(std::string("matmul_reduce/") + method + "/f32/" + size, t_full, e_full, tol);
  std::printf("%-44s %10.4f ms  %6.1f TFLOP/s  cublasSgemm alone\n",
              ("matmul_reduce/gemm/f32/" + size).c_str(), t_gemm * 1e3, flops / t_gemm / 1e12);
  std::printf(
      "%-44s %10.4f ms  %6.1f TFLOP/s  cublasSgemm + cublasSgemv column sums (max col.err "
      "%.1e, %s)\n",
      ("matmul_reduce/gemm/f32/" + size).c_str(), t_full * 1e3, flops / t_full / 1e12, e_full,
      e_full <= tol ? "pass" : "FAIL");
  const double t_re = median_seconds(s, reassociated);
  const double e_re = error();
  for (const char* method : {"reassociated", "reassociated/workspace"})
    record(std::string("matmul_reduce/") + method + "/f32/" + size, t_re, e_re, tol);
  std::printf("%-44s %10.4f ms  %6.1f GB/s  two cublasSgemv (max col.err %.1e, %s)\n",
              ("matmul_reduce/reassociated/f32/" + size).c_str(), t_re * 1e3,
              double(m * k + k * n) * 4 / t_re / 1e9, e_re, e_re <= tol ? "pass" : "FAIL");
  BLAS(cublasDestroy(h));
  for (float* p : {A, B, C, ones, colA, out}) CHECK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> parts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--scale=", 0) == 0) {
      char* end = nullptr;
      scale = std::strtod(a.c_str() + 8, &end);
      if (*end != '\0' || !(scale > 0 && scale <= 1)) {
        std::fprintf(stderr, "unison-cuda-c: --scale: '%s' is not a number in (0, 1]\n",
                     a.c_str() + 8);
        return 2;
      }
    } else if (a == "histogram" || a == "random" || a == "matmul" || a == "sizes") {
      parts.push_back(a);
    } else {
      std::fprintf(stderr,
                   "usage: unison-cuda-c [--scale=F] {histogram|random|matmul}... [sizes]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    std::printf("skipped: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int runtime = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("# %s, %d multiprocessors; CUDA runtime %d, CUB %d; scale %g\n", p.name,
              p.multiProcessorCount, runtime, CUB_VERSION, scale);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const bool sizes = std::find(parts.begin(), parts.end(), "sizes") != parts.end();
  for (const auto& part : parts) {
    if (part == "histogram") {
      run_histogram(s);
      run_histogram_range(s);
    } else if (part == "random") run_random(s);
    else if (part == "matmul") matmul(s);
  }
  // The sweep past the caches: unison::bench::sizes_counts (benchmarks/cases/common.hpp).
  if (sizes && std::find(parts.begin(), parts.end(), "histogram") != parts.end())
    for (const std::int64_t n : {100000, 1000000, 10000000, 100000000}) run_histogram(s, n, true);
  CHECK(cudaStreamDestroy(s));
  return 0;
}
