#pragma once
/// \file unison/backends/host/grayscale.hpp
/// The grayscale example's vector code on CPUs: pixels of three channels (bytes or floats)
/// sorted into one pack of floats per channel by the CPU's permutes.

#include <cstdint>

#include <unison/backends/host/pack.hpp>

namespace unison::backends {

#if UNISON_BACKENDS_HOST_VECTORS && defined(__AVX512VBMI__) && defined(__AVX512BW__)
/// Whether the 8-bit forms of pixels3_to_float exist: AVX-512 with VBMI (its byte permutes),
/// where a pack holds 16 floats. (GCC 12 vectorises a loop over 3-byte pixels by moving the bytes
/// one at a time.)
inline constexpr bool pixels3_bytes = true;
namespace detail {
// The byte permutes that put channel c of pixels 16 q + l (l < 16) into byte 0 of 32-bit lane l,
// from the 64 bytes loaded at the quarter's start (48 q; the last quarter's load starts 16 bytes
// early, at 128, to stay within the 192 bytes). Only bytes 0 of each lane are permuted (the others
// are zeroed by the mask), so each result is already the 16 channel values as 32-bit integers.
struct Pixels3Index {
  alignas(64) std::uint8_t lanes[3][4][64];
  constexpr Pixels3Index() : lanes{} {
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 4; ++q)
        for (int l = 0; l < 16; ++l)
          lanes[c][q][4 * l] = std::uint8_t(3 * l + c + (q == 3 ? 16 : 0));
  }
};
inline constexpr Pixels3Index pixels3_index{};

// The three channels of quarter q (pixels 16 q to 16 q + 15) from its 64 loaded bytes a, as
// floats in out[c][q].
inline void pixels3_quarter(const __m512i a, int q, Pack<float> (&out)[3][4]) {
  constexpr __mmask64 low_bytes = 0x1111111111111111ull;  // byte 0 of every 32-bit lane
  for (int c = 0; c < 3; ++c)
    // (The zero-masked conversion, every lane kept: GCC 12 warns that the plain form's
    // undefined pass-through operand may be used uninitialised.)
    out[c][q] = (Pack<float>)_mm512_maskz_cvtepi32_ps(
        0xFFFF,
        _mm512_maskz_permutexvar_epi8(low_bytes, _mm512_load_si512(pixels3_index.lanes[c][q]), a));
}
}  // namespace detail

/// The 64 pixels of 3 bytes at p (192 bytes, any alignment: c0 c1 c2 c0 c1 c2 ...), as floats:
/// channel c of pixel 16 q + l in lane l of out[c][q]. Four overlapping loads, then one
/// single-register byte permute per pack (vpermb); an earlier form, two two-register vpermt2b a
/// channel and the widening of 16-byte parts, measured slower (docs/tuning.md).
inline void pixels3_to_float(const std::uint8_t* p, Pack<float> (&out)[3][4]) {
  for (int q = 0; q < 4; ++q)
    detail::pixels3_quarter(_mm512_loadu_si512(p + (q == 3 ? 128 : 48 * q)), q, out);
}

/// pixels3_to_float for the first n pixels at p, 0 < n < 64 (a row's last pixels): masked loads
/// read the 3 n bytes and nothing past them; the lanes of pixels n and later hold zeros or the
/// channels of pixels before n, and are not to be used.
inline void pixels3_to_float(const std::uint8_t* p, int n, Pack<float> (&out)[3][4]) {
  for (int q = 0; q < 4; ++q) {
    const int start = q == 3 ? 128 : 48 * q, bytes = 3 * n - start;
    detail::pixels3_quarter(
        bytes <= 0 ? _mm512_setzero_si512()
                   : _mm512_maskz_loadu_epi8(
                         bytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << bytes) - 1, p + start),
        q, out);
  }
}

/// Stores the first n (at most 16) values of v, in [0, 256), truncated to bytes, at p (any
/// alignment).
inline void store_bytes_truncated(std::uint8_t* p, const Pack<float>& v, int n = 16) {
  const __m512i i = _mm512_maskz_cvttps_epi32(0xFFFF, (__m512)v);
  if (n == 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_maskz_cvtepi32_epi8(0xFFFF, i));
  else _mm512_mask_cvtepi32_storeu_epi8(p, __mmask16((1u << n) - 1), i);
}
#else
inline constexpr bool pixels3_bytes = false;
// (declared only, for the kernel's code to parse: called where pixels3_bytes)
void pixels3_to_float(const std::uint8_t* p, Pack<float> (&out)[3][4]);
void pixels3_to_float(const std::uint8_t* p, int n, Pack<float> (&out)[3][4]);
void store_bytes_truncated(std::uint8_t* p, const Pack<float>& v, int n = 16);
#endif

#if UNISON_BACKENDS_HOST_VECTORS && defined(__AVX512F__)
/// Whether the float form of pixels3_to_float exists: AVX-512, where a pack holds 16 floats.
inline constexpr bool pixels3_floats = true;
namespace detail {
// The two-register permutes that gather channel c of 16 pixels of 3 floats (floats 3 l + c,
// l < 16) from three 16-float registers a0, a1, a2: first those below 32 from a0 and a1, then
// the rest from a2 into the lanes still unset.
struct Pixels3FloatIndex {
  alignas(64) std::int32_t first[3][16], second[3][16];
  constexpr Pixels3FloatIndex() : first{}, second{} {
    for (int c = 0; c < 3; ++c)
      for (int l = 0; l < 16; ++l) {
        const int at = 3 * l + c;
        first[c][l] = at < 32 ? at : 0;
        second[c][l] = at < 32 ? l : 16 + at - 32;
      }
  }
};
inline constexpr Pixels3FloatIndex pixels3_float_index{};
}  // namespace detail

/// The 16 pixels of 3 floats at p (48 floats, any alignment: c0 c1 c2 c0 c1 c2 ...): channel c
/// of pixel l in lane l of out[c]. Three loads and two permutes (vpermt2ps) a channel; GCC 12's
/// vectorisation of the same loop measured slower (docs/tuning.md).
inline void pixels3_to_float(const float* p, Pack<float> (&out)[3]) {
  const __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16), a2 = _mm512_loadu_ps(p + 32);
  for (int c = 0; c < 3; ++c)
    out[c] = (Pack<float>)_mm512_permutex2var_ps(
        _mm512_permutex2var_ps(a0, _mm512_load_si512(detail::pixels3_float_index.first[c]), a1),
        _mm512_load_si512(detail::pixels3_float_index.second[c]), a2);
}
#else
inline constexpr bool pixels3_floats = false;
// (declared only, for the kernel's code to parse: called where pixels3_floats)
void pixels3_to_float(const float* p, Pack<float> (&out)[3]);
#endif

}  // namespace unison::backends
