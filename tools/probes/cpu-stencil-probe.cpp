// What this host's caches allow for diffusion with every step's Laplacian (issue 3's OpenMP
// target), measured without Kokkos: plain OpenMP over raw float arrays, 2000 x 2000, the same
// 48 MB per step as unison::diffuse (read f, write f_next and lapl). Variants:
//   copy2      read a, write b, ping-pong (the fields alone)
//   copy3      read a, write b and c (the step's traffic, no arithmetic)
//   rows       `omp for schedule(static)` over rows, one step per parallel loop
//   dynamic    the same with schedule(dynamic, 1): rows change thread from step to step
//   owned      each thread keeps the same block of rows every step, sweeping it forward and
//              backward in turn, so a step starts on the rows the last one left in its cache
//   owned_nt   owned, with the Laplacian written by non-temporal stores (past the caches)
// Build and run (GPU machine's host):
//   g++ -O3 -fopenmp [-march=native] tools/probes/cpu-stencil-probe.cpp -o probe
//   OMP_PROC_BIND=close OMP_PLACES=cores ./probe
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int n = 2000;
constexpr float coeff = 0.25f;

float* alloc() {
  auto* p = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n * n));
  return p;
}

// One row: out = mid - coeff * lap, lap = 4 mid - ((up + down) + (left + right)).
template <bool NT, bool Lapl = true, bool Adds = false>
void row(const float* __restrict up, const float* __restrict mid, const float* __restrict dn,
         float* __restrict out, float* __restrict lo) {
  const auto one = [&](int c, float left, float right, float& lap) {
    lap = (Adds ? (mid[c] + mid[c]) + (mid[c] + mid[c]) : 4.f * mid[c]) -
          ((up[c] + dn[c]) + (left + right));
    out[c] = mid[c] - coeff * lap;
  };
  if constexpr (!NT || !Lapl) {
    float lap;
    one(0, 0.f, mid[1], lap);
    if constexpr (Lapl) lo[0] = lap;
#pragma GCC ivdep
    for (int c = 1; c < n - 1; ++c) {
      const float l = 4.f * mid[c] - ((up[c] + dn[c]) + (mid[c - 1] + mid[c + 1]));
      out[c] = mid[c] - coeff * l;
      if constexpr (Lapl) lo[c] = l;
    }
    one(n - 1, mid[n - 2], 0.f, lap);
    if constexpr (Lapl) lo[n - 1] = lap;
  } else {
#if defined(__AVX512F__)
    constexpr int W = 16;
#elif defined(__AVX__)
    constexpr int W = 8;
#else
    constexpr int W = 4;
#endif
    alignas(64) float tmp[W];
    for (int c0 = 0; c0 < n; c0 += W) {
      if (c0 == 0 || c0 + W >= n) {
        for (int e = 0; e < W; ++e) {
          const int c = c0 + e;
          if (c < n) one(c, c > 0 ? mid[c - 1] : 0.f, c + 1 < n ? mid[c + 1] : 0.f, tmp[e]);
        }
        if (c0 + W <= n) {
#if defined(__AVX512F__)
          _mm512_stream_ps(lo + c0, _mm512_load_ps(tmp));
#elif defined(__AVX__)
          _mm256_stream_ps(lo + c0, _mm256_load_ps(tmp));
#else
          _mm_stream_ps(lo + c0, _mm_load_ps(tmp));
#endif
        } else {
          for (int c = c0; c < n; ++c) lo[c] = tmp[c - c0];
        }
        continue;
      }
#if defined(__AVX512F__)
      const __m512 m = _mm512_load_ps(mid + c0);
      const __m512 l = _mm512_sub_ps(
          Adds ? _mm512_add_ps(_mm512_add_ps(m, m), _mm512_add_ps(m, m))
               : _mm512_mul_ps(_mm512_set1_ps(4.f), m),
          _mm512_add_ps(
              _mm512_add_ps(_mm512_load_ps(up + c0), _mm512_load_ps(dn + c0)),
              _mm512_add_ps(_mm512_loadu_ps(mid + c0 - 1), _mm512_loadu_ps(mid + c0 + 1))));
      _mm512_store_ps(out + c0, _mm512_sub_ps(m, _mm512_mul_ps(_mm512_set1_ps(coeff), l)));
      _mm512_stream_ps(lo + c0, l);
#elif defined(__AVX__)
      const __m256 m = _mm256_load_ps(mid + c0);
      const __m256 l = _mm256_sub_ps(
          _mm256_mul_ps(_mm256_set1_ps(4.f), m),
          _mm256_add_ps(
              _mm256_add_ps(_mm256_load_ps(up + c0), _mm256_load_ps(dn + c0)),
              _mm256_add_ps(_mm256_loadu_ps(mid + c0 - 1), _mm256_loadu_ps(mid + c0 + 1))));
      _mm256_store_ps(out + c0, _mm256_sub_ps(m, _mm256_mul_ps(_mm256_set1_ps(coeff), l)));
      _mm256_stream_ps(lo + c0, l);
#else
      const __m128 m = _mm_load_ps(mid + c0);
      const __m128 l = _mm_sub_ps(
          _mm_mul_ps(_mm_set1_ps(4.f), m),
          _mm_add_ps(_mm_add_ps(_mm_load_ps(up + c0), _mm_load_ps(dn + c0)),
                     _mm_add_ps(_mm_loadu_ps(mid + c0 - 1), _mm_loadu_ps(mid + c0 + 1))));
      _mm_store_ps(out + c0, _mm_sub_ps(m, _mm_mul_ps(_mm_set1_ps(coeff), l)));
      _mm_stream_ps(lo + c0, l);
#endif
    }
  }
}

