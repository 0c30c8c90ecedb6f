#pragma once
// unison/detail/elementwise/kernel_1d.hpp: part of unison/transform.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). The 1-D kernel: chunks of K elements, U
// chunks per work item in warp-sized groups (GPUs).

#include <unison/detail/elementwise/operands.hpp>

namespace unison::detail::elementwise {

// out(i) = f(operands at i) for i < n, in chunks of K consecutive elements (K > 1: one wide
// load or store per operand, which needs contiguous, aligned arrays), U chunks per work item.
// With U > 1 the group of G items c / G (ElementwiseTuning::group: a GPU's warp) owns G U
// consecutive chunks and item c takes every G-th of them, so each pass is a coalesced access,
// and all U results are computed (their loads issued) before the first store.
template <int K, int U, int G, class Out, class F, class Ops>
struct TransformKernel1D {
  static constexpr std::int64_t width = G;
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

}  // namespace unison::detail::elementwise
