#pragma once
// unison/detail/rowwise/matmul_core.hpp: part of unison/rowwise.hpp, which includes it after
// the family's public types (not a header to include on its own).
// matmul_core's kernels: a row of one product per work item (any backend), packs of batch
// entries (CPUs).

#include <unison/detail/rowwise/l2_norm.hpp>

namespace unison::detail {

// Row i of C(q) = A(q) B(q), one work item per row of one product: C(q, i, j) = sum over l of
// A(q, i, l) B(q, l, j), l ascending. Consecutive items take consecutive batch entries when C's
// batch axis is contiguous (LayoutLeft: coalesced on a GPU), else consecutive rows of one
// product. Index: int when there are fewer than 2^31 rows (GPU integer division is much cheaper
// in 32 bits), else int64.
template <class Index, class A, class B, class C>
struct MatmulCore {
  using T = typename C::non_const_value_type;
  A a;
  B b;
  C c;
  Index batch, m, n, p;
  bool batch_fastest;

  KOKKOS_FUNCTION void operator()(Index e) const {
    const Index q = batch_fastest ? e % batch : e / m;
    const Index i = batch_fastest ? e / batch : e % m;
    for (Index j = 0; j < p; ++j) {
      T acc = 0;
      for (Index l = 0; l < n; ++l) acc = backends::fma(T(a(q, i, l)), T(b(q, l, j)), acc);
      c(q, i, j) = acc;
    }
  }
};

#if UNISON_BACKENDS_HOST_VECTORS
// CPUs: the products of a block of `per_item` batch entries, a pack of consecutive entries at a
// time (lane e: entry q + e), each element of C the same ascending fused multiply-adds as
// MatmulCore's. A pack's operands are gathered once (the batch stride apart; the pack's A and B
// asked for ahead, backends::prefetch_ahead), B's n x p of them kept in `bp` (n p <= max_np),
// and C scattered.
template <class A, class B, class C>
struct MatmulCoreBatches {
  using T = typename C::non_const_value_type;
  using V = backends::Pack<T>;
  using I = backends::IndexPack<V>;
  static constexpr int L = backends::lanes_v<V>;
  static constexpr int max_np = 64;
  A a;
  B b;
  C c;
  std::int64_t batch, m, n, p, per_item;

  // Whether the batch can go in lanes: the strides between entries fit 32-bit indices, and B's
  // packs fit in bp.
  static bool fits(const A& a, const B& b, const C& c) {
    const std::int64_t most = std::int64_t(INT32_MAX) / L;
    return b.extent(1) * b.extent(2) <= max_np && std::int64_t(a.stride(0)) < most &&
           std::int64_t(b.stride(0)) < most && std::int64_t(c.stride(0)) < most;
  }

  void operator()(std::int64_t item) const {
    const std::int64_t q1 = (item + 1) * per_item < batch ? (item + 1) * per_item : batch;
    I lane = {};
    for (int e = 0; e < L; ++e) lane[e] = e;
    const I ia = lane * int(a.stride(0)), ib = lane * int(b.stride(0)),
            ic = lane * int(c.stride(0));
    V bp[max_np];
    for (std::int64_t q = item * per_item; q < q1; q += L) {
      if (q1 - q < L) {  // the last entries, one at a time
        for (std::int64_t e = q; e < q1; ++e)
          for (std::int64_t i = 0; i < m; ++i)
            MatmulCore<std::int64_t, A, B, C>{a, b, c, batch, m, n, p, false}(e * m + i);
        break;
      }
      backends::prefetch_ahead(a.data() + q * a.stride(0), L * a.stride(0) * sizeof(*a.data()));
      backends::prefetch_ahead(b.data() + q * b.stride(0), L * b.stride(0) * sizeof(*b.data()));
      for (std::int64_t l = 0; l < n; ++l)
        for (std::int64_t j = 0; j < p; ++j) bp[l * p + j] = backends::gather<V>(&b(q, l, j), ib);
      for (std::int64_t i = 0; i < m; ++i) {
        V ap[max_np];
        for (std::int64_t l = 0; l < n && l < max_np; ++l)
          ap[l] = backends::gather<V>(&a(q, i, l), ia);
        for (std::int64_t j = 0; j < p; ++j) {
          V acc = {};
          for (std::int64_t l = 0; l < n; ++l)
            acc = backends::fma(l < max_np ? ap[l] : backends::gather<V>(&a(q, i, l), ia),
                                bp[l * p + j], acc);
          backends::scatter(&c(q, i, j), ic, acc);
        }
      }
    }
  }
};

#endif

}  // namespace unison::detail
