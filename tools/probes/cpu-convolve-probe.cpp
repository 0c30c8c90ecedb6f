// Where the CPU convolution with many taps loses its time (issue: compute-bound convolve at half
// the FMA peak), measured without Kokkos on AVX-512 hosts (g++ -O3 -march=sapphirerapids
// -fopenmp -ffp-contract=off; OMP_PROC_BIND=spread OMP_PLACES=threads): valid mode, 1e7 float32,
// 33 and 257 taps, beside an FMA peak loop in the same run.
//   c1 R   the library's direct kernel: R packs of consecutive outputs share each tap; every load
//          of x is unaligned, and 15 of 16 straddle two cache lines
//   c2 R S lanes over distant outputs: a block of 16 * S outputs, lane l owning S consecutive
//          ones; x gathered into rows (row p = x[i0 + l * S + p] for every lane), so every load
//          is an aligned row and g++ keeps a sliding window of rows in registers; the sums
//          scattered back. The same terms in the same order: the same results.
// benchmarks/RESULTS.md (issue 22, v6) has the numbers.
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>
typedef float V __attribute__((vector_size(64)));
constexpr int L = 16;
static inline V ld(const float* p) {
  V v;
  std::memcpy(&v, p, 64);
  return v;
}
static inline void st(float* p, V v) { std::memcpy(p, &v, 64); }
static inline V splat(float a) { return a - V{}; }
static inline V fma_(V a, V b, V c) { return (V)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c); }

template <int R>
void c1(const float* w, const float* k, int taps, float* out, int64_t count) {
  int64_t i = 0;
  for (; i + R * L <= count; i += R * L) {
    V acc[R] = {};
    const float* base = w + i + taps - 1;
    for (int d = 0; d < taps; ++d) {
      const V kd = splat(k[d]);
      for (int r = 0; r < R; ++r) acc[r] = fma_(ld(base - d + r * L), kd, acc[r]);
    }
    for (int r = 0; r < R; ++r) st(out + i + r * L, acc[r]);
  }
  for (; i < count; ++i) {
    float a = 0;
    for (int d = 0; d < taps; ++d) a = std::fma(w[i + taps - 1 - d], k[d], a);
    out[i] = a;
  }
}

template <int R, int S>
void c2(const float* w, const float* k, int taps, float* out, int64_t count, float* xt, float* ot) {
  const __m512i lanes = _mm512_mullo_epi32(
      _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32(S));
  int64_t i0 = 0;
  for (; i0 + L * S <= count; i0 += L * S) {
    const int rows = S + taps - 1;
    for (int p = 0; p < rows; ++p)
      _mm512_store_ps(xt + p * L, _mm512_i32gather_ps(lanes, w + i0 + p, 4));
    for (int t = 0; t < S; t += R) {
      V acc[R] = {};
      const float* base = xt + (t + taps - 1) * L;
      for (int d = 0; d < taps; ++d) {
        const V kd = splat(k[d]);
        for (int r = 0; r < R; ++r) acc[r] = fma_(ld(base + (r - d) * L), kd, acc[r]);
      }
      for (int r = 0; r < R; ++r) _mm512_i32scatter_ps(out + i0 + t + r, lanes, (__m512)acc[r], 4);
    }
  }
  c1<1>(w + i0, k, taps, out + i0, count - i0);
}

// c3 R: x broadcast, kernel packs: for a block of R packs of consecutive outputs and each
// offset s of x from a pack's start (descending, so each output adds its terms in ascending d),
// every pack adds x[pack + s] (one broadcast, never a split load) times the pack of taps
// k[taps - 1 - s + l] (lane l; lanes outside [0, taps) masked off), loaded once for R packs.
template <int R>
void c3(const float* w, const float* k, int taps, float* out, int64_t count) {
  alignas(64) float kp[2048 + 32] = {};
  for (int d = 0; d < taps; ++d) kp[16 + d] = k[d];  // kp[16 + d] = k[d], zeros around
  int64_t i = 0;
  const int top = taps + L - 2;  // the largest s
  for (; i + R * L <= count; i += R * L) {
    __m512 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
    const float* wi = w + i;
    int s = top;
    for (; s >= taps; --s) {  // lanes l >= s - taps + 1
      const __mmask16 m = (__mmask16)(0xFFFFu << (s - taps + 1));
      const __m512 kv = _mm512_loadu_ps(kp + 16 + taps - 1 - s);
      for (int r = 0; r < R; ++r)
        acc[r] = _mm512_mask3_fmadd_ps(_mm512_set1_ps(wi[r * L + s]), kv, acc[r], m);
    }
    for (; s >= L - 1; --s) {
      const __m512 kv = _mm512_loadu_ps(kp + 16 + taps - 1 - s);
      for (int r = 0; r < R; ++r)
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(wi[r * L + s]), kv, acc[r]);
    }
    for (; s >= 0; --s) {  // lanes l <= s
      const __mmask16 m = (__mmask16)(0xFFFFu >> (L - 1 - s));
      const __m512 kv = _mm512_loadu_ps(kp + 16 + taps - 1 - s);
      for (int r = 0; r < R; ++r)
        acc[r] = _mm512_mask3_fmadd_ps(_mm512_set1_ps(wi[r * L + s]), kv, acc[r], m);
    }
    for (int r = 0; r < R; ++r) _mm512_storeu_ps(out + i + r * L, acc[r]);
  }
  c1<1>(w + i, k, taps, out + i, count - i);
}

