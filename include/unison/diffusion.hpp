#pragma once
/// \file unison/diffusion.hpp
/// 2-D diffusion with the 5-point Laplacian (docs/workloads.md section 4): one step, or many steps
/// with two buffers, tiled in team scratch memory and, when only the final Laplacian is wanted,
/// temporally blocked (several steps per pass over the field).
///
/// One step on a field f of nx x ny cells:
///   lapl[i, j] = 4 f[i, j] - ((f[i-1, j] + f[i+1, j]) + (f[i, j-1] + f[i, j+1]))
///   f_next[i, j] = f[i, j] - coeff * lapl[i, j]
/// where a neighbour outside the field counts as 0. The sums are grouped in pairs as written, so
/// the arithmetic is symmetric in the two axes and every variant (plain, tiled, temporally
/// blocked; LayoutRight or LayoutLeft) does exactly the same operations per cell: on one backend
/// all give bitwise the same result, on every run. (Backends may differ in the last bit: a GPU
/// compiler contracts f - coeff * lapl into one fused multiply-add.)

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>
#include <unison/backends/host_arithmetic.hpp>
#include <unison/backends/memory.hpp>
#include <unison/impl/allocate.hpp>
#include <unison/impl/checks.hpp>
#include <unison/impl/chunk.hpp>

namespace unison {

/// Which kernel advances the field: `plain` is the reference (one thread per cell, neighbours
/// read from memory with bounds checks); `tiled` stages a tile and its halo in team scratch
/// (and, with Laplacian::final_only, runs several steps per pass); `streaming` reads the
/// neighbours straight from memory and leaves their reuse to the caches, with no scratch and no
/// barrier: on a CPU each thread sweeps a block of whole rows (the Laplacian written past the
/// caches with non-temporal stores), on a GPU each thread walks down a strip of rows of one
/// 16-byte column chunk, keeping the rows above and below in registers. `automatic` is
/// the backend's choice (StencilTuning in unison/backends/tuning.hpp).
enum class StencilAlgorithm { automatic, plain, tiled, streaming };

/// Which Laplacians diffuse() writes: that of every step (each step writes lapl, and a callback
/// can see it), or only that of the final step (which lets several steps run per pass).
enum class Laplacian { every_step, final_only };

/// Tuning of diffuse(); zero means the backend's choice (StencilTuning in
/// unison/backends/tuning.hpp).
struct DiffusionOptions {
  StencilAlgorithm algorithm = StencilAlgorithm::automatic;
  int tile_rows = 0;       ///< tile extent across the field's contiguous axis
  int tile_cols = 0;       ///< tile extent along the contiguous axis
  int steps_per_pass = 0;  ///< temporal blocking; only with Laplacian::final_only and tiling
  int strip_rows = 0;      ///< rows per thread of `streaming` in strips (0: the backend's form)
  int strip_prefetch = 0;  ///< rows a strip thread loads ahead, 1 to 4 (0: the backend's choice)
};

namespace impl {

// 4 x (a scalar or a host vector). On a CPU as (x + x) + (x + x): the same value, since both
// forms are exact (and overflow alike), but x86 cores take a microcode assist of a hundred or
// more cycles for a multiply (or a fused multiply-add) that meets a subnormal operand, and none
// for an addition. The jagged field's diffusion fronts hold subnormal numbers for thousands of
// steps (docs/tuning.md). On a GPU, 4 x folds into a
// fused multiply-add at full speed.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V four_times(V x) {
  KOKKOS_IF_ON_HOST((const V two = x + x; return two + two;))
  KOKKOS_IF_ON_DEVICE((return 4 * x;))
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION void stencil(T c, T up, T down, T left, T right, T coeff, T& lap,
                                         T& next) {
  lap = four_times(c) - ((up + down) + (left + right));
  next = c - coeff * lap;
}

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

// The reference: one cell per index, neighbours read from f with bounds checks.
template <class F, class FN, class L>
struct DiffusionPlain {
  using T = typename FN::non_const_value_type;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;

  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const std::int64_t nx = f.extent(0), ny = f.extent(1);
    T lap, v;
    stencil<T>(f(i, j), i > 0 ? f(i - 1, j) : T(0), i + 1 < nx ? f(i + 1, j) : T(0),
               j > 0 ? f(i, j - 1) : T(0), j + 1 < ny ? f(i, j + 1) : T(0), coeff, lap, v);
    next(i, j) = v;
    if (write_lapl) lapl(i, j) = lap;
  }
};

// One grid row of the `streaming` CPU kernels: cells [0, cols) from the row `mid` and the rows
// `up` and `down` (all with column stride `is`; Up / Down false: the row is outside the field,
// its cells 0), the new field to out (stride os) and, if Lapl, the Laplacian to lout (stride
// ls). Each row is one vectorizable loop. The Laplacian, which no later step reads, is written
// with non-temporal stores where the columns are contiguous (backends::store_streaming, in
// aligned chunks of K cells), so that the caches keep the fields; the caller ends its work item
// with backends::store_streaming_fence().
template <class T, int K, bool Up, bool Down, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_row(const T* KOKKOS_RESTRICT up,
                                             const T* KOKKOS_RESTRICT mid,
                                             const T* KOKKOS_RESTRICT down, std::int64_t is,
                                             T* KOKKOS_RESTRICT out, std::int64_t os,
                                             T* KOKKOS_RESTRICT lout, std::int64_t ls,
                                             std::int64_t cols, T coef) {
  // Cell c given its left and right neighbours; stores the new field, returns the Laplacian.
  const auto value = [&](std::int64_t c, T left, T right) {
    T lap, v;
    stencil<T>(mid[c * is], Up ? up[c * is] : T(0), Down ? down[c * is] : T(0), left, right, coef,
               lap, v);
    out[c * os] = v;
    return lap;
  };
  const auto one = [&](std::int64_t c) {
    const T lap = value(c, mid[(c - 1) * is], mid[(c + 1) * is]);
    if constexpr (Lapl) lout[c * ls] = lap;
  };
  const std::int64_t last = cols - 1;
  const T lap0 = value(0, T(0), last > 0 ? mid[is] : T(0));
  if constexpr (Lapl) lout[0] = lap0;
  if (last == 0) return;
  const T lap1 = value(last, mid[(last - 1) * is], T(0));
  if constexpr (Lapl) lout[last * ls] = lap1;
  if (last == 1) return;
  const auto range = [](int b, int e, const auto& g) {
    UNISON_IMPL_IVDEP
    for (int c = b; c < e; ++c) g(c);
  };
  if (K == 1 || is != 1 || os != 1 || (Lapl && ls != 1)) {
    range(1, int(last), one);
    return;
  }
  // Cells 1 .. last - 1, K at a time where the Laplacian (else the new field) is K-aligned.
#if UNISON_BACKENDS_HOST_VECTORS
  const backends::ExactScale<T> scale(coef);  // coef * lap without subnormal assists
#endif
  by_chunks<T, K>(
      range, (Lapl ? lout : out) + 1, int(last - 1), [&](int p) { one(p + 1); },
      [&](int p) {
        const std::int64_t c = p + 1;
#if UNISON_BACKENDS_HOST_VECTORS
        // Host vectors of K cells: the values of stencil() per cell (scale(lap) is
        // coef * lap to the bit).
        using Vec = typename backends::HostVector<T>::type;
        const Vec zero = {}, m = backends::load_vector(mid + c);
        const Vec u = Up ? backends::load_vector(up + c) : zero;
        const Vec d = Down ? backends::load_vector(down + c) : zero;
        const Vec l = backends::load_vector(mid + c - 1);
        const Vec r = backends::load_vector(mid + c + 1);
        const Vec lap = four_times(m) - ((u + d) + (l + r));
        backends::store_vector(out + c, m - scale(lap));
        if constexpr (Lapl) backends::store_vector_streaming(lout + c, lap);
#else
        Chunk<T, K> laps;
        UNISON_IMPL_IVDEP
        for (int e = 0; e < K; ++e) laps.v[e] = value(c + e, mid[c + e - 1], mid[c + e + 1]);
        if constexpr (Lapl)
          backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(lout + c), laps);
#endif
      });
}

