#pragma once
/// \file unison/transform.hpp
/// The generic N-ary element-wise transform (the tutorials' `@vectorize` ufunc), on which every
/// function of unison/elementwise.hpp is built.

#include <array>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/detail/elementwise/dispatch.hpp>

namespace unison {

/// \defgroup transform The generic element-wise transform
/// \{

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
/// out may be the very same View as an input (in place).
/// \throws unison::invalid_argument if a
/// View's extents differ from out's or a View overlaps out in any other way. Empty Views do
/// nothing.
///
/// Temporary memory: none.
template <class Exec, class Out, class F, class... Args>
std::enable_if_t<Kokkos::is_execution_space_v<Exec>> transform(const Exec& exec, const Out& out,
                                                               const F& f, const Args&... args) {
  const detail::Region region("unison::transform");
  detail::elementwise::checked_transform<0, 0>(exec, out, f, args...);
}

/// transform with a fixed work shape, for tuning probes and tests: each work item of a rank-1
/// launch (or of a rank-2 one over contiguous Views, taken as rank 1) reads `Vector` consecutive
/// elements at once (one wide access where every array is aligned to it) and takes `Unroll`
/// such chunks. Without it, transform takes the backend's shape (ElementwiseTuning in
/// unison/backends/tuning.hpp) and, on the CPUs, a block of elements per thread.
template <int Vector, int Unroll>
struct TransformShape {
  static_assert(Vector >= 1 && Unroll >= 1,
                "unison::TransformShape: Vector and Unroll must be at least 1");
};

/// transform(exec, out, f, args...) in the work shape `Shape` (TransformShape); the same
/// results, checks and kernel label.
///
/// \param exec, out, f, args  as transform(exec, out, f, args...).
/// \throws unison::invalid_argument as that form.
///
/// Asynchronous on exec; temporary memory: none.
template <int Vector, int Unroll, class Exec, class Out, class F, class... Args>
void transform(TransformShape<Vector, Unroll>, const Exec& exec, const Out& out, const F& f,
               const Args&... args) {
  const detail::Region region("unison::transform");
  detail::elementwise::checked_transform<Vector, Unroll>(exec, out, f, args...);
}

/// transform on out's default execution space.
///
/// \param out, f, args  as transform(exec, out, f, args...).
/// \throws unison::invalid_argument as that form.
template <class Out, class F, class... Args>
std::enable_if_t<Kokkos::is_view_v<Out>> transform(const Out& out, const F& f,
                                                   const Args&... args) {
  transform(typename Out::execution_space{}, out, f, args...);
}

/// \}

}  // namespace unison
