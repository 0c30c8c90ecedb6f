// Probe (not library code): the cost of counting 1e8 float32 values into 100 bins on one CPU
// core and on all of them, by the counting step alone, the bins computed the same way in every
// form (an estimate in 16-lane vectors). Forms:
//   buffer<C>: the library's form (unison/histogram.hpp, count_packs): a block of 512 values'
//              counter offsets in a buffer, then plain increments, C interleaved copies.
//   scatter<S>: AVX-512 gather, add and scatter into lane-private histograms (counter
//              bin * 16 + lane, so that no two lanes of a vector touch one counter), S sets of
//              them taken in turn by consecutive vectors.
//   scatter<2> t0 4K, t1 8K, t1 16K: scatter<2> with each line asked for 4 KiB ahead into L1
//              (the library's prefetch), or 8 or 16 KiB ahead into L2.
// and, to compare with: "read only", an OpenMP simd reduction into one float (slow: not a floor
// for the read), "read" forms, a vector sum per thread without and with those prefetches (the
// read's floor), and "copy (memcpy)", each thread's part copied (its time moves 2 n floats).
// Build: g++ -O3 -march=native -fopenmp tools/probes/cpu-histogram-probe.cpp -o /tmp/hist
// Run: /tmp/hist [threads]  (prints ms and ns per value for each form; counts checked equal)
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <utility>
#include <vector>

constexpr int nbins = 100;

template <int C>
void buffer_form(const float* x, std::int64_t n, std::uint32_t* h /* (nbins + 1) * C */) {
  const __m512 inv = _mm512_set1_ps(float(nbins)), last = _mm512_set1_ps(float(nbins - 1));
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  alignas(64) std::int32_t off[512];
  for (std::int64_t i = 0; i + 512 <= n; i += 512) {
    for (int j = 0; j < 512; j += 16) {
      __m512 v = _mm512_loadu_ps(x + i + j);
      __m512 e = _mm512_min_ps(_mm512_mul_ps(v, inv), last);
      __m512i k = _mm512_cvttps_epi32(e);
      __m512i o = _mm512_add_epi32(
          _mm512_mullo_epi32(k, _mm512_set1_epi32(C)),
          _mm512_and_si512(_mm512_add_epi32(lane, _mm512_set1_epi32(j)), _mm512_set1_epi32(C - 1)));
      _mm512_store_si512(off + j, o);
    }
    for (int c = 0; c < 512; ++c) ++h[off[c]];
  }
}

#define PROBE_HINT(h) (h == 0 ? _MM_HINT_T0 : h == 1 ? _MM_HINT_T1 : _MM_HINT_T2)

// S sets of lane histograms; Dist > 0: each step also asks for the line Dist bytes ahead (Hint
// 0: _MM_HINT_T0, into L1; 1: _MM_HINT_T1, into L2).
template <int S, int Hint = 0, int Dist = 0>
void scatter_form(const float* x, std::int64_t n, std::uint32_t* h /* S * nbins * 16 */) {
  const __m512 inv = _mm512_set1_ps(float(nbins)), last = _mm512_set1_ps(float(nbins - 1));
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i one = _mm512_set1_epi32(1);
  std::int64_t i = 0;
  for (; i + 16 * S <= n; i += 16 * S) {
    for (int s = 0; s < S; ++s) {
      if (Dist > 0)
        _mm_prefetch(reinterpret_cast<const char*>(x + i + 16 * s) + Dist, PROBE_HINT(Hint));
      __m512 v = _mm512_loadu_ps(x + i + 16 * s);
      __m512i k = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_mul_ps(v, inv), last));
      __m512i o = _mm512_add_epi32(_mm512_slli_epi32(k, 4), lane);
      std::uint32_t* hs = h + s * nbins * 16;
      __m512i c = _mm512_i32gather_epi32(o, hs, 4);
      _mm512_i32scatter_epi32(hs, o, _mm512_add_epi32(c, one), 4);
    }
  }
}

// The read alone with the same prefetch (Dist 0: none): a sum of the values.
template <int Hint, int Dist>
float read_pf(const float* x, std::int64_t n) {
  __m512 s = _mm512_setzero_ps();
  for (std::int64_t i = 0; i + 16 <= n; i += 16) {
    if (Dist > 0) _mm_prefetch(reinterpret_cast<const char*>(x + i) + Dist, PROBE_HINT(Hint));
    s = _mm512_add_ps(s, _mm512_loadu_ps(x + i));
  }
  return _mm512_reduce_add_ps(s);
}

template <class F>
double timed(const char* name, F f, int reps, std::uint64_t* first) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t total = f();
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < best) best = t;
    if (r == 0) *first = total;
  }
  return best;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  omp_set_num_threads(threads);
  const std::int64_t n = 100'000'000;
  std::vector<float> x(n);