// stencil_row with (Up, Down) chosen at run time from whether rows r - 1 and r + 1 are in a field
// of `rows` rows.
template <class T, int K, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_row(std::int64_t r, std::int64_t rows, const T* up,
                                             const T* mid, const T* down, std::int64_t is, T* out,
                                             std::int64_t os, T* lout, std::int64_t ls,
                                             std::int64_t cols, T coef) {
  const bool u = r > 0, d = r + 1 < rows;
  if (u && d) stencil_row<T, K, true, true, Lapl>(up, mid, down, is, out, os, lout, ls, cols, coef);
  else if (u)
    stencil_row<T, K, true, false, Lapl>(up, mid, down, is, out, os, lout, ls, cols, coef);
  else if (d)
    stencil_row<T, K, false, true, Lapl>(up, mid, down, is, out, os, lout, ls, cols, coef);
  else stencil_row<T, K, false, false, Lapl>(up, mid, down, is, out, os, lout, ls, cols, coef);
}

// Cells per non-temporal store of the CPU row kernels.
template <class T>
inline constexpr int host_chunk_v = backends::host_stream_bytes / int(sizeof(T)) > 1
                                        ? backends::host_stream_bytes / int(sizeof(T))
                                        : 1;

// The rows [r0, r1) a CPU row kernel's work item `item` owns, of `rows` rows in blocks of
// per_item.
KOKKOS_INLINE_FUNCTION void owned_rows(std::int64_t item, std::int64_t per_item, std::int64_t rows,
                                       std::int64_t& r0, std::int64_t& r1) {
  r0 = item * per_item;
  r1 = r0 + per_item < rows ? r0 + per_item : rows;
}

// `streaming` on CPUs: a work item per block of consecutive grid rows (rows along the contiguous
// axis), one block per thread of the backend. A static schedule hands thread i block i on every
// pass, so each thread finds the rows it wrote in the last pass in its own cache; a `reverse`
// pass sweeps its block bottom-up, starting on the rows the last pass left there. Rows by
// stencil_row, reading the rows above and below straight from memory, the Laplacian stored
// non-temporally (docs/tuning.md).
template <bool Tr, class F, class FN, class L>
struct DiffusionRows {
  using T = typename FN::non_const_value_type;
  static constexpr int K = host_chunk_v<T>;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, per_item;
  bool reverse;

  template <bool Lapl>
  KOKKOS_FORCEINLINE_FUNCTION void row(std::int64_t r) const {
    const T* mid = &cell<Tr>(f, r, 0);
    // A local copy of coeff: the functor is shared by the threads, and the stores through out
    // and lout might alias it as far as the compiler knows (it would reload it every iteration).
    stencil_row<T, K, Lapl>(r, rows, r > 0 ? &cell<Tr>(f, r - 1, 0) : mid, mid,
                            r + 1 < rows ? &cell<Tr>(f, r + 1, 0) : mid, column_stride<Tr>(f),
                            &cell<Tr>(next, r, 0), column_stride<Tr>(next),
                            Lapl ? &cell<Tr>(lapl, r, 0) : nullptr, column_stride<Tr>(lapl), cols,
                            T(coeff));
  }

  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    std::int64_t r0, r1;
    owned_rows(item, per_item, rows, r0, r1);
    for (std::int64_t k = 0; k < r1 - r0; ++k) {
      const std::int64_t r = reverse ? r1 - 1 - k : r0 + k;
      if (write_lapl) row<true>(r);
      else row<false>(r);
    }
    backends::store_streaming_fence();
  }
};

// diffuse_history on CPUs: `steps` steps per pass, each step's Laplacian written to its plane of
// the history (plane0 + s - 1 for step s of the pass), the field read and written once per pass.
// The work item owning rows [r0, r1) (as DiffusionRows) computes the field after s steps on rows
// [r0 - (steps - s), r1 + (steps - s)), a halo that shrinks by a row per step, as a wavefront:
// at sweep position i it computes step 1's row i - 1 from f, step s's row i - s from step s - 1's
// three rows around it, ... step `steps`'s row i - steps into next (i + s when reversed). Step
// s < steps keeps only its last three rows, in a ring in the item's team scratch (a few rows:
// the core's L1 or L2 cache). Halo rows are computed again by the neighbouring item, with the
// same operations, so the result is bitwise that of single steps; only owned rows are written.
template <class Exec, bool Tr, class F, class FN, class H>
struct DiffusionRowsHistory {
  using T = typename FN::non_const_value_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int K = host_chunk_v<T>;
  F f;
  FN next;
  H history;
  T coeff;
  std::int64_t rows, cols, per_item, pitch;  // pitch: ring row length, a multiple of K
  int plane0, steps, level;
  bool reverse;

  static std::int64_t ring_pitch(std::int64_t cols) { return (cols + K - 1) / K * K; }
  static std::size_t scratch_bytes(int steps, std::int64_t pitch) {
    return std::size_t(steps - 1) * 3 * std::size_t(pitch) * sizeof(T) + 64;
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    std::int64_t r0, r1;
    owned_rows(team.league_rank(), per_item, rows, r0, r1);
    T* ring = steps > 1 ? static_cast<T*>(team.team_scratch(level).get_shmem_aligned(
                              std::size_t(steps - 1) * 3 * pitch * sizeof(T), 64))
                        : nullptr;
    const T coef = coeff;
    const std::int64_t fs = column_stride<Tr>(f), ns = column_stride<Tr>(next),
                       hs = Tr ? history.stride(1) : history.stride(2);
    // Row r of the field after s steps of this pass (s < steps), and its column stride.
    const auto level_row = [&](int s, std::int64_t r) -> T* {
      return s == 0 ? const_cast<T*>(&cell<Tr>(f, r, 0)) : ring + ((s - 1) * 3 + r % 3) * pitch;
    };
    const std::int64_t span = (r1 - r0) + 2 * steps;
    for (std::int64_t k = 0; k <= span; ++k) {
      const std::int64_t i = reverse ? r1 + steps - k : r0 - steps + k;
      for (int s = 1; s <= steps; ++s) {
        const std::int64_t r = reverse ? i + s : i - s;
        const std::int64_t halo = steps - s;
        if (r < 0 || r >= rows || r < r0 - halo || r >= r1 + halo) continue;
        const std::int64_t is = s == 1 ? fs : 1;
        const T* mid = level_row(s - 1, r);
        const T* up = r > 0 ? level_row(s - 1, r - 1) : mid;
        const T* down = r + 1 < rows ? level_row(s - 1, r + 1) : mid;
        T* out = s == steps ? &cell<Tr>(next, r, 0) : level_row(s, r);
        const std::int64_t os = s == steps ? ns : 1;
        if (r >= r0 && r < r1) {
          const int p = plane0 + s - 1;
          T* lout = Tr ? &history(p, 0, r) : &history(p, r, 0);
          stencil_row<T, K, true>(r, rows, up, mid, down, is, out, os, lout, hs, cols, coef);
        } else {
          stencil_row<T, K, false>(r, rows, up, mid, down, is, out, os, nullptr, 1, cols, coef);
        }
      }
    }
    backends::store_streaming_fence();
  }
};

