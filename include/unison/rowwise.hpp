#pragma once
/// \file unison/rowwise.hpp
/// The row-wise family (docs/workloads.md section 2, the tutorials' @guvectorize gufuncs): l2_norm
/// over the last axis of a matrix, and matmul_core, a batch of small matrix products.
///
/// Common contract (see unison/core.hpp): the execution space instance comes first, the work is
/// enqueued on it and the call returns without waiting; inputs are checked on the host before
/// anything runs, and a refused call writes nothing. Both functions are deterministic: the
/// same inputs on the same backend give bitwise the same outputs on every run. Kernels are
/// labelled "unison::rowwise::<name>".

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/impl/checks.hpp>
#include <unison/impl/chunk.hpp>

namespace unison {
namespace impl {

// One row's Euclidean norm per team thread. The row's sum of squares is split among the
// thread's vector lanes in a fixed way (lane l takes every lanes-th chunk of K consecutive
// elements, a 16-byte load each when the row is contiguous) and the lanes' sums are reduced in
// a fixed order: deterministic. Each lane keeps K partial sums (one per position in a chunk),
// independent chains that a CPU vectorizes and a GPU overlaps. float rows are summed in double,
// which can neither overflow nor lose a subnormal's square. double rows are summed in double;
// when that sum overflows or comes near underflow (elements beyond about 1e154, or a sum of
// squares below 2^53 times the smallest normal double, where subnormal squares lose digits),
// the row is summed again scaled by its largest magnitude, as BLAS's nrm2 does.
template <class V, class O>
struct L2Norm {
  using T = typename O::non_const_value_type;
  using Acc = double;
  static constexpr int K = 16 / sizeof(T);
  using C = Chunk<T, K>;
  V v;
  O out;
  std::int64_t rows, cols;
  int rows_per_team, lanes;
  bool contiguous;  // V.stride(1) == 1

  // sum over the row of f(x): lane `lane`'s share, in Acc.
  template <class F>
  KOKKOS_FUNCTION Acc lane_sum(std::int64_t r, int lane, const F& f) const {
    Acc part[K];
    for (int e = 0; e < K; ++e) part[e] = 0;
    std::int64_t first = 0;             // where the lanes' element-by-element tail starts
    if (contiguous && cols >= 2 * K) {  // (shorter rows: element by element)
      const T* row = &v(r, 0);
      const auto addr = reinterpret_cast<std::uintptr_t>(row);
      std::int64_t head = std::int64_t((sizeof(C) - addr % sizeof(C)) % sizeof(C) / sizeof(T));
      if (head > cols || addr % sizeof(T) != 0) head = cols;
      for (std::int64_t j = lane; j < head; j += lanes) part[0] += f(row[j]);
      const std::int64_t chunks = (cols - head) / K;
      const C* body = reinterpret_cast<const C*>(row + head);
      for (std::int64_t c = lane; c < chunks; c += lanes) {
        const C x = body[c];
        for (int e = 0; e < K; ++e) part[e] += f(x.v[e]);
      }
      first = head + chunks * K;
    }
    for (std::int64_t j = first + lane; j < cols; j += lanes) part[0] += f(v(r, j));
    Acc sum = 0;
    for (int e = 0; e < K; ++e) sum += part[e];
    return sum;
  }

