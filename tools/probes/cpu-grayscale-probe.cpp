// Probe (not library code): one core's 8-bit rgb_to_grayscale rows (3-byte pixels to
// 0.299 R + 0.587 G + 0.114 B in float, + 0.5, truncated to a byte), three forms, on a
// 4000x3000 image (48 MB: the suite's case) and on a 1024x256 one (1 MB, in L2: the arithmetic):
//   two_source   the earlier pixels3_to_float: three 64-byte loads, two vpermt2b a channel
//                (bytes sorted by channel), four 16-byte parts widened to 32-bit lanes
//   vpermb       the library's form: four overlapping 64-byte loads (one a quarter of 16
//                pixels), one single-register vpermb a channel and quarter, straight into the
//                32-bit lanes (the other bytes zeroed by the mask)
//   vpermb_pack  vpermb, and the four results narrowed by shifts, ors and one vpermb into one
//                64-byte store (instead of four vpmovdb)
// Each row prefetches 4 KiB ahead as the library does. The outputs are compared with the first
// form's byte for byte. Build: g++ -O3 -march=native -ffp-contract=off cpu-grayscale-probe.cpp
// Run: taskset -c 3 ./a.out    (memcpy of 400 MB to 400 MB: the Serial copy case's yardstick)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

typedef float V __attribute__((vector_size(64)));
using Row = void (*)(const std::uint8_t*, std::uint8_t*, long);

struct Idx {
  alignas(64) std::uint8_t first[3][64], second[3][64], lanes[3][4][64], pack[64];
  constexpr Idx() : first{}, second{}, lanes{}, pack{} {
    for (int c = 0; c < 3; ++c)
      for (int j = 0; j < 64; ++j) {
        const int at = 3 * j + c;
        first[c][j] = std::uint8_t(at < 128 ? at : 0);
        second[c][j] = std::uint8_t(at < 128 ? j : 64 + at - 128);
      }
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 4; ++q)
        for (int l = 0; l < 16; ++l)
          lanes[c][q][4 * l] = std::uint8_t(3 * l + c + (q == 3 ? 16 : 0));
    for (int j = 0; j < 64; ++j) pack[j] = std::uint8_t(4 * (j % 16) + j / 16);
  }
};
static constexpr Idx idx{};

static inline void ask(const std::uint8_t* p) {
  for (int k = 0; k < 3; ++k) _mm_prefetch((const char*)p + 4096 + 64 * k, _MM_HINT_T0);
}
static inline V weigh(V r, V g, V b) { return 0.299f * r + 0.587f * g + 0.114f * b + 0.5f; }
static inline void store16(std::uint8_t* d, V v) {
  _mm_storeu_si128((__m128i*)d, _mm512_maskz_cvtepi32_epi8(
                                    0xFFFF, _mm512_maskz_cvttps_epi32(0xFFFF, (__m512)v)));
}
static inline V lanes(const __m512i a, int c, int q) {
  return (V)_mm512_maskz_cvtepi32_ps(
      0xFFFF,
      _mm512_maskz_permutexvar_epi8(0x1111111111111111ull, _mm512_load_si512(idx.lanes[c][q]), a));
}

__attribute__((noinline)) void two_source(const std::uint8_t* src, std::uint8_t* dst, long w) {
  for (long j = 0; j + 64 <= w; j += 64) {
    const std::uint8_t* p = src + 3 * j;
    ask(p);
    const __m512i a0 = _mm512_loadu_si512(p), a1 = _mm512_loadu_si512(p + 64),
                  a2 = _mm512_loadu_si512(p + 128);
    V c[3][4];
    for (int ch = 0; ch < 3; ++ch) {
      const __m512i lo = _mm512_permutex2var_epi8(a0, _mm512_load_si512(idx.first[ch]), a1);
      const __m512i by = _mm512_permutex2var_epi8(lo, _mm512_load_si512(idx.second[ch]), a2);
      const __m128i part[4] = {_mm512_maskz_extracti32x4_epi32(0xFF, by, 0),
                               _mm512_maskz_extracti32x4_epi32(0xFF, by, 1),
                               _mm512_maskz_extracti32x4_epi32(0xFF, by, 2),
                               _mm512_maskz_extracti32x4_epi32(0xFF, by, 3)};
      for (int q = 0; q < 4; ++q)
        c[ch][q] = (V)_mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_maskz_cvtepu8_epi32(0xFFFF, part[q]));
    }
    for (int q = 0; q < 4; ++q) store16(dst + j + 16 * q, weigh(c[0][q], c[1][q], c[2][q]));
  }
}