// The row beyond the field's edges, aligned like the fields' rows.
const float* const zeros = [] {
  float* z = alloc();
  std::memset(z, 0, sizeof(float) * n);
  return z;
}();

template <bool NT, bool Adds = false>
void do_row(const float* f, float* g, float* l, int r) {
  const float* mid = f + std::size_t(r) * n;
  row<NT, true, Adds>(r > 0 ? mid - n : zeros, mid, r + 1 < n ? mid + n : zeros,
                      g + std::size_t(r) * n, l + std::size_t(r) * n);
}

// Median microseconds per call of step(k) over 5 repetitions of `steps` calls.
double time_steps(const std::function<void(int)>& step, int steps) {
  for (int k = 0; k < 20; ++k) step(k);
  std::vector<double> t;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) step(k);
    t.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        steps);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

}  // namespace

// The start field: dense (no zeros to speak of), or with PROBE_FIELD=blobs about 70 % of the
// cells zero in blocks, like unison::jagged_field: diffusion then spreads values into the zero
// regions, whose fronts hold subnormal numbers for many steps.
float start(int r, int c) {
  static const bool blobs = [] {
    const char* e = std::getenv("PROBE_FIELD");
    return e && std::string(e) == "blobs";
  }();
  const float v = float((r * 7 + c * 13) % 101) / 101.f;
  return !blobs || (r / 60 + c / 90) % 10 < 3 ? v : 0.f;
}

// PROBE_FIELD=file.npy: a 2000 x 2000 float32 C-order field instead (e.g. unison's jagged
// field: UNISON_BENCH_SAVE_FIELD=file.npy unison_bench
// --benchmark_filter=diffusion/every_step/streaming/.*/OpenMP).
std::vector<float> npy_field() {
  const char* e = std::getenv("PROBE_FIELD");
  std::vector<float> v;
  if (!e || std::string(e).size() < 4 || std::string(e).substr(std::string(e).size() - 4) != ".npy")
    return v;
  FILE* file = std::fopen(e, "rb");
  unsigned char head[10];
  if (!file || std::fread(head, 1, 10, file) != 10) std::exit(2);
  const long offset = 10 + head[8] + 256 * head[9];
  v.resize(std::size_t(n) * n);
  if (std::fseek(file, offset, SEEK_SET) != 0 ||
      std::fread(v.data(), sizeof(float), v.size(), file) != v.size())
    std::exit(2);
  std::fclose(file);
  return v;
}

