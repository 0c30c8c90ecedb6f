// Which instructions of the CPU diffusion step pay for subnormal numbers (issue 3's OpenMP
// target on the jagged field), measured without Kokkos on AVX-512 hosts: the step of
// unison::diffuse with every Laplacian (each thread owns a block of rows, the Laplacian written
// with non-temporal stores), 2000 x 2000 float32, in these forms (the fused ones give the same
// bits, and so do the unfused ones):
//   fma       lap = fmsub(4, m, s), next = fnmadd(coeff, lap, m): what GCC makes of
//             unison::detail::stencil with -march=native (s = (up + down) + (left + right))
//   adds      lap = ((m + m) + (m + m)) - s: 4 m without a multiply
//   fma+add   fma with one more (unused) addition of lap and s per chunk
//   fma+mul   fma with one more (unused) multiplication coeff * lap per chunk
//   mul       lap = 4 * m - s, next = m - coeff * lap, unfused (unison before v11: its tests
//             and benchmarks build with -ffp-contract=off)
//   adds+mul  mul with 4 m as (m + m) + (m + m) (unison v11: detail::four_times)
//   adds+exact  adds+mul with coeff * lap as unison::backends::ExactScale computes it (v11):
//             no floating-point instruction meets a subnormal operand but additions
// The extra instructions of fma+add and fma+mul meet the same subnormal operands as the kernel's
// own, so the difference to `fma` is what one such instruction costs per step. Also counted:
// the 16-cell chunks whose inputs, Laplacian or new field hold a subnormal number.
// Build and run (GPU machine's host; the field from
// UNISON_BENCH_SAVE_FIELD=field.npy unison_bench
// --benchmark_filter=diffusion/every_step/streaming/.*/OpenMP):
//   g++ -O3 -fopenmp -march=native tools/probes/cpu-subnormal-probe.cpp -o subnormal-probe
//   OMP_PROC_BIND=spread OMP_PLACES=threads PROBE_FIELD=field.npy [PROBE_FTZ=1] ./subnormal-probe
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if !defined(__AVX512F__)
int main() {
  std::puts("cpu-subnormal-probe: needs AVX-512 (-march=native on an AVX-512 host)");
  return 2;
}
#else
namespace {

constexpr int n = 2000, W = 16;
constexpr float coeff = 0.25f;

float* alloc() { return static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n * n)); }

enum Mode { k_fma, k_adds, k_fma_add, k_fma_mul, k_mul, k_adds_mul, k_adds_exact, modes };
const char* const names[modes] = {"fma", "adds",     "fma+add",   "fma+mul",
                                  "mul", "adds+mul", "adds+exact"};

// coeff * l as unison::backends::ExactScale<float> computes it (for 2^-24 <= coeff <= 1): the
// IEEE product, lanes below FLT_MIN / coeff from their bits in integers and doubles.
const float bound = float(double(FLT_MIN) / coeff * (1 + 0x1p-20));

__attribute__((always_inline)) inline __m512 exact_scale(__m512 l) {
  const __m512 k = _mm512_set1_ps(coeff);
  const __m512i bits = _mm512_castps_si512(l);
  // 0 < |l| < bound: 2 |l|'s bits minus 1 below 2 bound's bits minus 1, unsigned (zeros wrap).
  std::uint32_t bound_bits;
  std::memcpy(&bound_bits, &bound, sizeof bound);
  const __mmask16 small =
      _mm512_cmplt_epu32_mask(_mm512_sub_epi32(_mm512_slli_epi32(bits, 1), _mm512_set1_epi32(1)),
                              _mm512_set1_epi32(int(2 * bound_bits - 1)));
  if (small == 0) return _mm512_mul_ps(k, l);
  const __m512i mag = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 sub =
      _mm512_mask_cmpeq_epi32_mask(small, _mm512_srli_epi32(mag, 23), _mm512_setzero_si512());
  __m512 scaled = _mm512_maskz_mov_ps(
      small & ~sub, _mm512_castsi512_ps(_mm512_add_epi32(mag, _mm512_set1_epi32(149 << 23))));
  scaled = _mm512_mask_mov_ps(scaled, sub, _mm512_cvtepi32_ps(mag));
  const __m512d c = _mm512_set1_pd(coeff), magic = _mm512_set1_pd(0x1.8p52);
  const __m512d lo = _mm512_mul_pd(c, _mm512_cvtps_pd(_mm512_castps512_ps256(scaled)));
  const __m512d hi = _mm512_mul_pd(c, _mm512_cvtps_pd(_mm512_extractf32x8_ps(scaled, 1)));
  const __m256i nlo = _mm512_cvttpd_epi32(_mm512_sub_pd(_mm512_add_pd(lo, magic), magic));
  const __m256i nhi = _mm512_cvttpd_epi32(_mm512_sub_pd(_mm512_add_pd(hi, magic), magic));
  const __m512i n = _mm512_inserti64x4(_mm512_castsi256_si512(nlo), nhi, 1);
  const __m512i tiny = _mm512_or_si512(n, _mm512_and_si512(bits, _mm512_set1_epi32(INT32_MIN)));
  return _mm512_mask_mov_ps(_mm512_maskz_mul_ps(~small, k, l), small, _mm512_castsi512_ps(tiny));
}

