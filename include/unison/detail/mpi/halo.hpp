#pragma once
// unison/detail/mpi/halo.hpp: part of unison/mpi.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The block's kernels: one step of a rectangle of cells of a padded block (ghost cells around
// it, at least as deep as the halos), the frame of such a rectangle around the block's interior,
// and the halos packed and unpacked.

#include <unison/detail/mpi/agreement.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// The families this component builds on, through their interfaces to other components
// (unison/detail/<family>/interface.hpp): it names nothing else of theirs.
namespace diffusion = unison::detail::diffusion::interface;
namespace field = unison::detail::field::interface;
namespace matmul = unison::detail::matmul::interface;

// The checks of a call of the distributed diffusion, agreed by every rank of d: f and lapl of
// the block's extents, the single-rank diffusion's checks, steps >= 0, a Laplacian choice, and
// steps, coeff and which alike on every rank.
template <class Exec, class F, class L>
void check_call(const unison::mpi::Decomposition& d, const F& f, std::int64_t steps, double coeff,
                const L& lapl, Laplacian which) {
  constexpr const char* fn = "unison::mpi::diffuse";
  agree(d.comm, fn,
        [&] {
          check_block(fn, d, f);
          diffusion::check_arguments<Exec>(fn, f, lapl, coeff);
          require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
          diffusion::check_laplacian(fn, which);
        },
        {{"steps", steps},
         {"coeff", bits(coeff)},
         {"which (the Laplacian choice)", (long long)which}});
}

// The padded copy of a block: ghost cells on every side, in the layout diffuse uses for the
// field. In the kernels' grid (rows across the contiguous axis), grid cell (r, c) of the block is
// padded cell (r + kr, c + kc): kr ghost rows above and below it, kc before its first column (kr
// rounded up to HaloTuning::align_cols, so that the block's columns start on the same alignment
// in the padded copy as in an aligned field), at least kr after its last (each row is padded to
// a multiple of align_cols values); kr is at least the halos' depth k.
template <class F>
using Padded = Kokkos::View<typename F::non_const_value_type**, diffusion::layout_t<F>,
                            typename F::memory_space>;

// One diffusion step of cells of a block's grid: cell (r, c), which may lie outside the block
// (-k < r < rows + k) when the halo is k > 1 cells deep, is padded cell (r + kr, c + kc) of cur;
// its neighbours are other cells of the block or ghost cells, which hold the neighbouring blocks'
// cells (or 0 at the field's edge). The new value goes to `next`: the other padded copy at the same
// padded cell, or (ToField) the caller's field at (r, c) in the call's last step, whose cells are
// all in the block. The Laplacian is written for the block's cells only. The arithmetic is
// diffusion::step, as in every single-rank kernel.
template <bool Transposed, class P, class N, class L, bool ToField>
struct HaloStencil {
  using T = typename P::non_const_value_type;
  typename P::const_type cur;
  N next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t kr, kc, rows, cols;

  // Stores padded cell (pr, pc)'s new value, and its Laplacian where `lapl_here`.
  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t pr, std::int64_t pc, T lap, T v,
                                         bool lapl_here) const {
    if constexpr (ToField) diffusion::at<Transposed>(next, pr - kr, pc - kc) = v;
    else diffusion::at<Transposed>(next, pr, pc) = v;
    if (lapl_here) diffusion::at<Transposed>(lapl, pr - kr, pc - kc) = lap;
  }
  KOKKOS_FORCEINLINE_FUNCTION void cell(std::int64_t r, std::int64_t c) const {
    const std::int64_t pr = r + kr, pc = c + kc;
    T lap, v;
    diffusion::step<T>(
        diffusion::at<Transposed>(cur, pr, pc), diffusion::at<Transposed>(cur, pr - 1, pc),
        diffusion::at<Transposed>(cur, pr + 1, pc), diffusion::at<Transposed>(cur, pr, pc - 1),
        diffusion::at<Transposed>(cur, pr, pc + 1), coeff, lap, v);
    store(pr, pc, lap, v, write_lapl && r >= 0 && c >= 0 && r < rows && c < cols);
  }
};