// The strip kernels' stores: cells [c0, c0 + K) of row r of next and, if asked, lapl; one
// wide access each (streaming for lapl) when the chunk is whole, else cell by cell.
template <bool Tr, class FN, class L, class T, int K>
KOKKOS_FORCEINLINE_FUNCTION void store_chunk(const FN& next, const L& lapl, bool write_lapl,
                                             std::int64_t r, std::int64_t c0, std::int64_t cols,
                                             bool full, const Chunk<T, K>& v,
                                             const Chunk<T, K>& lap) {
  if (full && K > 1) {
    *reinterpret_cast<Chunk<T, K>*>(&cell<Tr>(next, r, c0)) = v;
    if (write_lapl)
      backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(&cell<Tr>(lapl, r, c0)), lap);
    return;
  }
  for (int e = 0; e < K && c0 + e < cols; ++e) {
    cell<Tr>(next, r, c0 + e) = v.v[e];
    if (write_lapl) cell<Tr>(lapl, r, c0 + e) = lap.v[e];
  }
}

// `streaming` on GPUs: a thread per chunk of K consecutive cells of a grid row (K * sizeof(T) =
// StencilTuning::strip_chunk_bytes where every array allows 16-byte accesses, else 1), walking
// down a strip of `strip` rows. The rows above, at and below stay in registers, with the next
// D - 1 rows already loaded: each row costs one new chunk load (D rows ahead, issued before
// this row's stores, so D + 1 rows are in flight), two single loads (the left and right
// neighbours, which the neighbouring threads have just brought into the L1 cache), and the
// stores. No scratch, no barrier.
template <int K, int D, bool Tr, class F, class FN, class L>
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
      v = *reinterpret_cast<const C*>(&cell<Tr>(f, r, c0));
    } else {
      for (int e = 0; e < K; ++e) v.v[e] = c0 + e < cols ? cell<Tr>(f, r, c0 + e) : T(0);
    }
    return v;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t c0 = i % chunks * K, r0 = i / chunks * strip;
    const std::int64_t r1 = r0 + strip < rows ? r0 + strip : rows;
    const bool full = c0 + K <= cols;
    // w[j] is row r - 1 + j: above, at, below, then the rows loaded ahead. The strip reads
    // rows r0 - 1 .. r1.
    C w[D + 2];
    for (int j = 0; j < D + 2; ++j) w[j] = r0 - 1 + j <= r1 ? load(r0 - 1 + j, c0, full) : C{};
    for (std::int64_t r = r0; r < r1; ++r) {
      const C ahead = r + D + 1 <= r1 ? load(r + D + 1, c0, full) : C{};
      const T left = c0 > 0 ? cell<Tr>(f, r, c0 - 1) : T(0);
      const T right = c0 + K < cols ? cell<Tr>(f, r, c0 + K) : T(0);
      C v, lap;
      for (int e = 0; e < K; ++e)
        stencil<T>(w[1].v[e], w[0].v[e], w[2].v[e], e > 0 ? w[1].v[e - 1] : left,
                   e + 1 < K ? w[1].v[e + 1] : right, coeff, lap.v[e], v.v[e]);
      store_chunk<Tr>(next, lapl, write_lapl, r, c0, cols, full, v, lap);
      for (int j = 0; j + 1 < D + 2; ++j) w[j] = w[j + 1];
      w[D + 1] = ahead;
    }
  }
};

// `streaming` in strips with two steps per pass (Laplacian::final_only): as DiffusionStrips,
// but a thread computes the intermediate field g (one step) on its chunk widened by one cell on
// each side, from the field on the chunk widened by two, and the second step from g, all in
// registers: rows of f and g slide down the strip. The field crosses memory once per two steps.
// The widened cells of g are computed again by the neighbouring threads, with the same
// operands: every cell still gets exactly the arithmetic of one plain step after another.
template <int K, bool Tr, class F, class FN, class L>
struct DiffusionStrips2 {
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
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, chunks;
  int strip;

  KOKKOS_FORCEINLINE_FUNCTION T at(std::int64_t r, std::int64_t c) const {
    return c >= 0 && c < cols ? cell<Tr>(f, r, c) : T(0);
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
      const C m = *reinterpret_cast<const C*>(&cell<Tr>(f, r, c0));
      for (int e = 0; e < K; ++e) a.v[e + 2] = m.v[e];
    } else {
      for (int e = 0; e < K; ++e) a.v[e + 2] = at(r, c0 + e);
    }
    a.v[K + 2] = at(r, c0 + K);
    a.v[K + 3] = at(r, c0 + K + 1);
    return a;
  }

  // g on row r from f on rows r - 1, r, r + 1; zero outside the field.
  KOKKOS_FORCEINLINE_FUNCTION GRow first(const FRow& up, const FRow& mid, const FRow& down,
                                         std::int64_t r, std::int64_t c0) const {
    GRow g;
    for (int e = 0; e < K + 2; ++e) {
      const std::int64_t c = c0 - 1 + e;
      T lap, v;
      stencil<T>(mid.v[e + 1], up.v[e + 1], down.v[e + 1], mid.v[e], mid.v[e + 2], coeff, lap, v);
      g.v[e] = r >= 0 && r < rows && c >= 0 && c < cols ? v : T(0);
    }
    return g;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t c0 = i % chunks * K, r0 = i / chunks * strip;
    const std::int64_t r1 = r0 + strip < rows ? r0 + strip : rows;
    const bool full = c0 + K <= cols;
    FRow fa = load(r0 - 2, c0, full), fb = load(r0 - 1, c0, full);
    FRow fc = load(r0, c0, full), fd = load(r0 + 1, c0, full), fe = load(r0 + 2, c0, full);
    GRow ga = first(fa, fb, fc, r0 - 1, c0), gb = first(fb, fc, fd, r0, c0);
    for (std::int64_t r = r0; r < r1; ++r) {
      const FRow fn = r + 1 < r1 ? load(r + 3, c0, full) : FRow{};
      const GRow gc = first(fc, fd, fe, r + 1, c0);
      C v, lap;
      for (int e = 0; e < K; ++e)
        stencil<T>(gb.v[e + 1], ga.v[e + 1], gc.v[e + 1], gb.v[e], gb.v[e + 2], coeff, lap.v[e],
                   v.v[e]);
      store_chunk<Tr>(next, lapl, write_lapl, r, c0, cols, full, v, lap);
      fc = fd;
      fd = fe;
      fe = fn;
      ga = gb;
      gb = gc;
    }
  }
};

// One pass of `steps` steps over tiles of tile_rows x tile_cols cells. A team copies its tile
// with a halo `steps` cells wide (zeros outside the field) into scratch buffer a, then each step
// computes one ring fewer of halo from a into b and swaps them, so that the last step's region
// is exactly the tile; that step writes the new field and, if asked, its Laplacian to memory.
// Cells outside the field are never computed and stay 0 in both buffers, as the neighbour
// rule requires.
template <class Exec, bool Tr, class F, class FN, class L>
struct DiffusionPass {
  using T = typename FN::non_const_value_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, tiles_across;
  int tile_rows, tile_cols, steps;
  int level;     // team scratch level
  bool reverse;  // tiles in reverse order (see diffusion_pass)

