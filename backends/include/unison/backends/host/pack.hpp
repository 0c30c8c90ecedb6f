#pragma once
/// \file unison/backends/host/pack.hpp
/// Packs: the CPU's vector registers as values, so that one kernel source computes a value per
/// GPU thread and a register of values per CPU work item. The types and traits (Pack<T>,
/// IndexPack<V>, lanes_v, has_pack_v, load, store, convert) are in
/// unison/backends/host/vectors.hpp. Kernels write their arithmetic once for a type V that is
/// either the scalar T or a pack of T, using the operators and the functions below; every
/// function has a scalar form (device and host: Kokkos' math) and, on the host, a pack form.
///
/// The pack forms come from one file per vector instruction set, chosen here by the
/// compilation's target (the caller's flags: no flag is imposed): isa/avx512.hpp, isa/avx.hpp
/// (AVX and AVX2), isa/sse2.hpp, isa/neon.hpp (64-bit ARM), and isa/none.hpp where there are no
/// host vectors. Each defines, in unison::backends::host::isa, for V a pack of float or double:
///
/// | operation | what it gives |
/// |---|---|
/// | `splat<V>(s)` | every lane s (the broadcast instruction: `{} + s` would turn -0 into +0) |
/// | `exp`, `sin`, `cos`, `tanh` | the vector math library's functions (x86-64: glibc's libmvec at
/// the caller's instruction set; ARM: SLEEF's 1-ULP AdvSIMD functions), else the scalar function a
/// lane | | `sqrt`, `floor` (double) | the instructions | | `fma(a, b, c)` | a * b + c with one
/// rounding a lane (the FMA instructions, else std::fma a lane) | | `fma_lanes(a, b, c, first,
/// last)` | fma in lanes first to last, c in the others (a and b not used there, so that an
/// infinity or NaN of theirs does not leak) | | `half<Part>(w)`, `join(lo, hi)` | a host vector's
/// lower or upper half, and two halves joined, in registers (a float pack's half converts to a
/// double pack, say; copying bytes out of the middle of a vector went through memory, and the
/// narrower reload waited for the wide store) | | `any(m)` | whether any lane of a comparison's
/// result is set | | `all_within(x, lo, hi, k, bound)` | whether every lane has lo <= x <= hi (not
/// NaN) and 0 <= k < bound | | `truncate_to_index(v)` | each lane truncated toward zero to a 32-bit
/// integer, INT32_MIN where it is NaN or outside the 32-bit range (x86's conversion, which C++'s
/// leaves undefined) | | `permute(v, index)` | lane l is v[index[l]] (every index below the lanes)
/// | | `gather(table, index)`, `scatter(p, index, v)` | table[index[l]] in lane l; p[index[l]] =
/// v[l], no two lanes naming the same element |
///
/// What an instruction set has no better form for it takes from isa/portable.hpp (lane loops,
/// byte copies). Vector code that serves one family only (the histogram's counters, the
/// grayscale example's 3-byte pixels) is in that family's file beside this one (host/histogram.hpp,
/// host/grayscale.hpp).

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/backends/host/vectors.hpp>
#include <unison/backends/memory.hpp>
#include <unison/config.hpp>

#if UNISON_BACKENDS_HOST_VECTORS && defined(__AVX512F__)
#include <unison/backends/host/isa/avx512.hpp>
#elif UNISON_BACKENDS_HOST_VECTORS && defined(__AVX__)
#include <unison/backends/host/isa/avx.hpp>
#elif UNISON_BACKENDS_HOST_VECTORS && defined(__SSE2__)
#include <unison/backends/host/isa/sse2.hpp>
#elif UNISON_BACKENDS_HOST_VECTORS && defined(__aarch64__)
#include <unison/backends/host/isa/neon.hpp>
#else
#include <unison/backends/host/isa/none.hpp>
#endif

namespace unison::backends {

/// Where the packs' exp, sin, cos and tanh come from, in words: "glibc libmvec", "SLEEF (AdvSIMD,
/// 1-ULP functions)" or "scalar functions lane by lane".
inline constexpr const char* host_vector_math = host::isa::vector_math;

/// Every lane of V equal to s.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V splat(scalar_of_t<V> s) {
  if constexpr (is_pack_v<V>) return host::isa::splat<V>(s);
  else return s;
}

// Scalars: Kokkos' functions, callable on every backend.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T exp(T x) {
  return Kokkos::exp(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T sin(T x) {
  return Kokkos::sin(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T cos(T x) {
  return Kokkos::cos(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T tanh(T x) {
  return Kokkos::tanh(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T sqrt(T x) {
  return Kokkos::sqrt(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T abs(T x) {
  return Kokkos::abs(x);
}
/// a * b + c with one rounding.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T fma(T a, T b, T c) {
  return Kokkos::fma(a, b, c);
}
/// Whether x is +-infinity (a lane mask for packs).
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION bool isinf(T x) {
  return Kokkos::isinf(x);
}

// Packs: the instruction set's forms (the table above).
using host::isa::all_within;
using host::isa::any;
using host::isa::cos;
using host::isa::exp;
using host::isa::floor;
using host::isa::fma;
using host::isa::fma_lanes;
using host::isa::gather;
using host::isa::half;
using host::isa::join;
using host::isa::permute;
using host::isa::scatter;
using host::isa::sin;
using host::isa::sqrt;
using host::isa::tanh;
using host::isa::truncate_to_index;

/// |x| lane by lane (the sign bit cleared: also for -0 and NaN).
template <class V, class = std::enable_if_t<is_pack_v<V>>>
inline V abs(const V& x) {
  using M = detail::mask_t<V>;
  using I = std::remove_reference_t<decltype(std::declval<M>()[0])>;
  return (V)((M)x & I(~(std::uint64_t(1) << (8 * sizeof(I) - 1))));
}

/// Lanes of x that are +-infinity (all bits set), the others 0.
template <class V, class = std::enable_if_t<is_pack_v<V>>>
inline detail::mask_t<V> isinf(const V& x) {
  return abs(x) == splat<V>(std::numeric_limits<scalar_of_t<V>>::infinity());
}

/// Whether every lane of the mask m (a comparison's result) is set.
template <class M>
inline bool all(const M& m) {
  return !any(m == 0);
}

}  // namespace unison::backends