#pragma omp parallel
  {
    std::mt19937 g(1234 + omp_get_thread_num());
    std::uniform_real_distribution<float> d(0.f, 1.f);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) x[i] = d(g);
  }
  auto run = [&](auto form, int per_thread_counters, auto fold) {
    return [&, form, per_thread_counters, fold]() {
      std::vector<std::uint64_t> counts(nbins, 0);
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), p = omp_get_num_threads();
        const std::int64_t per = (n / p) / 512 * 512;
        const std::int64_t b = t * per, e = t == p - 1 ? n / 512 * 512 : b + per;
        std::vector<std::uint32_t> h(per_thread_counters + 64, 0);
        form(x.data() + b, e - b, h.data());
        std::vector<std::uint64_t> mine(nbins, 0);
        fold(h.data(), mine.data());
#pragma omp critical
        for (int k = 0; k < nbins; ++k) counts[k] += mine[k];
      }
      std::uint64_t sum = 0;
      for (int k = 0; k < nbins; ++k) sum += counts[k] * (k + 1);
      return sum;
    };
  };
  auto fold_buffer = [](int C) {
    return [C](const std::uint32_t* h, std::uint64_t* m) {
      for (int k = 0; k < nbins; ++k)
        for (int c = 0; c < C; ++c) m[k] += h[k * C + c];
    };
  };
  auto fold_scatter = [](int S) {
    return [S](const std::uint32_t* h, std::uint64_t* m) {
      for (int s = 0; s < S; ++s)
        for (int k = 0; k < nbins; ++k)
          for (int l = 0; l < 16; ++l) m[k] += h[(s * nbins + k) * 16 + l];
    };
  };
  std::uint64_t ref = 0, got = 0;
  const int reps = 5;
  auto report = [&](const char* name, double t) {
    std::printf("%-12s threads %2d: %7.2f ms, %.3f ns a value (a thread: %.3f)%s\n", name, threads,
                t * 1e3, t * 1e9 / n, t * 1e9 * threads / n, got == ref ? "" : "  COUNTS DIFFER");
  };
  double t = timed("buffer4", run(buffer_form<4>, (nbins + 1) * 4, fold_buffer(4)), reps, &ref);
  got = ref;
  report("buffer<4>", t);
  t = timed("buffer8", run(buffer_form<8>, (nbins + 1) * 8, fold_buffer(8)), reps, &got);
  report("buffer<8>", t);
  t = timed("buffer1", run(buffer_form<1>, (nbins + 1) * 1, fold_buffer(1)), reps, &got);
  report("buffer<1>", t);
  t = timed("scatter1", run(scatter_form<1>, nbins * 16, fold_scatter(1)), reps, &got);
  report("scatter<1>", t);
  t = timed("scatter2", run(scatter_form<2>, 2 * nbins * 16, fold_scatter(2)), reps, &got);
  report("scatter<2>", t);
  t = timed("scatter4", run(scatter_form<4>, 4 * nbins * 16, fold_scatter(4)), reps, &got);
  report("scatter<4>", t);
  // The stream alone: a sum of the values (the read).
  t = timed(
      "read",
      [&]() {
        float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
        for (std::int64_t i = 0; i < n; ++i) s += x[i];
        return std::uint64_t(s > 0 ? ref : 0);
      },
      reps, &got);
  report("read only", t);
  // Prefetch forms: scatter<2> and the read, the line 4 KiB ahead into L1 (the library's
  // form), 8 and 16 KiB ahead into L2.
  t = timed("scatter2 t0 4K", run(scatter_form<2, 0, 4096>, 2 * nbins * 16, fold_scatter(2)), reps,
            &got);
  report("scatter<2> t0 4K", t);
  t = timed("scatter2 t1 8K", run(scatter_form<2, 1, 8192>, 2 * nbins * 16, fold_scatter(2)), reps,
            &got);
  report("scatter<2> t1 8K", t);
  t = timed("scatter2 t1 16K", run(scatter_form<2, 1, 16384>, 2 * nbins * 16, fold_scatter(2)),
            reps, &got);
  report("scatter<2> t1 16K", t);
  const auto reader = [&](auto f) {
    return [&, f]() {
      float total = 0;
#pragma omp parallel reduction(+ : total)
      {
        const int t = omp_get_thread_num(), p = omp_get_num_threads();
        const std::int64_t per = (n / p) / 512 * 512;
        const std::int64_t b = t * per, e = t == p - 1 ? n / 512 * 512 : b + per;
        total += f(x.data() + b, e - b);
      }
      return std::uint64_t(total > 0 ? ref : 0);
    };
  };
  for (auto [name, f] :
       {std::pair{"read", &read_pf<0, 0>}, std::pair{"read t0 4K", &read_pf<0, 4096>},
        std::pair{"read t0 8K", &read_pf<0, 8192>}, std::pair{"read t1 8K", &read_pf<1, 8192>},
        std::pair{"read t1 16K", &read_pf<1, 16384>},
        std::pair{"read t2 16K", &read_pf<2, 16384>}}) {
    t = timed(name, reader(f), reps, &got);
    report(name, t);
  }
  // The copy of the values (memcpy of each thread's part), for the same run's copy rate (its
  // time covers twice the bytes: 2 n floats moved).
  std::vector<float> y(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) y[i] = 0;
  t = timed(
      "copy",
      [&]() {
#pragma omp parallel
        {
          const int t = omp_get_thread_num(), p = omp_get_num_threads();
          const std::int64_t per = n / p, b = t * per, e = t == p - 1 ? n : b + per;
          std::memcpy(y.data() + b, x.data() + b, std::size_t(e - b) * sizeof(float));
        }
        return ref;
      },
      reps, &got);
  report("copy (memcpy)", t);
}
