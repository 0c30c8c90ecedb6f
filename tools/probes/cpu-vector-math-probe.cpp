// Which vectorised float math library the CPU kernels should call: SLEEF (libsleef, u10 and u35
// variants) or glibc's libmvec (the _ZGV* vector variants GCC calls under -ffast-math), against
// glibc's scalar functions, for exp, sin, cos, sincos and tanh at the host's vector width
// (AVX-512: 16 floats, AVX2: 8).
//  1. Throughput: ns per element over an L1-resident array, one thread, then every thread at once.
//  2. Accuracy: every one of the 2^32 float inputs against the double function (glibc's), the
//     largest error in ULP of the float result (NaN must give NaN; overflow must give inf) and
//     where. PROBE_SCAN=0 skips it; PROBE_SCAN_STEP=k scans every k-th bit pattern.
//  3. The FMA peak of one core and of all threads (packs of fused multiply-adds, 12 chains).
// Build: g++ -O2 -fopenmp -march=native tools/probes/cpu-vector-math-probe.cpp -lsleef -lm -o vm
#include <immintrin.h>
#include <omp.h>
#include <sleef.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(__AVX512F__)
constexpr int W = 16;
using V = __m512;
extern "C" {
V _ZGVeN16v_expf(V);
V _ZGVeN16v_sinf(V);
V _ZGVeN16v_cosf(V);
V _ZGVeN16v_tanhf(V);
}
#define MVEC(f) _ZGVeN16v_##f
#define SLEEF(f, u) Sleef_##f##16_##u##avx512f
#define SLEEF_SINCOS(u) Sleef_sincosf16_##u##avx512f
static V loadv(const float* p) { return _mm512_loadu_ps(p); }
static void storev(float* p, V v) { _mm512_storeu_ps(p, v); }
#elif defined(__AVX2__)
constexpr int W = 8;
using V = __m256;
extern "C" {
V _ZGVdN8v_expf(V);
V _ZGVdN8v_sinf(V);
V _ZGVdN8v_cosf(V);
V _ZGVdN8v_tanhf(V);
}
#define MVEC(f) _ZGVdN8v_##f
#define SLEEF(f, u) Sleef_##f##8_##u##avx2
#define SLEEF_SINCOS(u) Sleef_sincosf8_##u##avx2
static V loadv(const float* p) { return _mm256_loadu_ps(p); }
static void storev(float* p, V v) { _mm256_storeu_ps(p, v); }
#else
#error "AVX2 or AVX-512 needed"
#endif

using Kernel = void (*)(const float*, float*, std::int64_t);

// SLEEF's declarations carry attributes that keep them from binding to a template parameter
// directly: plain wrappers.
#define WRAP(name, call) \
  static V name(V v) { return call(v); }
WRAP(sleef_exp_u10, SLEEF(expf, u10))
WRAP(sleef_sin_u10, SLEEF(sinf, u10))
WRAP(sleef_sin_u35, SLEEF(sinf, u35))
WRAP(sleef_cos_u10, SLEEF(cosf, u10))
WRAP(sleef_cos_u35, SLEEF(cosf, u35))
WRAP(sleef_tanh_u10, SLEEF(tanhf, u10))
WRAP(sleef_tanh_u35, SLEEF(tanhf, u35))
#if defined(__AVX512F__)
using Pair = Sleef___m512_2;
#else
using Pair = Sleef___m256_2;
#endif
static Pair sleef_sincos_u10(V v) { return SLEEF_SINCOS(u10)(v); }
static Pair sleef_sincos_u35(V v) { return SLEEF_SINCOS(u35)(v); }  // n a multiple of W

