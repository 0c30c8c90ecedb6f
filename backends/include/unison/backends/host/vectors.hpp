#pragma once
/// \file unison/backends/host/vectors.hpp
/// The CPU packs' types and traits, the same on every instruction set: a pack is a host vector
/// (unison/backends/host/memory.hpp, GCC and Clang vector extensions) of host_stream_bytes, 16
/// floats or 8 doubles with AVX-512, 8 or 4 with AVX, 4 or 2 with SSE2 and with 64-bit ARM's NEON.
/// The types exist in every compilation (also a GPU build's device pass, where they are 16 bytes),
/// so that the CPU kernels' code is parsed everywhere; has_pack_v says whether a kernel may use
/// them (never in a device pass, where the functions on them refuse to be instantiated:
/// unison/backends/host/memory.hpp). The operations on packs are in unison/backends/host/pack.hpp.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <unison/backends/memory.hpp>

namespace unison::backends {

/// Whether V is a pack (a host vector of float or double).
template <class V>
inline constexpr bool is_pack_v = false;

/// The element type of V: T for a pack of T, V itself for a scalar.
template <class V, class = void>
struct scalar_of {
  using type = V;
};
template <class V>
using scalar_of_t = typename scalar_of<V>::type;

/// Lanes of V: host_stream_bytes / sizeof(T) for a pack of T, 1 for a scalar.
template <class V>
inline constexpr int lanes_v = int(sizeof(V) / sizeof(scalar_of_t<V>));

/// The pack of T (float or double).
template <class T>
using Pack = typename HostVector<T>::type;
template <>
inline constexpr bool is_pack_v<Pack<float>> = true;
template <>
inline constexpr bool is_pack_v<Pack<double>> = true;
template <class V>
struct scalar_of<V, std::enable_if_t<is_pack_v<V>>> {
  using type = std::remove_reference_t<decltype(std::declval<V>()[0])>;
};
/// Whether a CPU kernel may use the packs of T on this host: T is float or double and the
/// compilation has host vectors (UNISON_BACKENDS_HOST_VECTORS).
template <class T>
inline constexpr bool has_pack_v = UNISON_BACKENDS_HOST_VECTORS &&
                                   (std::is_same_v<T, float> || std::is_same_v<T, double>);
/// Lanes of the pack of T where has_pack_v<T>, else 1.
template <class T>
constexpr int pack_lanes() {
  if constexpr (has_pack_v<T>) return lanes_v<Pack<T>>;
  else return 1;
}
template <class T>
inline constexpr int pack_lanes_v = pack_lanes<T>();

namespace detail {
// The signed integer pack of V's width and lane count (the type of V's comparisons).
template <class V>
using mask_t = decltype(std::declval<V>() < std::declval<V>());

template <int Bytes>
struct Int32Vector {
  typedef std::int32_t type __attribute__((vector_size(Bytes)));
};
// A vector of N values of T (float or double).
template <class T, int N>
struct VectorOf {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
template <class E, int Bytes>
struct GenericVector {
  typedef E type __attribute__((vector_size(Bytes)));
};
template <class W>
using Half = typename GenericVector<
    std::remove_cv_t<std::remove_reference_t<decltype(std::declval<W>()[0])>>,
    int(sizeof(W) / 2)>::type;
template <class H>
using Twice = typename GenericVector<
    std::remove_cv_t<std::remove_reference_t<decltype(std::declval<H>()[0])>>,
    int(sizeof(H) * 2)>::type;
}  // namespace detail

/// The 32-bit integer pack with V's lanes (V's lane indices, bin numbers).
template <class V>
using IndexPack = typename detail::Int32Vector<lanes_v<V> * 4>::type;

/// A vector of N values of T (float or double): a Pack<double>'s worth of floats, say. (An alias
/// template: nvcc's host code loses the `typename` of a dependent VectorOf<T, N>::type written
/// inside a class template, which g++ 12 then refuses.)
template <class T, int N>
using VectorN = typename detail::VectorOf<T, N>::type;

/// The host vector To of the values of the host vector v (the same number of lanes), each
/// converted as C++ converts a scalar (for a comparison's result, true lanes become -1).
template <class To, class From>
inline To convert(const From& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(From);
  return __builtin_convertvector(v, To);
}

/// The vector V of the values from p (any alignment).
template <class V, class T>
inline V load(const T* p) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// The first n values from p in V's first n lanes, the other lanes 0.
template <class V, class T>
inline V load_partial(const T* p, int n) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  V v = {};
  __builtin_memcpy(&v, p, std::size_t(n) * sizeof(T));
  return v;
}
/// Stores v at p (any alignment).
template <class V, class T>
inline void store(T* p, const V& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  __builtin_memcpy(p, &v, sizeof v);
}
/// Stores v's first n lanes at p.
template <class V, class T>
inline void store_partial(T* p, const V& v, int n) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  __builtin_memcpy(p, &v, std::size_t(n) * sizeof(T));
}

}  // namespace unison::backends
