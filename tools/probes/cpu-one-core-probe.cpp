// Probe (not library code): what one CPU core reaches on 1e8 float32 (400 MB an array, far past
// the caches), for issue 22's Serial targets (0.8 of Serial's copy, which is glibc's memcpy):
//   memcpy          glibc's memcpy (the Serial copy: non-temporal stores past its threshold)
//   read            a sum of x: the read alone (_pf4k: each line asked for 4 KiB ahead)
//   copy_store/_nt  a vector loop y = x, ordinary or non-temporal stores
//   gauss_*         y = k exp(-z^2 / 2), z = (x - m) / s, libmvec's 16-lane expf (the library's
//                   gaussian_pdf on packs), ordinary (store) or non-temporal (nt) stores,
//                   pf<D>: each vector's loop step also prefetches x D bytes ahead (T0: into L1;
//                   _l2: prefetcht1, into L2)
//   gauss_cache     the same arithmetic over 128 KB arrays (L2), repeated to 1e8 values: the
//                   arithmetic alone
//   sincos_l1       sin x + cos x (libmvec's 16-lane sinf and cosf) over 8 KB arrays (L1),
//                   repeated to 1e8 values: what polar_distance's one sine and one cosine an
//                   element cost at the least (ns an element)
//   polar_l1        polar_distance's rotated form at its least (polar_loop) over 8 KB arrays
//                   (L1), repeated to 1e8 values (ns an element)
//   sqrtpd_l1       rows of 2 floats (x, y) to sqrt(x^2 + y^2) with the squares summed and the
//                   root taken in double, 8 rows a vector (the l2_norm numerics), over 8 KB
//                   (L1), repeated to 1e8 rows (ns a row)
// every form with the arrays on 4 KB pages (madvise MADV_NOHUGEPAGE) and on 2 MB pages
// (MADV_HUGEPAGE, where the kernel's transparent huge pages allow it). Prints the median of 7
// in ms and GB/s (bytes read + bytes written) and the fraction of memcpy's rate.
// Build: g++ -O3 -march=native tools/probes/cpu-one-core-probe.cpp -o /tmp/one -lmvec -lm
// Run:   taskset -c 3 /tmp/one
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if !defined(__AVX512F__)
int main() {
  std::puts("cpu-one-core-probe: needs AVX-512 (-march=native on an AVX-512 host)");
  return 2;
}
#else
extern "C" __m512 _ZGVeN16v_expf(__m512);
extern "C" __m512 _ZGVeN16v_sinf(__m512);
extern "C" __m512 _ZGVeN16v_cosf(__m512);

namespace {

constexpr std::int64_t n = 100'000'000;

float* allocate(std::int64_t count, bool huge) {
  const std::size_t bytes = (count * sizeof(float) + (2 << 20) - 1) / (2 << 20) * (2 << 20);
  void* p = std::aligned_alloc(2 << 20, bytes);
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(p, 0, bytes);
  return static_cast<float*>(p);
}

inline __m512 gauss(__m512 v) {
  const __m512 m = _mm512_set1_ps(0.25f), inv_s = _mm512_set1_ps(1.0f / 0.75f);
  const __m512 k = _mm512_set1_ps(0.398942280f / 0.75f), h = _mm512_set1_ps(-0.5f);
  const __m512 z = _mm512_mul_ps(_mm512_sub_ps(v, m), inv_s);
  return _mm512_mul_ps(k, _ZGVeN16v_expf(_mm512_mul_ps(h, _mm512_mul_ps(z, z))));
}

enum class Store { plain, nt };

template <Store S, int D, int Hint>
void gauss_loop(const float* x, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16) {
    if constexpr (D > 0)
      _mm_prefetch(reinterpret_cast<const char*>(x + i) + D, static_cast<_mm_hint>(Hint));
    const __m512 r = gauss(_mm512_load_ps(x + i));
    if constexpr (S == Store::nt) _mm512_stream_ps(y + i, r);
    else _mm512_store_ps(y + i, r);
  }
  if constexpr (S == Store::nt) _mm_sfence();
}

template <Store S, int D>
void copy_loop(const float* x, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16) {
    if constexpr (D > 0) _mm_prefetch(reinterpret_cast<const char*>(x + i) + D, _MM_HINT_T0);
    const __m512 r = _mm512_load_ps(x + i);
    if constexpr (S == Store::nt) _mm512_stream_ps(y + i, r);
    else _mm512_store_ps(y + i, r);
  }
  if constexpr (S == Store::nt) _mm_sfence();
}

