// Probe (not library code): how close one core can come to memcpy's rate with the grayscale's
// traffic, whatever its arithmetic. The suite's Serial grayscale cases read 3 values a pixel and
// write 1, over a 4000x3000 image (float32: 144 MB read, 48 MB written; 8-bit: 36 MB and 12
// MB), and are compared with the Serial copy of 1e8 float32 (glibc's memcpy of 400 MB). Forms:
//   f32 gcc_loop    the float32 row loop that GCC 12 vectorises (its interleaved channels), the
//                   library's form until the permutes below, data asked for 4 KiB ahead,
//                   ordinary stores
//   f32 perm_store  the grayscale by 512-bit permutes (two vpermt2ps a channel gather 16 pixels'
//                   channel from three 64-byte loads), ordinary stores: gcc_loop's bits
//   f32 perm_stream the same, non-temporal stores (the library's form since)
//   f32 sum_store   the least work with the same traffic: 16 pixels = three 64-byte loads summed
//                   into one 64-byte store (not the grayscale: the traffic's ceiling), ordinary
//                   stores (each output line is read before it is written)
//   f32 sum_stream  the same, non-temporal stores (no read of the output's lines)
//   f32 read_only   the 144 MB read and summed, nothing written
//   u8  sum_store   64 pixels = three 64-byte loads xor-ed into one 64-byte store
//   u8  sum_stream  the same, non-temporal stores
//   u8  vpermb      the library's 8-bit form (one vpermb a channel and quarter of 16 pixels,
//                   the results narrowed into 16-byte stores), ordinary stores
//   u8  vpermb_stream  the same, the four quarters' bytes gathered into one 64-byte
//                   non-temporal store
// Each form runs 7 calls back to back (as the suite repeats a case) and the median is kept; a
// round times memcpy, then every form; rounds repeat. Fraction = the form's counted bytes (read
// + written, as the suite counts) a second over memcpy's in the same round.
// Build: g++ -O3 -march=native -ffp-contract=off tools/probes/cpu-grayscale-ceiling-probe.cpp
// Run:   taskset -c 3 ./a.out [rounds]
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr long W = 4000, H = 3000, N = W * H;

static inline void ask(const void* p) {
  for (int k = 0; k < 3; ++k) _mm_prefetch((const char*)p + 4096 + 64 * k, _MM_HINT_T0);
}

__attribute__((noinline)) void f32_gcc_loop(const float* src, float* dst) {
  for (long i = 0; i < H; ++i) {
    const float* s = src + 3 * i * W;
    float* d = dst + i * W;
    for (long j = 0; j < W; j += 64) {
      ask(s + 3 * j);
      const long e = j + 64 < W ? j + 64 : W;
#pragma GCC ivdep
      for (long q = j; q < e; ++q)
        d[q] = 0.299f * s[3 * q] + 0.587f * s[3 * q + 1] + 0.114f * s[3 * q + 2];
    }
  }
}

struct Idx {
  alignas(64) std::int32_t first[3][16], second[3][16];
  constexpr Idx() : first{}, second{} {
    for (int c = 0; c < 3; ++c)
      for (int l = 0; l < 16; ++l) {
        const int at = 3 * l + c;
        first[c][l] = at < 32 ? at : 0;
        second[c][l] = at < 32 ? l : 16 + at - 32;
      }
  }
};
static constexpr Idx idx{};

template <bool Stream>
__attribute__((noinline)) void f32_perm(const float* src, float* dst) {
  const __m512 r = _mm512_set1_ps(0.299f), g = _mm512_set1_ps(0.587f), b = _mm512_set1_ps(0.114f);
  for (long p = 0; p < N; p += 16) {
    if (p % 64 == 0) ask(src + 3 * p);
    const __m512 a0 = _mm512_loadu_ps(src + 3 * p), a1 = _mm512_loadu_ps(src + 3 * p + 16),
                 a2 = _mm512_loadu_ps(src + 3 * p + 32);
    __m512 c[3];
    for (int k = 0; k < 3; ++k)
      c[k] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a0, _mm512_load_si512(idx.first[k]), a1),
                                    _mm512_load_si512(idx.second[k]), a2);
    const __m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(r, c[0]), _mm512_mul_ps(g, c[1])),
                                   _mm512_mul_ps(b, c[2]));
    if (Stream) _mm512_stream_ps(dst + p, v);
    else _mm512_store_ps(dst + p, v);
  }
  if (Stream) _mm_sfence();
}

