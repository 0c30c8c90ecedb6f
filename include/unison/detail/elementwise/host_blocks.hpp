#pragma once
// unison/detail/elementwise/host_blocks.hpp: part of unison/transform.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). The CPU kernel: a block of consecutive
// elements per work item, in packs where the operation takes them, written with non-temporal stores
// past the cache.

#include <unison/detail/elementwise/kernel_1d.hpp>

namespace unison::detail::elementwise {

// An operation written once for every value type V (a template operator() taking V for each
// operand and returning V; unison::ops' functors): it declares `using unison_packs = void;`.
// Its operands are converted to out's value type first, and on CPUs it is called with packs
// (unison/backends/host/pack.hpp), a register of consecutive elements at a time.
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
// vector code, whatever the block boundaries, each pointer operand's data asked for
// backends::host_prefetch_bytes ahead (backends::prefetch_ahead); with `streaming` (arrays
// larger than the cache) out is written with non-temporal stores from its first vector-aligned
// element on, which saves the read of every output line that an ordinary store makes. Without
// Packs, a plain loop over the block, which the compiler vectorises where f allows (contiguous
// operands, given as pointers).
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
        for (; i + L <= i1; i += L) {
          ops.prefetch(i);
          backends::store_vector_streaming(out + i, ops.template packs_at<V>(f, i, L));
        }
        backends::store_streaming_fence();
      } else {
        for (; i + L <= i1; i += L) {
          ops.prefetch(i);
          backends::store(out + i, ops.template packs_at<V>(f, i, L));
        }
      }
      if (i < i1) partial(i, int(i1 - i));
    } else {
      // Locals: stores of 8-bit values could alias the functor's members.
      T* const o = out;
      const F g = f;
      const Ops a = ops;
      UNISON_DETAIL_IVDEP
      for (std::int64_t i = i0; i < i1; ++i) o[i] = static_cast<T>(a.at1(g, i));
    }
  }
};

}  // namespace unison::detail::elementwise
