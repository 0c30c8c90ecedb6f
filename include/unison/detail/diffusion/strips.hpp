#pragma once
// unison/detail/diffusion/strips.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// `streaming` on GPUs: a thread walks down a strip of rows of one column chunk, one step or two
// per pass.

#include <unison/detail/diffusion/stencil.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

// The strip kernels' Laplacian stores: cells [c0, c0 + K) of row r of lapl; one streaming wide
// access when the chunk is whole, else cell by cell.
template <bool Transposed, class L, class T, int K>
KOKKOS_FORCEINLINE_FUNCTION void store_laplacian(const L& lapl, std::int64_t r, std::int64_t c0,
                                                 std::int64_t cols, bool full,
                                                 const Chunk<T, K>& lap) {
  if (full && K > 1) {
    backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(&cell<Transposed>(lapl, r, c0)), lap);
    return;
  }
  for (int e = 0; e < K && c0 + e < cols; ++e) cell<Transposed>(lapl, r, c0 + e) = lap.v[e];
}

// The strip kernels' stores: cells [c0, c0 + K) of row r of next and, if asked, lapl; one
// wide access each (streaming for lapl) when the chunk is whole, else cell by cell.
template <bool Transposed, class FN, class L, class T, int K>
KOKKOS_FORCEINLINE_FUNCTION void store_chunk(const FN& next, const L& lapl, bool write_lapl,
                                             std::int64_t r, std::int64_t c0, std::int64_t cols,
                                             bool full, const Chunk<T, K>& v,
                                             const Chunk<T, K>& lap) {
  if (full && K > 1) *reinterpret_cast<Chunk<T, K>*>(&cell<Transposed>(next, r, c0)) = v;
  else
    for (int e = 0; e < K && c0 + e < cols; ++e) cell<Transposed>(next, r, c0 + e) = v.v[e];
  if (write_lapl) store_laplacian<Transposed>(lapl, r, c0, cols, full, lap);
}

// `streaming` on GPUs: a thread per chunk of K consecutive cells of a grid row (K * sizeof(T) =
// StaticSchedule::strip_chunk_bytes where every array allows 16-byte accesses, else 1), walking
// down a strip of `strip` rows. The rows above, at and below stay in registers, with the next
// RowsAhead - 1 rows already loaded: each row costs one new chunk load (RowsAhead rows ahead,
// issued before this row's stores, so RowsAhead + 1 rows are in flight), two single loads (the left
// and right neighbours, which the neighbouring threads have just brought into the L1 cache), and
// the stores. No scratch, no barrier.
template <int K, int RowsAhead, bool Transposed, class F, class FN, class L>
struct DiffusionStrips {
  using T = typename FN::non_const_value_type;
  using C = Chunk<T, K>;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, chunks;
  int strip;

  // Cells [c0, c0 + K) of row r; zeros outside the field.
  KOKKOS_FORCEINLINE_FUNCTION C load(std::int64_t r, std::int64_t c0, bool full) const {
    C v;
    if (r < 0 || r >= rows) {
      for (int e = 0; e < K; ++e) v.v[e] = T(0);
    } else if (full && K > 1) {
      v = *reinterpret_cast<const C*>(&cell<Transposed>(f, r, c0));
    } else {
      for (int e = 0; e < K; ++e) v.v[e] = c0 + e < cols ? cell<Transposed>(f, r, c0 + e) : T(0);
    }
    return v;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t c0 = i % chunks * K, r0 = i / chunks * strip;
    const std::int64_t r1 = r0 + strip < rows ? r0 + strip : rows;
    const bool full = c0 + K <= cols;
    // w[j] is row r - 1 + j: above, at, below, then the rows loaded ahead. The strip reads
    // rows r0 - 1 .. r1.
    C w[RowsAhead + 2];
    for (int j = 0; j < RowsAhead + 2; ++j)
      w[j] = r0 - 1 + j <= r1 ? load(r0 - 1 + j, c0, full) : C{};
    for (std::int64_t r = r0; r < r1; ++r) {
      const C ahead = r + RowsAhead + 1 <= r1 ? load(r + RowsAhead + 1, c0, full) : C{};
      const T left = c0 > 0 ? cell<Transposed>(f, r, c0 - 1) : T(0);
      const T right = c0 + K < cols ? cell<Transposed>(f, r, c0 + K) : T(0);
      C v, lap;
      for (int e = 0; e < K; ++e)
        stencil<T>(w[1].v[e], w[0].v[e], w[2].v[e], e > 0 ? w[1].v[e - 1] : left,
                   e + 1 < K ? w[1].v[e + 1] : right, coeff, lap.v[e], v.v[e]);
      store_chunk<Transposed>(next, lapl, write_lapl, r, c0, cols, full, v, lap);
      for (int j = 0; j + 1 < RowsAhead + 2; ++j) w[j] = w[j + 1];
      w[RowsAhead + 1] = ahead;
    }
  }
};