  static std::size_t scratch_bytes(int tile_rows, int tile_cols, int steps) {
    // In size_t, and capped: a tile or steps_per_pass near INT_MAX must not overflow into a
    // small size (any extent over 2^24 is far beyond every backend's team scratch).
    const std::size_t rows = std::size_t(tile_rows) + 2 * std::size_t(steps),
                      cols = std::size_t(tile_cols) + 2 * std::size_t(steps);
    if (rows > (std::size_t(1) << 24) || cols > (std::size_t(1) << 24))
      return std::numeric_limits<std::size_t>::max();
    const std::size_t cells = rows * cols;
    return Scratch::shmem_size(cells) * (steps > 1 ? 2 : 1);
  }

  // Elements per wide access on this backend (1: none).
  static constexpr int K = backends::StencilTuning<Exec>::vector_bytes >= int(2 * sizeof(T))
                               ? backends::StencilTuning<Exec>::vector_bytes / int(sizeof(T))
                               : 1;

  // Stores the n cells of a row: value(p, lap, v) computes cell p; out[p * stride] = v, and
  // extra(p, lap) / extra_chunk(p, laps) store the Laplacians. With stride 1, K consecutive
  // cells are stored with one wide access.
  template <class Member, class Value, class Extra, class ExtraChunk = int>
  KOKKOS_FORCEINLINE_FUNCTION static void store_row(const Member& team, T* out, std::int64_t stride,
                                                    int n, const Value& value, const Extra& extra,
                                                    const ExtraChunk& extra_chunk = 0) {
    const auto one = [&](int p) {
      T lap, v;
      value(p, lap, v);
      out[p * stride] = v;
      extra(p, lap);
    };
    if (stride != 1) return vector_for(team, 0, n, one);
    by_chunks<T, K>([&](int b0, int e0, const auto& g) { vector_for(team, b0, e0, g); }, out, n,
                    one,
                    [&](int p) {
                      Chunk<T, K> vs, laps;
                      for (int e = 0; e < K; ++e) value(p + e, laps.v[e], vs.v[e]);
                      *reinterpret_cast<Chunk<T, K>*>(out + p) = vs;
                      if constexpr (std::is_same_v<ExtraChunk, int>) {
                        for (int e = 0; e < K; ++e) extra(p + e, laps.v[e]);
                      } else {
                        extra_chunk(p, laps);
                      }
                    });
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t tile =
        reverse ? team.league_size() - 1 - team.league_rank() : team.league_rank();
    const std::int64_t r0 = tile / tiles_across * tile_rows - steps;
    const std::int64_t c0 = tile % tiles_across * tile_cols - steps;
    const int h = tile_rows + 2 * steps, w = tile_cols + 2 * steps;
    Scratch sa(team.team_scratch(level), h * w);
    Scratch sb = steps > 1 ? Scratch(team.team_scratch(level), h * w) : sa;
    T* a = sa.data();
    T* b = sb.data();
    // The scratch rows [y0, y1) and columns [x0, x1) that lie inside the field.
    const int y0 = r0 < 0 ? int(-r0) : 0, x0 = c0 < 0 ? int(-c0) : 0;
    const int y1 = rows - r0 < h ? int(rows - r0) : h, x1 = cols - c0 < w ? int(cols - c0) : w;

    // Load the tile and its halo (asynchronous copies on GPUs: all of a thread's in flight at
    // once); zeros outside the field, in both buffers.
    const std::int64_t fs = column_stride<Tr>(f);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, h), [&](int y) {
      T* ay = a + y * w;
      T* by = b + y * w;
      const bool row_inside = y >= y0 && y < y1 && x1 > x0;
      const int xa = row_inside ? x0 : w, xb = row_inside ? x1 : w;
      vector_for(team, 0, xa, [&](int x) { ay[x] = 0; });
      vector_for(team, xb, w, [&](int x) { ay[x] = 0; });
      if (steps > 1) {
        vector_for(team, 0, xa, [&](int x) { by[x] = 0; });
        vector_for(team, xb, w, [&](int x) { by[x] = 0; });
      }
      if (row_inside) {
        const T* src = &cell<Tr>(f, r0 + y, c0 + x0);
        T* dst = ay + x0;
        vector_for(team, 0, x1 - x0,
                   [&](int p) { backends::copy_to_scratch_async(dst + p, src + p * fs); });
      }
    });
    backends::copy_scratch_wait();
    team.team_barrier();

    const std::int64_t ns = column_stride<Tr>(next), ls = column_stride<Tr>(lapl);
    for (int s = 1; s <= steps; ++s) {
      const int ya = s > y0 ? s : y0, yb = h - s < y1 ? h - s : y1;
      const int xa = s > x0 ? s : x0, xb = w - s < x1 ? w - s : x1;
      if (xb <= xa) break;  // nothing of the field in this tile's region (cannot happen at s=1)
      const bool last = s == steps;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ya, yb > ya ? yb : ya), [&](int y) {
        const T* KOKKOS_RESTRICT up = a + (y - 1) * w;
        const T* KOKKOS_RESTRICT mid = a + y * w;
        const T* KOKKOS_RESTRICT down = a + (y + 1) * w;
        const auto at = [&](int x, T& lap, T& v) {
          stencil<T>(mid[x], up[x], down[x], mid[x - 1], mid[x + 1], coeff, lap, v);
        };
        if (!last) {
          T* KOKKOS_RESTRICT dst = b + y * w;
          vector_for(team, xa, xb, [&](int x) {
            T lap, v;
            at(x, lap, v);
            dst[x] = v;
          });
          return;
        }
        T* out = &cell<Tr>(next, r0 + y, c0 + xa);
        const int n = xb - xa;
        if (!write_lapl) {
          store_row(
              team, out, ns, n, [&](int p, T& lap, T& v) { at(xa + p, lap, v); }, [&](int, T) {});
          return;
        }
        T* lout = &cell<Tr>(lapl, r0 + y, c0 + xa);
        // Both outputs in chunks when they are equally aligned; else one element at a time.
        const bool together = reinterpret_cast<std::uintptr_t>(out) % 16 ==
                              reinterpret_cast<std::uintptr_t>(lout) % 16;
        if (together && ls == 1) {
          store_row(
              team, out, ns, n, [&](int p, T& lap, T& v) { at(xa + p, lap, v); },
              [&](int p, T lap) { backends::store_streaming(lout + p, lap); },
              [&](int p, const Chunk<T, K>& laps) {
                backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(lout + p), laps);
              });
        } else {
          vector_for(team, 0, n, [&](int p) {
            T lap, v;
            at(xa + p, lap, v);
            out[p * ns] = v;
            backends::store_streaming(lout + p * ls, lap);
          });
        }
      });
      if (!last) {
        team.team_barrier();
        T* t = a;
        a = b;
        b = t;
      }
    }
  }
};

template <class V>
inline constexpr bool is_float_matrix_v =
    Kokkos::is_view_v<V>&& V::rank() == 2 &&
    std::is_floating_point_v<typename V::non_const_value_type>;

// A tile shape and steps per pass, checked against the scratch the backend offers a team.
struct PassShape {
  int tile_rows, tile_cols, steps;
};