__attribute__((noinline)) void vpermb(const std::uint8_t* src, std::uint8_t* dst, long w) {
  for (long j = 0; j + 64 <= w; j += 64) {
    const std::uint8_t* p = src + 3 * j;
    ask(p);
    for (int q = 0; q < 4; ++q) {
      const __m512i a = _mm512_loadu_si512(p + (q == 3 ? 128 : 48 * q));
      store16(dst + j + 16 * q, weigh(lanes(a, 0, q), lanes(a, 1, q), lanes(a, 2, q)));
    }
  }
}

__attribute__((noinline)) void vpermb_pack(const std::uint8_t* src, std::uint8_t* dst, long w) {
  for (long j = 0; j + 64 <= w; j += 64) {
    const std::uint8_t* p = src + 3 * j;
    ask(p);
    __m512i d[4];
    for (int q = 0; q < 4; ++q) {
      const __m512i a = _mm512_loadu_si512(p + (q == 3 ? 128 : 48 * q));
      d[q] = _mm512_maskz_cvttps_epi32(
          0xFFFF, (__m512)weigh(lanes(a, 0, q), lanes(a, 1, q), lanes(a, 2, q)));
    }
    __m512i x = _mm512_ternarylogic_epi32(d[0], _mm512_maskz_slli_epi32(0xFFFF, d[1], 8),
                                          _mm512_maskz_slli_epi32(0xFFFF, d[2], 16), 0xFE);
    x = _mm512_or_si512(x, _mm512_maskz_slli_epi32(0xFFFF, d[3], 24));
    _mm512_storeu_si512(dst + j,
                        _mm512_maskz_permutexvar_epi8(~0ull, _mm512_load_si512(idx.pack), x));
  }
}

template <class F>
static double seconds(F&& f, int reps) {
  double best = 1e9;
  for (int it = 0; it < reps; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main() {
  const Row rows[] = {two_source, vpermb, vpermb_pack};
  const char* names[] = {"two_source", "vpermb", "vpermb_pack"};
  std::vector<char> s(400000000), d(400000000);
  std::memset(s.data(), 1, s.size());
  std::memset(d.data(), 2, d.size());
  const double copy = seconds([&] { std::memcpy(d.data(), s.data(), s.size()); }, 5);
  std::printf("memcpy 400 MB: %.2f ms, %.2f GB/s (read + write)\n", copy * 1e3, 8e8 / copy / 1e9);
  for (const long W : {4000L, 1024L}) {
    const long H = W == 4000 ? 3000 : 256, w = W / 64 * 64;
    std::vector<std::uint8_t> rgb(3 * W * H + 256), ref(W * H), out(W * H);
    std::mt19937 rng(1);
    for (auto& x : rgb) x = std::uint8_t(rng());
    for (int round = 0; round < 3; ++round)
      for (int f = 0; f < 3; ++f) {
        std::memset(out.data(), 7, out.size());
        const double t = seconds(
            [&] {
              for (long i = 0; i < H; ++i) rows[f](&rgb[3 * i * W], &(f ? out : ref)[i * W], w);
            },
            W == 4000 ? 20 : 200);
        bool same = true;
        for (long i = 0; f && i < H; ++i) same = same && !std::memcmp(&ref[i * W], &out[i * W], w);
        std::printf("%ldx%ld round %d %-12s %8.3f ms %6.3f ns/px %6.2f GB/s (4 B/px)%s\n", W, H,
                    round, names[f], t * 1e3, t / double(w * H) * 1e9, 4.0 * w * H / t / 1e9,
                    same ? "" : "  DIFFERS");
      }
  }
}
