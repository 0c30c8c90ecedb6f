#pragma once
/// \file unison/transform.hpp
/// The generic N-ary element-wise transform (the tutorials' `@vectorize` ufunc), on which every
/// function of unison/elementwise.hpp is built.

#include <array>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison {}  // namespace unison

#include <unison/detail/transform/dispatch.hpp>

namespace unison {

/// out = f(args...) element by element: out(i) = f(a(i), b(i), ...) for rank 1, out(i, j) =
/// f(a(i, j), ...) for rank 2.
///
/// \param exec  execution space instance; the kernel "unison::elementwise::transform" is enqueued
///              on it and the call returns without waiting.
/// \param out   rank-1 or rank-2 View, any layout, accessible from exec. It comes before the
///              inputs because the inputs are variadic.
/// \param f     callable valid on exec's device (a KOKKOS_LAMBDA or a functor with a
///              KOKKOS_FUNCTION operator()), taking one value per input; its result is converted
///              to out's value type.
/// \param args  Views with out's rank and extents, accessible from exec, or arithmetic scalars
///              that stand for an array of that value.
///
/// out may be the very same View as an input (in place). Throws unison::invalid_argument if a
/// View's extents differ from out's or a View overlaps out in any other way. Empty Views do
/// nothing.
template <class Exec, class Out, class F, class... Args>
std::enable_if_t<Kokkos::is_execution_space_v<Exec>> transform(const Exec& exec, const Out& out,
                                                               const F& f, const Args&... args) {
  static_assert(
      detail::is_writable_view_v<Out>,
      "unison::transform: out must be a rank-1 or rank-2 View with a non-const value type");
  static_assert(detail::accessible_v<Exec, Out>,
                "unison::transform: out must be accessible from the execution space");
  static_assert(detail::all_operands_v<Exec, int(Out::rank()), Args...>,
                "unison::transform: every input must be an arithmetic scalar or a View of out's "
                "rank accessible from the execution space");
  std::array<const char*, sizeof...(Args)> arg_names{};
  static const char* const numbered[] = {"input 0", "input 1", "input 2", "input 3",
                                         "input 4", "input 5", "input 6", "input 7"};
  for (std::size_t k = 0; k < arg_names.size(); ++k)
    arg_names[k] = k < 8 ? numbered[k] : "an input";
  detail::transform({"unison::transform", "unison::elementwise::transform"}, arg_names, exec, out,
                    f, args...);
}

/// transform on out's default execution space.
template <class Out, class F, class... Args>
std::enable_if_t<Kokkos::is_view_v<Out>> transform(const Out& out, const F& f,
                                                   const Args&... args) {
  transform(typename Out::execution_space{}, out, f, args...);
}

}  // namespace unison