  template <class Member, class F>
  KOKKOS_FUNCTION Acc row_sum(const Member& team, std::int64_t r, const F& f) const {
    Acc s = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int lane, Acc& acc) { acc += lane_sum(r, lane, f); }, s);
    return s;
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r0 = std::int64_t(team.league_rank()) * rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](int q) {
      const std::int64_t r = r0 + q;
      if (r >= rows) return;
      const Acc s = row_sum(team, r, [](T x) {
        const Acc y = Acc(x);
        return y * y;
      });
      Acc norm = Kokkos::sqrt(s);
      if constexpr (std::is_same_v<T, double>) {
        if (!Kokkos::isnan(s) && (Kokkos::isinf(s) || s < Kokkos::Experimental::norm_min_v<Acc> /
                                                              Kokkos::Experimental::epsilon_v<Acc>))
          norm = rescaled(team, r);
      }
      Kokkos::single(Kokkos::PerThread(team), [&] { out(r) = T(norm); });
    });
  }

  // max |v(r, j)| * sqrt(sum (v(r, j) / max)^2); 0 for an empty or all-zero row, inf when an
  // element is infinite.
  template <class Member>
  KOKKOS_FUNCTION Acc rescaled(const Member& team, std::int64_t r) const {
    Acc amax = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, cols),
        [&](std::int64_t j, Acc& m) {
          const Acc x = Kokkos::abs(Acc(v(r, j)));
          if (x > m) m = x;
        },
        Kokkos::Max<Acc>(amax));
    if (!(amax > 0)) return 0;
    if (Kokkos::isinf(amax)) return amax;
    const Acc s = row_sum(team, r, [amax](T x) {
      const Acc y = Acc(x) / amax;
      return y * y;
    });
    return amax * Kokkos::sqrt(s);
  }
};

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
// MatmulCore's. A pack's operands are gathered once (the batch stride apart), B's n x p of
// them kept in `bp` (n p <= max_np), and C scattered.
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

// CPUs: the norms of rows of floats, summed in double (exact squares, as L2Norm), `per_item`
// rows per work item. Short rows (fewer than two packs) a pack of rows at a time, one row per
// lane (gathered); long rows a pack of elements at a time, in four interleaved sums.
template <class VV, class OV>
struct L2NormFloatRows {
  using D = backends::Pack<double>;
  static constexpr int L = backends::lanes_v<D>;
  using F = backends::VectorN<float, L>;  // a D's worth of floats
  using FI = backends::IndexPack<D>;
  VV v;
  OV out;
  std::int64_t rows, cols, per_item;

  static bool fits(const VV& v) { return std::int64_t(v.stride(0)) < std::int64_t(INT32_MAX) / L; }

  void operator()(std::int64_t item) const {
    const std::int64_t r0 = item * per_item, r1 = r0 + per_item < rows ? r0 + per_item : rows;
    if (cols < 2 * L) {
      FI at = {};
      for (int e = 0; e < L; ++e) at[e] = e * int(v.stride(0));
      std::int64_t r = r0;
      for (; r + L <= r1; r += L) {
        const float* first = &v(r, 0);
        D acc = {};
        for (std::int64_t j = 0; j < cols; ++j) {
          F x;
          for (int e = 0; e < L; ++e) x[e] = first[at[e] + j];
          const D d = __builtin_convertvector(x, D);
          acc += d * d;
        }
        const D norm = backends::sqrt(acc);
        for (int e = 0; e < L; ++e) out(r + e) = float(norm[e]);
      }
      for (; r < r1; ++r) {
        double acc = 0;
        for (std::int64_t j = 0; j < cols; ++j) acc += double(v(r, j)) * double(v(r, j));
        out(r) = float(Kokkos::sqrt(acc));
      }
    } else {
      for (std::int64_t r = r0; r < r1; ++r) {
        const float* row = &v(r, 0);
        D acc[4] = {};
        std::int64_t j = 0;
        for (; j + 4 * L <= cols; j += 4 * L)
          for (int u = 0; u < 4; ++u) {
            const D x = __builtin_convertvector(backends::load<F>(row + j + u * L), D);
            acc[u] += x * x;
          }
        for (; j < cols; j += L) {
          const D x = __builtin_convertvector(
              backends::load_partial<F>(row + j, cols - j < L ? int(cols - j) : L), D);
          acc[0] += x * x;
        }
        const D sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        double s = 0;
        for (int e = 0; e < L; ++e) s += sum[e];
        out(r) = float(Kokkos::sqrt(s));
      }
    }
  }
};
#endif

// A CPU launch's share of `count` items per work item: about four work items per thread, a
// multiple of `quantum`.
inline std::int64_t items_of(std::int64_t count, std::int64_t threads, std::int64_t quantum) {
  std::int64_t per = (count + 4 * threads - 1) / (4 * threads);
  per = (per + quantum - 1) / quantum * quantum;
  return per > 0 ? per : quantum;
}

}  // namespace impl

