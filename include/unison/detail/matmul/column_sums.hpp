#pragma once
// unison/detail/matmul/column_sums.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// Weighted column sums of a matrix, in blocks of rows then summed (the reassociated method's
// two passes, and the gemm method's sums of A.B); the sums that overflow are recomputed with a
// wider exponent.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unison/backends/host/pack.hpp>
#include <unison/detail/matmul/workspace.hpp>

namespace unison::detail::matmul {

// A double with a wider exponent: v * 2^(512 e), in which the column sums that overflowed
// (came out infinite or NaN from finite data: a partial sum, or a product s[p] B[p, j], beyond
// T's range while the exact sum need not be) are recomputed. Every product and partial sum stays
// inside double's range (|v| < 2^513), at a relative rounding of 2^-53 per term; terms more
// than 2^1022 times smaller than the sum so far lose their last bits (to at most 2^-1074 of
// it).
struct Wide {
  double v;
  int e;
};

// x with |v| in [2^-256, 2^256) (0, infinities and NaN as they are).
KOKKOS_INLINE_FUNCTION Wide wide_normal(Wide x) {
  if (x.v == 0 || !Kokkos::isfinite(x.v)) return x;
  while (Kokkos::fabs(x.v) >= 0x1p256) x.v *= 0x1p-512, ++x.e;
  while (Kokkos::fabs(x.v) < 0x1p-256) x.v *= 0x1p512, --x.e;
  return x;
}

// a * b, |v| in [2^-512, 2^512): neither overflows nor underflows.
KOKKOS_INLINE_FUNCTION Wide wide_times(Wide a, double b) {
  a = wide_normal(a);
  const Wide c = wide_normal(Wide{b, 0});
  return Wide{a.v * c.v, a.e + c.e};
}

// acc += t, |acc.v| < 2^512 after it, given |acc.v| < 2^512 before (infinities and NaN
// propagate as in double).
KOKKOS_INLINE_FUNCTION void wide_add(Wide& acc, Wide t) {
  if (t.v == 0) return;
  if (!Kokkos::isfinite(t.v) || !Kokkos::isfinite(acc.v)) {
    acc.v += t.v;
    return;
  }
  t = wide_normal(t);
  if (acc.v == 0) {
    acc = t;
    return;
  }
  for (; acc.e < t.e; ++acc.e) acc.v *= 0x1p-512;
  for (; t.e < acc.e; ++t.e) t.v *= 0x1p-512;
  acc.v += t.v;
  if (Kokkos::fabs(acc.v) >= 0x1p512) acc.v *= 0x1p-512, ++acc.e;
}

// x as a double: +-inf beyond its range, rounded (possibly to 0) below it.
KOKKOS_INLINE_FUNCTION double wide_value(Wide x) {
  if (x.v == 0 || !Kokkos::isfinite(x.v)) return x.v;
  for (; x.e > 0 && Kokkos::isfinite(x.v); --x.e) x.v *= 0x1p512;
  for (; x.e < 0 && x.v != 0; ++x.e) x.v *= 0x1p-512;
  return x.v;
}

// partial(r, c) = sum of w(p) * mat(p, c) over the rows p of block r ([r * rows_per, ...)),
// ascending; w(p) = 1 when `weighted` is false. A work item is one block and W consecutive
// columns; consecutive items take consecutive columns.
template <int W, class M, class Wt, class P>
struct ColumnPartials {
  using T = typename P::non_const_value_type;
  M mat;
  Wt w;
  P partial;
  bool weighted;
  std::int64_t rows, cols, rows_per, chunks;

  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    const std::int64_t r = item / chunks, c0 = item % chunks * W;
    const std::int64_t p0 = r * rows_per, p1 = p0 + rows_per < rows ? p0 + rows_per : rows;
    const int width = cols - c0 < W ? int(cols - c0) : W;
    if constexpr (backends::has_pack_v<T> && W % backends::pack_lanes_v<T> == 0 && W > 1) {
      // CPUs, rows with contiguous elements of type T: the chunk's columns in packs, added up
      // in registers over the block's rows (the same products and sums, lane by lane).
      if constexpr (std::is_same_v<typename M::non_const_value_type, T>) {
        if (mat.stride(1) == 1 && width == W) {
          using V = backends::Pack<T>;
          constexpr int L = backends::lanes_v<V>, N = W / L;
          V acc[N] = {};
          for (std::int64_t p = p0; p < p1; ++p) {
            const T* row = &mat(p, c0);
            if (weighted) {
              const T wp = T(w(p));
              for (int q = 0; q < N; ++q) acc[q] += wp * backends::load<V>(row + q * L);
            } else {
              for (int q = 0; q < N; ++q) acc[q] += backends::load<V>(row + q * L);
            }
          }
          for (int q = 0; q < N; ++q) backends::store(&partial(r, c0 + q * L), acc[q]);
          return;
        }
      }
    }
    T acc[W];
    for (int e = 0; e < W; ++e) acc[e] = T(0);
    if (width == W) {
      for (std::int64_t p = p0; p < p1; ++p) {
        const T wp = weighted ? T(w(p)) : T(1);
        for (int e = 0; e < W; ++e) acc[e] += wp * T(mat(p, c0 + e));
      }
    } else {
      for (std::int64_t p = p0; p < p1; ++p) {
        const T wp = weighted ? T(w(p)) : T(1);
        for (int e = 0; e < width; ++e) acc[e] += wp * T(mat(p, c0 + e));
      }
    }
    for (int e = 0; e < width; ++e) partial(r, c0 + e) = acc[e];
  }
};