template <class Exec, class T>
PassShape checked_shape(const char* fn, PassShape shape, bool user_tile, std::int64_t nx,
                        std::int64_t ny) {
  using Tuning = backends::StencilTuning<Exec>;
  using Kernel = DiffusionPass<Exec, false, Kokkos::View<const T**, typename Exec::memory_space>,
                               Kokkos::View<T**, typename Exec::memory_space>,
                               Kokkos::View<T**, typename Exec::memory_space>>;
  require(shape.tile_rows > 0 && shape.tile_cols > 0, fn, "tile ", shape.tile_rows, "x",
          shape.tile_cols, " must have positive extents");
  require(shape.steps > 0, fn, "steps_per_pass is ", shape.steps, ", must be positive");
  const std::size_t limit = Kokkos::TeamPolicy<Exec>(1, Tuning::team_size, Tuning::vector_length)
                                .scratch_size_max(Tuning::scratch_level);
  // The backend's own tile shrinks (rows first) until it fits, e.g. for double; a tile the
  // caller asked for must fit as given.
  while (!user_tile && shape.tile_rows > 1 &&
         Kernel::scratch_bytes(shape.tile_rows, shape.tile_cols, shape.steps) > limit)
    shape.tile_rows /= 2;
  const std::size_t bytes = Kernel::scratch_bytes(shape.tile_rows, shape.tile_cols, shape.steps);
  require(bytes <= limit, fn, "tile ", shape.tile_rows, "x", shape.tile_cols, " with ", shape.steps,
          " steps per pass needs ", bytes, " bytes of team scratch, more than the ", limit,
          " this backend offers");
  // One team per tile, in one launch: at most 2^31 - 1 tiles (either orientation of the field).
  const auto tiles = [&](std::int64_t r, std::int64_t c) {
    return ((r + shape.tile_rows - 1) / shape.tile_rows) *
           ((c + shape.tile_cols - 1) / shape.tile_cols);
  };
  require(tiles(nx, ny) <= INT32_MAX && tiles(ny, nx) <= INT32_MAX, fn, "tile ", shape.tile_rows,
          "x", shape.tile_cols, " on a field of ", nx, "x", ny, " makes more than 2^31 - 1 tiles");
  return shape;
}

// Enqueues one pass (plain and rows: exactly one step) from f to next. `reverse` runs the
// tiles, or on a CPU each thread's rows, from the last to the first: diffuse() alternates, so
// that a pass starts where the one before ended, on the part of the field still in the cache.
// (The GPU strip kernels ignore it: a reversed strip order measured slower, docs/tuning.md.)
template <class Exec, class F, class FN, class L>
void diffusion_pass(const Exec& exec, StencilAlgorithm algorithm, PassShape shape, const F& f,
                    const FN& next, const L& lapl, typename FN::non_const_value_type coeff,
                    bool write_lapl, bool reverse = false,
                    int strip = backends::StencilTuning<Exec>::strip_rows,
                    int prefetch = backends::StencilTuning<Exec>::strip_prefetch_rows) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if (algorithm == StencilAlgorithm::plain) {
    Kokkos::parallel_for(
        "unison::diffusion::plain",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(exec, {0, 0},
                                                                                      {nx, ny}),
        DiffusionPlain<F, FN, L>{f, next, lapl, coeff, write_lapl});
    return;
  }
  using Tuning = backends::StencilTuning<Exec>;
  constexpr bool tr = transposed_v<F>;
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
  if (algorithm == StencilAlgorithm::streaming) {
    if (strip <= 0 && shape.steps == 1) {
      // A block of rows per thread (DiffusionRows); for a GPU, whose threads are many, a row.
      const std::int64_t items = exec.concurrency() < rows ? exec.concurrency() : rows;
      const std::int64_t per_item = (rows + items - 1) / items;
      Kokkos::parallel_for("unison::diffusion::streaming",
                           Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>,
                                               Kokkos::IndexType<std::int64_t>>(
                               exec, 0, (rows + per_item - 1) / per_item),
                           DiffusionRows<tr, F, FN, L>{f, next, lapl, coeff, write_lapl, rows, cols,
                                                       per_item, reverse});
      return;
    }
    if (strip <= 0) strip = Tuning::strip_rows_two_steps;
    // Wide chunks when every array's rows start on 16-byte boundaries with unit columns.
    using T = typename FN::non_const_value_type;
    constexpr int bytes = Tuning::strip_chunk_bytes;
    constexpr int K = bytes % sizeof(T) == 0 && int(sizeof(T)) < bytes ? int(bytes / sizeof(T)) : 1;
    const auto wide = [](const auto& v) {
      const std::int64_t pitch = tr ? v.stride(1) : v.stride(0);
      return column_stride<tr>(v) == 1 && reinterpret_cast<std::uintptr_t>(v.data()) % 16 == 0 &&
             (pitch * std::int64_t(sizeof(T))) % 16 == 0;
    };
    const auto launch = [&](auto k) {
      constexpr int KK = decltype(k)::value;
      const std::int64_t chunks = (cols + KK - 1) / KK, strips = (rows + strip - 1) / strip;
      const Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> policy(exec, 0,
                                                                              chunks * strips);
      if (shape.steps == 2) {
        Kokkos::parallel_for("unison::diffusion::streaming2", policy,
                             DiffusionStrips2<KK, tr, F, FN, L>{f, next, lapl, coeff, write_lapl,
                                                                rows, cols, chunks, strip});
      } else {
        const auto strips = [&](auto d) {
          Kokkos::parallel_for("unison::diffusion::streaming", policy,
                               DiffusionStrips<KK, decltype(d)::value, tr, F, FN, L>{
                                   f, next, lapl, coeff, write_lapl, rows, cols, chunks, strip});
        };
        if (prefetch <= 1) strips(std::integral_constant<int, 1>());
        else if (prefetch == 2) strips(std::integral_constant<int, 2>());
        else if (prefetch == 3) strips(std::integral_constant<int, 3>());
        else strips(std::integral_constant<int, 4>());
      }
    };
    if (wide(f) && wide(next) && wide(lapl)) launch(std::integral_constant<int, K>());
    else launch(std::integral_constant<int, 1>());
    return;
  }
  using Kernel = DiffusionPass<Exec, tr, F, FN, L>;
  const std::int64_t across = (cols + shape.tile_cols - 1) / shape.tile_cols;
  const std::int64_t down = (rows + shape.tile_rows - 1) / shape.tile_rows;
  Kokkos::TeamPolicy<Exec> policy(exec, int(across * down), Tuning::team_size,
                                  Tuning::vector_length);
  policy.set_scratch_size(
      Tuning::scratch_level,
      Kokkos::PerTeam(Kernel::scratch_bytes(shape.tile_rows, shape.tile_cols, shape.steps)));
  Kokkos::parallel_for(shape.steps > 1 ? "unison::diffusion::blocked" : "unison::diffusion::tiled",
                       policy,
                       Kernel{f, next, lapl, coeff, write_lapl, rows, cols, across, shape.tile_rows,
                              shape.tile_cols, shape.steps, Tuning::scratch_level, reverse});
}

// The algorithm `automatic` stands for: the backend's choice, or `tiled` when the caller set a
// tile shape or several steps per pass.
template <class Exec>
StencilAlgorithm resolve(StencilAlgorithm algorithm, Laplacian which,
                         const DiffusionOptions& options = {}) {
  using Tuning = backends::StencilTuning<Exec>;
  if (algorithm != StencilAlgorithm::automatic) return algorithm;
  if (options.tile_rows > 0 || options.tile_cols > 0 || options.steps_per_pass > 1)
    return StencilAlgorithm::tiled;
  const bool streaming =
      which == Laplacian::every_step ? Tuning::streaming_every_step : Tuning::streaming_final_only;
  return streaming ? StencilAlgorithm::streaming : StencilAlgorithm::tiled;
}

inline bool known(StencilAlgorithm a) {
  return a == StencilAlgorithm::automatic || a == StencilAlgorithm::plain ||
         a == StencilAlgorithm::tiled || a == StencilAlgorithm::streaming;
}