// The cells of grid rows [r0, r1) and padded columns [lo, hi) (a rectangle): a thread per chunk
// of K consecutive padded columns (one 16-byte access on a GPU; the chunks start at `first`, a
// multiple of K at or below lo) walking down a strip of `strip` rows, as the single-rank
// streaming kernel does: the rows above, at and below in registers, RowsAhead rows loaded ahead,
// two single loads a row for the left and right neighbours, no scratch, no barrier. The chunk's
// loads never leave the padded copy (its rows are `pitch` values, a multiple of K, and every row
// the rectangle reads is one of its rows); only the cells in [lo, hi) are stored. A chunk at the
// rectangle's edge also loads cells that no stored cell reads, which a kernel on the other
// stream may be writing meanwhile (the ghost cells being unpacked, the edge cells of the step
// before): their lanes are never used. The single loads of the left and right neighbours are
// made only where a stored cell reads them. A chunk wholly
// inside the rectangle stores into the padded copy with one wide access, and into the caller's
// field (ToField) and Laplacian with one too where `wide_next` and `wide_lapl` say that their
// rows allow it (unit column stride, 16-byte aligned rows; the block's columns start on a
// multiple of K in the padded copy), else cell by cell.
template <bool Transposed, class P, class N, class L, bool ToField, int K, int RowsAhead>
struct HaloStrips : HaloStencil<Transposed, P, N, L, ToField> {
  using T = typename P::non_const_value_type;
  using C = unison::detail::Chunk<T, K>;
  std::int64_t r0, r1, lo, hi, first, chunks;
  int strip;
  bool wide_next, wide_lapl;

  KOKKOS_FORCEINLINE_FUNCTION C load(std::int64_t pr, std::int64_t pc0) const {
    return *reinterpret_cast<const C*>(&diffusion::at<Transposed>(this->cur, pr, pc0));
  }
  // Cell pc0 + e's value and Laplacian to their places where they belong.
  KOKKOS_FORCEINLINE_FUNCTION void store_cells(std::int64_t r, std::int64_t pc0, const C& v,
                                               const C& lap, bool row_lapl) const {
    for (int e = 0; e < K; ++e) {
      const std::int64_t pc = pc0 + e;
      if (pc >= lo && pc < hi)
        this->store(r + this->kr, pc, lap.v[e], v.v[e],
                    row_lapl && pc >= this->kc && pc < this->kc + this->cols);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void store_chunk(std::int64_t r, std::int64_t pc0, const C& v,
                                               const C& lap, bool row_lapl, bool whole) const {
    if (!whole) return store_cells(r, pc0, v, lap, row_lapl);
    const std::int64_t kr = this->kr, kc = this->kc;
    if constexpr (ToField) {
      if (wide_next) *reinterpret_cast<C*>(&diffusion::at<Transposed>(this->next, r, pc0 - kc)) = v;
      else
        for (int e = 0; e < K; ++e) diffusion::at<Transposed>(this->next, r, pc0 - kc + e) = v.v[e];
    } else {
      *reinterpret_cast<C*>(&diffusion::at<Transposed>(this->next, r + kr, pc0)) = v;
    }
    if (!row_lapl || pc0 < kc || pc0 + K > kc + this->cols) {
      for (int e = 0; e < K; ++e) {
        const std::int64_t pc = pc0 + e;
        if (row_lapl && pc >= kc && pc < kc + this->cols)
          diffusion::at<Transposed>(this->lapl, r, pc - kc) = lap.v[e];
      }
    } else if (wide_lapl) {
      *reinterpret_cast<C*>(&diffusion::at<Transposed>(this->lapl, r, pc0 - kc)) = lap;
    } else {
      for (int e = 0; e < K; ++e) diffusion::at<Transposed>(this->lapl, r, pc0 - kc + e) = lap.v[e];
    }
  }

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t pc0 = first + i % chunks * K, rs = r0 + i / chunks * strip;
    const std::int64_t re = rs + strip < r1 ? rs + strip : r1;
    const std::int64_t kr = this->kr;
    const bool whole = pc0 >= lo && pc0 + K <= hi;
    // Cell pc0 (pc0 + K - 1) is stored, so its left (right) neighbour is read: lo > 0 and
    // hi < pitch keep both inside the row.
    const bool left_read = pc0 >= lo, right_read = pc0 + K <= hi;
    // w[j] is grid row r - 1 + j: above, at, below, then the rows loaded ahead; the strip reads
    // rows rs - 1 .. re.
    C w[RowsAhead + 2];
    for (int j = 0; j < RowsAhead + 2; ++j)
      w[j] = rs - 1 + j <= re ? load(rs - 1 + j + kr, pc0) : C{};
    for (std::int64_t r = rs; r < re; ++r) {
      const C ahead = r + RowsAhead + 1 <= re ? load(r + RowsAhead + 1 + kr, pc0) : C{};
      const T left = left_read ? diffusion::at<Transposed>(this->cur, r + kr, pc0 - 1) : T(0);
      const T right = right_read ? diffusion::at<Transposed>(this->cur, r + kr, pc0 + K) : T(0);
      C v, lap;
      for (int e = 0; e < K; ++e)
        diffusion::step<T>(w[1].v[e], w[0].v[e], w[2].v[e], e > 0 ? w[1].v[e - 1] : left,
                           e + 1 < K ? w[1].v[e + 1] : right, this->coeff, lap.v[e], v.v[e]);
      store_chunk(r, pc0, v, lap, this->write_lapl && r >= 0 && r < this->rows, whole);
      for (int j = 0; j + 1 < RowsAhead + 2; ++j) w[j] = w[j + 1];
      w[RowsAhead + 1] = ahead;
    }
  }
};

// The same rectangle on CPUs: a work item per block of `per_item` consecutive grid rows (one
// block per thread of the backend), each row by the single-rank CPU kernels' row code
// (diffusion::row_cells: host vectors, the Laplacian stored non-temporally), in up to three runs
// of cells: before the block's first column, the block's columns (with the Laplacian, where the
// row is one of the block's and the step writes it), after its last.
template <bool Transposed, class P, class N, class L, bool ToField>
struct HaloRows : HaloStencil<Transposed, P, N, L, ToField> {
  using T = typename P::non_const_value_type;
  std::int64_t r0, r1, lo, hi, per_item;