int main() {
  const std::vector<float> loaded = npy_field();
  if (const char* e = std::getenv("PROBE_FTZ"); e && std::string(e) == "1") {
#pragma omp parallel
    _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ and DAZ on every thread
  }
  float *a = alloc(), *b = alloc(), *l = alloc();
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      a[std::size_t(r) * n + c] = loaded.empty() ? start(r, c) : loaded[std::size_t(r) * n + c];
      b[std::size_t(r) * n + c] = 0.f;
      l[std::size_t(r) * n + c] = 0.f;
    }
  const int threads = omp_get_max_threads();
  std::printf("threads %d, %s\n", threads,
#if defined(__AVX512F__)
              "AVX-512"
#elif defined(__AVX__)
              "AVX"
#else
              "SSE"
#endif
  );
  const auto fields = [&](int k, const float*& f, float*& g) {
    f = k % 2 ? b : a;
    g = k % 2 ? a : b;
  };
  const auto report = [&](const char* name, double us, double mb = 48) {
    std::printf("%-10s %8.1f us/step  %6.1f GB/s (%g MB)\n", name, us, mb * 1e6 / us / 1e3, mb);
  };
  const std::size_t cells = std::size_t(n) * n;
  report("copy2",
         time_steps(
             [&](int k) {
               const float* f;
               float* g;
               fields(k, f, g);
#pragma omp parallel for schedule(static)
               for (std::size_t i = 0; i < cells; ++i) g[i] = f[i];
             },
             200),
         32);
  report("copy3", time_steps(
                      [&](int k) {
                        const float* f;
                        float* g;
                        fields(k, f, g);
#pragma omp parallel for schedule(static)
                        for (std::size_t i = 0; i < cells; ++i) {
                          g[i] = f[i];
                          l[i] = f[i] * 2.f;
                        }
                      },
                      200));
  report("rows", time_steps(
                     [&](int k) {
                       const float* f;
                       float* g;
                       fields(k, f, g);
#pragma omp parallel for schedule(static)
                       for (int r = 0; r < n; ++r) do_row<false>(f, g, l, r);
                     },
                     200));
  report("dynamic", time_steps(
                        [&](int k) {
                          const float* f;
                          float* g;
                          fields(k, f, g);
#pragma omp parallel for schedule(dynamic, 1)
                          for (int r = 0; r < n; ++r) do_row<false>(f, g, l, r);
                        },
                        200));
  const auto owned = [&](auto nt) {
    return [&, nt](int k) {
      const float* f;
      float* g;
      fields(k, f, g);
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), nt_ = omp_get_num_threads();
        const int r0 = int(std::int64_t(n) * t / nt_), r1 = int(std::int64_t(n) * (t + 1) / nt_);
        if (k % 2 == 0)
          for (int r = r0; r < r1; ++r) do_row<decltype(nt)::value>(f, g, l, r);
        else
          for (int r = r1 - 1; r >= r0; --r) do_row<decltype(nt)::value>(f, g, l, r);
      }
    };
  };
  report("owned", time_steps(owned(std::false_type()), 200));
  report("owned_nt", time_steps(owned(std::true_type()), 200));
  // owned_nt with 4 * f[i, j] computed as (f + f) + (f + f) (bitwise the same value): does an
  // AVX-512 multiply that meets a subnormal cost a microcode assist where additions do not?
  // PROBE_FIELD=blobs, after 500 steps, when the diffusion fronts hold many subnormals.
  const auto owned_adds = [&](int k) {
    const float* f;
    float* g;
    fields(k, f, g);
#pragma omp parallel
    {
      const int t = omp_get_thread_num(), nt_ = omp_get_num_threads();
      const int r0 = int(std::int64_t(n) * t / nt_), r1 = int(std::int64_t(n) * (t + 1) / nt_);
      if (k % 2 == 0)
        for (int r = r0; r < r1; ++r) do_row<true, true>(f, g, l, r);
      else
        for (int r = r1 - 1; r >= r0; --r) do_row<true, true>(f, g, l, r);
    }
  };
  for (int round = 0; round < 2; ++round) {
    report(round ? "nt_mul4@2" : "nt_mul4@1", time_steps(owned(std::true_type()), 200));
    report(round ? "nt_adds@2" : "nt_adds@1", time_steps(owned_adds, 200));
  }
  // owned_tb<B>: B steps per pass, every step's Laplacian kept (plane s of a B-plane history,
  // non-temporal stores). Each thread sweeps its own rows plus a halo B - s rows wide at level
  // s as a wavefront: at row i it computes level 1 row i-1 from f, level s row i-s from level
  // s-1's last three rows (a ring per level in its cache), level B row i-B into g. Halo rows are
  // computed again by the neighbouring thread; only own rows are written to the history and g.
  // The field leaves the caches once per B steps, the Laplacians once per step.
  std::vector<float*> hist;
  const auto owned_tb = [&](int B) {
    while (int(hist.size()) < B) hist.push_back(alloc());
    return [&, B](int k) {
      const float* f;
      float* g;
      fields(k, f, g);
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), nt_ = omp_get_num_threads();
        const int r0 = int(std::int64_t(n) * t / nt_), r1 = int(std::int64_t(n) * (t + 1) / nt_);
        static thread_local std::vector<float> ring;
        ring.resize(std::size_t(3) * n * B + 16);
        float* base =
            ring.data() + (16 - (reinterpret_cast<std::uintptr_t>(ring.data()) / 4) % 16) % 16;
        const auto lev = [&](int s, int r) -> const float* {  // level s row r (s >= 1: ring)
          if (r < 0 || r >= n) return zeros;
          if (s == 0) return f + std::size_t(r) * n;
          return base + (std::size_t(s - 1) * 3 + std::size_t(r % 3)) * n;
        };
        for (int i = r0 - B + 1; i < r1 + B; ++i) {
          for (int s = 1; s <= B; ++s) {
            const int r = i - s;  // level s row r, wanted for r in [r0 - (B - s), r1 + (B - s))
            if (r < 0 || r >= n || r < r0 - (B - s) || r >= r1 + (B - s)) continue;
            const bool own = r >= r0 && r < r1;
            float* out = s == B ? g + std::size_t(r) * n : const_cast<float*>(lev(s, r));
            if (own)
              row<true, true>(lev(s - 1, r - 1), lev(s - 1, r), lev(s - 1, r + 1), out,
                              hist[s - 1] + std::size_t(r) * n);
            else
              row<false, false>(lev(s - 1, r - 1), lev(s - 1, r), lev(s - 1, r + 1), out, nullptr);
          }
        }
        _mm_sfence();
      }
    };
  };
  for (int B : {1, 2, 3, 4, 6, 8}) {
    char name[32];
    std::snprintf(name, sizeof name, "owned_tb%d", B);
    // B steps per call: time per step = time per call / B.
    const double us = time_steps(owned_tb(B), 200 / B) / B;
    report(name, us, 16 + 32.0 / B);
  }
  // Check: owned_tb(4) gives bitwise the fields and Laplacians of 4 single steps.
  {
    std::vector<float> reff(cells), refl(cells);
    for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(static)
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) a[std::size_t(r) * n + c] = start(r, c);
      if (pass == 0) {
        for (int k = 0; k < 4; ++k) {
          const float* f;
          float* g;
          fields(k, f, g);
#pragma omp parallel for schedule(static)
          for (int r = 0; r < n; ++r) do_row<false>(f, g, l, r);
          if (k == 2) std::memcpy(refl.data(), l, cells * sizeof(float));
        }
        std::memcpy(reff.data(), a, cells * sizeof(float));
      } else {
        owned_tb(4)(0);  // a -> b
        std::memcpy(a, b, cells * sizeof(float));
      }
    }
    double ef = 0, el = 0;
    for (std::size_t i = 0; i < cells; ++i) {
      ef = std::max(ef, double(std::fabs(reff[i] - a[i])));
      el = std::max(el, double(std::fabs(refl[i] - hist[2][i])));
    }
    std::printf(
        "check: owned_tb4 against 4 steps: max |field diff| = %g, |lapl(step 3) diff| = %g\n", ef,
        el);
    if (ef != 0 || el != 0) return 1;
  }
  // Check: owned_nt and rows give the same field after 2 steps from the same start.
  std::vector<float> ref(cells);
  for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(static)
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) a[std::size_t(r) * n + c] = start(r, c);
    for (int k = 0; k < 2; ++k) {
      if (pass == 0) {
        const float* f;
        float* g;
        fields(k, f, g);
#pragma omp parallel for schedule(static)
        for (int r = 0; r < n; ++r) do_row<false>(f, g, l, r);
      } else {
        owned(std::true_type())(k);
      }
    }
    if (pass == 0) std::memcpy(ref.data(), l, cells * sizeof(float));
  }
  double err = 0;
  for (std::size_t i = 0; i < cells; ++i) err = std::max(err, double(std::fabs(ref[i] - l[i])));
  std::printf("check: max |lapl(rows) - lapl(owned_nt)| = %g\n", err);
  return err > 1e-5 ? 1 : 0;
}
