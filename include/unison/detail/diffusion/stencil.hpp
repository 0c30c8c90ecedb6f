#pragma once
// unison/detail/diffusion/stencil.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The arithmetic the diffusion kernels share: one cell (stencil), cells of a row of the CPU
// kernels (stencil_cells, stencil_row), the grid's orientation over a View's layout, and the layout
// of diffuse's buffers.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unison/backends/host/arithmetic.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/memory.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/diffusion_types.hpp>
#include <utility>

namespace unison::detail::diffusion {

// 4 x (a scalar or a host vector) as (x + x) + (x + x), for host code: exact, like 4 * x, and
// without a multiply, for which x86 cores take a microcode assist of a hundred or more cycles
// when it meets a subnormal operand (none for an addition). The jagged field's diffusion fronts
// hold subnormal numbers for thousands of steps (docs/tuning.md).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V four_times(V x) {
  const V two = x + x;
  return two + two;
}

// One cell: the Laplacian 4 c - sum of the neighbours, (up + down) + (left + right), and the next
// value c - coeff * lap. Device code: lap = fma(4, c, -sum) and next = fma(-coeff, lap, c), each
// rounded once. Host code: lap = (4 c) - sum by additions (the same value: 4 c is exact, unless it
// overflows) and next = c - (coeff * lap) with the product rounded first (rounded_alone), whatever
// the caller's -ffp-contract and -march.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void stencil(T c, T up, T down, T left, T right, T coeff, T& lap,
                                         T& next) {
  const T sum = (up + down) + (left + right);
  KOKKOS_IF_ON_DEVICE((lap = Kokkos::fma(T(4), c, -sum); next = Kokkos::fma(-coeff, lap, c);))
  KOKKOS_IF_ON_HOST((lap = four_times(c) - sum; next = c - backends::rounded_alone(coeff * lap);))
}

// stencil() on host vectors of cells: step(m, sum, lap, next) gives every lane stencil()'s lap and
// next, bit for bit, from the cells m and the sums of their neighbours: lap = 4 m - sum by
// additions, next = m - scale(lap), where backends::ExactScale gives coeff * lap (the IEEE
// product) without a multiply on a subnormal number, so that no floating-point instruction but
// additions meets one.
template <class T>
class VectorStep {
 public:
  using Vec = typename backends::HostVector<T>::type;
  explicit VectorStep(T coeff) : scale_(coeff) {}
  void operator()(const Vec& m, const Vec& sum, Vec& lap, Vec& next) const {
    lap = four_times(m) - sum;
    next = m - backends::rounded_alone(scale_(lap));
  }

 private:
  backends::ExactScale<T> scale_;
};

// The tiled kernel indexes a grid of rows x cols whose columns run along the View's contiguous
// axis: for LayoutLeft, grid (r, c) is element (c, r). The stencil is symmetric, so this
// changes nothing but the memory access pattern.
template <class V>
inline constexpr bool transposed_v = std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>;

template <bool Transposed, class V>
KOKKOS_FORCEINLINE_FUNCTION auto& cell(const V& v, std::int64_t r, std::int64_t c) {
  if constexpr (Transposed) return v(c, r);
  else return v(r, c);
}

// The step in memory between neighbouring grid columns of v: 1, known at compile time, when
// the grid's columns run along the View's contiguous axis (so that row loops vectorize on a CPU).
template <bool Transposed, class V>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t column_stride(const V& v) {
  using Unit = std::conditional_t<Transposed, Kokkos::LayoutLeft, Kokkos::LayoutRight>;
  if constexpr (std::is_same_v<typename V::array_layout, Unit>) return 1;
  else return Transposed ? v.stride(0) : v.stride(1);
}

