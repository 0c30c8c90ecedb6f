#pragma once
// unison/detail/diffusion/wavefront.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses).
// `wavefront`: deep temporal blocking. A team owns a strip of grid columns and a block of grid
// rows, and walks down them one row at a time, running up to Steps steps at once: step s computes
// the row s rows above the one just read, so each step's three input rows are at hand. A thread
// keeps V adjacent columns of every step's two upper input rows in registers (the vertical
// neighbours); the horizontal neighbours across threads are each thread's first and last cells,
// exchanged through team scratch once a row (double-buffered: one barrier a row).

#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail::diffusion {

// One pass of `steps` (1 to Steps) steps over blocks of `block_rows` rows and strips of
// strip_cols() columns. A team's grid columns start `pad` cells left of its strip's
// own, so that the cells that lack a true neighbour at the team's edges (taken as 0) spoil only
// columns the strip does not own: an error moves one column a step, and pad >= Steps. Likewise
// the walk starts `steps` rows above the block (from zeros, which spoil one row a step) and ends
// `steps` rows below it. Cells outside the field are never computed: they are 0 at every step, as
// the neighbour rule requires. The last step writes the new field and, if asked, its Laplacian
// for the cells the team owns. Each step rounds as stencil() does: the result is bitwise that of
// one step at a time.
// NT threads a team (1: a CPU team, the whole strip on one thread; a compile-time constant, so
// that scratch addresses are offsets the compiler knows).
template <class Exec, int Steps, int V, int NT, bool Transposed, class F, class FN, class L>
struct DiffusionWavefront {
  using T = typename FN::non_const_value_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static_assert(Steps >= 1 && V >= 1 && NT >= 1,
                "wavefront: at least one step, one cell a thread and one thread a team");
  // Columns left of a strip's own: Steps rounded up to whole chunks of 16 bytes (or of a thread's
  // cells, if fewer), so that a thread's first column is chunk-aligned where the rows are.
  static constexpr int quantum =
      V * sizeof(T) <= 16 ? V : (16 / sizeof(T) > 0 ? int(16 / sizeof(T)) : 1);
  static constexpr int pad = (Steps + quantum - 1) / quantum * quantum;

  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, strips, block_rows;  // strips across the field, rows a team walks
  int steps;
  int scratch_level;
  bool wide;  // f and next: unit column stride, rows and data aligned to V cells (Chunk<T, V>)

