#pragma once
// Host-side checks shared by every Unison function: traits for the compile-time checks, and
// the run-time checks that throw unison::invalid_argument with the function's name.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <unison/core.hpp>

namespace unison::detail {

/// The Kokkos Tools region of a public call ("unison::diffuse"), opened for the rest of the
/// enclosing scope: every public function that launches kernels opens one around all of them,
/// so that a profiler (Kokkos Tools' space-time stack, the GPU vendors' range markers) shows the
/// call as one block with its kernels under it. Forms of a call that forward to another open
/// none of their own.
using Region = Kokkos::Profiling::ScopedRegion;

template <class T>
inline constexpr bool is_view_v = Kokkos::is_view_v<T>;

/// A View accessible from execution space Exec.
template <class Exec, class V>
inline constexpr bool accessible_v =
    Kokkos::SpaceAccessibility<Exec, typename V::memory_space>::accessible;

/// An operand of an element-wise function: a View (of the output's rank, accessible from Exec)
/// or an arithmetic scalar that stands for an array of that value.
template <class Exec, class T, int Rank, class = void>
struct is_operand : std::false_type {};
template <class Exec, class T, int Rank>
struct is_operand<Exec, T, Rank, std::enable_if_t<std::is_arithmetic_v<T>>> : std::true_type {};
template <class Exec, class T, int Rank>
struct is_operand<Exec, T, Rank, std::enable_if_t<Kokkos::is_view_v<T>>>
    : std::bool_constant<int(T::rank()) == Rank && accessible_v<Exec, T>> {};
template <class Exec, class T, int Rank>
inline constexpr bool is_operand_v = is_operand<Exec, T, Rank>::value;

template <class Exec, int Rank, class... Args>
inline constexpr bool all_operands_v = (is_operand_v<Exec, Args, Rank> && ...);

/// An output View of rank 1 or 2 with a non-const value type.
template <class V>
inline constexpr bool is_writable_view_v =
    Kokkos::is_view_v<V> && !std::is_const_v<typename V::value_type> &&
    (V::rank() == 1 || V::rank() == 2);

/// A View's extents, printed as "4x5" ("scalar" for rank 0) where an error message is formatted,
/// and only there: the checks pass it to require() on every call, and formatting it up front
/// (an ostringstream) cost about a microsecond a call, a fifth of an OpenMP call of 1e5 elements.
struct Extents {
  std::size_t rank = 0, extent[8] = {};
};
inline std::ostream& operator<<(std::ostream& s, const Extents& e) {
  for (std::size_t r = 0; r < e.rank; ++r) s << (r ? "x" : "") << e.extent[r];
  if (e.rank == 0) s << "scalar";
  return s;
}
template <class V>
Extents extents_of(const V& v) {
  Extents e;
  e.rank = V::rank();
  for (std::size_t r = 0; r < V::rank(); ++r) e.extent[r] = v.extent(r);
  return e;
}

template <class... Parts>
[[noreturn]] void fail(const char* function, const Parts&... parts) {
  std::ostringstream s;
  s << function << ": ";
  (s << ... << parts);
  throw unison::invalid_argument(s.str());
}

template <class... Parts>
void require(bool condition, const char* function, const Parts&... parts) {
  if (!condition) fail(function, parts...);
}

/// A finite arithmetic scalar (an integer always is).
template <class S>
bool finite(const S& s) {
  if constexpr (std::is_floating_point_v<S>) return std::isfinite(s);
  else return true;
}

/// A NaN arithmetic scalar (an integer never is).
template <class S>
bool is_nan(const S& s) {
  if constexpr (std::is_floating_point_v<S>) return std::isnan(s);
  else return false;
}

/// Whether the arithmetic scalar s can be converted to T: for an integer T, s is a whole number
/// within T's range (not NaN, not infinite: the conversion is otherwise undefined or changes the
/// value); for a floating-point T, s is NaN, infinite or within T's finite range (a finite s
/// beyond it would become an infinity).
template <class T, class S>
bool fits_in(const S& s) {
  static_assert(std::is_arithmetic_v<S> && std::is_arithmetic_v<T>);
  if constexpr (std::is_integral_v<S>) {
    if constexpr (std::is_floating_point_v<T>) {
      return true;
    } else {
      if constexpr (std::is_signed_v<S>) {
        if (s < 0)
          return std::is_signed_v<T> &&
                 std::intmax_t(s) >= std::intmax_t(std::numeric_limits<T>::lowest());
      }
      return std::uintmax_t(s) <= std::uintmax_t(std::numeric_limits<T>::max());
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    return !std::isfinite(s) || std::fabs(static_cast<long double>(s)) <=
                                    static_cast<long double>(std::numeric_limits<T>::max());
  } else {
    const long double v = s;
    return std::isfinite(s) && std::trunc(v) == v &&
           v >= static_cast<long double>(std::numeric_limits<T>::lowest()) &&
           v < static_cast<long double>(std::numeric_limits<T>::max()) + 1;
  }
}

/// `arg` (a View or a scalar) has the extents of `ref`, the View called `ref_name`.
template <class Arg, class Ref>
void check_extents(const char* function, const char* name, const Arg& arg, const Ref& ref,
                   const char* ref_name = "out") {
  if constexpr (Kokkos::is_view_v<Arg>) {
    bool same = true;
    for (std::size_t r = 0; r < Ref::rank(); ++r) same = same && arg.extent(r) == ref.extent(r);
    require(same, function, name, " is ", extents_of(arg), ", expected ", extents_of(ref),
            " (the extents of ", ref_name, ")");
  }
}

/// The bytes [first, last) from a View's first element to the end of its last one. (Not
/// data() + span(): Kokkos counts a padded subview's span as extent(0) * stride(0), which can
/// reach past the end of the array it views.)
template <class V>
std::pair<std::uintptr_t, std::uintptr_t> byte_range(const V& v) {
  auto first = reinterpret_cast<std::uintptr_t>(v.data());
  if (v.size() == 0) return {first, first};
  std::size_t last = 0;
  for (std::size_t r = 0; r < V::rank(); ++r) last += (v.extent(r) - 1) * v.stride(r);
  return {first, first + (last + 1) * sizeof(typename V::value_type)};
}

template <class A, class B>
bool same_elements(const A& a, const B& b) {
  if (a.data() != b.data() || A::rank() != B::rank()) return false;
  for (std::size_t r = 0; r < A::rank(); ++r)
    if (a.extent(r) != b.extent(r) || a.stride(r) != b.stride(r)) return false;
  return sizeof(typename A::value_type) == sizeof(typename B::value_type);
}

/// A View of rank 1 or 2 as two (extent, stride in bytes) pairs, the second (1, 0) for rank 1.
struct Grid {
  std::int64_t extent[2], stride[2];
};
template <class V>
Grid grid_of(const V& v) {
  static_assert(V::rank() == 1 || V::rank() == 2);
  constexpr auto bytes = std::int64_t(sizeof(typename V::value_type));
  Grid g{{std::int64_t(v.extent(0)), 1}, {std::int64_t(v.stride(0)) * bytes, 0}};
  if constexpr (V::rank() == 2) {
    g.extent[1] = std::int64_t(v.extent(1));
    g.stride[1] = std::int64_t(v.stride(1)) * bytes;
  }
  return g;
}

/// Whether some integer k in [lo, hi] has |k s - t| < e (s >= 0, e > 0).
inline bool multiple_near(std::int64_t lo, std::int64_t hi, std::int64_t s, std::int64_t t,
                          std::int64_t e) {
  if (lo > hi) return false;
  if (s == 0) return t > -e && t < e;
  // k s in (t - e, t + e): k from floor((t - e) / s) + 1 to ceil((t + e) / s) - 1.
  auto floor_div = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && (a < 0)); };
  const std::int64_t k0 = floor_div(t - e, s) + 1;
  const std::int64_t k1 = -floor_div(-(t + e), s) - 1;
  return std::max(k0, lo) <= std::min(k1, hi);
}