// Cell c of stencil_cells, given its left and right neighbours: the new field to out and, if
// Lapl, the Laplacian to lout. (A function forced inline, not a lambda: GCC may leave a lambda as
// a call where many kernels share a file.)
template <class T, bool Up, bool Down, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cell(const T* up, const T* mid, const T* down,
                                              std::int64_t is, T* out, std::int64_t os, T* lout,
                                              std::int64_t ls, std::int64_t c, T left, T right,
                                              T coeff) {
  T lap, v;
  stencil<T>(mid[c * is], Up ? up[c * is] : T(0), Down ? down[c * is] : T(0), left, right, coeff,
             lap, v);
  out[c * os] = v;
  if constexpr (Lapl) lout[c * ls] = lap;
}

// n consecutive cells of a grid row, for the CPU kernels: from the row `mid` and the rows `up`
// and `down` (all with column stride `is`; Up / Down false: the row is outside the field, its
// cells 0), the new field to out (stride os) and, if Lapl, the Laplacian to lout (stride ls).
// left_edge / right_edge: the first / last cell has no neighbour on that side (the field's edge:
// it counts as 0); otherwise the cell one stride before / after the run is read. Each run of
// cells is one vectorizable loop.
// The Laplacian, which no later step reads, is written with non-temporal stores where the columns
// are contiguous (backends::store_streaming, in aligned chunks of K cells), so that the caches
// keep the fields; the caller ends its work item with backends::store_streaming_fence(). With
// Stream false it is written with ordinary stores (the plain reference's row kernel).
template <class T, int K, bool Up, bool Down, bool Lapl, bool Stream = true>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cells(const T* KOKKOS_RESTRICT up,
                                               const T* KOKKOS_RESTRICT mid,
                                               const T* KOKKOS_RESTRICT down,
                                               std::int64_t in_stride, T* KOKKOS_RESTRICT out,
                                               std::int64_t out_stride, T* KOKKOS_RESTRICT lout,
                                               std::int64_t lapl_stride, std::int64_t n,
                                               bool left_edge, bool right_edge, T coeff) {
  if (n <= 0) return;
  std::int64_t begin = 0, end = n;  // the cells left for the loops below
  if (left_edge) {
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride, 0,
                                    T(0), n == 1 && right_edge ? T(0) : mid[in_stride], coeff);
    begin = 1;
  }
  if (right_edge && n - 1 >= begin) {
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride,
                                    n - 1, mid[(n - 2) * in_stride], T(0), coeff);
    end = n - 1;
  }
  std::int64_t c = begin;
  if (K > 1 && in_stride == 1 && out_stride == 1 && (!Lapl || lapl_stride == 1)) {
    // Cells K at a time from the first where the Laplacian (else the new field) is K-aligned.
    constexpr std::uintptr_t bytes = K * sizeof(T);
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>((Lapl ? lout : out) + begin);
    std::int64_t aligned = begin + std::int64_t((bytes - addr % bytes) % bytes / sizeof(T));
    if (aligned > end) aligned = end;
    for (; c < aligned; ++c)
      stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride,
                                      c, mid[(c - 1) * in_stride], mid[(c + 1) * in_stride], coeff);
    if constexpr (backends::host_vectors) {
      const VectorStep<T> step(coeff);  // stencil() on vectors, without subnormal assists
      for (; c + K <= end; c += K) {
        // Host vectors of K cells: the values of stencil() per cell, to the bit.
        using Vec = typename backends::HostVector<T>::type;
        const Vec zero = {}, m = backends::load_vector(mid + c);
        const Vec u = Up ? backends::load_vector(up + c) : zero;
        const Vec d = Down ? backends::load_vector(down + c) : zero;
        const Vec l = backends::load_vector(mid + c - 1);
        const Vec r = backends::load_vector(mid + c + 1);
        Vec lap, next;
        step(m, (u + d) + (l + r), lap, next);
        backends::store_vector(out + c, next);
        if constexpr (Lapl && Stream) backends::store_vector_streaming(lout + c, lap);
        else if constexpr (Lapl) backends::store_vector(lout + c, lap);
      }
    } else {
      for (; c + K <= end; c += K) {
        Chunk<T, K> laps;
        UNISON_DETAIL_IVDEP
        for (int e = 0; e < K; ++e) {
          T v;
          stencil<T>(mid[c + e], Up ? up[c + e] : T(0), Down ? down[c + e] : T(0), mid[c + e - 1],
                     mid[c + e + 1], coeff, laps.v[e], v);
          out[c + e] = v;
        }
        if constexpr (Lapl && Stream)
          backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(lout + c), laps);
        else if constexpr (Lapl)
          for (int e = 0; e < K; ++e) lout[c + e] = laps.v[e];
      }
    }
  }
  UNISON_DETAIL_IVDEP
  for (; c < end; ++c)
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride, c,
                                    mid[(c - 1) * in_stride], mid[(c + 1) * in_stride], coeff);
}