  // Columns a strip owns (the caller checks that it is positive).
  KOKKOS_INLINE_FUNCTION static constexpr std::int64_t strip_cols() {
    return std::int64_t(NT) * V - 2 * pad;
  }
  // Scratch words per step and side: a slot per thread and a zero at either end (the team's edge
  // threads read those for the neighbours they lack).
  static constexpr int W = NT + 2;
  // Sides a thread shares: its first and last cells (one cell a thread: the same one).
  static constexpr int sides = V == 1 ? 1 : 2;
  // Scratch of a team: each side of each step's middle row, twice (double-buffered by row).
  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(std::size_t(2) * sides * Steps * W);
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    if constexpr (NT == 1) {
      walk_rows(team.league_rank());
    } else {
      walk_threads(team);
    }
  }

  // The walk of a GPU team: each thread V adjacent columns; rows in two register arrays per step,
  // a and b, whose roles (the row above the middle one, the middle one) swap every row, so that
  // no row is copied from one to the other.
  template <class Member>
  KOKKOS_FUNCTION void walk_threads(const Member& team) const {
    const int t = team.team_rank();
    constexpr std::int64_t own = strip_cols();
    const std::int64_t strip = team.league_rank() % strips, block = team.league_rank() / strips;
    const std::int64_t c0 = strip * own, x0 = c0 - pad + std::int64_t(t) * V;  // first columns
    const std::int64_t r0 = block * block_rows;
    const std::int64_t r1 = r0 + block_rows < rows ? r0 + block_rows : rows;
    // Whether each of this thread's columns lies in the field, and which the strip owns (all in
    // the field: whole chunks are read; all owned too: written).
    bool inside[V], owned[V];
    bool all_inside = true, all_owned = true;
    UNISON_DETAIL_UNROLL_ON_DEVICE
    for (int v = 0; v < V; ++v) {
      inside[v] = x0 + v >= 0 && x0 + v < cols;
      owned[v] = inside[v] && x0 + v >= c0 && x0 + v < c0 + own;
      all_inside = all_inside && inside[v];
      all_owned = all_owned && owned[v];
    }
    const bool chunks = wide && all_inside;

    // edges[buffer][first or last][step][slot], slot t + 1 thread t's, slots 0 and NT + 1 zero.
    Scratch edges(team.team_scratch(scratch_level), std::size_t(2) * sides * Steps * W);
    T* e = edges.data();
    for (int k = 0; k < 2 * sides * Steps; ++k) {
      e[k * W + t + 1] = T(0);
      if (t == 0) e[k * W] = e[k * W + NT + 1] = T(0);
    }
    team.team_barrier();

    T a[Steps][V], b[Steps][V];
    UNISON_DETAIL_UNROLL_ON_DEVICE
    for (int s = 0; s < Steps; ++s) {
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int v = 0; v < V; ++v) a[s][v] = b[s][v] = T(0);
    }
    const int n = steps;
    const std::int64_t y_begin = r0 - n > 0 ? r0 - n : 0, y_end = r1 + n;
    // Row y of the field (zeros past it) into row[]: the bottom input row of the first step, read
    // one row ahead, so that the load is in flight while the steps of the row before run.
    const auto load = [&](std::int64_t y, T* row) {
      if (y < rows && chunks) {
        const Chunk<T, V> c = *reinterpret_cast<const Chunk<T, V>*>(&cell<Transposed>(f, y, x0));
        UNISON_DETAIL_UNROLL_ON_DEVICE
        for (int v = 0; v < V; ++v) row[v] = c.v[v];
      } else {
        UNISON_DETAIL_UNROLL_ON_DEVICE
        for (int v = 0; v < V; ++v)
          row[v] = y < rows && inside[v] ? cell<Transposed>(f, y, x0 + v) : T(0);
      }
    };
    T ahead[V];
    load(y_begin, ahead);
    // One row: the steps of row y (up: the rows above each step's middle row, which receive each
    // step's new middle row), reading edge buffer P and writing the other one.
    const auto row = [&](auto p, std::int64_t y, T(&up)[Steps][V], T(&mid)[Steps][V]) {
      constexpr int P = decltype(p)::value;
      T down[V];
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int v = 0; v < V; ++v) down[v] = ahead[v];
      if (y + 1 < y_end) load(y + 1, ahead);
      const bool store_row = y - n >= r0 && y - n < r1;
      // Every step's row and every column of this thread in the field: nothing to zero.
      const bool whole = chunks && all_owned;
      if (all_inside && y - n >= 0 && y - 1 < rows)
        this->template steps_of_row<P, false>(e, t, y, up, mid, down, inside, store_row, x0, whole,
                                              owned);
      else
        this->template steps_of_row<P, true>(e, t, y, up, mid, down, inside, store_row, x0, whole,
                                             owned);
      team.team_barrier();
    };
    for (std::int64_t y = y_begin; y < y_end; y += 2) {
      row(std::integral_constant<int, 0>(), y, a, b);
      if (y + 1 < y_end) row(std::integral_constant<int, 1>(), y + 1, b, a);
    }
  }

  // The steps of row y of a GPU thread (see walk_threads). Edge: zero the cells outside the
  // field.
  template <int P, bool Edge>
  KOKKOS_FORCEINLINE_FUNCTION void steps_of_row(T* e, int t, std::int64_t y, T (&up)[Steps][V],
                                                const T (&mid)[Steps][V], T* down,
                                                const bool* inside, bool store_row, std::int64_t x0,
                                                bool chunks, const bool* owned) const {
    const T* first = e + sides * P * Steps * W;
    const T* last = first + (sides - 1) * Steps * W;
    T* next_first = e + sides * (1 - P) * Steps * W;
    T* next_last = next_first + (sides - 1) * Steps * W;
    const int n = steps;
    UNISON_DETAIL_UNROLL_ON_DEVICE
    for (int s = 0; s < Steps; ++s) {
      if (s < n) {  // (a guard, not a break: the loop is unrolled)
        const T left = last[s * W + t], right = first[s * W + t + 2];
        T out[V], lap[V];
        UNISON_DETAIL_UNROLL_ON_DEVICE
        for (int v = 0; v < V; ++v)
          stencil<T>(mid[s][v], up[s][v], down[v], v > 0 ? mid[s][v - 1] : left,
                     v + 1 < V ? mid[s][v + 1] : right, coeff, lap[v], out[v]);
        if constexpr (Edge) {
          const std::int64_t r = y - 1 - s;  // the row step s + 1 makes
          const bool row_inside = r >= 0 && r < rows;
          UNISON_DETAIL_UNROLL_ON_DEVICE
          for (int v = 0; v < V; ++v)
            if (!row_inside || !inside[v]) out[v] = T(0);
        }
        UNISON_DETAIL_UNROLL_ON_DEVICE
        for (int v = 0; v < V; ++v) {
          up[s][v] = down[v];  // the step's next middle row
          down[v] = out[v];    // the next step's bottom input row
        }
        next_first[s * W + t + 1] = up[s][0];
        if constexpr (V > 1) next_last[s * W + t + 1] = up[s][V - 1];
        if (s == n - 1 && store_row) store(y - n, x0, chunks, owned, out, lap);
      }
    }
  }

  // A CPU team (one thread, the strip's V columns): the same walk, each step's row made by
  // stencil_cells (host vectors, bitwise stencil()'s values) from whole rows, the team's edges
  // taken as zeros.
  KOKKOS_FUNCTION void walk_rows(std::int64_t league_rank) const {
    const std::int64_t own = strip_cols();
    const std::int64_t c0 = league_rank % strips * own, x0 = c0 - pad;
    const std::int64_t r0 = league_rank / strips * block_rows;
    const std::int64_t r1 = r0 + block_rows < rows ? r0 + block_rows : rows;
    // This strip's columns in the field [lo, hi) and owned [own_lo, own_hi), from x0.
    const int lo = x0 < 0 ? int(-x0) : 0, hi = cols - x0 < V ? int(cols - x0) : V;
    const int own_lo = pad, own_hi = cols - x0 < pad + own ? int(cols - x0) : int(pad + own);
    // Each step's three input rows in a ring of three slots (up, middle, down: rotated, never
    // copied); each step but the last writes its row into the next step's down slot.
    T ring[Steps][3][V], out[V], lap[V];
    int up[Steps], mid[Steps], down[Steps];
    for (int s = 0; s < Steps; ++s) {
      up[s] = 0, mid[s] = 1, down[s] = 2;
      for (int k = 0; k < 3; ++k)
        for (int v = 0; v < V; ++v) ring[s][k][v] = T(0);
    }
    const std::int64_t f_stride = column_stride<Transposed>(f);
    const int n = steps;
    const std::int64_t y_begin = r0 - n > 0 ? r0 - n : 0, y_end = r1 + n;
    for (std::int64_t y = y_begin; y < y_end; ++y) {
      T* first = ring[0][down[0]];
      if (y < rows) {
        const T* src = &cell<Transposed>(f, y, x0 + lo);
        for (int v = lo; v < hi; ++v) first[v] = src[(v - lo) * f_stride];
      } else {
        for (int v = lo; v < hi; ++v) first[v] = T(0);
      }
      for (int s = 0; s < n; ++s) {
        const std::int64_t r = y - 1 - s;
        const bool final_step = s == n - 1, last = final_step && r >= r0 && r < r1;
        T* dst = final_step ? out : ring[s + 1][down[s + 1]];
        const T *u = ring[s][up[s]], *m = ring[s][mid[s]], *d = ring[s][down[s]];
        if (r >= 0 && r < rows) {
          if (last && write_lapl)
            stencil_cells<T, host_chunk_v<T>, true, false>(true, true, u, m, d, 1, dst, 1, lap, 1,
                                                           V, true, true, coeff);
          else
            stencil_cells<T, host_chunk_v<T>, false, false>(true, true, u, m, d, 1, dst, 1, nullptr,
                                                            1, V, true, true, coeff);
          for (int v = 0; v < lo; ++v) dst[v] = T(0);
          for (int v = hi; v < V; ++v) dst[v] = T(0);
        } else {
          for (int v = 0; v < V; ++v) dst[v] = T(0);
        }
        const int freed = up[s];
        up[s] = mid[s], mid[s] = down[s], down[s] = freed;
        if (last) {
          for (int v = own_lo; v < own_hi; ++v) cell<Transposed>(next, r, x0 + v) = out[v];
          if (write_lapl)
            for (int v = own_lo; v < own_hi; ++v) cell<Transposed>(lapl, r, x0 + v) = lap[v];
        }
      }
    }
  }

  // Row r's owned cells of x0 ... of the final step: the new field, and the Laplacian if asked
  // (chunks: all V cells, as one wide store).
  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t r, std::int64_t x0, bool chunks,
                                         const bool* owned, const T* out, const T* lap) const {
    if (chunks) {
      Chunk<T, V> c;
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int v = 0; v < V; ++v) c.v[v] = out[v];
      *reinterpret_cast<Chunk<T, V>*>(&cell<Transposed>(next, r, x0)) = c;
    } else {
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int v = 0; v < V; ++v)
        if (owned[v]) cell<Transposed>(next, r, x0 + v) = out[v];
    }
    if (write_lapl) {
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int v = 0; v < V; ++v)
        if (owned[v]) cell<Transposed>(lapl, r, x0 + v) = lap[v];
    }
  }
};

}  // namespace unison::detail::diffusion