volatile float sink;

// sin x + cos x, 16 lanes at a time.
void sincos_loop(const float* x, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16) {
    const __m512 v = _mm512_load_ps(x + i);
    _mm512_store_ps(y + i, _mm512_add_ps(_ZGVeN16v_sinf(v), _ZGVeN16v_cosf(v)));
  }
}

// The least of polar_distance's rotated form (unison/math.hpp) with the benchmark's operands
// (rho1 = theta2, theta1 = rho2: here x's values and their neighbours'): the difference of the
// angles and its two-sum error, one sine and one cosine, their correction, and sqrt(a^2 + b^2)
// without hypot's range checks; y = the distance (count a multiple of 32).
void polar_loop(const float* x, float* y, std::int64_t count) {
  for (std::int64_t i = 0; i < count; i += 16) {
    const __m512 r1 = _mm512_load_ps(x + i), t1 = _mm512_load_ps(x + (i ^ 16)), r2 = t1, t2 = r1;
    const __m512 s = _mm512_sub_ps(t2, t1), back = _mm512_sub_ps(s, t2);
    const __m512 e =
        _mm512_sub_ps(_mm512_sub_ps(t2, _mm512_sub_ps(s, back)), _mm512_add_ps(t1, back));
    const __m512 c = _ZGVeN16v_cosf(s), sn = _ZGVeN16v_sinf(s);
    const __m512 cd = _mm512_fnmadd_ps(e, sn, c), sd = _mm512_fmadd_ps(e, c, sn);
    const __m512 a = _mm512_fnmadd_ps(r2, cd, r1), b = _mm512_mul_ps(r2, sd);
    _mm512_store_ps(y + i, _mm512_sqrt_ps(_mm512_fmadd_ps(a, a, _mm512_mul_ps(b, b))));
  }
}

// Rows of 2 floats at x (count rows): y[r] = sqrt(x0^2 + x1^2) in double, 8 rows a vector.
void norm2_loop(const float* x, float* y, std::int64_t count) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (std::int64_t r = 0; r < count; r += 16) {
    const __m512 a = _mm512_load_ps(x + 2 * r), b = _mm512_load_ps(x + 2 * r + 16);
    const __m512 u = _mm512_permutex2var_ps(a, even, b), v = _mm512_permutex2var_ps(a, odd, b);
    const __m512d u0 = _mm512_cvtps_pd(_mm512_castps512_ps256(u));
    const __m512d u1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(u, 1));
    const __m512d v0 = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    const __m512d v1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
    const __m512d s0 = _mm512_sqrt_pd(_mm512_fmadd_pd(u0, u0, _mm512_mul_pd(v0, v0)));
    const __m512d s1 = _mm512_sqrt_pd(_mm512_fmadd_pd(u1, u1, _mm512_mul_pd(v1, v1)));
    _mm256_store_ps(y + r, _mm512_cvtpd_ps(s0));
    _mm256_store_ps(y + r + 8, _mm512_cvtpd_ps(s1));
  }
}

template <int PF>
void read_loop(const float* x, float*, std::int64_t count) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (std::int64_t i = 0; i < count; i += 64) {
    if (PF > 0)
      for (int b = 0; b < 256; b += 64)
        _mm_prefetch(reinterpret_cast<const char*>(x + i) + b + PF, _MM_HINT_T0);
    a0 = _mm512_add_ps(a0, _mm512_load_ps(x + i));
    a1 = _mm512_add_ps(a1, _mm512_load_ps(x + i + 16));
    a2 = _mm512_add_ps(a2, _mm512_load_ps(x + i + 32));
    a3 = _mm512_add_ps(a3, _mm512_load_ps(x + i + 48));
  }
  sink = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

double median_ms(const std::function<void()>& f) {
  std::vector<double> t;
  f();
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

}  // namespace

