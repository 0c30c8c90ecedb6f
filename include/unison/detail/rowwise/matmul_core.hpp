#pragma once
// unison/detail/rowwise/matmul_core.hpp: part of unison/rowwise.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// matmul_core's kernels: a row of one product per work item (any backend), packs of batch
// entries (CPUs).

#include <unison/detail/rowwise/l2_norm.hpp>

namespace unison::detail::rowwise {

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

// CPUs: the products of a block of `per_item` batch entries, each element of C the same
// ascending fused multiply-adds as MatmulCore's, the operands asked for ahead
// (backends::prefetch_ahead). Where `group` > 0 (small products stored whole, one entry after
// the other: group_of), `group` consecutive entries' A, B and C each fill at most one pack: A and
// B loaded as they lie, and for each l a permute of each puts A(q, i, l) and B(q, l, j) in the
// lane of C(q, i, j); C stored as it lies (with non-temporal stores where `streaming` and C's
// packs are aligned). Else a pack of consecutive entries at a time (lane e: entry q + e): a
// pack's operands gathered once (the batch stride apart), B's n x p of them kept in `bp`
// (n p <= max_np), and C scattered.
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
  int group;       // entries per pack (group_of), or 0: gathers
  bool streaming;  // C written with non-temporal stores where its packs are aligned

  // The entries whose A, B and C each fit one pack (m n, n p and m p elements, the largest at
  // most L): L over the largest, where every entry's elements are contiguous and row-major and
  // the entries follow one another (LayoutRight); else (n = 0 included) 0.
  static int group_of(const A& a, const B& b, const C& c) {
    const std::int64_t m = a.extent(1), n = a.extent(2), p = b.extent(2);
    std::int64_t most = m * n > n * p ? m * n : n * p;
    most = m * p > most ? m * p : most;
    const bool packed =
        a.stride(2) == 1 && std::int64_t(a.stride(1)) == n && std::int64_t(a.stride(0)) == m * n &&
        b.stride(2) == 1 && std::int64_t(b.stride(1)) == p && std::int64_t(b.stride(0)) == n * p &&
        c.stride(2) == 1 && std::int64_t(c.stride(1)) == p && std::int64_t(c.stride(0)) == m * p;
    return packed && m * n > 0 && m * p > 0 && most <= L ? int(L / most) : 0;
  }

  // Whether the batch can go in lanes: the strides between entries fit 32-bit indices, and B's
  // packs fit in bp.
  static bool fits(const A& a, const B& b, const C& c) {
    const std::int64_t most = std::int64_t(INT32_MAX) / L;
    return b.extent(1) * b.extent(2) <= max_np && std::int64_t(a.stride(0)) < most &&
           std::int64_t(b.stride(0)) < most && std::int64_t(c.stride(0)) < most;
  }

  void operator()(std::int64_t item) const {
    const std::int64_t q1 = (item + 1) * per_item < batch ? (item + 1) * per_item : batch;
    if (group > 0) {
      in_packs(item * per_item, q1);
      return;
    }
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

  // Entries [q0, q1), `group` at a time (see above), the last few one by one.
  void in_packs(std::int64_t q0, std::int64_t q1) const {
    const int mn = int(m * n), np = int(n * p), mp = int(m * p), nn = int(n);
    const int an = group * mn, bn = group * np, cn = group * mp;
    // For each l, the lane of A(s, i, l) and of B(s, l, j) for the lane of C(s, i, j), entry s
    // of the group (lanes past the group's C: lane 0). (Built in arrays and copied: GCC 12 at -O3
    // fails on 64-bit ARM, out of reload registers, writing the lanes of the double packs' index
    // vectors one by one.)
    I ia[L] = {}, ib[L] = {};
    for (int l = 0; l < nn; ++l) {
      std::int32_t la[L], lb[L];
      for (int e = 0; e < L; ++e) {
        const int s = e / mp, i = e % mp / int(p), j = e % mp % int(p);
        la[e] = e < cn ? s * mn + i * nn + l : 0;
        lb[e] = e < cn ? s * np + l * int(p) + j : 0;
      }
      __builtin_memcpy(&ia[l], la, sizeof la);
      __builtin_memcpy(&ib[l], lb, sizeof lb);
    }
    const T* pa = a.data();
    const T* pb = b.data();
    T* pc = c.data();
    const bool whole =
        cn == L && streaming && reinterpret_cast<std::uintptr_t>(pc + q0 * mp) % sizeof(V) == 0;
    std::int64_t q = q0;
    for (; q + group <= q1; q += group) {
      const T* qa = pa + q * mn;
      const T* qb = pb + q * np;
      backends::prefetch_ahead(qa, std::size_t(an) * sizeof(T));
      backends::prefetch_ahead(qb, std::size_t(bn) * sizeof(T));
      const V av = an == L ? backends::load<V>(qa) : backends::load_partial<V>(qa, an);
      const V bv = bn == L ? backends::load<V>(qb) : backends::load_partial<V>(qb, bn);
      V acc = {};
      for (int l = 0; l < nn; ++l)
        acc = backends::fma(backends::permute(av, ia[l]), backends::permute(bv, ib[l]), acc);
      if (whole) backends::store_vector_streaming(pc + q * mp, acc);
      else if (cn == L) backends::store(pc + q * mp, acc);
      else backends::store_partial(pc + q * mp, acc, cn);
    }
    if (whole) backends::store_streaming_fence();
    for (; q < q1; ++q)
      for (std::int64_t i = 0; i < m; ++i)
        MatmulCore<std::int64_t, A, B, C>{a, b, c, batch, m, n, p, false}(q * m + i);
  }
};

}  // namespace unison::detail::rowwise
