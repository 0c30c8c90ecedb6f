#pragma once
// unison/detail/rowwise/l2_norm.hpp: part of unison/rowwise.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// l2_norm's kernels: a row per thread or team (any backend), packs of rows or of a row's
// elements summed in double (CPUs).

#include <unison/detail/rowwise/work_items.hpp>

namespace unison::detail::rowwise {

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

// CPUs: the norms of rows of floats, summed in double (exact squares, as L2Norm), `per_item`
// rows per work item. Short rows (fewer than two packs) a pack of rows at a time, one row per
// lane (gathered, the pack's rows asked for ahead: backends::prefetch_ahead); long rows a pack
// of elements at a time, in four interleaved sums.
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
        backends::prefetch_ahead(first, L * std::size_t(v.stride(0)) * sizeof(float));
        D acc = {};
        for (std::int64_t j = 0; j < cols; ++j) {
          F x;
          for (int e = 0; e < L; ++e) x[e] = first[at[e] + j];
          const D d = backends::convert<D>(x);
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
            const D x = backends::convert<D>(backends::load<F>(row + j + u * L));
            acc[u] += x * x;
          }
        for (; j < cols; j += L) {
          const D x = backends::convert<D>(
              backends::load_partial<F>(row + j, cols - j < L ? int(cols - j) : L));
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

}  // namespace unison::detail::rowwise