/// out(i) = sqrt(sum over j of V(i, j)^2) for every row i of V (n x k): the Euclidean norm of
/// each row. V: a rank-2 View of float or double, any layout; out: a rank-1 View of the same
/// value type, length n, overwritten. Both accessible from `exec`. float rows are summed in
/// double (exact squares, no overflow); double rows too, and a row whose sum of squares
/// overflows or underflows is summed again scaled by its largest magnitude (so the norm is
/// right for elements from about 1e-300 to 1e300; all-zero rows are read twice). A row with a
/// NaN gives NaN; one with an infinity (and no NaN) gives inf; k = 0 gives zeros, like NumPy.
/// Asynchronous on `exec`; deterministic. Throws unison::invalid_argument when out's length is
/// not V's rows or out overlaps V. Kernel: "unison::rowwise::l2_norm".
template <class Exec, class VV, class OV>
void l2_norm(const Exec& exec, const VV& V, const OV& out) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::l2_norm: the first argument must be a Kokkos execution space");
  static_assert(Kokkos::is_view_v<VV> && VV::rank() == 2,
                "unison::l2_norm: V must be a rank-2 View (rows x their elements)");
  static_assert(
      Kokkos::is_view_v<OV> && OV::rank() == 1 && !std::is_const_v<typename OV::value_type>,
      "unison::l2_norm: out must be a rank-1 View with a non-const value type");
  using T = typename OV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> && std::is_same_v<typename VV::non_const_value_type, T>,
                "unison::l2_norm: V and out must hold the same floating-point type");
  static_assert(impl::accessible_v<Exec, VV> && impl::accessible_v<Exec, OV>,
                "unison::l2_norm: V and out must be accessible from the execution space");
  constexpr const char* fn = "unison::l2_norm";
  const std::int64_t rows = V.extent(0), cols = V.extent(1);
  impl::require(std::int64_t(out.extent(0)) == rows, fn, "out is ", out.extent(0), ", expected ",
                rows, " (V's rows; V is ", impl::extents_string(V), ")");
  impl::check_disjoint(fn, "out", out, "V", V);
  if (rows == 0) return;

  using Tuning = backends::RowwiseTuning<Exec>;
  if constexpr (Tuning::packs && std::is_same_v<T, float>) {
#if UNISON_BACKENDS_HOST_VECTORS
    if (V.stride(1) == 1 && cols > 0 && impl::L2NormFloatRows<VV, OV>::fits(V)) {
      const std::int64_t per = impl::items_of(rows, exec.concurrency(), 64);
      Kokkos::parallel_for("unison::rowwise::l2_norm",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec, 0, (rows + per - 1) / per),
                           impl::L2NormFloatRows<VV, OV>{V, out, rows, cols, per});
      return;
    }
#endif
  }
  // Lanes per row: a power of two, at most one per 16-byte chunk of the row, when the rows are
  // contiguous; else one (consecutive threads take consecutive rows).
  constexpr int per_chunk = impl::L2Norm<VV, OV>::K;
  int lanes = 1;
  if (V.stride(1) == 1)
    while (lanes * 2 <= Tuning::max_vector_length && lanes * 2 * per_chunk <= cols) lanes *= 2;
  const int threads = Tuning::team_lanes / lanes > 0 ? Tuning::team_lanes / lanes : 1;
  const int rows_per_team = threads * Tuning::rows_per_thread;
  const std::int64_t league = (rows + rows_per_team - 1) / rows_per_team;
  impl::require(league <= std::int64_t(INT32_MAX), fn, "V has ", rows,
                " rows, more than this backend's launch can cover");
  Kokkos::parallel_for(
      "unison::rowwise::l2_norm", Kokkos::TeamPolicy<Exec>(exec, int(league), threads, lanes),
      impl::L2Norm<VV, OV>{V, out, rows, cols, rows_per_team, lanes, V.stride(1) == 1});
}

/// l2_norm on out's default execution space instance.
template <class VV, class OV>
void l2_norm(const VV& V, const OV& out) {
  l2_norm(typename OV::execution_space(), V, out);
}