template <V (*F)(V)>
void apply(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += W) storev(y + i, F(loadv(x + i)));
}
// sin and cos of the same argument, stored as their sum (so that neither is optimised away)
template <class Pair, Pair (*F)(V)>
void apply_sincos(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += W) {
    const Pair p = F(loadv(x + i));
#if defined(__AVX512F__)
    storev(y + i, _mm512_add_ps(p.x, p.y));
#else
    storev(y + i, _mm256_add_ps(p.x, p.y));
#endif
  }
}
template <V (*S)(V), V (*C)(V)>
void apply_sin_cos(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += W) {
    const V v = loadv(x + i);
#if defined(__AVX512F__)
    storev(y + i, _mm512_add_ps(S(v), C(v)));
#else
    storev(y + i, _mm256_add_ps(S(v), C(v)));
#endif
  }
}
template <float (*F)(float)>
void apply_scalar(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = F(x[i]);
}
void scalar_sincos(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i]) + std::cos(x[i]);
}
float sinf_(float x) { return std::sin(x); }
float cosf_(float x) { return std::cos(x); }
float expf_(float x) { return std::exp(x); }
float tanhf_(float x) { return std::tanh(x); }
double exp_ref(double x) { return std::exp(x); }
double sin_ref(double x) { return std::sin(x); }
double cos_ref(double x) { return std::cos(x); }
double tanh_ref(double x) { return std::tanh(x); }

struct Variant {
  std::string name;
  Kernel f;
};
struct Function {
  std::string name;
  double lo, hi;          // throughput inputs: uniform in [lo, hi)
  double (*ref)(double);  // the reference for the scan (none for sincos)
  std::vector<Variant> variants;
};

double ns_per_element(const Kernel& f, const std::vector<float>& x, std::vector<float>& y,
                      int reps) {
  f(x.data(), y.data(), std::int64_t(x.size()));
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f(x.data(), y.data(), std::int64_t(x.size()));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s / reps / double(x.size()) * 1e9;
}