  template <bool Lapl>
  KOKKOS_FORCEINLINE_FUNCTION void run(std::int64_t r, std::int64_t a, std::int64_t b) const {
    if (b <= a) return;
    const std::int64_t pr = r + this->kr, kc = this->kc;
    const T* mid = &diffusion::at<Transposed>(this->cur, pr, a);
    T* out;
    std::int64_t out_stride;
    if constexpr (ToField) {
      out = &diffusion::at<Transposed>(this->next, r, a - kc);
      out_stride = Transposed ? this->next.stride(0) : this->next.stride(1);
    } else {
      out = &diffusion::at<Transposed>(this->next, pr, a);
      out_stride = 1;
    }
    T* lout = Lapl ? &diffusion::at<Transposed>(this->lapl, r, a - kc) : nullptr;
    const std::int64_t lapl_stride = Transposed ? this->lapl.stride(0) : this->lapl.stride(1);
    diffusion::row_cells<T, Lapl>(&diffusion::at<Transposed>(this->cur, pr - 1, a), mid,
                                  &diffusion::at<Transposed>(this->cur, pr + 1, a), out, out_stride,
                                  lout, lapl_stride, b - a, T(this->coeff));
  }

  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    const std::int64_t first = r0 + item * per_item;
    const std::int64_t last = first + per_item < r1 ? first + per_item : r1;
    const std::int64_t kc = this->kc, block_end = kc + this->cols;
    const std::int64_t a = lo > kc ? lo : kc, b = hi < block_end ? hi : block_end;
    for (std::int64_t r = first; r < last; ++r) {
      if (this->write_lapl && r >= 0 && r < this->rows && a < b) {
        run<false>(r, lo, a);
        run<true>(r, a, b);
        run<false>(r, b, hi);
      } else {
        run<false>(r, lo, hi);
      }
    }
    diffusion::end_of_rows();
  }
};

