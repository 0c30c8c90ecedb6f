#pragma once
/// \file unison/backends/host/isa/none.hpp
/// The packs' operations where the compilation has no host vectors (the device pass of a CUDA
/// build; a CPU without a supported vector instruction set): the portable forms, so that the
/// CPU kernels' code is parsed. The kernels do not use packs there (has_pack_v is false).

#include <unison/backends/host/isa/portable.hpp>

namespace unison::backends::host::isa {

inline constexpr const char* vector_math = "scalar functions lane by lane";

using portable::any;
using portable::cos;
using portable::exp;
using portable::floor;
using portable::fma;
using portable::gather;
using portable::half;
using portable::join;
using portable::permute;
using portable::scatter;
using portable::sin;
using portable::splat;
using portable::sqrt;
using portable::tanh;
using portable::truncate_to_index;

/// (not known here: the callers take their plain form)
inline bool ieee_float_mode() { return false; }

template <class V>
inline V fma_lanes(const V& a, const V& b, const V& c, int first, int last) {
  return portable::blend_lanes(fma(a, b, c), c, first, last);
}

template <class V>
inline bool all_within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                       int bound) {
  return !any(portable::within(x, lo, hi, k, bound) == 0);
}

}  // namespace unison::backends::host::isa
