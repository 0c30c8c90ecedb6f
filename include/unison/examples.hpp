#pragma once
/// \file unison/examples.hpp
/// The tutorials' small examples (docs/workloads.md section 6), done once for every backend and
/// kept apart from the library's functions, in namespace unison::examples: rgb_to_grayscale,
/// loop_sum, lucas and atomic_counter (the tutorials' race example done right).
///
/// Common contract: see unison/core.hpp. Kernels: "unison::examples::<name>".

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/detail/examples/atomic_counter.hpp>
#include <unison/detail/examples/grayscale.hpp>
#include <unison/detail/examples/loop_sum.hpp>
#include <unison/detail/examples/lucas.hpp>

namespace unison::examples {

/// \defgroup examples The tutorials' small examples
/// \{

/// gray(i, j) = 0.299 R + 0.587 G + 0.114 B for every pixel of rgb (h x w x 3, channels R, G, B
/// along the last axis), computed in float. rgb: a rank-3 View of float or std::uint8_t, any
/// layout, with 3 channels; gray: a rank-2 View of h x w, float or double (the luminance) or,
/// for std::uint8_t input, std::uint8_t (rounded to nearest). Asynchronous on `exec`;
/// deterministic.
/// \throws unison::invalid_argument when rgb's last extent is not 3, gray is not
/// h x w, or gray overlaps rgb. Kernel: "unison::examples::rgb_to_grayscale".
///
/// \param exec  the execution space instance the kernels run on.
/// \param rgb   the image: a rank-3 View (rows, cols, 3).
/// \param gray  the result: a rank-2 View (rows, cols).
///
/// Temporary memory: none.
template <class Exec, class RV, class GV>
void rgb_to_grayscale(const Exec& exec, const RV& rgb, const GV& gray) {
  const detail::Region region("unison::examples::rgb_to_grayscale");
  static_assert(
      Kokkos::is_execution_space_v<Exec>,
      "unison::examples::rgb_to_grayscale: the first argument must be a Kokkos execution space");
  using In = typename RV::non_const_value_type;
  using Out = typename GV::non_const_value_type;
  static_assert(
      Kokkos::is_view_v<RV> && RV::rank() == 3 &&
          (std::is_same_v<In, float> || std::is_same_v<In, std::uint8_t>),
      "unison::examples::rgb_to_grayscale: rgb must be a rank-3 View (h x w x 3) of float or "
      "std::uint8_t");
  static_assert(
      Kokkos::is_view_v<GV> && GV::rank() == 2 && !std::is_const_v<typename GV::value_type> &&
          (std::is_floating_point_v<Out> ||
           (std::is_same_v<Out, std::uint8_t> && std::is_same_v<In, std::uint8_t>)),
      "unison::examples::rgb_to_grayscale: gray must be a rank-2 View of float or double, or of "
      "std::uint8_t for std::uint8_t input");
  static_assert(detail::accessible_v<Exec, RV> && detail::accessible_v<Exec, GV>,
                "unison::examples::rgb_to_grayscale: rgb and gray must be accessible from the "
                "execution space");
  constexpr const char* fn = "unison::examples::rgb_to_grayscale";
  detail::require(rgb.extent(2) == 3, fn, "rgb is ", detail::extents_of(rgb),
                  ": its last extent must be 3 (R, G, B)");
  detail::require(gray.extent(0) == rgb.extent(0) && gray.extent(1) == rgb.extent(1), fn,
                  "gray is ", detail::extents_of(gray), ", expected ", rgb.extent(0), "x",
                  rgb.extent(1));
  detail::check_disjoint(fn, "gray", gray, "rgb", rgb);
  if (gray.size() == 0) return;
  detail::examples::rgb_to_grayscale(exec, rgb, gray);
}

/// The largest n for which loop_sum(exec, n) is exact: the integer sum of i j over i, j < n,
/// (n (n - 1) / 2)^2, fits in 63 bits.
inline constexpr std::int64_t loop_sum_max_n = 77936;

/// sum over i, j < n of i j 0.1 (the tutorials' nested loop): the sum of the integers i j is
/// computed exactly in 64-bit integers (in any order: the same on every backend), then converted
/// to double and multiplied by 0.1 once. Up to n = 13777 the integer is exact in double, so the
/// result is the exact sum times the double nearest 0.1, rounded once: for n = 10000, exactly
/// 249950002500000.0. Returns on the host: waits for the result on `exec`.
/// \throws unison::invalid_argument when n < 0 or n > loop_sum_max_n. Kernel:
/// "unison::examples::loop_sum".
///
/// \param exec  the execution space instance the kernels run on.
/// \param n     the loops' extent, 0 to loop_sum_max_n.
/// \return the sum.
///
/// Temporary memory: none (the reduction's result comes back through Kokkos).
template <class Exec>
double loop_sum(const Exec& exec, std::int64_t n) {
  const detail::Region region("unison::examples::loop_sum");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::examples::loop_sum: the first argument must be a Kokkos execution space");
  detail::require(n >= 0 && n <= loop_sum_max_n, "unison::examples::loop_sum", "n is ", n,
                  ", expected 0 to ", loop_sum_max_n, " (beyond, the exact sum overflows 64 bits)");
  if (n == 0) return 0.0;  // nothing to launch (docs/RELIABILITY.md: an empty reduction crashed)
  const std::int64_t sum = detail::examples::loop_sum(exec, n);
  return double(sum) * 0.1;
}

/// The largest index whose Lucas number T holds exactly: L(0) = 2, L(1) = 1, L(i) = L(i - 1) +
/// L(i - 2). For an integer type, L(i) <= its maximum; for a floating-point one, L(i) < 2^digits
/// (every integer up to there is exact).
///
/// \return the largest index whose Lucas number fits in std::int64_t.
template <class T>
std::int64_t lucas_max_index() {
  static_assert(std::is_arithmetic_v<T>);
  // In long double (64-bit significands on x86, 113 elsewhere): exact for every L(i) below 2^64.
  const long double limit = std::is_integral_v<T>
                                ? (long double)std::numeric_limits<T>::max()
                                : std::ldexp(1.0L, std::numeric_limits<T>::digits);
  long double a = 2, b = 1;  // L(i), L(i + 1)
  std::int64_t i = 0;
  while (std::is_integral_v<T> ? b <= limit : b < limit) {
    const long double c = a + b;
    a = b;
    b = c;
    ++i;
  }
  return i;
}

/// out(i) = L(i), the i-th Lucas number (L(0) = 2, L(1) = 1, L(i) = L(i - 1) + L(i - 2)), for
/// every i < out.extent(0), each computed independently by its own work item (L(40) =
/// 228826127). out: a rank-1 View of an arithmetic type, overwritten. Asynchronous on `exec`.
/// \throws unison::invalid_argument when out.extent(0) - 1 exceeds lucas_max_index<T>() (the
/// value would overflow T, or for floating point not be exact): 44 for int32, 46 for uint32, 90
/// for int64, 92 for uint64, 34 for float, 76 for double, or when out's elements are not distinct
/// memory (a stride of 0, rows that overlap). Kernel: "unison::examples::lucas".
///
/// \param exec  the execution space instance the kernels run on.
/// \param out   the numbers: a rank-1 View of an arithmetic type; out(i) = L(i).
template <class Exec, class OV>
void lucas(const Exec& exec, const OV& out) {
  const detail::Region region("unison::examples::lucas");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::examples::lucas: the first argument must be a Kokkos execution space");
  using T = typename OV::non_const_value_type;
  static_assert(
      Kokkos::is_view_v<OV> && OV::rank() == 1 && !std::is_const_v<typename OV::value_type> &&
          std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
      "unison::examples::lucas: out must be a rank-1 View of a non-const arithmetic type");
  static_assert(detail::accessible_v<Exec, OV>,
                "unison::examples::lucas: out must be accessible from the execution space");
  const std::int64_t n = out.extent(0);
  detail::require(n - 1 <= lucas_max_index<T>(), "unison::examples::lucas", "out has ", n,
                  " elements, but L(", n - 1,
                  ") does not fit this value type: its largest exact "
                  "index is ",
                  lucas_max_index<T>());
  detail::check_output("unison::examples::lucas", "out", out);
  if (n == 0) return;
  detail::examples::lucas(exec, out);
}

/// n work items each add 1 to one counter with an atomic; returns the total, which is n (the
/// tutorials' race example: with a plain `+= 1` concurrent updates are lost). Returns on the
/// host: waits for the result on `exec` (its counter is temporary memory Unison keeps for
/// `exec`: release_temporary_memory).
/// \throws unison::invalid_argument when n < 0. Kernel:
/// "unison::examples::atomic_counter".
///
/// \param exec  the execution space instance the kernels run on.
/// \param n     the number of increments, at least 0.
/// \return the counter's final value.
template <class Exec>
std::int64_t atomic_counter(const Exec& exec, std::int64_t n) {
  const detail::Region region("unison::examples::atomic_counter");
  static_assert(
      Kokkos::is_execution_space_v<Exec>,
      "unison::examples::atomic_counter: the first argument must be a Kokkos execution space");
  detail::require(n >= 0, "unison::examples::atomic_counter", "n is ", n, ", expected 0 or more");
  return detail::examples::atomic_counter(exec, n);
}

/// \}

}  // namespace unison::examples
