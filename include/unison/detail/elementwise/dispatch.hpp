#pragma once
// unison/detail/elementwise/dispatch.hpp: part of unison/transform.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). Rank-2 outputs (flattened where every
// operand allows it, else a 2-D kernel) and the checks and launch of every element-wise call.

#include <unison/detail/elementwise/launch_1d.hpp>

namespace unison::detail::elementwise {

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
auto as_rank1(const V& v) {
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
struct CallNames {
  const char* function;
  const char* kernel;
};

/// Checked launch shared by transform() and the named functions. Run-time checks: every View
/// operand has out's extents and does not partly overlap out; `arg_names` name the operands in
/// the messages. Vector (consecutive elements read at once) and Unroll (such chunks per work
/// item) of a rank-1 launch default to the backend's tuning; benchmarks set them to compare.
template <int Vector = 0, int Unroll = 0, class Exec, class Out, class F, class... Args>
void transform(CallNames names, const std::array<const char*, sizeof...(Args)>& arg_names,
               const Exec& exec, const Out& out, const F& f, const Args&... args) {
  check_output(names.function, "out", out);
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
        if (launch_blocks(label, exec, as_rank1(out), f, as_rank1(args)...)) return;
      }
      launch_1d<K, U>(label, exec, as_rank1(out), f, as_rank1(args)...);
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

// unison::transform's checks and call, in the backend's work shape (Vector = Unroll = 0) or a
// fixed one (TransformShape).
template <int Vector, int Unroll, class Exec, class Out, class F, class... Args>
void checked_transform(const Exec& exec, const Out& out, const F& f, const Args&... args) {
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
  detail::elementwise::transform<Vector, Unroll>(
      {"unison::transform", "unison::elementwise::transform"}, arg_names, exec, out, f, args...);
}

}  // namespace unison::detail::elementwise
