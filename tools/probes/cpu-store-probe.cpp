// Where the CPU diffusion step's Laplacian should go (issue 3's OpenMP target), measured without
// Kokkos on AVX-512 hosts: the step of unison::diffuse with every Laplacian (each thread owns a
// block of rows, swept forward and backward on alternate steps), 2000 x 2000 float32, from a
// dense field (no subnormal numbers), the Laplacian stored as
//   stream   non-temporal stores (unison v8-v11): past the caches, to DRAM
//   store    ordinary stores: the Laplacian competes with the two fields for the core's L2
//   demote   ordinary stores, each 64-byte line then pushed to the shared L3 (CLDEMOTE, a hint:
//            a no-op where the CPU lacks it), so the L2 keeps the fields
//   none     no Laplacian (the final-only step: a lower bound)
//   inplace  stream, with the field updated in place: each new row goes to a row buffer and is
//            copied back once the next row has read the old one, and the rows at the blocks'
//            edges are kept from the previous step, so the L2 holds one field (1 MB a thread)
//            instead of two
//   inplace_none  the same without the Laplacian
// and an empty parallel region per step (the fork-join cost). Every form gives the same bits.
// PROBE_ACTIVE=A lets only the first A threads of the team work (each on its own block of rows,
// the same as with all of them), to tell a core's own speed from what the cores share.
// Build and run (GPU machine's host):
//   g++ -O3 -fopenmp -march=native -mcldemote tools/probes/cpu-store-probe.cpp -o store-probe
//   OMP_PROC_BIND=spread OMP_PLACES=threads ./store-probe
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if !defined(__AVX512F__) || !defined(__CLDEMOTE__)
int main() {
  std::puts("cpu-store-probe: needs AVX-512 and -mcldemote (-march=native on an AVX-512 host)");
  return 2;
}
#else
namespace {

constexpr int n = 2000, W = 16;
constexpr float coeff = 0.25f;

int active = 1 << 30;  // threads that work

float* alloc() { return static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n * n)); }

enum Mode { k_stream, k_store, k_demote, k_none, k_empty, k_inplace, k_inplace_none, modes };
const char* const names[modes] = {"stream", "store",   "demote",      "none",
                                  "empty",  "inplace", "inplace_none"};

template <int M>
void row(const float* up, const float* mid, const float* dn, float* out, float* lo) {
  const auto edge = [&](int c) {
    const float s = (up[c] + dn[c]) + ((c > 0 ? mid[c - 1] : 0.f) + (c + 1 < n ? mid[c + 1] : 0.f));
    const float l = 4.f * mid[c] - s;
    if constexpr (M != k_none) lo[c] = l;
    out[c] = mid[c] - coeff * l;
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
    const __m512 l = _mm512_sub_ps(_mm512_mul_ps(four, m), s);
    _mm512_store_ps(out + c0, _mm512_sub_ps(m, _mm512_mul_ps(k, l)));
    if constexpr (M == k_stream) _mm512_stream_ps(lo + c0, l);
    if constexpr (M == k_store || M == k_demote) _mm512_store_ps(lo + c0, l);
    if constexpr (M == k_demote) _cldemote(lo + c0);
  }
}

using RowFn = void (*)(const float*, const float*, const float*, float*, float*);
const RowFn rows[modes] = {row<k_stream>, row<k_store>,  row<k_demote>, row<k_none>,
                           nullptr,       row<k_stream>, row<k_none>};

const float* zeros() {
  static float* z = [] {
    float* p = alloc();
    std::memset(p, 0, sizeof(float) * n);
    return p;
  }();
  return z;
}