// `streaming` in strips with two steps per pass: as DiffusionStrips, but a thread computes the
// intermediate field g (one step) on its chunk widened by one cell on each side, from the field
// on the chunk widened by two, and the second step from g, all in registers: rows of f and g
// slide down the strip. The field crosses memory once per two steps. The widened cells of g are
// computed again by the neighbouring threads, with the same operands: every cell still gets
// exactly the arithmetic of one plain step after another. With First, the first step's Laplacian
// on the thread's own cells goes to lapl_first (diffuse_history's planes; diffuse with
// Laplacian::final_only writes only the second's, and its kernel, without First, keeps the
// registers of the kernel that writes none).
template <int K, bool Transposed, bool First, class F, class FN, class L>
struct DiffusionStripsTwoSteps {
  using T = typename FN::non_const_value_type;
  using C = Chunk<T, K>;
  struct FRow {  // f at columns c0 - 2 .. c0 + K + 1
    T v[K + 4];
  };
  struct GRow {  // g at columns c0 - 1 .. c0 + K
    T v[K + 2];
  };
  F f;
  FN next;
  L lapl, lapl_first;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, chunks;
  int strip;

  KOKKOS_FORCEINLINE_FUNCTION T at(std::int64_t r, std::int64_t c) const {
    return c >= 0 && c < cols ? cell<Transposed>(f, r, c) : T(0);
  }

  KOKKOS_FORCEINLINE_FUNCTION FRow load(std::int64_t r, std::int64_t c0, bool full) const {
    FRow a;
    if (r < 0 || r >= rows) {
      for (int e = 0; e < K + 4; ++e) a.v[e] = T(0);
      return a;
    }
    a.v[0] = at(r, c0 - 2);
    a.v[1] = at(r, c0 - 1);
    if (full && K > 1) {
      const C m = *reinterpret_cast<const C*>(&cell<Transposed>(f, r, c0));
      for (int e = 0; e < K; ++e) a.v[e + 2] = m.v[e];
    } else {
      for (int e = 0; e < K; ++e) a.v[e + 2] = at(r, c0 + e);
    }
    a.v[K + 2] = at(r, c0 + K);
    a.v[K + 3] = at(r, c0 + K + 1);
    return a;
  }

  // g on row r from f on rows r - 1, r, r + 1; zero outside the field. With First, its Laplacian
  // on the thread's own cells goes to row r of lapl_first where `own` (r is one of the strip's
  // rows).
  KOKKOS_FORCEINLINE_FUNCTION GRow first(const FRow& up, const FRow& mid, const FRow& down,
                                         std::int64_t r, std::int64_t c0, bool full,
                                         bool own) const {
    GRow g;
    C lap{};
    for (int e = 0; e < K + 2; ++e) {
      const std::int64_t c = c0 - 1 + e;
      T l, v;
      stencil<T>(mid.v[e + 1], up.v[e + 1], down.v[e + 1], mid.v[e], mid.v[e + 2], coeff, l, v);
      g.v[e] = r >= 0 && r < rows && c >= 0 && c < cols ? v : T(0);
      if (e >= 1 && e <= K) lap.v[e - 1] = l;
    }
    if constexpr (First)
      if (own) store_laplacian<Transposed>(lapl_first, r, c0, cols, full, lap);
    return g;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t c0 = i % chunks * K, r0 = i / chunks * strip;
    const std::int64_t r1 = r0 + strip < rows ? r0 + strip : rows;
    const bool full = c0 + K <= cols;
    FRow fa = load(r0 - 2, c0, full), fb = load(r0 - 1, c0, full);
    FRow fc = load(r0, c0, full), fd = load(r0 + 1, c0, full), fe = load(r0 + 2, c0, full);
    GRow ga = first(fa, fb, fc, r0 - 1, c0, full, false),
         gb = first(fb, fc, fd, r0, c0, full, true);
    for (std::int64_t r = r0; r < r1; ++r) {
      const FRow fn = r + 1 < r1 ? load(r + 3, c0, full) : FRow{};
      const GRow gc = first(fc, fd, fe, r + 1, c0, full, r + 1 < r1);
      C v, lap;
      for (int e = 0; e < K; ++e)
        stencil<T>(gb.v[e + 1], ga.v[e + 1], gc.v[e + 1], gb.v[e], gb.v[e + 2], coeff, lap.v[e],
                   v.v[e]);
      store_chunk<Transposed>(next, lapl, write_lapl, r, c0, cols, full, v, lap);
      fc = fd;
      fd = fe;
      fe = fn;
      ga = gb;
      gb = gc;
    }
  }
};

}  // namespace unison::detail::diffusion
