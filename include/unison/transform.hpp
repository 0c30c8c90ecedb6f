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
#include <unison/impl/chunk.hpp>

namespace unison {
namespace impl {

template <class T>
struct is_chunk : std::false_type {};
template <class T, int K>
struct is_chunk<Chunk<T, K>> : std::true_type {};

// Element (i) or (i, j) of an operand: a View's element, a chunk's element, or the scalar itself.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) element(const T& a, std::int64_t i) {
  if constexpr (Kokkos::is_view_v<T>) {
    return a(i);
  } else if constexpr (is_chunk<T>::value) {
    return a.v[i];
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

// What an operand becomes when K consecutive elements are loaded at once.
template <class T, int K, class = void>
struct chunk_of_t {
  using type = T;  // a scalar stays itself
};
template <class T, int K>
struct chunk_of_t<T, K, std::enable_if_t<Kokkos::is_view_v<T>>> {
  using type = Chunk<typename T::non_const_value_type, K>;
};

template <int K, class T>
KOKKOS_FORCEINLINE_FUNCTION typename chunk_of_t<T, K>::type load_chunk(const T& a,
                                                                       std::int64_t chunk) {
  if constexpr (Kokkos::is_view_v<T>) {
    using C = typename chunk_of_t<T, K>::type;
    return reinterpret_cast<const C*>(a.data())[chunk];
  } else {
    return a;
  }
}

// The operands of one launch, stored by value (a device-copyable heterogeneous list).
// at1(f, i) is f(element(op, i)...), at2(f, i, j) is f(element(op, i, j)...), load<K>(q) the
// same operands with every View replaced by its chunk q.
template <class... Args>
struct Operands;
template <>
struct Operands<> {
  template <int K>
  KOKKOS_FORCEINLINE_FUNCTION Operands<> load(std::int64_t) const {
    return {};
  }
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
  // The operands' chunks number `chunk` (elements K chunk ... K chunk + K - 1), loaded.
  template <int K>
  KOKKOS_FORCEINLINE_FUNCTION
      Operands<typename chunk_of_t<Head, K>::type, typename chunk_of_t<Tail, K>::type...>
      load(std::int64_t chunk) const {
    return {load_chunk<K>(head, chunk), tail.template load<K>(chunk)};
  }
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

// out(i) = f(operands at i) for i < n, in chunks of K consecutive elements (K > 1: one wide
// load or store per operand, which needs contiguous, aligned arrays), U chunks per work item.
// With U > 1 the warp-sized group c / 32 owns 32 U consecutive chunks and item c takes every
// 32nd of them, so each pass is a coalesced warp access, and all U results are computed (their
// loads issued) before the first store.
template <int K, int U, class Out, class F, class Ops>
struct TransformKernel1D {
  static constexpr std::int64_t width = 32;
  Out out;
  F f;
  Ops ops;
  std::int64_t n;

  static std::int64_t work_items(std::int64_t n) {
    const std::int64_t chunks = (n + K - 1) / K;
    if constexpr (U == 1) {
      return chunks;
    } else {
      return (chunks + width * U - 1) / (width * U) * width;
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t chunk(std::int64_t c, int u) {
    if constexpr (U == 1) {
      return c;
    } else {
      return (c / width) * (width * U) + c % width + u * width;
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t c) const {
    using T = typename Out::non_const_value_type;
    using C = Chunk<T, K>;
    const std::int64_t full = n / K;  // chunks lying wholly inside [0, n)
    C r[U] = {};
    if (chunk(c, U - 1) < full) {  // the common case: no guard per element
      for (int u = 0; u < U; ++u) compute(chunk(c, u), r[u]);
      for (int u = 0; u < U; ++u) store(chunk(c, u), r[u]);
    } else {
      for (int u = 0; u < U; ++u) {
        const std::int64_t q = chunk(c, u);
        if (q < full) {
          compute(q, r[u]);
          store(q, r[u]);
        } else if (q == full) {  // the last, partial chunk
          for (std::int64_t i = q * K; i < n; ++i) out(i) = static_cast<T>(ops.at1(f, i));
        }
      }
    }
  }

  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION void compute(std::int64_t q, C& r) const {
    using T = typename Out::non_const_value_type;
    if constexpr (K == 1) {
      r.v[0] = static_cast<T>(ops.at1(f, q));
    } else {
      const auto loaded = ops.template load<K>(q);
      for (int k = 0; k < K; ++k) r.v[k] = static_cast<T>(loaded.at1(f, k));
    }
  }

  template <class C>
  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t q, const C& r) const {
    if constexpr (K == 1) {
      out(q) = r.v[0];
    } else {
      reinterpret_cast<C*>(out.data())[q] = r;
    }
  }
};

// An operand that chunks of K elements can be read from: a scalar, or a View of arithmetic
// values with unit stride whose data is aligned for the wide access.
template <int K, class A>
bool chunkable(const A& a) {
  if constexpr (!Kokkos::is_view_v<A>) {
    return true;
  } else {
    using V = typename A::non_const_value_type;
    if constexpr (!std::is_arithmetic_v<V>) {
      return false;
    } else {
      return a.span() == 0 || (a.stride(0) == 1 &&
                               reinterpret_cast<std::uintptr_t>(a.data()) % alignof(Chunk<V, K>) == 0);
    }
  }
}

template <int K, int U, class Exec, class Out, class F, class Ops>
void launch_1d_kernel(const char* label, const Exec& exec, const Out& out, const F& f,
                      const Ops& ops) {
  using Kernel = TransformKernel1D<K, U, Out, F, Ops>;
  const auto n = static_cast<std::int64_t>(out.extent(0));
  Kokkos::parallel_for(label,
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, Kernel::work_items(n)),
                       Kernel{out, f, ops, n});
}

// Rank-1 launch: chunks of K with wide accesses when every array allows it, else one element
// at a time (any stride), K U elements per work item either way.
template <int K, int U, class Exec, class Out, class F, class... Args>
void launch_1d(const char* label, const Exec& exec, const Out& out, const F& f,
               const Args&... args) {
  if constexpr (K > 1) {
    if (chunkable<K>(out) && (chunkable<K>(args) && ...)) {
      launch_1d_kernel<K, U>(label, exec, out, f, make_operands(args...));
      return;
    }
  }
  launch_1d_kernel<1, K * U>(label, exec, out, f, make_operands(args...));
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
/// the messages. Vector (consecutive elements read at once) and Unroll (such chunks per work
/// item) of a rank-1 launch default to the backend's tuning; benchmarks set them to compare.
template <int Vector = 0, int Unroll = 0, class Exec, class Out, class F, class... Args>
void transform(Names names, const std::array<const char*, sizeof...(Args)>& arg_names,
               const Exec& exec, const Out& out, const F& f, const Args&... args) {
  std::size_t k = 0;
  ((check_extents(names.function, arg_names[k], args, out),
    check_no_partial_alias(names.function, arg_names[k], args, out), ++k),
   ...);
  const char* label = names.kernel;
  if (out.size() == 0) return;

  using Tuning = backends::ElementwiseTuning<Exec>;
  constexpr int K = Vector > 0 ? Vector : Tuning::vector;
  constexpr int U = Unroll > 0 ? Unroll : Tuning::unroll;
  if constexpr (Out::rank() == 1) {
    launch_1d<K, U>(label, exec, out, f, args...);
  } else {
    if (out.span_is_contiguous() && (flattens_like(args, out) && ...)) {
      launch_1d<K, U>(label, exec, flat(out), f, flat(args)...);
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
