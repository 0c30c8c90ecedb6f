#pragma once
/// \file unison/backends/host/histogram.hpp
/// The histogram's vector code on CPUs: its counters incremented 16 at a time.

#include <cstdint>

#include <unison/backends/host/pack.hpp>

namespace unison::backends {

/// Whether increment16 counts with AVX-512's gather and scatter: AVX-512 targets other than
/// AMD's (Zen 3/4/5 tunings), whose scatter is microcoded and slower than increments one by one
/// (docs/tuning.md, HistogramTuning).
#if UNISON_BACKENDS_HOST_VECTORS && defined(__AVX512F__) && \
    !(defined(__znver3__) || defined(__znver4__) || defined(__znver5__))
inline constexpr bool scatter_counts = true;
#else
inline constexpr bool scatter_counts = false;
#endif

/// ++counters[offsets[l]] for the 16 offsets at `offsets`, which name 16 different counters:
/// where scatter_counts, one gather, one add and one scatter; else one by one.
inline void increment16(std::uint32_t* counters, const std::int32_t* offsets) {
#if UNISON_BACKENDS_HOST_VECTORS && defined(__AVX512F__) && \
    !(defined(__znver3__) || defined(__znver4__) || defined(__znver5__))
  const __m512i o = _mm512_loadu_si512(offsets);
  const __m512i c =
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), __mmask16(-1), o, counters, 4);
  _mm512_i32scatter_epi32(counters, o, _mm512_add_epi32(c, _mm512_set1_epi32(1)), 4);
#else
  for (int l = 0; l < 16; ++l) ++counters[offsets[l]];
#endif
}

}  // namespace unison::backends