template <class Exec, class F>
void check_coeff(const char* fn, double coeff) {
  require(std::isfinite(coeff), fn, "coeff is ", coeff, ", must be finite");
  using T = typename F::non_const_value_type;
  require(std::isfinite(static_cast<T>(coeff)), fn, "coeff ", coeff,
          " is not finite in the field's value type");
}

template <class Exec, class F, class L>
void check_field(const char* fn, const F& f, const L& lapl, double coeff) {
  check_extents(fn, "lapl", lapl, f);
  check_coeff<Exec, F>(fn, coeff);
}

template <class Exec, class... V>
constexpr void static_checks() {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::diffusion: the first argument must be a Kokkos execution space");
  static_assert((is_float_matrix_v<V> && ...),
                "unison::diffusion: fields and Laplacians must be rank-2 Views of float or double");
  static_assert((accessible_v<Exec, V> && ...),
                "unison::diffusion: every View must be accessible from the execution space");
}

}  // namespace impl

/// One diffusion step: f_next = f - coeff * lapl, lapl = the Laplacian of f (header comment).
/// f, f_next, lapl: rank-2 Views of one floating-point type and equal extents, accessible from
/// `exec`, any layout (tiles run along LayoutRight's rows or LayoutLeft's columns). f_next and
/// lapl are only written. Asynchronous on `exec`.
/// Throws unison::invalid_argument for unequal extents, f_next or lapl overlapping f or each
/// other (f is read by neighbouring cells while the step runs: it is never updated in place),
/// or a coeff that is not finite.
/// Kernels: "unison::diffusion::streaming", "unison::diffusion::tiled" or
/// "unison::diffusion::plain", by algorithm (StencilAlgorithm).
template <class Exec, class F, class FN, class L>
void diffusion_step(const Exec& exec, const F& f, const FN& f_next, const L& lapl, double coeff,
                    StencilAlgorithm algorithm = StencilAlgorithm::automatic) {
  impl::static_checks<Exec, F, FN, L>();
  using T = typename F::non_const_value_type;
  static_assert(std::is_same_v<typename FN::non_const_value_type, T> &&
                    std::is_same_v<typename L::non_const_value_type, T>,
                "unison::diffusion_step: f, f_next and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename FN::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::diffusion_step: f_next and lapl must have a non-const value type");
  constexpr const char* fn = "unison::diffusion_step";
  impl::check_extents(fn, "f_next", f_next, f);
  impl::check_field<Exec>(fn, f, lapl, coeff);
  impl::check_disjoint(fn, "f_next", f_next, "f", f);
  impl::check_disjoint(fn, "lapl", lapl, "f", f);
  impl::check_disjoint(fn, "lapl", lapl, "f_next", f_next);
  impl::require(impl::known(algorithm), fn, "unknown algorithm ", int(algorithm));
  algorithm = impl::resolve<Exec>(algorithm, Laplacian::every_step);
  using Tuning = backends::StencilTuning<Exec>;
  auto shape = algorithm != StencilAlgorithm::tiled
                   ? impl::PassShape{1, 1, 1}
                   : impl::checked_shape<Exec, T>(fn, {Tuning::tile_rows, Tuning::tile_cols, 1},
                                                  false, f.extent(0), f.extent(1));
  impl::diffusion_pass(exec, algorithm, shape, f, f_next, lapl, T(coeff), true);
}

/// diffusion_step on f_next's default execution space instance.
template <class F, class FN, class L>
void diffusion_step(const F& f, const FN& f_next, const L& lapl, double coeff,
                    StencilAlgorithm algorithm = StencilAlgorithm::automatic) {
  diffusion_step(typename FN::execution_space(), f, f_next, lapl, coeff, algorithm);
}

namespace impl {

// The buffers diffuse() ping-pongs between: f itself when it is contiguous, and one more of its
// layout (LayoutRight for strided fields, which are copied in and out).
template <class F>
using diffusion_layout_t =
    std::conditional_t<std::is_same_v<typename F::array_layout, Kokkos::LayoutLeft>,
                       Kokkos::LayoutLeft, Kokkos::LayoutRight>;

}  // namespace impl

/// The buffer type diffuse() works with for a field of type F.
template <class F>
using DiffusionBuffer = Kokkos::View<typename F::non_const_value_type**,
                                     impl::diffusion_layout_t<F>, typename F::memory_space>;

namespace impl {

// The checks of DiffusionOptions that every form of diffuse shares.
inline void check_options(const char* fn, const DiffusionOptions& options) {
  require(known(options.algorithm), fn, "unknown algorithm ", int(options.algorithm));
  require(options.tile_rows >= 0 && options.tile_cols >= 0 && options.steps_per_pass >= 0 &&
              options.strip_rows >= 0,
          fn, "tile ", options.tile_rows, "x", options.tile_cols, ", steps_per_pass ",
          options.steps_per_pass, " and strip_rows ", options.strip_rows, " must not be negative");
  require(options.strip_prefetch >= 0 && options.strip_prefetch <= 4, fn, "strip_prefetch is ",
          options.strip_prefetch, ", must be 0 (the backend's choice) to 4");
}

template <class F>
using FieldView = Kokkos::View<typename F::non_const_value_type**, diffusion_layout_t<F>,
                               typename F::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class F>
using ConstFieldView =
    Kokkos::View<const typename F::non_const_value_type**, diffusion_layout_t<F>,
                 typename F::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Runs run(cur, nxt) on two buffers of f's extents, cur holding f: f itself when it is
// contiguous (a LayoutRight or LayoutLeft subview may be padded; otherwise f is copied into a
// third buffer and back) and `buffer` or an internal one. run steps from cur into nxt and swaps
// them; whichever holds the field at the end is copied to f if it is not f.
template <class Exec, class F, class Run>
void with_buffers(const char* function, const Exec& exec, const F& f,
                  const DiffusionBuffer<F>* buffer, Run&& run) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  using Buffer = DiffusionBuffer<F>;
  const bool direct =
      (std::is_same_v<typename F::array_layout, Kokkos::LayoutLeft> ||
       std::is_same_v<typename F::array_layout, Kokkos::LayoutRight>)&&f.span_is_contiguous();
  Buffer other = buffer ? *buffer
                        : allocate<Buffer>(function, "the second field", exec,
                                           "unison::diffusion::buffer", nx, ny);
  Buffer copy_of_f;
  FieldView<F> cur, nxt(other.data(), nx, ny);
  if (direct) {
    cur = FieldView<F>(f.data(), nx, ny);
  } else {
    copy_of_f = allocate<Buffer>(function, "the contiguous copy of f", exec,
                                 "unison::diffusion::field", nx, ny);
    Kokkos::deep_copy(exec, copy_of_f, f);
    cur = FieldView<F>(copy_of_f.data(), nx, ny);
  }
  run(cur, nxt);
  if (cur.data() != f.data()) Kokkos::deep_copy(exec, f, cur);
  // Buffers allocated here are released on return, so the work that uses them must be done.
  if (!buffer || !direct) exec.fence("unison::diffuse: release buffers");
}