int main(int argc, char** argv) {
  const int64_t n = 10000000;
  float* x = (float*)aligned_alloc(64, n * 4 + 64);
  float* y = (float*)aligned_alloc(64, n * 4 + 64);
  std::vector<float> kk(2048);
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : kk) v = u(g);
  for (int64_t i = 0; i < n; ++i) x[i] = u(g);
  const int T = omp_get_max_threads();
  auto timeit = [&](const char* name, double flops, auto f) {
    std::vector<double> ts;
    for (int r = 0; r < 7; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ts.begin(), ts.end());
    printf("%-34s %8.3f ms  %7.1f GFLOP/s (%d threads)\n", name, ts[3] * 1e3, flops / ts[3] / 1e9,
           T);
    return flops / ts[3];
  };
  // FMA peak: 12 independent chains per thread.
  const double peak = timeit("fma peak", 2.0 * 16 * 12 * 4e7 * T, [&] {
    float sink = 0;
#pragma omp parallel reduction(+ : sink)
    {
      V a[12];
      for (int j = 0; j < 12; ++j) a[j] = splat(1.0f + j * 1e-7f);
      const V m = splat(0.999999f), c = splat(1e-7f);
      for (int it = 0; it < 40000000; ++it)
        for (int j = 0; j < 12; ++j) a[j] = fma_(a[j], m, c);
      for (int j = 0; j < 12; ++j) sink += a[j][0];
    }
    if (sink == 1.2345f) printf("!");
  });
  std::vector<int> tap_counts = {33, 257};  // or the tap counts given as arguments (at most 2048)
  if (argc > 1) tap_counts.clear();
  for (int a = 1; a < argc; ++a) tap_counts.push_back(std::atoi(argv[a]));
  for (int taps : tap_counts) {
    const int64_t count = n - taps + 1;
    const double flops = 2.0 * taps * count;
    std::vector<float> ref(count);
    for (int64_t i = 0; i < count; i += 99991) {
      float a = 0;
      for (int d = 0; d < taps; ++d) a = std::fma(x[i + taps - 1 - d], kk[d], a);
      ref[i] = a;
    }
    auto check = [&](const char* name) {
      double bad = 0;
      for (int64_t i = 0; i < count; i += 99991)
        bad = std::max(bad, (double)std::fabs(y[i] - ref[i]));
      if (bad != 0) printf("   %s: max diff %g at sampled outputs\n", name, bad);
    };
    auto blocks = [&](auto kern) {
#pragma omp parallel for schedule(static)
      for (int64_t b = 0; b < (count + 65535) / 65536; ++b) {
        const int64_t i0 = b * 65536, m = std::min<int64_t>(65536, count - i0);
        kern(x + i0, kk.data(), taps, y + i0, m);
      }
    };
    char name[64];
    double r;
    snprintf(name, 64, "taps %d c1 R4 (library)", taps);
    r = timeit(name, flops, [&] {
      blocks(
          [](const float* w, const float* k, int t, float* o, int64_t m) { c1<4>(w, k, t, o, m); });
    });
    printf("   fraction of peak %.2f\n", r / peak);
    check(name);
    snprintf(name, 64, "taps %d c1 R8", taps);
    r = timeit(name, flops, [&] {
      blocks(
          [](const float* w, const float* k, int t, float* o, int64_t m) { c1<8>(w, k, t, o, m); });
    });
    printf("   fraction of peak %.2f\n", r / peak);
    check(name);
    snprintf(name, 64, "taps %d c2 transposed R8 S256", taps);
    r = timeit(name, flops, [&] {
      blocks([](const float* w, const float* k, int t, float* o, int64_t m) {
        alignas(64) static thread_local float xt[(256 + 257) * 16];
        alignas(64) static thread_local float ot[256 * 16];
        c2<8, 256>(w, k, t, o, m, xt, ot);
      });
    });
    printf("   fraction of peak %.2f\n", r / peak);
    check(name);
    snprintf(name, 64, "taps %d c2 transposed R6 S252", taps);
    r = timeit(name, flops, [&] {
      blocks([](const float* w, const float* k, int t, float* o, int64_t m) {
        alignas(64) static thread_local float xt[(256 + 257) * 16];
        alignas(64) static thread_local float ot[256 * 16];
        c2<6, 252>(w, k, t, o, m, xt, ot);
      });
    });
    printf("   fraction of peak %.2f\n", r / peak);
    check(name);
    for (int rr : {8, 12, 16, 24}) {
      snprintf(name, 64, "taps %d c3 broadcast R%d", taps, rr);
      auto run3 = [&](auto RC) {
        constexpr int RR = decltype(RC)::value;
        return timeit(name, flops, [&] {
          blocks([](const float* w, const float* k, int t, float* o, int64_t m) {
            c3<RR>(w, k, t, o, m);
          });
        });
      };
      r = rr == 8    ? run3(std::integral_constant<int, 8>{})
          : rr == 12 ? run3(std::integral_constant<int, 12>{})
          : rr == 16 ? run3(std::integral_constant<int, 16>{})
                     : run3(std::integral_constant<int, 24>{});
      printf("   fraction of peak %.2f\n", r / peak);
      check(name);
    }
  }
}