template <bool Stream>
__attribute__((noinline)) void f32_sum(const float* src, float* dst) {
  for (long p = 0; p < N; p += 16) {  // N is a multiple of 16
    if (p % 64 == 0) ask(src + 3 * p);
    const __m512 v = _mm512_add_ps(
        _mm512_add_ps(_mm512_loadu_ps(src + 3 * p), _mm512_loadu_ps(src + 3 * p + 16)),
        _mm512_loadu_ps(src + 3 * p + 32));
    if (Stream) _mm512_stream_ps(dst + p, v);
    else _mm512_store_ps(dst + p, v);
  }
  if (Stream) _mm_sfence();
}

__attribute__((noinline)) float f32_read(const float* src) {
  __m512 a = _mm512_setzero_ps(), b = a, c = a;
  for (long p = 0; p < N; p += 16) {
    if (p % 64 == 0) ask(src + 3 * p);
    a = _mm512_add_ps(a, _mm512_loadu_ps(src + 3 * p));
    b = _mm512_add_ps(b, _mm512_loadu_ps(src + 3 * p + 16));
    c = _mm512_add_ps(c, _mm512_loadu_ps(src + 3 * p + 32));
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(a, _mm512_add_ps(b, c)));
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

template <bool Stream>
__attribute__((noinline)) void u8_sum(const std::uint8_t* src, std::uint8_t* dst) {
  for (long p = 0; p < N; p += 64) {  // N is a multiple of 64
    ask(src + 3 * p);
    const __m512i v = _mm512_ternarylogic_epi32(_mm512_loadu_si512(src + 3 * p),
                                                _mm512_loadu_si512(src + 3 * p + 64),
                                                _mm512_loadu_si512(src + 3 * p + 128), 0x96);
    if (Stream) _mm512_stream_si512((__m512i*)(dst + p), v);
    else _mm512_store_si512(dst + p, v);
  }
  if (Stream) _mm_sfence();
}

struct ByteIdx {
  alignas(64) std::uint8_t lanes[3][4][64], pack[64];
  constexpr ByteIdx() : lanes{}, pack{} {
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 4; ++q)
        for (int l = 0; l < 16; ++l)
          lanes[c][q][4 * l] = std::uint8_t(3 * l + c + (q == 3 ? 16 : 0));
    for (int j = 0; j < 64; ++j) pack[j] = std::uint8_t(4 * (j % 16) + j / 16);
  }
};
static constexpr ByteIdx bidx{};

static inline __m512 channel(const __m512i a, int c, int q) {
  return _mm512_maskz_cvtepi32_ps(
      0xFFFF,
      _mm512_maskz_permutexvar_epi8(0x1111111111111111ull, _mm512_load_si512(bidx.lanes[c][q]), a));
}

template <bool Stream>
__attribute__((noinline)) void u8_vpermb(const std::uint8_t* src, std::uint8_t* dst) {
  const __m512 r = _mm512_set1_ps(0.299f), g = _mm512_set1_ps(0.587f), b = _mm512_set1_ps(0.114f),
               h = _mm512_set1_ps(0.5f);
  for (long p = 0; p < N; p += 64) {
    ask(src + 3 * p);
    __m512i d[4];
    for (int q = 0; q < 4; ++q) {
      const __m512i a = _mm512_loadu_si512(src + 3 * p + (q == 3 ? 128 : 48 * q));
      const __m512 v = _mm512_add_ps(
          _mm512_add_ps(
              _mm512_add_ps(_mm512_mul_ps(r, channel(a, 0, q)), _mm512_mul_ps(g, channel(a, 1, q))),
              _mm512_mul_ps(b, channel(a, 2, q))),
          h);
      d[q] = _mm512_maskz_cvttps_epi32(0xFFFF, v);
      if (!Stream)
        _mm_storeu_si128((__m128i*)(dst + p + 16 * q), _mm512_maskz_cvtepi32_epi8(0xFFFF, d[q]));
    }
    if (Stream) {
      __m512i x = _mm512_ternarylogic_epi32(d[0], _mm512_maskz_slli_epi32(0xFFFF, d[1], 8),
                                            _mm512_maskz_slli_epi32(0xFFFF, d[2], 16), 0xFE);
      x = _mm512_or_si512(x, _mm512_maskz_slli_epi32(0xFFFF, d[3], 24));
      _mm512_stream_si512((__m512i*)(dst + p),
                          _mm512_maskz_permutexvar_epi8(~0ull, _mm512_load_si512(bidx.pack), x));
    }
  }
  if (Stream) _mm_sfence();
}