// What SumPartials does with a column whose sum came out infinite or NaN: nothing (value types
// other than float and double).
struct NoRescue {
  static constexpr bool active = false;
  template <class Acc>
  KOKKOS_FUNCTION Acc operator()(std::int64_t, Acc acc) const {
    return acc;
  }
};

// The sum of mat's column c again, in Wide (rows ascending). With `ext` (the reassociated
// method's first pass) it goes there, ext(0, c) = v and ext(1, c) = e, and the infinite or NaN
// sum stays in the output (so that the second pass's sums that use it are recomputed too);
// without (the gemm method's column sums of A.B), it is the output, as a double.
template <class M, class E>
struct RescueColumn {
  static constexpr bool active = true;
  M mat;
  E ext;
  bool to_ext;
  KOKKOS_FUNCTION double operator()(std::int64_t c, double acc) const {
    Wide sum{0, 0};
    for (std::size_t p = 0; p < mat.extent(0); ++p) wide_add(sum, Wide{double(mat(p, c)), 0});
    if (!to_ext) return wide_value(sum);
    ext(0, c) = sum.v;
    ext(1, c) = double(sum.e);
    return acc;
  }
};

// The reassociated method's second pass again for column c: the sum over p of s(p) * mat(p, c)
// in Wide, where s(p) is the first pass's sum, or where that was infinite or NaN, its
// recomputation in ext (RescueColumn).
template <class M, class S, class E>
struct RescueWeighted {
  static constexpr bool active = true;
  M mat;
  S s;
  E ext;
  KOKKOS_FUNCTION double operator()(std::int64_t c, double) const {
    Wide sum{0, 0};
    for (std::size_t p = 0; p < mat.extent(0); ++p) {
      const double sp = s(p);
      const Wide w = Kokkos::isfinite(sp) ? Wide{sp, 0} : Wide{ext(0, p), int(ext(1, p))};
      wide_add(sum, wide_times(w, double(mat(p, c))));
    }
    return wide_value(sum);
  }
};

// out(c) = sum over r of partial(r, c), ascending r; where that is infinite or NaN, `rescue`
// says what out(c) is instead.
template <class P, class O, class R>
struct SumPartials {
  using T = typename O::non_const_value_type;
  P partial;
  O out;
  R rescue;
  KOKKOS_FUNCTION void operator()(std::int64_t c) const {
    T acc = 0;
    for (std::size_t r = 0; r < partial.extent(0); ++r) acc += partial(r, c);
    if constexpr (R::active) {
      if (!Kokkos::isfinite(acc)) acc = T(rescue(c, double(acc)));
    }
    out(c) = acc;
  }
};

// out(c) = sum over p of w(p) * mat(p, c) (w = 1 unless weighted): partial sums over blocks of
// `rows_per` rows into `partial` (column_blocks(rows, rows_per) x cols), W columns a work item,
// then their sum, with `rescue` for the columns where it is infinite or NaN; two kernels named
// "unison::matmul_reduce::<what>_partials" and "..._sum".
template <int W, class Exec, class M, class Wt, class P, class O, class R>
void weighted_column_sums(const Exec& exec, const std::string& what, const M& mat, const Wt& w,
                          bool weighted, const P& partial, const O& out, const R& rescue,
                          std::int64_t rows_per) {
  const std::int64_t rows = mat.extent(0), cols = mat.extent(1);
  const std::int64_t blocks = partial.extent(0), chunks = (cols + W - 1) / W;
  Kokkos::parallel_for(
      "unison::matmul_reduce::" + what + "_partials",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, blocks * chunks),
      ColumnPartials<W, M, Wt, P>{mat, w, partial, weighted, rows, cols, rows_per, chunks});
  Kokkos::parallel_for("unison::matmul_reduce::" + what + "_sum",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, cols),
                       SumPartials<P, O, R>{partial, out, rescue});
}

}  // namespace unison::detail::matmul
