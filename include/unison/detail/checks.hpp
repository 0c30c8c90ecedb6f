#pragma once
// Host-side checks shared by every Unison function: traits for the compile-time checks, and
// the run-time checks that throw unison::invalid_argument with the function's name.

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>

namespace unison::detail {

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

/// `arg` (a View or a scalar) has the extents of `out`.
template <class Arg, class Out>
void check_extents(const char* function, const char* name, const Arg& arg, const Out& out) {
  if constexpr (Kokkos::is_view_v<Arg>) {
    bool same = true;
    for (std::size_t r = 0; r < Out::rank(); ++r) same = same && arg.extent(r) == out.extent(r);
    require(same, function, name, " is ", extents_of(arg), ", expected ", extents_of(out),
            " (the extents of out)");
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

/// An element-wise output may be the very same array as an input (in place), but must not
/// overlap it in any other way: element i of out would overwrite an input element that another
/// index still has to read.
template <class Arg, class Out>
void check_no_partial_alias(const char* function, const char* name, const Arg& arg,
                            const Out& out) {
  if constexpr (Kokkos::is_view_v<Arg>) {
    if (arg.size() == 0 || out.size() == 0) return;
    auto [a0, a1] = byte_range(arg);
    auto [o0, o1] = byte_range(out);
    bool overlap = a0 < o1 && o0 < a1;
    require(!overlap || same_elements(arg, out), function, "out overlaps ", name,
            " without being the same array (", extents_of(out), " and ", extents_of(arg),
            "); only an exact in-place call is allowed");
  }
}

/// Two Views that must not share any element: an output that neighbouring elements of an input
/// are still read from cannot be written in place.
template <class Out, class In>
void check_disjoint(const char* function, const char* out_name, const Out& out, const char* in_name,
                    const In& in) {
  if (in.size() == 0 || out.size() == 0) return;
  auto [a0, a1] = byte_range(in);
  auto [o0, o1] = byte_range(out);
  require(!(a0 < o1 && o0 < a1), function, out_name, " (", extents_of(out), ") overlaps ", in_name,
          " (", extents_of(in), "); the output must be a separate array");
}

}  // namespace unison::detail
