#pragma once
/// \file unison/transform.hpp
/// The generic N-ary element-wise transform (the tutorials' `@vectorize` ufunc), on which every
/// function of unison/elementwise.hpp is built.

#include <array>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>
#include <unison/impl/checks.hpp>

namespace unison {
namespace impl {

// Element (i) or (i, j) of an operand: a View's element, or the scalar itself.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) element(const T& a, std::int64_t i) {
  if constexpr (Kokkos::is_view_v<T>) {
    return a(i);
  } else {
    return a;
  }
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) element(const T& a, std::int64_t i, std::int64_t j) {
  if constexpr (Kokkos::is_view_v<T>) {
    return a(i, j);
  } else {
    return a;
  }
}

// The operands of one launch, stored by value (a device-copyable heterogeneous list).
// at1(f, i) is f(element(op, i)...), at2(f, i, j) is f(element(op, i, j)...).
template <class... Args>
struct Operands;
template <>
struct Operands<> {
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at1(const F& f, std::int64_t, const Vals&... v) const {
    return f(v...);
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at2(const F& f, std::int64_t, std::int64_t,
                                                 const Vals&... v) const {
    return f(v...);
  }
};
template <class Head, class... Tail>
struct Operands<Head, Tail...> {
  Head head;
  Operands<Tail...> tail;
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at1(const F& f, std::int64_t i, const Vals&... v) const {
    return tail.at1(f, i, v..., element(head, i));
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at2(const F& f, std::int64_t i, std::int64_t j,
                                                 const Vals&... v) const {
    return tail.at2(f, i, j, v..., element(head, i, j));
  }
};
inline Operands<> make_operands() { return {}; }
template <class Head, class... Tail>
Operands<Head, Tail...> make_operands(const Head& h, const Tail&... t) {
  return Operands<Head, Tail...>{h, make_operands(t...)};
}

// out(i) = f(operands at i) for i < n. With U > 1 each work item c handles U elements: the
// warp-sized group c / 32 owns 32 * U consecutive elements and item c takes every 32nd of them,
// so each of the U passes is a coalesced warp access and all U results are computed (their
// loads issued) before the first store.
template <int U, class Out, class F, class Ops>
struct TransformKernel1D {
  static constexpr std::int64_t width = 32;
  Out out;
  F f;
  Ops ops;
  std::int64_t n;

