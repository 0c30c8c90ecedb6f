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
  } else if constexpr (std::is_pointer_v<T>) {
    return a[i];
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
  template <class V, class F, class... Vals>
  V packs_at(const F& f, std::int64_t, int, const Vals&... v) const {
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
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at1(const F& f, std::int64_t i,
                                                 const Vals&... v) const {
    return tail.at1(f, i, v..., element(head, i));
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at2(const F& f, std::int64_t i, std::int64_t j,
                                                 const Vals&... v) const {
    return tail.at2(f, i, j, v..., element(head, i, j));
  }
#if UNISON_BACKENDS_HOST_VECTORS
  // f of the packs V of elements [i, i + count) (count <= lanes; the lanes beyond, 0): a pointer
  // operand's values, a scalar's in every lane (as V's element type).
  template <class V, class F, class... Vals>
  V packs_at(const F& f, std::int64_t i, int count, const Vals&... v) const {
    using T = backends::scalar_of_t<V>;
    if constexpr (std::is_pointer_v<Head>) {
      const V x = count == backends::lanes_v<V> ? backends::load<V>(head + i)
                                                : backends::load_partial<V>(head + i, count);
      return tail.template packs_at<V>(f, i, count, v..., x);
    } else {
      return tail.template packs_at<V>(f, i, count, v..., backends::splat<V>(static_cast<T>(head)));
    }
  }
#endif
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

// An operation written once for every value type V (a template operator() taking V for each
// operand and returning V; unison::ops' functors): it declares `using unison_packs = void;`.
// Its operands are converted to out's value type first, and on CPUs it is called with packs
// (unison/backends/simd.hpp), a register of consecutive elements at a time.
template <class F, class = void>
struct takes_packs : std::false_type {};
template <class F>
struct takes_packs<F, std::void_t<typename F::unison_packs>> : std::true_type {};

// f called with its operands converted to T (for an operation that takes_packs, called with
// scalars).
template <class T, class F>
struct AsType {
  F f;
  template <class... A>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const A&... a) const {
    return f(static_cast<T>(a)...);
  }
};

// CPUs: a work item computes `block` consecutive elements (the last one the rest). With Packs,
// a pack of elements at a time (the last pack of a block partly), every operand a pointer to
// contiguous values of out's type or a scalar, so that every element goes through the same
// vector code, whatever the block boundaries; with `streaming` (arrays larger than the cache)
// out is written with non-temporal stores from its first vector-aligned element on, which saves
// the read of every output line that an ordinary store makes. Without Packs, a plain loop over
// the block, which the compiler vectorises where f allows (contiguous operands, given as
// pointers).
template <bool Packs, class T, class F, class Ops>
struct TransformBlocks {
  T* out;
  F f;
  Ops ops;
  std::int64_t n, block;
  bool streaming;

  void operator()(std::int64_t b) const {
    const std::int64_t i0 = b * block, i1 = i0 + block < n ? i0 + block : n;
    if constexpr (Packs) {
#if UNISON_BACKENDS_HOST_VECTORS
      using V = backends::Pack<T>;
      constexpr int L = backends::lanes_v<V>;
      const auto partial = [&](std::int64_t i, int count) {
        backends::store_partial(out + i, ops.template packs_at<V>(f, i, count), count);
      };
      std::int64_t i = i0;
      if (streaming) {
        const auto addr = reinterpret_cast<std::uintptr_t>(out + i0);
        const std::int64_t head =
            std::int64_t((sizeof(V) - addr % sizeof(V)) % sizeof(V) / sizeof(T));
        if (head > 0) {
          partial(i0, int(head < i1 - i0 ? head : i1 - i0));
          i += head;
        }
        for (; i + L <= i1; i += L)
          backends::store_vector_streaming(out + i, ops.template packs_at<V>(f, i, L));
        backends::store_streaming_fence();
      } else {
        for (; i + L <= i1; i += L) backends::store(out + i, ops.template packs_at<V>(f, i, L));
      }
      if (i < i1) partial(i, int(i1 - i));
#endif
    } else {
      // Locals: stores of 8-bit values could alias the functor's members.
      T* const o = out;
      const F g = f;
      const Ops a = ops;
      UNISON_IMPL_IVDEP
      for (std::int64_t i = i0; i < i1; ++i) o[i] = static_cast<T>(a.at1(g, i));
    }
  }
};

// A View operand as a pointer to its contiguous data; a scalar as itself.
template <class A>
auto as_pointer(const A& a) {
  if constexpr (Kokkos::is_view_v<A>) {
    return static_cast<typename A::value_type*>(a.data());
  } else {
    return a;
  }
}

// Whether a View operand has unit stride (a scalar: always).
template <class A>
bool unit_stride(const A& a) {
  if constexpr (Kokkos::is_view_v<A>) return a.span() == 0 || a.stride(0) == 1;
  else return true;
}

// Whether a View operand holds exactly T (a scalar: always; it is converted).
template <class T, class A>
constexpr bool holds() {
  if constexpr (Kokkos::is_view_v<A>) return std::is_same_v<typename A::non_const_value_type, T>;
  else return true;
}

template <class A>
std::int64_t operand_bytes(const A& a) {
  if constexpr (Kokkos::is_view_v<A>)
    return std::int64_t(a.span() * sizeof(typename A::value_type));
  else return 0;
}

// The CPU launch of a rank-1 transform over contiguous operands: blocks of ElementwiseTuning's
// size, packs where f takes them. Returns false (launching nothing) where an operand is strided.
template <class Exec, class Out, class F, class... Args>
bool launch_blocks(const char* label, const Exec& exec, const Out& out, const F& f,
                   const Args&... args) {
  using T = typename Out::non_const_value_type;
  using Tuning = backends::ElementwiseTuning<Exec>;
  if (!unit_stride(out) || !(unit_stride(args) && ...)) return false;
  const std::int64_t n = out.extent(0);
  const std::int64_t threads = exec.concurrency();
  std::int64_t block =
      (n + threads * Tuning::blocks_per_thread - 1) / (threads * Tuning::blocks_per_thread);
  block = (block + 63) / 64 * 64;
  block = block < Tuning::min_block   ? Tuning::min_block
          : block > Tuning::max_block ? Tuning::max_block
                                      : block;
  const std::int64_t blocks = (n + block - 1) / block;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  auto ops = make_operands(as_pointer(args)...);
  constexpr bool packs =
      takes_packs<F>::value && backends::has_pack_v<T> && (holds<T, Args>() && ...);
  if constexpr (packs) {
    const std::int64_t bytes = operand_bytes(out) + (operand_bytes(args) + ... + std::int64_t(0));
    const bool streaming = bytes >= backends::host_streaming_bytes();
    Kokkos::parallel_for(
        label, Policy(exec, 0, blocks),
        TransformBlocks<true, T, F, decltype(ops)>{out.data(), f, ops, n, block, streaming});
  } else if constexpr (takes_packs<F>::value) {
    Kokkos::parallel_for(label, Policy(exec, 0, blocks),
                         TransformBlocks<false, T, AsType<T, F>, decltype(ops)>{
                             out.data(), {f}, ops, n, block, false});
  } else {
    Kokkos::parallel_for(
        label, Policy(exec, 0, blocks),
        TransformBlocks<false, T, F, decltype(ops)>{out.data(), f, ops, n, block, false});
  }
  return true;
}

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
      return a.span() == 0 ||
             (a.stride(0) == 1 &&
              reinterpret_cast<std::uintptr_t>(a.data()) % alignof(Chunk<V, K>) == 0);
    }
  }
}