/// C(q) = A(q) B(q) for every q < b: a batch of small matrix products, A (b x m x n), B
/// (b x n x p), C (b x m x p), each product's terms added in ascending order in the value type.
/// A, B, C: rank-3 Views of float or double, any layout, accessible from `exec`; C is
/// overwritten (zeros when n = 0). Asynchronous on `exec`; deterministic. One work item per
/// row of each product, reading A(q)'s row and B(q) through the caches: made for the
/// small products of the tutorials' gufunc (4 x 4), not for large ones (matmul_reduce's tiled
/// kernel and KokkosBlas::gemm are). Throws unison::invalid_argument when the batch extents
/// differ, A's columns are not B's rows, C is not b x m x p, or C overlaps A or B. Kernel:
/// "unison::rowwise::matmul_core".
template <class Exec, class AV, class BV, class CV>
void matmul_core(const Exec& exec, const AV& A, const BV& B, const CV& C) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::matmul_core: the first argument must be a Kokkos execution space");
  static_assert(
      Kokkos::is_view_v<AV> && Kokkos::is_view_v<BV> && AV::rank() == 3 && BV::rank() == 3,
      "unison::matmul_core: A and B must be rank-3 Views (batch x rows x columns)");
  static_assert(
      Kokkos::is_view_v<CV> && CV::rank() == 3 && !std::is_const_v<typename CV::value_type>,
      "unison::matmul_core: C must be a rank-3 View with a non-const value type");
  using T = typename CV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> &&
                    std::is_same_v<typename AV::non_const_value_type, T> &&
                    std::is_same_v<typename BV::non_const_value_type, T>,
                "unison::matmul_core: A, B and C must hold the same floating-point type");
  static_assert(
      impl::accessible_v<Exec, AV> && impl::accessible_v<Exec, BV> && impl::accessible_v<Exec, CV>,
      "unison::matmul_core: A, B and C must be accessible from the execution space");
  constexpr const char* fn = "unison::matmul_core";
  const std::int64_t batch = A.extent(0), m = A.extent(1), n = A.extent(2), p = B.extent(2);
  impl::require(B.extent(0) == A.extent(0), fn, "A is ", impl::extents_string(A), " and B is ",
                impl::extents_string(B), ": the batch extents differ");
  impl::require(B.extent(1) == A.extent(2), fn, "A is ", impl::extents_string(A), " and B is ",
                impl::extents_string(B), ": A's columns must be B's rows");
  impl::require(std::int64_t(C.extent(0)) == batch && std::int64_t(C.extent(1)) == m &&
                    std::int64_t(C.extent(2)) == p,
                fn, "C is ", impl::extents_string(C), ", expected ", batch, "x", m, "x", p);
  impl::check_disjoint(fn, "C", C, "A", A);
  impl::check_disjoint(fn, "C", C, "B", B);
  const std::int64_t total = batch * m;
  if (total == 0 || p == 0) return;
  using Tuning = backends::RowwiseTuning<Exec>;
  if constexpr (Tuning::packs && backends::has_pack_v<T>) {
#if UNISON_BACKENDS_HOST_VECTORS
    if (impl::MatmulCoreBatches<AV, BV, CV>::fits(A, B, C)) {
      const std::int64_t per = impl::items_of(batch, exec.concurrency(), 64);
      Kokkos::parallel_for("unison::rowwise::matmul_core",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec, 0, (batch + per - 1) / per),
                           impl::MatmulCoreBatches<AV, BV, CV>{A, B, C, batch, m, n, p, per});
      return;
    }
#endif
  }
  const bool batch_fastest = C.stride(0) == 1 && batch > 1;
  if (total < std::int64_t(INT32_MAX) && n < std::int64_t(INT32_MAX) &&
      p < std::int64_t(INT32_MAX)) {
    Kokkos::parallel_for("unison::rowwise::matmul_core", Kokkos::RangePolicy<Exec>(exec, 0, total),
                         impl::MatmulCore<int, AV, BV, CV>{A, B, C, int(batch), int(m), int(n),
                                                           int(p), batch_fastest});
  } else {
    Kokkos::parallel_for(
        "unison::rowwise::matmul_core",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, total),
        impl::MatmulCore<std::int64_t, AV, BV, CV>{A, B, C, batch, m, n, p, batch_fastest});
  }
}

/// matmul_core on C's default execution space instance.
template <class AV, class BV, class CV>
void matmul_core(const AV& A, const BV& B, const CV& C) {
  matmul_core(typename CV::execution_space(), A, B, C);
}

}  // namespace unison