  static std::int64_t work_items(std::int64_t n) {
    if constexpr (U == 1) {
      return n;
    } else {
      return (n + width * U - 1) / (width * U) * width;
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t c) const {
    using T = typename Out::non_const_value_type;
    if constexpr (U == 1) {
      out(c) = static_cast<T>(ops.at1(f, c));
    } else {
      const std::int64_t first = (c / width) * (width * U) + c % width;
      T r[U] = {};
      if (first + (U - 1) * width < n) {  // all U elements exist: no per-element guard
        for (int u = 0; u < U; ++u) r[u] = static_cast<T>(ops.at1(f, first + u * width));
        for (int u = 0; u < U; ++u) out(first + u * width) = r[u];
      } else {
        for (int u = 0; u < U; ++u) {
          const std::int64_t i = first + u * width;
          if (i < n) r[u] = static_cast<T>(ops.at1(f, i));
        }
        for (int u = 0; u < U; ++u) {
          const std::int64_t i = first + u * width;
          if (i < n) out(i) = r[u];
        }
      }
    }
  }
};

template <int U, class Exec, class Out, class F, class Ops>
void launch_1d(const char* label, const Exec& exec, const Out& out, const F& f, const Ops& ops) {
  using Kernel = TransformKernel1D<U, Out, F, Ops>;
  const auto n = static_cast<std::int64_t>(out.extent(0));
  Kokkos::parallel_for(label,
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, Kernel::work_items(n)),
                       Kernel{out, f, ops, n});
}

template <class Out, class F, class Ops>
struct TransformKernel2D {
  Out out;
  F f;
  Ops ops;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    out(i, j) = static_cast<typename Out::value_type>(ops.at2(f, i, j));
  }
};

// A contiguous rank-2 View seen as the rank-1 array of its span (same memory, no copy).
template <class V>
auto flat(const V& v) {
  if constexpr (Kokkos::is_view_v<V>) {
    using Flat = Kokkos::View<typename V::value_type*, typename V::memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    return Flat(v.data(), v.span());
  } else {
    return v;
  }
}

// A rank-2 operand that is laid out exactly as out (contiguous, same strides), or a scalar.
template <class Arg, class Out>
bool flattens_like(const Arg& arg, const Out& out) {
  if constexpr (Kokkos::is_view_v<Arg>) {
    return arg.span_is_contiguous() && arg.span() == out.span() &&
           arg.stride(0) == out.stride(0) && arg.stride(1) == out.stride(1);
  } else {
    return true;
  }
}

/// What a checked launch is called: `function` in error messages, `kernel` as the Kokkos label.
struct Names {
  const char* function;
  const char* kernel;
};

/// Checked launch shared by transform() and the named functions. Run-time checks: every View
/// operand has out's extents and does not partly overlap out; `arg_names` name the operands in
/// the messages. Unroll (elements per work item of a rank-1 launch) defaults to the backend's
/// tuning; benchmarks set it to compare.
template <int Unroll = 0, class Exec, class Out, class F, class... Args>
void transform(Names names, const std::array<const char*, sizeof...(Args)>& arg_names,
               const Exec& exec, const Out& out, const F& f, const Args&... args) {
  std::size_t k = 0;
  ((check_extents(names.function, arg_names[k], args, out),
    check_no_partial_alias(names.function, arg_names[k], args, out), ++k),
   ...);
  const char* label = names.kernel;
  if (out.size() == 0) return;

  constexpr int U = Unroll > 0 ? Unroll : backends::ElementwiseTuning<Exec>::unroll;
  if constexpr (Out::rank() == 1) {
    launch_1d<U>(label, exec, out, f, make_operands(args...));
  } else {
    if (out.span_is_contiguous() && (flattens_like(args, out) && ...)) {
      launch_1d<U>(label, exec, flat(out), f, make_operands(flat(args)...));
    } else {
      using Kernel = TransformKernel2D<Out, F, Operands<Args...>>;
      Kokkos::parallel_for(
          label,
          Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
              exec, {0, 0},
              {static_cast<std::int64_t>(out.extent(0)), static_cast<std::int64_t>(out.extent(1))}),
          Kernel{out, f, make_operands(args...)});
    }
  }
}

}  // namespace impl

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
  static_assert(impl::is_writable_view_v<Out>,
                "unison::transform: out must be a rank-1 or rank-2 View with a non-const value type");
  static_assert(impl::accessible_v<Exec, Out>,
                "unison::transform: out must be accessible from the execution space");
  static_assert(impl::all_operands_v<Exec, int(Out::rank()), Args...>,
                "unison::transform: every input must be an arithmetic scalar or a View of out's "
                "rank accessible from the execution space");
  std::array<const char*, sizeof...(Args)> arg_names{};
  static const char* const numbered[] = {"input 0", "input 1", "input 2", "input 3",
                                         "input 4", "input 5", "input 6", "input 7"};
  for (std::size_t k = 0; k < arg_names.size(); ++k) arg_names[k] = k < 8 ? numbered[k] : "an input";
  impl::transform({"unison::transform", "unison::elementwise::transform"}, arg_names, exec, out, f,
                  args...);
}

/// transform on out's default execution space.
template <class Out, class F, class... Args>
std::enable_if_t<Kokkos::is_view_v<Out>> transform(const Out& out, const F& f,
                                                   const Args&... args) {
  transform(typename Out::execution_space{}, out, f, args...);
}

}  // namespace unison