/// Whether two Views share a byte of their elements. Exact for Views of rank 1 or 2 with the
/// same value size and the same strides (interleaved columns of one matrix, the even and the
/// odd elements of an array, a View and itself shifted); any other pair of Views counts as
/// overlapping where the bytes from the first element to the last of one meet the other's.
template <class A, class B>
bool views_overlap(const A& a, const B& b) {
  if (a.size() == 0 || b.size() == 0) return false;
  auto [a0, a1] = byte_range(a);
  auto [b0, b1] = byte_range(b);
  if (!(a0 < b1 && b0 < a1)) return false;
  constexpr std::size_t ea = sizeof(typename A::value_type), eb = sizeof(typename B::value_type);
  if constexpr (ea != eb || A::rank() > 2 || B::rank() > 2 || A::rank() == 0 || B::rank() == 0) {
    return true;
  } else {
    const Grid ga = grid_of(a), gb = grid_of(b);
    // A dimension of extent 1 has no stride that matters.
    auto stride = [](const Grid& g, int r) { return g.extent[r] == 1 ? 0 : g.stride[r]; };
    for (int r = 0; r < 2; ++r)
      if (stride(ga, r) != stride(gb, r) && ga.extent[r] > 1 && gb.extent[r] > 1) return true;
    std::int64_t s[2], lo[2], hi[2];
    for (int r = 0; r < 2; ++r) {
      s[r] = ga.extent[r] > 1 ? ga.stride[r] : gb.stride[r];
      lo[r] = -(gb.extent[r] - 1);  // element (i, j) of a against (i', j') of b: k = i - i'
      hi[r] = ga.extent[r] - 1;
    }
    // a's element at offset k0 s0 + k1 s1 from b's: they meet where |k0 s0 + k1 s1 - d| < e.
    const std::int64_t d = std::int64_t(b0) - std::int64_t(a0), e = std::int64_t(ea);
    const int outer = hi[0] - lo[0] <= hi[1] - lo[1] ? 0 : 1, inner = 1 - outer;
    for (std::int64_t k = lo[outer]; k <= hi[outer]; ++k)
      if (multiple_near(lo[inner], hi[inner], s[inner], d - k * s[outer], e)) return true;
    return false;
  }
}