template <class F>
static double median_seconds(F&& f, int calls = 7) {
  std::vector<double> t;
  for (int it = 0; it < calls; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
static T* buffer(std::size_t n, int fill) {
  T* p = static_cast<T*>(std::aligned_alloc(64, n * sizeof(T)));
  std::memset(p, fill, n * sizeof(T));
  return p;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  char *cs = buffer<char>(400000000, 1), *cd = buffer<char>(400000000, 2);
  float *fs = buffer<float>(3 * N, 0), *fd = buffer<float>(N, 0), *fe = buffer<float>(N, 0);
  for (long i = 0; i < 3 * N; ++i) fs[i] = float(i % 255) * 0.37f;
  std::uint8_t *us = buffer<std::uint8_t>(3 * N, 3), *ud = buffer<std::uint8_t>(N, 0),
               *ue = buffer<std::uint8_t>(N, 0);
  for (long i = 0; i < 3 * N; ++i) us[i] = std::uint8_t(i * 7 % 251);
  volatile float sink = 0;
  struct Form {
    const char* name;
    double bytes;
  };
  const Form forms[] = {{"f32 gcc_loop", 16.0 * N},    {"f32 perm_store", 16.0 * N},
                        {"f32 perm_stream", 16.0 * N}, {"f32 sum_store", 16.0 * N},
                        {"f32 sum_stream", 16.0 * N},  {"f32 read_only", 12.0 * N},
                        {"u8  sum_store", 4.0 * N},    {"u8  sum_stream", 4.0 * N},
                        {"u8  vpermb", 4.0 * N},       {"u8  vpermb_stream", 4.0 * N}};
  for (int r = 0; r < rounds; ++r) {
    const double copy = median_seconds([&] { std::memcpy(cd, cs, 400000000); });
    const double copy_rate = 8e8 / copy;
    std::printf("round %d memcpy 400 MB %7.2f ms %6.2f GB/s\n", r, copy * 1e3, copy_rate / 1e9);
    for (int f = 0; f < 10; ++f) {
      double t = 0;
      switch (f) {
        case 0:
          t = median_seconds([&] { f32_gcc_loop(fs, fd); });
          break;
        case 1:
        case 2:
          t = median_seconds([&] { f == 1 ? f32_perm<false>(fs, fe) : f32_perm<true>(fs, fe); });
          if (std::memcmp(fd, fe, N * sizeof(float))) std::printf("perm DIFFERS from gcc_loop\n");
          break;
        case 3:
          t = median_seconds([&] { f32_sum<false>(fs, fd); });
          break;
        case 4:
          t = median_seconds([&] { f32_sum<true>(fs, fd); });
          break;
        case 5:
          t = median_seconds([&] { sink = sink + f32_read(fs); });
          break;
        case 6:
          t = median_seconds([&] { u8_sum<false>(us, ud); });
          break;
        case 7:
          t = median_seconds([&] { u8_sum<true>(us, ud); });
          break;
        case 8:
          t = median_seconds([&] { u8_vpermb<false>(us, ud); });
          break;
        default:
          t = median_seconds([&] { u8_vpermb<true>(us, ue); });
          if (std::memcmp(ud, ue, N)) std::printf("vpermb_stream DIFFERS from vpermb\n");
          break;
      }
      const double rate = forms[f].bytes / t;
      std::printf("round %d %-15s %7.2f ms %6.2f GB/s  %.2f of memcpy\n", r, forms[f].name, t * 1e3,
                  rate / 1e9, rate / copy_rate);
    }
  }
  return sink == 12345.f;
}