template <int K, int U, class Exec, class Out, class F, class Ops>
void launch_1d_kernel(const char* label, const Exec& exec, const Out& out, const F& f,
                      const Ops& ops) {
  using Kernel = TransformKernel1D<K, U, Out, F, Ops>;
  const auto n = static_cast<std::int64_t>(out.extent(0));
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, Kernel::work_items(n)),
      Kernel{out, f, ops, n});
}

// Rank-1 launch: chunks of K with wide accesses when every array allows it, else one element
// at a time (any stride), K U elements per work item either way.
template <int K, int U, class Exec, class Out, class F, class... Args>
void launch_1d(const char* label, const Exec& exec, const Out& out, const F& f,
               const Args&... args) {
  if constexpr (takes_packs<F>::value) {
    using T = typename Out::non_const_value_type;
    launch_1d<K, U>(label, exec, out, AsType<T, std::remove_const_t<F>>{f}, args...);
  } else {
    if constexpr (K > 1) {
      if (chunkable<K>(out) && (chunkable<K>(args) && ...)) {
        launch_1d_kernel<K, U>(label, exec, out, f, make_operands(args...));
        return;
      }
    }
    launch_1d_kernel<1, K * U>(label, exec, out, f, make_operands(args...));
  }
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
    return arg.span_is_contiguous() && arg.span() == out.span() && arg.stride(0) == out.stride(0) &&
           arg.stride(1) == out.stride(1);
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
  // The CPU's blocks, unless a chunk shape is asked for (tests and probes).
  constexpr bool blocks = Tuning::blocks && Vector == 0 && Unroll == 0;
  if constexpr (Out::rank() == 1) {
    if constexpr (blocks) {
      if (launch_blocks(label, exec, out, f, args...)) return;
    }
    launch_1d<K, U>(label, exec, out, f, args...);
  } else {
    if (out.span_is_contiguous() && (flattens_like(args, out) && ...)) {
      if constexpr (blocks) {
        if (launch_blocks(label, exec, flat(out), f, flat(args)...)) return;
      }
      launch_1d<K, U>(label, exec, flat(out), f, flat(args)...);
    } else if constexpr (takes_packs<F>::value) {
      using T = typename Out::non_const_value_type;
      using Kernel = TransformKernel2D<Out, AsType<T, F>, Operands<Args...>>;
      Kokkos::parallel_for(
          label,
          Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
              exec, {0, 0},
              {static_cast<std::int64_t>(out.extent(0)), static_cast<std::int64_t>(out.extent(1))}),
          Kernel{out, {f}, make_operands(args...)});
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
  static_assert(
      impl::is_writable_view_v<Out>,
      "unison::transform: out must be a rank-1 or rank-2 View with a non-const value type");
  static_assert(impl::accessible_v<Exec, Out>,
                "unison::transform: out must be accessible from the execution space");
  static_assert(impl::all_operands_v<Exec, int(Out::rank()), Args...>,
                "unison::transform: every input must be an arithmetic scalar or a View of out's "
                "rank accessible from the execution space");
  std::array<const char*, sizeof...(Args)> arg_names{};
  static const char* const numbered[] = {"input 0", "input 1", "input 2", "input 3",
                                         "input 4", "input 5", "input 6", "input 7"};
  for (std::size_t k = 0; k < arg_names.size(); ++k)
    arg_names[k] = k < 8 ? numbered[k] : "an input";
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