// ULP error of got against the double reference r (in units of the float spacing at |r|).
double ulp_error(float got, double r) {
  if (std::isnan(r)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const float rf = float(r);  // correctly rounded (the reference is accurate to well under 1 ulp)
  if (std::isinf(rf))
    return got == rf
               ? 0
               : (std::isinf(got) ? INFINITY : std::fabs(double(got) - r) / std::ldexp(1.0, 104));
  if (std::isinf(got)) return INFINITY;
  int e;
  std::frexp(r, &e);  // |r| in [2^(e-1), 2^e)
  const double ulp = std::ldexp(1.0, std::max(e - 1 - 23, -149));
  return std::fabs(double(got) - r) / ulp;
}

int main() {
  std::vector<Function> fns = {{"exp",
                                -10,
                                10,
                                exp_ref,
                                {{"glibc scalar", apply_scalar<expf_>},
                                 {"libmvec", apply<MVEC(expf)>},
                                 {"sleef u10", apply<sleef_exp_u10>}}},
                               {"sin",
                                -10,
                                10,
                                sin_ref,
                                {{"glibc scalar", apply_scalar<sinf_>},
                                 {"libmvec", apply<MVEC(sinf)>},
                                 {"sleef u10", apply<sleef_sin_u10>},
                                 {"sleef u35", apply<sleef_sin_u35>}}},
                               {"cos",
                                -10,
                                10,
                                cos_ref,
                                {{"glibc scalar", apply_scalar<cosf_>},
                                 {"libmvec", apply<MVEC(cosf)>},
                                 {"sleef u10", apply<sleef_cos_u10>},
                                 {"sleef u35", apply<sleef_cos_u35>}}},
                               {"tanh",
                                -5,
                                5,
                                tanh_ref,
                                {{"glibc scalar", apply_scalar<tanhf_>},
                                 {"libmvec", apply<MVEC(tanhf)>},
                                 {"sleef u10", apply<sleef_tanh_u10>},
                                 {"sleef u35", apply<sleef_tanh_u35>}}},
                               {"sin+cos",
                                -10,
                                10,
                                static_cast<double (*)(double)>(nullptr),
                                {{"glibc scalar", scalar_sincos},
                                 {"libmvec sin, cos", apply_sin_cos<MVEC(sinf), MVEC(cosf)>},
                                 {"sleef sincos u10", apply_sincos<Pair, sleef_sincos_u10>},
                                 {"sleef sincos u35", apply_sincos<Pair, sleef_sincos_u35>}}}};
  const int threads = omp_get_max_threads();
  std::printf("vector width %d floats, %d threads\n\n", W, threads);
  std::printf("%-8s %-18s %12s %16s\n", "function", "variant", "ns/elem 1T", "ns/elem/thread nT");
  for (auto& fn : fns) {
    for (auto& v : fn.variants) {
      std::vector<float> x(8192), y(8192);
      std::srand(7);
      for (auto& e : x) e = float(fn.lo + (fn.hi - fn.lo) * (std::rand() / (RAND_MAX + 1.0)));
      const double one = ns_per_element(v.f, x, y, 400);
      double all = 0;
#pragma omp parallel reduction(max : all)
      {
        std::vector<float> xl(x), yl(8192);
        all = ns_per_element(v.f, xl, yl, 400);
      }
      std::printf("%-8s %-18s %12.3f %16.3f\n", fn.name.c_str(), v.name.c_str(), one, all);
    }
  }

  const char* scan_env = std::getenv("PROBE_SCAN");
  const long step = std::getenv("PROBE_SCAN_STEP") ? std::atol(std::getenv("PROBE_SCAN_STEP")) : 1;
  if (!scan_env || std::string(scan_env) != "0") {
    std::printf(
        "\nmax ULP error over every %ld-th of the 2^32 float inputs (the argument where it is "
        "largest):\n",
        step);
    for (auto& fn : fns) {
      if (!fn.ref) continue;
      for (auto& v : fn.variants) {
        double worst = 0;
        float worst_x = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const std::int64_t blocks = (std::int64_t(1) << 32) / 4096;
#pragma omp parallel
        {
          double w = 0;
          float wx = 0;
          alignas(64) float x[4096], y[4096];
#pragma omp for schedule(dynamic, 64)
          for (std::int64_t b = 0; b < blocks; ++b) {
            if ((b * 4096) % (step * 4096) >= 4096 && step > 1) continue;
            for (int i = 0; i < 4096; ++i) {
              const std::uint32_t bits = std::uint32_t(b * 4096 + i);
              std::memcpy(&x[i], &bits, 4);
            }
            v.f(x, y, 4096);
            for (int i = 0; i < 4096; ++i) {
              const double e = ulp_error(y[i], fn.ref(double(x[i])));
              if (e > w) w = e, wx = x[i];
            }
          }
#pragma omp critical
          if (w > worst) worst = w, worst_x = wx;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-8s %-18s max %10.4g ulp at x = %-14.9g (%.1f s)\n", fn.name.c_str(),
                    v.name.c_str(), worst, double(worst_x), s);
      }
    }
  }

  // The FMA peak: 12 independent chains of packed fused multiply-adds per thread.
  auto fma_run = [](long iters) {
#if defined(__AVX512F__)
    V acc[12];
    for (int c = 0; c < 12; ++c) acc[c] = _mm512_set1_ps(float(c));
    const V a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long i = 0; i < iters; ++i)
#pragma GCC unroll 12
      for (int c = 0; c < 12; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    float s = 0;
    for (int c = 0; c < 12; ++c) s += _mm512_reduce_add_ps(acc[c]);
#else
    V acc[12];
    for (int c = 0; c < 12; ++c) acc[c] = _mm256_set1_ps(float(c));
    const V a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iters; ++i)
#pragma GCC unroll 12
      for (int c = 0; c < 12; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    float s = 0;
    alignas(32) float t[8];
    for (int c = 0; c < 12; ++c) {
      _mm256_store_ps(t, acc[c]);
      for (float e : t) s += e;
    }
#endif
    return s;
  };
  const long iters = 20'000'000;
  const double flops_per = 12.0 * W * 2 * iters;
  auto t0 = std::chrono::steady_clock::now();
  volatile float sink = fma_run(iters);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\nFMA peak: one thread %.1f GFLOP/s", flops_per / s / 1e9);
  t0 = std::chrono::steady_clock::now();
#pragma omp parallel
  { sink = fma_run(iters); }
  s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(", %d threads %.1f GFLOP/s\n", threads, threads * flops_per / s / 1e9);
  (void)sink;
  return 0;
}