// Copies the caller's field f into the padded block's cells: a team per grid row, its threads
// along the row (the contiguous axis of both). Kokkos' deep_copy into the padded block's subview
// ran at a tenth of the copy rate on a GPU.
template <bool Transposed, class P, class F>
struct HaloCopyIn {
  P padded;
  F f;
  std::int64_t kr, kc, cols;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cols), [&](std::int64_t c) {
      diffusion::at<Transposed>(padded, r + kr, c + kc) = diffusion::at<Transposed>(f, r, c);
    });
  }
};

// Zeroes the n values from p (a padded block's whole span): a kernel with Unison's label, where
// Kokkos' deep_copy of a value launches one named by Kokkos.
template <class T>
struct ZeroFill {
  T* p;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { p[i] = T(0); }
};

// The launch shape of the block's updates and of HaloCopyIn (HaloTuning in
// unison/backends/tuning.hpp), and of HaloStrips where the backend takes them (GPUs).
template <class Exec>
struct HaloShape {
  using Tuning = backends::HaloTuning<Exec>;
  static constexpr bool row_blocks = Tuning::row_blocks;
  static constexpr int team = Tuning::team_size;
  static constexpr int align = Tuning::align_cols;
  // A row of n values rounded up to the alignment.
  static std::int64_t pitch(std::int64_t n) { return (n + align - 1) / align * align; }
};
template <class Exec, class T>
struct HaloStripShape {
  using Tuning = backends::HaloTuning<Exec>;
  static constexpr int strip = Tuning::strip_rows;
  static constexpr int ahead = Tuning::prefetch_rows;
  static constexpr int K =
      Tuning::chunk_bytes % int(sizeof(T)) == 0 && int(sizeof(T)) < Tuning::chunk_bytes
          ? Tuning::chunk_bytes / int(sizeof(T))
          : 1;
  static_assert(Tuning::align_cols % K == 0,
                "HaloTuning: align_cols must be a multiple of a chunk's values");
  static_assert(strip >= 1 && ahead >= 1, "HaloTuning: strip_rows and prefetch_rows at least 1");
};

// A rectangle of the grid, [r0, r1) x [c0, c1).
struct Rect {
  std::int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
};

// The cells of rectangle `outer` that are not in rectangle `inner` (which lies within outer, or
// is empty: then every cell of outer). Item i: the rows of outer above inner, then those below
// it, then the cells left and right of inner in its rows.
template <bool Transposed, class P, class N, class L, bool ToField>
struct HaloStencilFrame : HaloStencil<Transposed, P, N, L, ToField> {
  Rect outer, inner;

  KOKKOS_FUNCTION bool hollow() const { return inner.r1 > inner.r0 && inner.c1 > inner.c0; }
  KOKKOS_FUNCTION std::int64_t width() const { return outer.c1 - outer.c0; }
  KOKKOS_FUNCTION std::int64_t above() const {
    return hollow() ? inner.r0 - outer.r0 : outer.r1 - outer.r0;
  }
  KOKKOS_FUNCTION std::int64_t below() const { return hollow() ? outer.r1 - inner.r1 : 0; }
  KOKKOS_FUNCTION std::int64_t left() const { return inner.c0 - outer.c0; }
  KOKKOS_FUNCTION std::int64_t beside() const {
    return hollow() ? left() + (outer.c1 - inner.c1) : 0;
  }
  std::int64_t size() const {
    return (above() + below()) * width() + (hollow() ? inner.r1 - inner.r0 : 0) * beside();
  }
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t w = width();
    if (i < above() * w) return this->cell(outer.r0 + i / w, outer.c0 + i % w);
    i -= above() * w;
    if (i < below() * w) return this->cell(inner.r1 + i / w, outer.c0 + i % w);
    i -= below() * w;
    const std::int64_t side = beside(), q = i % side;
    this->cell(inner.r0 + i / side, q < left() ? outer.c0 + q : inner.c1 + (q - left()));
  }
};

}  // namespace unison::detail::mpi
