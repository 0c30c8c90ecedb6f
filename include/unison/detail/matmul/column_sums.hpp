#pragma once
// unison/detail/matmul/column_sums.hpp: part of unison/matmul.hpp, which includes it after
// the family's public types (not a header to include on its own).
// Weighted column sums of a matrix, in blocks of rows then summed (the reassociated method's
// two passes, and the gemm method's sums of A.B).

#include <cstdint>
#include <utility>
#include <string>
#include <type_traits>
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>
#include <unison/backends/device_info.hpp>
#include <unison/backends/host_blas.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail {

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
#if UNISON_BACKENDS_HOST_VECTORS
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
#endif
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

// out(c) = sum over r of partial(r, c), ascending r.
template <class P, class O>
struct SumPartials {
  using T = typename O::non_const_value_type;
  P partial;
  O out;
  KOKKOS_FUNCTION void operator()(std::int64_t c) const {
    T acc = 0;
    for (std::size_t r = 0; r < partial.extent(0); ++r) acc += partial(r, c);
    out(c) = acc;
  }
};

template <class Exec>
std::int64_t column_blocks(std::int64_t rows) {
  const std::int64_t per = backends::MatmulTuning<Exec>::column_rows;
  return rows == 0 ? 1 : rows / per + (rows % per != 0 ? 1 : 0);
}

// out(c) = sum over p of w(p) * mat(p, c) (w = 1 unless weighted): partial sums over blocks of
// rows into `partial` (column_blocks(rows) x cols), then their sum; two kernels named
// "unison::matmul_reduce::<what>_partials" and "..._sum".
template <class Exec, class M, class Wt, class P, class O>
void weighted_column_sums(const Exec& exec, const std::string& what, const M& mat, const Wt& w,
                          bool weighted, const P& partial, const O& out) {
  using Tuning = backends::MatmulTuning<Exec>;
  constexpr int W = Tuning::column_chunk;
  const std::int64_t rows = mat.extent(0), cols = mat.extent(1);
  const std::int64_t blocks = partial.extent(0), chunks = (cols + W - 1) / W;
  Kokkos::parallel_for(
      "unison::matmul_reduce::" + what + "_partials",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, blocks * chunks),
      ColumnPartials<W, M, Wt, P>{mat, w, partial, weighted, rows, cols,
                                  std::int64_t(Tuning::column_rows), chunks});
  Kokkos::parallel_for("unison::matmul_reduce::" + what + "_sum",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, cols),
                       SumPartials<P, O>{partial, out});
}

}  // namespace unison::detail