// stencil_cells with (Up, Down) chosen at run time.
template <class T, int K, bool Lapl, bool Stream = true>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cells(bool u, bool d, const T* up, const T* mid,
                                               const T* down, std::int64_t in_stride, T* out,
                                               std::int64_t out_stride, T* lout,
                                               std::int64_t lapl_stride, std::int64_t n,
                                               bool left_edge, bool right_edge, T coeff) {
  if (u && d)
    stencil_cells<T, K, true, true, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                  lapl_stride, n, left_edge, right_edge, coeff);
  else if (u)
    stencil_cells<T, K, true, false, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                   lapl_stride, n, left_edge, right_edge, coeff);
  else if (d)
    stencil_cells<T, K, false, true, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                   lapl_stride, n, left_edge, right_edge, coeff);
  else
    stencil_cells<T, K, false, false, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                    lapl_stride, n, left_edge, right_edge, coeff);
}

// One whole grid row r of `cols` cells (the `streaming` CPU kernels): stencil_cells with both
// edges, the rows above and below read where rows r - 1 and r + 1 are in a field of `rows` rows.
template <class T, int K, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_row(std::int64_t r, std::int64_t rows, const T* up,
                                             const T* mid, const T* down, std::int64_t in_stride,
                                             T* out, std::int64_t out_stride, T* lout,
                                             std::int64_t lapl_stride, std::int64_t cols, T coeff) {
  stencil_cells<T, K, Lapl>(r > 0, r + 1 < rows, up, mid, down, in_stride, out, out_stride, lout,
                            lapl_stride, cols, true, true, coeff);
}

// Cells per non-temporal store of the CPU row kernels.
template <class T>
inline constexpr int host_chunk_v = backends::host_stream_bytes / int(sizeof(T)) > 1
                                        ? backends::host_stream_bytes / int(sizeof(T))
                                        : 1;

// How a CPU row kernel deals `rows` (> 0) grid rows to exec's threads: `items` work items, one
// a thread, of `per_item` whole rows each (the last may have fewer).
struct RowBlocks {
  std::int64_t per_item, items;
};
template <class Exec>
RowBlocks row_blocks(const Exec& exec, std::int64_t rows) {
  const std::int64_t threads = exec.concurrency() < rows ? exec.concurrency() : rows;
  const std::int64_t per_item = (rows + threads - 1) / threads;
  return {per_item, (rows + per_item - 1) / per_item};
}

// The rows [r0, r1) a CPU row kernel's work item `item` owns, of `rows` rows in blocks of
// per_item.
KOKKOS_INLINE_FUNCTION void owned_rows(std::int64_t item, std::int64_t per_item, std::int64_t rows,
                                       std::int64_t& r0, std::int64_t& r1) {
  r0 = item * per_item;
  r1 = r0 + per_item < rows ? r0 + per_item : rows;
}

// The buffers diffuse() ping-pongs between: f itself when it is contiguous, and one more of its
// layout (LayoutRight for strided fields, which are copied in and out).
template <class F>
using diffusion_layout_t = typename DiffusionBuffer<F>::array_layout;

}  // namespace unison::detail::diffusion