int main() {
  std::FILE* thp = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[256] = "unknown";
  if (thp && std::fgets(line, sizeof line, thp)) line[std::strcspn(line, "\n")] = 0;
  if (thp) std::fclose(thp);
  std::printf("transparent huge pages: %s\n", line);
  using Form = void (*)(const float*, float*, std::int64_t);
  struct Named {
    const char* name;
    Form f;
    int words;  // bytes moved per element / 4
  };
  const std::vector<Named> forms = {
      {"read", read_loop<0>, 1},
      {"read_pf4k", read_loop<4096>, 1},
      {"copy_store", copy_loop<Store::plain, 0>, 2},
      {"copy_nt", copy_loop<Store::nt, 0>, 2},
      {"copy_nt_pf1k", copy_loop<Store::nt, 1024>, 2},
      {"copy_nt_pf4k", copy_loop<Store::nt, 4096>, 2},
      {"gauss_store", gauss_loop<Store::plain, 0, _MM_HINT_T0>, 2},
      {"gauss_nt", gauss_loop<Store::nt, 0, _MM_HINT_T0>, 2},
      {"gauss_store_pf2k", gauss_loop<Store::plain, 2048, _MM_HINT_T0>, 2},
      {"gauss_nt_pf512", gauss_loop<Store::nt, 512, _MM_HINT_T0>, 2},
      {"gauss_nt_pf1k", gauss_loop<Store::nt, 1024, _MM_HINT_T0>, 2},
      {"gauss_nt_pf2k", gauss_loop<Store::nt, 2048, _MM_HINT_T0>, 2},
      {"gauss_nt_pf4k", gauss_loop<Store::nt, 4096, _MM_HINT_T0>, 2},
      {"gauss_nt_pf8k", gauss_loop<Store::nt, 8192, _MM_HINT_T0>, 2},
      {"gauss_nt_pf2k_l2", gauss_loop<Store::nt, 2048, _MM_HINT_T1>, 2},
      {"gauss_nt_pf8k_l2", gauss_loop<Store::nt, 8192, _MM_HINT_T1>, 2},
  };
  for (const bool huge : {false, true}) {
    float* x = allocate(n, huge);
    float* y = allocate(n, huge);
    for (std::int64_t i = 0; i < n; ++i) x[i] = float(i % 1000) * 0.001f;
    const double copy_ms = median_ms([&] { std::memcpy(y, x, n * sizeof(float)); });
    const double gb = double(n) * sizeof(float) * 1e-6;  // one array, in GB per ms... x1e3
    std::printf("== %s pages\n%-18s %9.2f ms %7.2f GB/s  1.00\n", huge ? "2 MB" : "4 KB", "memcpy",
                copy_ms, 2 * gb / copy_ms);
    for (const auto& form : forms) {
      const double ms = median_ms([&] { form.f(x, y, n); });
      std::printf("%-18s %9.2f ms %7.2f GB/s  %.2f\n", form.name, ms, form.words * gb / ms,
                  (form.words * gb / ms) / (2 * gb / copy_ms));
    }
    // The arithmetic alone: 128 KB arrays, from L2, to n values in all.
    constexpr std::int64_t small = 32768;
    const double cache_ms = median_ms([&] {
      for (std::int64_t r = 0; r < n / small; ++r) gauss_loop<Store::plain, 0, 0>(x, y, small);
    });
    std::printf("%-18s %9.2f ms %7.2f GB/s  %.2f\n", "gauss_cache", cache_ms, 2 * gb / cache_ms,
                (2 * gb / cache_ms) / (2 * gb / copy_ms));
    // The arithmetic of polar_distance's sine and cosine and of l2_norm's rows of 2, from L1.
    constexpr std::int64_t tiny = 2048;
    const double sincos_ms = median_ms([&] {
      for (std::int64_t r = 0; r < n / tiny; ++r) sincos_loop(x, y, tiny);
    });
    std::printf("%-18s %9.2f ms %7.3f ns an element\n", "sincos_l1", sincos_ms,
                sincos_ms * 1e6 / double(n));
    const double polar_ms = median_ms([&] {
      for (std::int64_t r = 0; r < n / tiny; ++r) polar_loop(x, y, tiny);
    });
    std::printf("%-18s %9.2f ms %7.3f ns an element\n", "polar_l1", polar_ms,
                polar_ms * 1e6 / double(n));
    const double norm_ms = median_ms([&] {
      for (std::int64_t r = 0; r < n / (tiny / 2); ++r) norm2_loop(x, y, tiny / 2);
    });
    std::printf("%-18s %9.2f ms %7.3f ns a row\n", "sqrtpd_l1", norm_ms, norm_ms * 1e6 / double(n));
    std::free(x);
    std::free(y);
  }
  return 0;
}
#endif
