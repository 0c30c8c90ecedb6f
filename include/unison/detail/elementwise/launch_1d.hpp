#pragma once
// unison/detail/elementwise/launch_1d.hpp: part of unison/transform.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). The choice of 1-D kernel for a call: chunk
// width, chunks per item, packs or plain loops.

#include <unison/detail/elementwise/host_blocks.hpp>

namespace unison::detail::elementwise {

// A View operand as a pointer to its contiguous data; a scalar as itself.
template <class A>
auto as_pointer(const A& a) {
  if constexpr (Kokkos::is_view_v<A>) {
    return static_cast<typename A::value_type*>(a.data());
  } else {
    return a;
  }
}

// Whether a View operand's elements are consecutive in memory, so that a pointer to its first
// one reaches them all (a scalar: always). Not a.span() == 0 as the test: Kokkos reports a span
// of 0 for a View of stride 0 (a broadcast), whose n elements are one.
template <class A>
bool unit_stride(const A& a) {
  if constexpr (Kokkos::is_view_v<A>) return a.extent(0) <= 1 || a.stride(0) == 1;
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
    const bool streaming = backends::host_streams(bytes);
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
      return a.extent(0) == 0 ||
             (unit_stride(a) &&
              reinterpret_cast<std::uintptr_t>(a.data()) % alignof(Chunk<V, K>) == 0);
    }
  }
}

template <int K, int U, class Exec, class Out, class F, class Ops>
void launch_1d_kernel(const char* label, const Exec& exec, const Out& out, const F& f,
                      const Ops& ops) {
  using Kernel = TransformKernel1D<K, U, backends::ElementwiseTuning<Exec>::group, Out, F, Ops>;
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

}  // namespace unison::detail::elementwise
