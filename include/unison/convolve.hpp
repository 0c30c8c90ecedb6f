#pragma once
/// \file unison/convolve.hpp
/// 1-D convolution with NumPy's `np.convolve` semantics (docs/workloads.md section 3): a direct
/// kernel and a tiled one that stages its inputs in team scratch memory.

#include <Kokkos_Core.hpp>

#include <unison/convolve_types.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/convolve/checks.hpp>
#include <unison/detail/convolve/launch.hpp>
#include <unison/detail/convolve/schedule.hpp>

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
  detail::convolve::check_types<Exec, X, K, Y>();
  constexpr const char* fn = "unison::convolve";
  detail::convolve::check_arguments(fn, x, k, y, mode, algorithm);
  const auto schedule = detail::convolve::make_schedule(fn, exec, x, k, y, mode, algorithm);
  detail::convolve::launch(exec, schedule, x, k, y);
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