/// Whether two elements of one View are the same memory: a stride of 0 along an extent of 2 or
/// more, or axes whose elements run into each other's. Exact: for two axes of extent 2 or more
/// by their strides' greatest common divisor; for more, where each stride (in increasing order)
/// does not pass the span of the axes below it, by listing the elements' offsets (up to 2^22
/// elements; a larger View of such a layout counts as overlapping).
template <class V>
bool self_overlapping(const V& v) {
  if (v.size() < 2) return false;
  // (stride, extent) of the axes of extent 2 or more, by increasing stride (no allocation but in
  // the rare listing of offsets below: this runs on every call).
  std::array<std::pair<std::int64_t, std::int64_t>, 8> all{};
  std::size_t count = 0;
  for (std::size_t r = 0; r < V::rank(); ++r)
    if (v.extent(r) > 1) all[count++] = {std::int64_t(v.stride(r)), std::int64_t(v.extent(r))};
  // By insertion (at most 8 axes; std::sort here draws a false -Warray-bounds from GCC 13, which
  // follows its 16-element threshold into this 8-element array).
  for (std::size_t i = 1; i < count; ++i)
    for (std::size_t j = i; j > 0 && all[j] < all[j - 1]; --j) std::swap(all[j], all[j - 1]);
  const auto axes = all.data();
  if (axes[0].first == 0) return true;
  if (count == 1) return false;
  if (count == 2) {
    // k0 s0 == k1 s1 with 0 < k0 < n0, 0 < k1 < n1: the smallest such pair is s1/g, s0/g.
    const auto [s0, n0] = axes[0];
    const auto [s1, n1] = axes[1];
    std::int64_t x = s0, y = s1;
    while (y != 0) x = std::exchange(y, x % y);
    return s1 / x < n0 && s0 / x < n1;
  }
  std::int64_t span = 0;  // the largest offset of the axes so far
  bool nested = true;
  for (std::size_t a = 0; a < count; ++a) {
    nested = nested && axes[a].first > span;
    span += axes[a].first * (axes[a].second - 1);
  }
  if (nested) return false;
  if (v.size() > (std::size_t(1) << 22)) return true;
  std::vector<std::int64_t> offsets{0};
  for (std::size_t a = 0; a < count; ++a) {
    const auto [stride, extent] = axes[a];
    const std::size_t n = offsets.size();
    for (std::int64_t k = 1; k < extent; ++k)
      for (std::size_t i = 0; i < n; ++i) offsets.push_back(offsets[i] + k * stride);
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

/// An output View whose elements are distinct memory: a stride of 0 (a broadcast) is fine for
/// an input but would make one element of an output the target of many.
template <class Out>
void check_output(const char* function, const char* name, const Out& out) {
  require(!self_overlapping(out), function, name, " (", extents_of(out),
          ") has elements that are the same memory (a stride of 0, or rows that run into each "
          "other); an output's elements must be distinct");
}

/// An element-wise output may be the very same array as an input (in place), but must not
/// overlap it in any other way: element i of out would overwrite an input element that another
/// index still has to read.
template <class Arg, class Out>
void check_no_partial_alias(const char* function, const char* name, const Arg& arg,
                            const Out& out) {
  if constexpr (Kokkos::is_view_v<Arg>) {
    require(same_elements(arg, out) || !views_overlap(arg, out), function, "out overlaps ", name,
            " without being the same array (", extents_of(out), " and ", extents_of(arg),
            "); only an exact in-place call is allowed");
  }
}

/// Two Views that must not share any element: an output (out_name; its own elements must be
/// distinct too) that neighbouring elements of an input are still read from cannot be written
/// in place.
template <class Out, class In>
void check_disjoint(const char* function, const char* out_name, const Out& out, const char* in_name,
                    const In& in) {
  check_output(function, out_name, out);
  require(!views_overlap(out, in), function, out_name, " (", extents_of(out), ") overlaps ",
          in_name, " (", extents_of(in), "); the output must be a separate array");
}

}  // namespace unison::detail