template <class T>
inline void keep(const T& x) {
  asm volatile("" : : "v"(x));
}

float cell(float m, float s) { return std::fma(-coeff, std::fma(4.f, m, -s), m); }

template <int M>
void row(const float* up, const float* mid, const float* dn, float* out, float* lo) {
  const auto edge = [&](int c) {
    const float s = (up[c] + dn[c]) + ((c > 0 ? mid[c - 1] : 0.f) + (c + 1 < n ? mid[c + 1] : 0.f));
    lo[c] = std::fma(4.f, mid[c], -s);
    out[c] = cell(mid[c], s);
  };
  const __m512 four = _mm512_set1_ps(4.f), k = _mm512_set1_ps(coeff);
  for (int c0 = 0; c0 < n; c0 += W) {
    if (c0 == 0 || c0 + W >= n) {
      for (int c = c0; c < std::min(n, c0 + W); ++c) edge(c);
      continue;
    }
    const __m512 m = _mm512_load_ps(mid + c0);
    const __m512 s =
        _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(up + c0), _mm512_load_ps(dn + c0)),
                      _mm512_add_ps(_mm512_loadu_ps(mid + c0 - 1), _mm512_loadu_ps(mid + c0 + 1)));
    const __m512 l =
        M == k_adds || M == k_adds_mul || M == k_adds_exact
            ? _mm512_sub_ps(_mm512_add_ps(_mm512_add_ps(m, m), _mm512_add_ps(m, m)), s)
            : (M == k_mul ? _mm512_sub_ps(_mm512_mul_ps(four, m), s) : _mm512_fmsub_ps(four, m, s));
    if constexpr (M == k_fma_add) keep(_mm512_add_ps(l, s));
    if constexpr (M == k_fma_mul) keep(_mm512_mul_ps(k, l));
    if constexpr (M == k_mul || M == k_adds_mul)
      _mm512_store_ps(out + c0, _mm512_sub_ps(m, _mm512_mul_ps(k, l)));
    else if constexpr (M == k_adds_exact)
      _mm512_store_ps(out + c0, _mm512_sub_ps(m, exact_scale(l)));
    else _mm512_store_ps(out + c0, _mm512_fnmadd_ps(k, l, m));
    _mm512_stream_ps(lo + c0, l);
  }
}

using RowFn = void (*)(const float*, const float*, const float*, float*, float*);
const RowFn rows[modes] = {row<k_fma>, row<k_adds>,     row<k_fma_add>,   row<k_fma_mul>,
                           row<k_mul>, row<k_adds_mul>, row<k_adds_exact>};

const float* zeros() {
  static float* z = [] {
    float* p = alloc();
    std::memset(p, 0, sizeof(float) * n);
    return p;
  }();
  return z;
}

// One step f -> g, Laplacian to l; each thread owns a block of rows, swept forward on even
// steps and backward on odd ones.
void step(RowFn fn, const float* f, float* g, float* l, int k) {
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int r0 = int(std::int64_t(n) * t / nt), r1 = int(std::int64_t(n) * (t + 1) / nt);
    for (int i = 0; i < r1 - r0; ++i) {
      const int r = k % 2 == 0 ? r0 + i : r1 - 1 - i;
      const float* mid = f + std::size_t(r) * n;
      fn(r > 0 ? mid - n : zeros(), mid, r + 1 < n ? mid + n : zeros(), g + std::size_t(r) * n,
         l + std::size_t(r) * n);
    }
    _mm_sfence();
  }
}

bool subnormal(float x) { return x != 0.f && std::fabs(x) < 1.17549435e-38f; }

}  // namespace