template <class Exec, class F, class L, class OnStep>
void diffuse(const char* fn, const Exec& exec, const F& f, std::int64_t steps, double coeff,
             const L& lapl, Laplacian which, const DiffusionOptions& options, OnStep&& on_step,
             const DiffusionBuffer<F>* buffer) {
  static_checks<Exec, F, L>();
  using T = typename F::non_const_value_type;
  static_assert(std::is_same_v<typename L::non_const_value_type, T>,
                "unison::diffuse: f and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename F::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::diffuse: f and lapl must have a non-const value type");
  check_field<Exec>(fn, f, lapl, coeff);
  check_disjoint(fn, "lapl", lapl, "f", f);
  require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
  if (buffer) {
    check_extents(fn, "buffer", *buffer, f);
    check_disjoint(fn, "buffer", *buffer, "f", f);
    check_disjoint(fn, "buffer", *buffer, "lapl", lapl);
  }
  require(which == Laplacian::every_step || which == Laplacian::final_only, fn,
          "unknown Laplacian choice ", int(which));
  check_options(fn, options);
  require(options.steps_per_pass <= 1 || which == Laplacian::final_only, fn, "steps_per_pass ",
          options.steps_per_pass,
          " needs Laplacian::final_only (every step's Laplacian is written otherwise)");
  const StencilAlgorithm algorithm = resolve<Exec>(options.algorithm, which, options);
  require(options.steps_per_pass <= 1 || algorithm != StencilAlgorithm::plain, fn,
          "steps_per_pass ", options.steps_per_pass, " needs the tiled or streaming algorithm");
  require(options.steps_per_pass <= 2 || algorithm != StencilAlgorithm::streaming, fn,
          "steps_per_pass ", options.steps_per_pass,
          " with the streaming algorithm: it runs 1 or 2");

  using Tuning = backends::StencilTuning<Exec>;
  const bool blocked = which == Laplacian::final_only && algorithm == StencilAlgorithm::tiled;
  PassShape shape{1, 1, 1};
  if (algorithm == StencilAlgorithm::tiled) {
    const bool user_tile = options.tile_rows > 0 || options.tile_cols > 0;
    const int per_pass = options.steps_per_pass > 0 ? options.steps_per_pass
                         : blocked                  ? Tuning::steps_per_pass
                                                    : 1;
    shape.steps = per_pass;
    shape.tile_rows = options.tile_rows > 0 ? options.tile_rows
                      : per_pass > 1        ? Tuning::blocked_tile_rows
                                            : Tuning::tile_rows;
    shape.tile_cols = options.tile_cols > 0 ? options.tile_cols
                      : per_pass > 1        ? Tuning::blocked_tile_cols
                                            : Tuning::tile_cols;
    shape = checked_shape<Exec, T>(fn, shape, user_tile, f.extent(0), f.extent(1));
  } else if (algorithm == StencilAlgorithm::streaming && which == Laplacian::final_only) {
    shape.steps =
        options.steps_per_pass > 0 ? options.steps_per_pass : Tuning::streaming_steps_per_pass;
  }
  if (steps == 0 || f.size() == 0) return;

  const T c = T(coeff);
  with_buffers(fn, exec, f, buffer, [&](FieldView<F>& cur, FieldView<F>& nxt) {
    for (std::int64_t done = 0; done < steps;) {
      const int n = int(steps - done < shape.steps ? steps - done : shape.steps);
      const bool final_pass = done + n == steps;
      PassShape pass = shape;
      pass.steps = n;
      diffusion_pass(
          exec, algorithm, pass, ConstFieldView<F>(cur), nxt, lapl, c,
          which == Laplacian::every_step || final_pass, (done / shape.steps) % 2 == 1,
          options.strip_rows > 0 ? options.strip_rows
          : n == 2               ? Tuning::strip_rows_two_steps
                                 : Tuning::strip_rows,
          options.strip_prefetch > 0 ? options.strip_prefetch : Tuning::strip_prefetch_rows);
      done += n;
      std::swap(cur, nxt);
      on_step(done, ConstFieldView<F>(cur), lapl);
    }
  });
}

// Whether diffuse_history runs several steps per pass for this backend and algorithm: the CPU
// form of `streaming` (a block of rows per thread, DiffusionRowsHistory).
template <class Exec>
constexpr bool history_blocking_v = backends::StencilTuning<Exec>::strip_rows <= 0;

// Enqueues `n` steps from f into next by DiffusionRowsHistory (where history_blocking_v), step
// s's Laplacian into plane plane0 + s - 1 of history.
template <class Exec, class F, class FN, class H>
void history_pass(const Exec& exec, const F& f, const FN& next, const H& history, int plane0, int n,
                  typename FN::non_const_value_type coeff, bool reverse) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if constexpr (history_blocking_v<Exec>) {
    using Tuning = backends::StencilTuning<Exec>;
    constexpr bool tr = transposed_v<F>;
    const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
    const std::int64_t items = exec.concurrency() < rows ? exec.concurrency() : rows;
    const std::int64_t per_item = (rows + items - 1) / items;
    using Kernel = DiffusionRowsHistory<Exec, tr, F, FN, H>;
    const std::int64_t pitch = Kernel::ring_pitch(cols);
    Kokkos::TeamPolicy<Exec, Kokkos::Schedule<Kokkos::Static>> policy(
        exec, int((rows + per_item - 1) / per_item), 1);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Kernel::scratch_bytes(n, pitch)));
    Kokkos::parallel_for("unison::diffusion::history", policy,
                         Kernel{f, next, history, coeff, rows, cols, per_item, pitch, plane0, n,
                                Tuning::scratch_level, reverse});
  }
}

}  // namespace impl

/// Advances f by `steps` diffusion steps (see diffusion_step), in place, with one internal
/// buffer of f's size ("unison::diffusion::buffer"). lapl receives the Laplacian of each step
/// (Laplacian::every_step) or of the last step only (Laplacian::final_only, which lets several
/// steps run per pass: options.steps_per_pass, 1 or 2 for the streaming algorithm, any number
/// for the tiled one; the backend's choice by default). Either way, lapl ends holding the
/// Laplacian of the field before the last step.
/// steps == 0 changes nothing.
/// Blocks: returns once the work is done on `exec` (the internal buffer is released at the end,
/// and Kokkos then fences every instance of the backend: overlapping code passes a buffer).
/// Throws unison::invalid_argument for unequal extents, lapl overlapping f, negative steps, a
/// coeff that is not finite, or options that do not apply (steps_per_pass > 1 with every_step
/// or with the plain algorithm, > 2 with the streaming one, a tile that does not fit in the
/// backend's team scratch, negative extents or strip rows, strip_prefetch outside 0 to 4).
/// Kernels: "unison::diffusion::streaming" (two steps per pass: "unison::diffusion::streaming2"),
/// "unison::diffusion::tiled", "unison::diffusion::blocked" (tiled, several steps per pass),
/// "unison::diffusion::plain".
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const F& f, std::int64_t steps, double coeff, const L& lapl,
             Laplacian which = Laplacian::every_step, const DiffusionOptions& options = {}) {
  impl::diffuse(
      "unison::diffuse", exec, f, steps, coeff, lapl, which, options,
      [](std::int64_t, const auto&, const auto&) {}, nullptr);
}

/// diffuse with a caller's buffer of f's extents (a contiguous View of f's layout,
/// LayoutRight for a strided f, in f's memory space; type unison::DiffusionBuffer<F>), for
/// repeated calls: when f is contiguous this allocates nothing and does not block (asynchronous
/// on exec, like every other call). The buffer's contents on return are unspecified.
/// Throws as diffuse does, and if the buffer's extents differ from f's or it overlaps f or lapl.
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const F& f, const DiffusionBuffer<F>& buffer, std::int64_t steps,
             double coeff, const L& lapl, Laplacian which = Laplacian::every_step,
             const DiffusionOptions& options = {}) {
  impl::diffuse(
      "unison::diffuse", exec, f, steps, coeff, lapl, which, options,
      [](std::int64_t, const auto&, const auto&) {}, &buffer);
}