void step(RowFn fn, const float* f, float* g, float* l, int k) {
#pragma omp parallel
  {
    if (fn && omp_get_thread_num() < active) {
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
}

// The in-place step on f alone. edge[p][t] holds thread t's first and last rows of the current
// field (p = k % 2); the step leaves the new ones in edge[1 - p].
float* edge[2];
void step_inplace(RowFn fn, float* f, float* l, int k) {
#pragma omp parallel
  if (omp_get_thread_num() < active) {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int r0 = int(std::int64_t(n) * t / nt), r1 = int(std::int64_t(n) * (t + 1) / nt);
    float* const mine = edge[k % 2];
    float* const next = edge[1 - k % 2];
    alignas(64) static thread_local float buf[2][n];
    const float* up = r0 > 0 ? mine + (2 * (t - 1) + 1) * std::size_t(n) : zeros();
    for (int r = r0; r < r1; ++r) {
      float* mid = f + std::size_t(r) * n;
      const float* dn =
          r + 1 < r1 ? mid + n : (r1 < n ? mine + 2 * (t + 1) * std::size_t(n) : zeros());
      fn(up, mid, dn, buf[r & 1], l + std::size_t(r) * n);
      if (r > r0) std::memcpy(mid - n, buf[(r - 1) & 1], sizeof(float) * n);
      up = mid;
    }
    std::memcpy(f + std::size_t(r1 - 1) * n, buf[(r1 - 1) & 1], sizeof(float) * n);
    std::memcpy(next + 2 * t * std::size_t(n), f + std::size_t(r0) * n, sizeof(float) * n);
    std::memcpy(next + (2 * t + 1) * std::size_t(n), f + std::size_t(r1 - 1) * n,
                sizeof(float) * n);
    _mm_sfence();
  }
}

void load_edges(const float* f, int k) {
  const int nt = omp_get_max_threads();
  for (int t = 0; t < nt; ++t) {
    const int r0 = int(std::int64_t(n) * t / nt), r1 = int(std::int64_t(n) * (t + 1) / nt);
    std::memcpy(edge[k % 2] + 2 * t * std::size_t(n), f + std::size_t(r0) * n, sizeof(float) * n);
    std::memcpy(edge[k % 2] + (2 * t + 1) * std::size_t(n), f + std::size_t(r1 - 1) * n,
                sizeof(float) * n);
  }
}

}  // namespace

int main() {
  float *a = alloc(), *b = alloc(), *l = alloc();
  const std::size_t cells = std::size_t(n) * n;
  // A dense field, first touched by the thread that owns its rows.
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::size_t r0 = std::size_t(n) * t / nt, r1 = std::size_t(n) * (t + 1) / nt;
    std::uint32_t x = 12345u + 977u * std::uint32_t(t);
    for (std::size_t i = r0 * n; i < r1 * n; ++i) {
      x = x * 1664525u + 1013904223u;
      a[i] = 0.5f + float(x >> 8) * 0x1p-25f;
      b[i] = 0.f;
      l[i] = 0.f;
    }
  }
  if (const char* e = std::getenv("PROBE_ACTIVE")) active = std::atoi(e);
  std::printf("threads %d, working %d\n", omp_get_max_threads(),
              std::min(active, omp_get_max_threads()));
  int k = 0;
  for (float*& e : edge)
    e = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n * 2 * omp_get_max_threads()));
  int last = -1;  // the last mode run
  int ipk = 0;    // in-place steps so far (the edge buffers' parity)
  const auto one = [&](int m) {
    if (m == k_inplace || m == k_inplace_none) {
      if (k % 2) {  // the in-place step works on a
        std::memcpy(a, b, sizeof(float) * std::size_t(n) * n);
        ++k;
      }
      if (last != k_inplace && last != k_inplace_none) load_edges(a, ipk);
      step_inplace(rows[m], a, l, ipk++);
      k += 2;  // the field stays in a
    } else {
      step(rows[m], k % 2 ? b : a, k % 2 ? a : b, l, k);
      if (rows[m]) ++k;
    }
    last = m;
  };
  for (int s = 0; s < 100; ++s) one(k_stream);
  // Rounds: each mode's 20-step mean, the modes interleaved; medians and ranges over rounds.
  constexpr int rounds = 15;
  std::vector<double> t[modes];
  for (int rep = 0; rep < rounds; ++rep)
    for (int m = 0; m < modes; ++m) {
      for (int s = 0; s < 4; ++s) one(m);  // the mode's own steady state
      const auto t0 = std::chrono::steady_clock::now();
      for (int s = 0; s < 20; ++s) one(m);
      t[m].push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
          20);
    }
  for (int m = 0; m < modes; ++m) {
    std::sort(t[m].begin(), t[m].end());
    std::printf("%-7s median %6.1f  min %6.1f  max %6.1f us/step\n", names[m], t[m][rounds / 2],
                t[m][0], t[m][rounds - 1]);
  }
  active = 1 << 30;
  // Check: every form gives the same field and (where stored) Laplacian after three steps.
  std::vector<float> ref(cells), refl(cells);
  const float* f = k % 2 ? b : a;
  float* g = k % 2 ? a : b;
  std::vector<float> start(f, f + cells);
  for (int m = 0; m < modes; ++m) {
    if (m == k_empty) continue;
    std::memset(l, 0, cells * sizeof(float));
    std::memcpy(g, start.data(), cells * sizeof(float));
    if (m == k_inplace || m == k_inplace_none) {
      load_edges(g, 0);
      for (int s = 0; s < 3; ++s) step_inplace(rows[m], g, l, s);
    } else {
      float* h = b == g ? a : b;
      step(rows[m], g, h, l, 0);
      step(rows[m], h, g, l, 1);
      step(rows[m], g, h, l, 2);
      std::memcpy(g, h, cells * sizeof(float));
    }
    if (m == 0) {
      std::memcpy(ref.data(), g, cells * sizeof(float));
      std::memcpy(refl.data(), l, cells * sizeof(float));
    } else if (std::memcmp(ref.data(), g, cells * sizeof(float)) ||
               (m != k_none && m != k_inplace_none &&
                std::memcmp(refl.data(), l, cells * sizeof(float)))) {
      std::printf("check: %s differs from stream\n", names[m]);
      return 1;
    }
  }
  std::puts("check: every form gives the same bits");
  return 0;
}
#endif
