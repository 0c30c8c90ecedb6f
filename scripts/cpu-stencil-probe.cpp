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
//   g++ -O3 -fopenmp [-march=native] scripts/cpu-stencil-probe.cpp -o probe
//   OMP_PROC_BIND=close OMP_PLACES=cores ./probe
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
template <bool NT>
void row(const float* __restrict up, const float* __restrict mid, const float* __restrict dn,
         float* __restrict out, float* __restrict lo) {
  const auto one = [&](int c, float left, float right, float& lap) {
    lap = 4.f * mid[c] - ((up[c] + dn[c]) + (left + right));
    out[c] = mid[c] - coeff * lap;
  };
  if constexpr (!NT) {
    float lap;
    one(0, 0.f, mid[1], lap);
    lo[0] = lap;
#pragma GCC ivdep
    for (int c = 1; c < n - 1; ++c) {
      const float l = 4.f * mid[c] - ((up[c] + dn[c]) + (mid[c - 1] + mid[c + 1]));
      out[c] = mid[c] - coeff * l;
      lo[c] = l;
    }
    one(n - 1, mid[n - 2], 0.f, lap);
    lo[n - 1] = lap;
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
          _mm512_mul_ps(_mm512_set1_ps(4.f), m),
          _mm512_add_ps(_mm512_add_ps(_mm512_load_ps(up + c0), _mm512_load_ps(dn + c0)),
                        _mm512_add_ps(_mm512_loadu_ps(mid + c0 - 1), _mm512_loadu_ps(mid + c0 + 1))));
      _mm512_store_ps(out + c0, _mm512_sub_ps(m, _mm512_mul_ps(_mm512_set1_ps(coeff), l)));
      _mm512_stream_ps(lo + c0, l);
#elif defined(__AVX__)
      const __m256 m = _mm256_load_ps(mid + c0);
      const __m256 l = _mm256_sub_ps(
          _mm256_mul_ps(_mm256_set1_ps(4.f), m),
          _mm256_add_ps(_mm256_add_ps(_mm256_load_ps(up + c0), _mm256_load_ps(dn + c0)),
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

template <bool NT>
void do_row(const float* f, float* g, float* l, int r) {
  const float* mid = f + std::size_t(r) * n;
  row<NT>(r > 0 ? mid - n : zeros, mid, r + 1 < n ? mid + n : zeros,
          g + std::size_t(r) * n, l + std::size_t(r) * n);
}

// Median microseconds per call of step(k) over 5 repetitions of `steps` calls.
double time_steps(const std::function<void(int)>& step, int steps) {
  for (int k = 0; k < 20; ++k) step(k);
  std::vector<double> t;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) step(k);
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count() /
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

int main() {
  float *a = alloc(), *b = alloc(), *l = alloc();
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      a[std::size_t(r) * n + c] = start(r, c);
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
  report("copy2", time_steps(
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
