#pragma once
// unison/detail/convolve/checks.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The checks of convolve's arguments, the same for every backend: what the public function calls
// before anything is decided (schedule.hpp) or run (launch.hpp).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/convolve_types.hpp>
#include <unison/detail/checks.hpp>

namespace unison::detail::convolve {

template <class V>
inline constexpr bool is_float_vector_v =
    Kokkos::is_view_v<V>&& V::rank() == 1 &&
    std::is_floating_point_v<typename V::non_const_value_type>;

// The compile-time checks of the execution space and of x, k and y.
template <class Exec, class X, class K, class Y>
constexpr void check_types() {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::convolve: the first argument must be a Kokkos execution space");
  static_assert(is_float_vector_v<X> && is_float_vector_v<K> && is_float_vector_v<Y>,
                "unison::convolve: x, k and y must be rank-1 Views of float or double");
  using T = typename Y::non_const_value_type;
  static_assert(std::is_same_v<typename X::non_const_value_type, T> &&
                    std::is_same_v<typename K::non_const_value_type, T>,
                "unison::convolve: x, k and y must have the same value type");
  static_assert(!std::is_const_v<typename Y::value_type>,
                "unison::convolve: y must have a non-const value type");
  static_assert(detail::accessible_v<Exec, X> && detail::accessible_v<Exec, K> &&
                    detail::accessible_v<Exec, Y>,
                "unison::convolve: x, k and y must be accessible from the execution space");
}

// The run-time checks: the mode, the extents, the algorithm and that y overlaps neither input.
// Throws unison::invalid_argument naming fn.
template <class X, class K, class Y>
void check_arguments(const char* fn, const X& x, const K& k, const Y& y, ConvolveMode mode,
                     ConvolveAlgorithm algorithm) {
  detail::require(
      mode == ConvolveMode::full || mode == ConvolveMode::same || mode == ConvolveMode::valid, fn,
      "unknown mode ", int(mode));
  const std::int64_t n = x.extent(0), m = k.extent(0);
  detail::require(n > 0, fn, "x is empty");
  detail::require(m > 0, fn, "k is empty");
  detail::require(m <= n, fn, "k (", m, ") is longer than x (", n, ")");
  const std::int64_t len = convolve_extent(n, m, mode);
  detail::require(std::int64_t(y.extent(0)) == len, fn, "y is ", y.extent(0), ", expected ", len,
                  " (",
                  mode == ConvolveMode::full   ? "full"
                  : mode == ConvolveMode::same ? "same"
                                               : "valid",
                  " mode, x of ", n, ", k of ", m, ")");
  detail::require(algorithm == ConvolveAlgorithm::automatic ||
                      algorithm == ConvolveAlgorithm::direct ||
                      algorithm == ConvolveAlgorithm::tiled,
                  fn, "unknown algorithm ", int(algorithm));
  detail::check_disjoint(fn, "y", y, "x", x);
  detail::check_disjoint(fn, "y", y, "k", k);
}

}  // namespace unison::detail::convolve