/// diffuse with the Laplacian of every step, calling on_step(step, field, lapl) after each step
/// is enqueued: step counts from 1; field (a const View) holds the field after `step` steps and
/// lapl that step's Laplacian, both valid in stream order on `exec` until the next step. The
/// callback runs on the host and may enqueue work of its own on exec (copy lapl out, say).
template <class Exec, class F, class L, class OnStep,
          class = std::enable_if_t<!std::is_same_v<std::decay_t<OnStep>, Laplacian>>>
void diffuse(const Exec& exec, const F& f, std::int64_t steps, double coeff, const L& lapl,
             OnStep&& on_step, const DiffusionOptions& options = {}) {
  impl::diffuse("unison::diffuse", exec, f, steps, coeff, lapl, Laplacian::every_step, options,
                std::forward<OnStep>(on_step), nullptr);
}

namespace impl {

template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const char* fn, const Exec& exec, const F& f, std::int64_t steps, double coeff,
                     const H& history, const DiffusionOptions& options, OnHistory&& on_history,
                     const DiffusionBuffer<F>* buffer) {
  static_checks<Exec, F>();
  using T = typename F::non_const_value_type;
  static_assert(Kokkos::is_view_v<H> && H::rank() == 3,
                "unison::diffuse_history: history must be a rank-3 View (planes, nx, ny)");
  static_assert(
      std::is_same_v<typename H::value_type, T> && !std::is_const_v<typename F::value_type>,
      "unison::diffuse_history: f and history must have the same non-const value type");
  static_assert(accessible_v<Exec, H>,
                "unison::diffuse_history: history must be accessible from the execution space");
  require(history.extent(0) >= 1 && history.extent(1) == f.extent(0) &&
              history.extent(2) == f.extent(1),
          fn, "history is ", history.extent(0), "x", history.extent(1), "x", history.extent(2),
          ", expected (planes)x", f.extent(0), "x", f.extent(1), " with at least one plane");
  check_coeff<Exec, F>(fn, coeff);
  check_disjoint(fn, "history", history, "f", f);
  require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
  if (buffer) {
    check_extents(fn, "buffer", *buffer, f);
    check_disjoint(fn, "buffer", *buffer, "f", f);
    check_disjoint(fn, "buffer", *buffer, "history", history);
  }
  check_options(fn, options);
  DiffusionOptions shape_options = options;
  shape_options.steps_per_pass = 0;  // here: steps per pass of the CPU streaming kernel only
  const StencilAlgorithm algorithm =
      resolve<Exec>(options.algorithm, Laplacian::every_step, shape_options);
  const bool blocking = history_blocking_v<Exec> && algorithm == StencilAlgorithm::streaming;
  require(options.steps_per_pass <= 1 || blocking, fn, "steps_per_pass ", options.steps_per_pass,
          " needs the streaming algorithm of a backend whose threads sweep blocks of rows (the "
          "CPU backends: StencilTuning::strip_rows == 0)");
  using Tuning = backends::StencilTuning<Exec>;
  const std::int64_t depth = std::int64_t(history.extent(0));
  std::int64_t per_pass = !blocking                    ? 1
                          : options.steps_per_pass > 0 ? options.steps_per_pass
                                                       : Tuning::history_steps_per_pass;
  if (per_pass > depth) per_pass = depth;
  PassShape shape{1, 1, 1};
  if (algorithm == StencilAlgorithm::tiled)
    shape = checked_shape<Exec, T>(
        fn,
        {options.tile_rows > 0 ? options.tile_rows : Tuning::tile_rows,
         options.tile_cols > 0 ? options.tile_cols : Tuning::tile_cols, 1},
        options.tile_rows > 0 || options.tile_cols > 0, f.extent(0), f.extent(1));
  if (steps == 0 || f.size() == 0) return;

  const T c = T(coeff);
  with_buffers(fn, exec, f, buffer, [&](FieldView<F>& cur, FieldView<F>& nxt) {
    std::int64_t pass = 0;
    for (std::int64_t done = 0; done < steps;) {
      const std::int64_t group = steps - done < depth ? steps - done : depth;
      for (std::int64_t k = 0; k < group; ++pass) {
        const int n = int(group - k < per_pass ? group - k : per_pass);
        const bool reverse = pass % 2 == 1;
        if constexpr (history_blocking_v<Exec>) {
          if (blocking)
            history_pass(exec, ConstFieldView<F>(cur), nxt, history, int(k), n, c, reverse);
        }
        if (!blocking)
          diffusion_pass(
              exec, algorithm, shape, ConstFieldView<F>(cur), nxt,
              Kokkos::subview(history, k, Kokkos::ALL, Kokkos::ALL), c, true, reverse,
              options.strip_rows > 0 ? options.strip_rows : Tuning::strip_rows,
              options.strip_prefetch > 0 ? options.strip_prefetch : Tuning::strip_prefetch_rows);
        k += n;
        std::swap(cur, nxt);
      }
      on_history(done + 1, group, ConstFieldView<F>(cur), history);
      done += group;
    }
  });
}

}  // namespace impl

/// diffuse keeping the Laplacian of every step, a group of steps at a time: history is a
/// rank-3 View (planes, nx, ny) of f's value type. The steps run in groups of
/// history.extent(0) (the last group may be shorter); after the group of steps first ..
/// first + count - 1 (steps count from 1) is enqueued, on_history(first, count, field, history)
/// is called on the host: history(k, :, :) for k < count holds the Laplacian of step first + k
/// (that of the field after first + k - 1 steps) and field (a const View) the field after
/// first + count - 1 steps, both valid in stream order on exec until the next group starts.
/// The callback may enqueue work of its own on exec (copy the planes out, reduce them, ...).
/// On the CPU backends the `streaming` algorithm then runs several steps per pass
/// (options.steps_per_pass, default StencilTuning::history_steps_per_pass, at most the
/// planes), writing each step's Laplacian to its plane but reading and writing the field once per
/// pass; elsewhere one step per pass. Every step's arithmetic is that of diffusion_step: the
/// results are bitwise those of diffuse with Laplacian::every_step on the same backend.
/// The planes are fastest in f's layout along their rows (history(k, i, :) contiguous for a
/// LayoutRight f): a LayoutRight history for a LayoutRight field.
/// Blocks as diffuse does (an internal buffer of f's size); f ends holding the field after
/// `steps` steps. steps == 0 changes nothing and calls nothing.
/// Throws unison::invalid_argument as diffuse does, and for a history whose planes are not f's
/// extents or that has none, a history overlapping f, or steps_per_pass > 1 where the
/// algorithm runs one step per pass.
/// Kernels: "unison::diffusion::history" (the CPU streaming form), else diffuse's.
template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const Exec& exec, const F& f, std::int64_t steps, double coeff,
                     const H& history, OnHistory&& on_history,
                     const DiffusionOptions& options = {}) {
  impl::diffuse_history("unison::diffuse_history", exec, f, steps, coeff, history, options,
                        std::forward<OnHistory>(on_history), nullptr);
}

/// diffuse_history with a caller's buffer (as diffuse's buffer form): when f is contiguous this
/// allocates nothing and does not block (asynchronous on exec). Throws as diffuse_history does,
/// and if the buffer's extents differ from f's or it overlaps f or history.
template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const Exec& exec, const F& f, const DiffusionBuffer<F>& buffer,
                     std::int64_t steps, double coeff, const H& history, OnHistory&& on_history,
                     const DiffusionOptions& options = {}) {
  impl::diffuse_history("unison::diffuse_history", exec, f, steps, coeff, history, options,
                        std::forward<OnHistory>(on_history), &buffer);
}

}  // namespace unison