int main() {
  float *a = alloc(), *b = alloc(), *l = alloc();
  const std::size_t cells = std::size_t(n) * n;
  const char* file = std::getenv("PROBE_FIELD");
  if (!file) {
    std::puts("cpu-subnormal-probe: set PROBE_FIELD=field.npy (2000 x 2000 float32, C order)");
    return 2;
  }
  {
    FILE* in = std::fopen(file, "rb");
    unsigned char head[10];
    if (!in || std::fread(head, 1, 10, in) != 10 ||
        std::fseek(in, 10 + head[8] + 256 * head[9], SEEK_SET) != 0 ||
        std::fread(a, sizeof(float), cells, in) != cells) {
      std::printf("cpu-subnormal-probe: cannot read %s\n", file);
      return 2;
    }
    std::fclose(in);
  }
  if (const char* e = std::getenv("PROBE_FTZ"); e && std::string(e) == "1") {
#pragma omp parallel
    _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ and DAZ on every thread
  }
  std::memset(b, 0, cells * sizeof(float));
  std::memset(l, 0, cells * sizeof(float));
  std::printf("threads %d, MXCSR FTZ/DAZ %s\n", omp_get_max_threads(),
              (_mm_getcsr() & 0x8040) == 0x8040 ? "on" : "off");
  int k = 0;  // steps so far; the field is in a if k is even
  const auto one = [&](RowFn fn) {
    step(fn, k % 2 ? b : a, k % 2 ? a : b, l, k);
    ++k;
  };
  // Chunks of 16 cells (aligned in each row) with a subnormal input, Laplacian or new field, for
  // the step from the current field (which it then takes).
  const auto census = [&] {
    const float* f = k % 2 ? b : a;
    static float *const gp = alloc(), *const lp = alloc();  // aligned, unlike a vector
    float *g = gp, *lap = lp;
    for (int r = 0; r < n; ++r)
      row<k_fma>(r > 0 ? f + std::size_t(r - 1) * n : zeros(), f + std::size_t(r) * n,
                 r + 1 < n ? f + std::size_t(r + 1) * n : zeros(), g + std::size_t(r) * n,
                 lap + std::size_t(r) * n);
    long in = 0, lo = 0, out = 0, chunks = 0, slow = 0;
    for (int r = 0; r < n; ++r)
      for (int c0 = 0; c0 < n; c0 += W, ++chunks) {
        bool si = false, sl = false, so = false, ss = false;
        for (int c = c0; c < std::min(n, c0 + W); ++c) {
          const std::size_t i = std::size_t(r) * n + c;
          si = si || subnormal(f[i]) || (c + 1 < n && subnormal(f[i + 1])) ||
               (c > 0 && subnormal(f[i - 1])) || (r > 0 && subnormal(f[i - n])) ||
               (r + 1 < n && subnormal(f[i + n]));
          sl = sl || subnormal(lap[i]);
          so = so || subnormal(g[i]);
          ss = ss || (lap[i] != 0 && std::fabs(lap[i]) < bound);
        }
        in += si;
        lo += sl;
        out += so;
        slow += ss;
      }
    std::printf(
        "step %5d: chunks with subnormal inputs %4.1f %%, Laplacian %4.1f %%, new field %4.1f %%;"
        " adds+exact's other way %4.1f %%\n",
        k, 100.0 * in / chunks, 100.0 * lo / chunks, 100.0 * out / chunks, 100.0 * slow / chunks);
  };
  for (int s = 0; s < 20; ++s) one(rows[k_fma]);
  // Rounds at several points of a 10,000-step run: each mode's median over 3 x 20 steps,
  // the modes interleaved, so they all see the same stretch of the field's history.
  for (int at : {20, 400, 1000, 2000, 4000, 7000, 10000}) {
    while (k < at) one(rows[k_fma]);
    census();
    std::vector<double> t[modes];
    for (int rep = 0; rep < 3; ++rep)
      for (int m = 0; m < modes; ++m) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < 20; ++s) one(rows[m]);
        t[m].push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count() /
            20);
      }
    std::printf("            ");
    for (int m = 0; m < modes; ++m) {
      std::sort(t[m].begin(), t[m].end());
      std::printf("%s %.1f  ", names[m], t[m][1]);
    }
    std::printf("us/step\n");
  }
  // Check: the fused modes give the bits of `fma`, the unfused ones those of `mul`, for one
  // step from the same field (edge cells aside: they are fused in every mode).
  std::vector<float> ref(cells), refl(cells);
  const float* f = k % 2 ? b : a;
  float* g = k % 2 ? a : b;
  for (int family : {k_fma, k_mul})
    for (int m = 0; m < modes; ++m) {
      if ((m == k_mul || m == k_adds_mul || m == k_adds_exact) != (family == k_mul)) continue;
      step(rows[m], f, g, l, k);
      if (m == family) {
        std::memcpy(ref.data(), g, cells * sizeof(float));
        std::memcpy(refl.data(), l, cells * sizeof(float));
      } else if (std::memcmp(ref.data(), g, cells * sizeof(float)) ||
                 std::memcmp(refl.data(), l, cells * sizeof(float))) {
        std::printf("check: %s differs from %s\n", names[m], names[family]);
        return 1;
      }
    }
  std::puts("check: the fused modes give the same bits, and so do the unfused ones");
  return 0;
}
#endif
