#pragma once
/// \file unison/convolve.hpp
/// 1-D convolution with NumPy's `np.convolve` semantics (docs/workloads.md section 3): a direct
/// kernel and a tiled one that stages its inputs in team scratch memory.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/memory.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/convolve_types.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/detail/convolve/dispatch.hpp>

namespace unison {

/// \addtogroup convolve
/// \{

/// y = np.convolve(x, k, mode), enqueued on `exec`: the call returns without waiting.
///
/// \param exec       the execution space instance the kernel runs on.
/// \param x          the signal: a rank-1 View of float or double, any layout, accessible from
///                   exec.
/// \param k          the taps: a rank-1 View of x's value type, any layout, accessible from exec,
///                   no longer than x.
/// \param y          the result: a rank-1 View of x's value type, any layout, accessible from
///                   exec, of extent convolve_extent(len(x), len(k), mode), overlapping neither x
///                   nor k. It is only written, never read.
/// \param mode       full, same or valid, as np.convolve's.
/// \param algorithm  the kernel: `automatic` (by the backend and the number of taps), `direct`
///                   or `tiled`; all give bitwise the same result.
/// \throws unison::invalid_argument if x or k is empty, k is longer than x (NumPy would swap the
///         two; swap them yourself: the convolution is symmetric except in its `same` length),
///         y has the wrong extent, y overlaps an input, or mode or algorithm is unknown;
///         nothing is written then.
///
/// Kernels: "unison::convolve::direct", "unison::convolve::tiled"; Kokkos Tools region
/// "unison::convolve". Temporary memory: none.
template <class Exec, class X, class K, class Y>
void convolve(const Exec& exec, const X& x, const K& k, const Y& y, ConvolveMode mode,
              ConvolveAlgorithm algorithm = ConvolveAlgorithm::automatic) {
  const detail::Region region("unison::convolve");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::convolve: the first argument must be a Kokkos execution space");
  static_assert(detail::convolve::is_float_vector_v<X> && detail::convolve::is_float_vector_v<K> &&
                    detail::convolve::is_float_vector_v<Y>,
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
  constexpr const char* fn = "unison::convolve";
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

  detail::convolve::convolve_launch(fn, exec, x, k, y, mode, algorithm);
}

/// convolve on y's default execution space instance.
///
/// \param x, k, y, mode, algorithm  as convolve(exec, x, k, y, mode, algorithm).
/// \throws unison::invalid_argument as that form.
template <class X, class K, class Y>
void convolve(const X& x, const K& k, const Y& y, ConvolveMode mode,
              ConvolveAlgorithm algorithm = ConvolveAlgorithm::automatic) {
  convolve(typename Y::execution_space(), x, k, y, mode, algorithm);
}

/// \}

}  // namespace unison
