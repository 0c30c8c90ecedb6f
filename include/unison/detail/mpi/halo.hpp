#pragma once
// unison/detail/mpi/halo.hpp: part of unison/mpi.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The block's kernels: one step of a rectangle of cells of a padded block (halos of depth k
// around it), the frame of such a rectangle around the block's interior, and the halos packed
// and unpacked.

#include <unison/detail/mpi/agreement.hpp>

namespace unison::mpi::detail {

// The families this component builds on, through their interfaces to other components
// (unison/detail/<family>/interface.hpp): it names nothing else of theirs.
namespace diffusion = unison::detail::diffusion::interface;
namespace field = unison::detail::field::interface;
namespace matmul = unison::detail::matmul::interface;

// The checks of a call of the distributed diffusion, agreed by every rank of d: f and lapl of
// the block's extents, the single-rank diffusion's checks, steps >= 0, a Laplacian choice, and
// steps, coeff and which alike on every rank.
template <class Exec, class F, class L>
void check_call(const Decomposition& d, const F& f, std::int64_t steps, double coeff, const L& lapl,
                Laplacian which) {
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

// The padded copy of a block: k ghost cells on every side, (local_nx + 2k) x (local_ny + 2k), in
// the layout diffuse uses for the field.
template <class F>
using Padded = Kokkos::View<typename F::non_const_value_type**, diffusion::layout_t<F>,
                            typename F::memory_space>;

// One diffusion step of cells of a block's grid (rows across its contiguous axis, as the
// single-rank kernels see it): cell (r, c), which may lie outside the block (-k < r < rows + k)
// when the halo is deeper than one cell, is padded cell (r + k, c + k) of cur; its neighbours are
// other cells of the block or ghost cells, which hold the neighbouring blocks' cells (or 0 at
// the field's edge). The new value goes to `next`: the other padded copy at the same padded
// cell, or (ToField) the caller's field at (r, c) in the call's last step, whose cells are all in
// the block. The Laplacian is written for the block's cells only. The arithmetic is
// diffusion::step, as in every single-rank kernel.
template <bool Transposed, class P, class N, class L, bool ToField>
struct HaloStencil {
  using T = typename P::non_const_value_type;
  typename P::const_type cur;
  N next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t k, rows, cols;

  // Stores padded cell (pr, pc)'s new value, and its Laplacian where `lapl_here`.
  KOKKOS_FORCEINLINE_FUNCTION void store(std::int64_t pr, std::int64_t pc, T lap, T v,
                                         bool lapl_here) const {
    if constexpr (ToField) diffusion::at<Transposed>(next, pr - k, pc - k) = v;
    else diffusion::at<Transposed>(next, pr, pc) = v;
    if (lapl_here) diffusion::at<Transposed>(lapl, pr - k, pc - k) = lap;
  }
  KOKKOS_FORCEINLINE_FUNCTION void cell(std::int64_t r, std::int64_t c) const {
    const std::int64_t pr = r + k, pc = c + k;
    T lap, v;
    diffusion::step<T>(
        diffusion::at<Transposed>(cur, pr, pc), diffusion::at<Transposed>(cur, pr - 1, pc),
        diffusion::at<Transposed>(cur, pr + 1, pc), diffusion::at<Transposed>(cur, pr, pc - 1),
        diffusion::at<Transposed>(cur, pr, pc + 1), coeff, lap, v);
    store(pr, pc, lap, v, write_lapl && r >= 0 && c >= 0 && r < rows && c < cols);
  }
};

// The cells [r0, r0 + n) x [c0, c0 + m) of the grid: a team per segment of `width` padded
// columns of a grid row (`segments` of them per row, the first starting at padded column
// `first`, a multiple of the alignment at or below the rectangle's first column), its threads
// along the row (the contiguous axis). Each thread loads the neighbours of U cells, a team's
// width apart, before it computes and stores any: U cells' loads in flight at once (one cell at a
// time, the stores of a cell could alias the next cell's loads as far as the compiler knows;
// docs/tuning.md). Written for few registers (the team's row and its columns in the block worked
// out once): at 256 threads a team, every register a thread holds past 48 costs the
// multiprocessor a team in flight.
template <bool Transposed, class P, class N, class L, bool ToField, int U>
struct HaloStencilRows : HaloStencil<Transposed, P, N, L, ToField> {
  using T = typename P::non_const_value_type;
  std::int64_t r0, c0, m, first, segments, width;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t league = team.league_rank();
    const std::int64_t r = r0 + league / segments;      // the grid row
    const std::int64_t pr = r + this->k;                // and its padded row
    const std::int64_t lo = c0 + this->k, hi = lo + m;  // the rectangle's padded columns
    const std::int64_t begin = first + league % segments * width;
    const std::int64_t end = begin + width < hi ? begin + width : hi;
    const std::int64_t threads = team.team_size();
    // The Laplacian of this row's padded columns [this->k, this->k + cols): the block's.
    const bool row_lapl = this->write_lapl && r >= 0 && r < this->rows;
    const std::int64_t block_end = this->k + this->cols;
    for (std::int64_t base = begin + team.team_rank(); base < end; base += U * threads) {
      T mid[U] = {}, up[U] = {}, down[U] = {}, left[U] = {}, right[U] = {};
      for (int u = 0; u < U; ++u) {
        const std::int64_t pc = base + u * threads;  // padded column
        if (pc >= lo && pc < end) {
          mid[u] = diffusion::at<Transposed>(this->cur, pr, pc);
          up[u] = diffusion::at<Transposed>(this->cur, pr - 1, pc);
          down[u] = diffusion::at<Transposed>(this->cur, pr + 1, pc);
          left[u] = diffusion::at<Transposed>(this->cur, pr, pc - 1);
          right[u] = diffusion::at<Transposed>(this->cur, pr, pc + 1);
        }
      }
      for (int u = 0; u < U; ++u) {
        const std::int64_t pc = base + u * threads;
        if (pc >= lo && pc < end) {
          T lap, v;
          diffusion::step<T>(mid[u], up[u], down[u], left[u], right[u], this->coeff, lap, v);
          this->store(pr, pc, lap, v, row_lapl && pc >= this->k && pc < block_end);
        }
      }
    }
  }
};

// Copies the caller's field f into the padded block's cells (k ghost cells around them): a
// team per grid row, its threads along the row (the contiguous axis of both). Kokkos' deep_copy
// into the padded block's subview ran at a tenth of the copy rate on a GPU.
template <bool Transposed, class P, class F>
struct HaloCopyIn {
  P padded;
  F f;
  std::int64_t k, cols;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cols), [&](std::int64_t c) {
      diffusion::at<Transposed>(padded, r + k, c + k) = diffusion::at<Transposed>(f, r, c);
    });
  }
};

// The launch shape of HaloStencilRows (HaloTuning in unison/backends/tuning.hpp): for the
// padded columns [lo, lo + m) of a row, the aligned first column, the segments' width and their
// number.
template <class Exec>
struct HaloRowsShape {
  using Tuning = backends::HaloTuning<Exec>;
  static constexpr int cells = Tuning::cells_per_thread;
  static constexpr int team = Tuning::team_size;
  static constexpr int align = Tuning::align_cols;
  static std::int64_t first(std::int64_t lo) { return lo / align * align; }
  static std::int64_t width(std::int64_t lo, std::int64_t m) {
    return Tuning::segment_cols > 0 ? std::int64_t(Tuning::segment_cols) : lo + m - first(lo);
  }
  static std::int64_t segments(std::int64_t lo, std::int64_t m) {
    const std::int64_t w = width(lo, m), span = lo + m - first(lo);
    return w > 0 ? (span + w - 1) / w : 1;
  }
  static std::int64_t teams(std::int64_t rows, std::int64_t lo, std::int64_t m) {
    return rows * segments(lo, m);
  }
  // A row of n values rounded up to the alignment (the padded block's contiguous extent).
  static std::int64_t pitch(std::int64_t n) { return (n + align - 1) / align * align; }
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

// The eight halo segments of a block of nx x ny cells with halos of depth k, in field
// coordinates: north (k x ny cells: the block's first k rows), south (its last k rows), west
// (nx x k: its first k columns), east, then the corners north-west, north-east, south-west and
// south-east (k x k each; empty for k = 1, which the five-point stencil does not read). Segment s
// holds rows x columns cells, row-major, at [offset[s], offset[s + 1]) of the buffers; it is
// packed from padded rows send_r + [0, rows) and columns send_c + [0, cols), and what arrives
// for it goes to recv_r, recv_c (where that neighbour exists).
struct HaloSegments {
  static constexpr int count = 8;
  Kokkos::Array<std::int64_t, count + 1> offset;
  Kokkos::Array<std::int64_t, count> cols, send_r, send_c, recv_r, recv_c;
  Kokkos::Array<bool, count> present;

  HaloSegments() = default;
  HaloSegments(std::int64_t nx, std::int64_t ny, std::int64_t k,
               const std::array<bool, count>& neighbours) {
    const std::int64_t ck = k > 1 ? k : 0;  // corners
    const std::int64_t rows_[count] = {k, k, nx, nx, ck, ck, ck, ck};
    const std::int64_t cols_[count] = {ny, ny, k, k, ck, ck, ck, ck};
    // Where each segment's cells are in this block (send) and in its ghost cells (recv).
    const std::int64_t sr[count] = {k, nx, k, k, k, k, nx, nx};
    const std::int64_t sc[count] = {k, k, k, ny, k, ny, k, ny};
    const std::int64_t rr[count] = {0, nx + k, k, k, 0, 0, nx + k, nx + k};
    const std::int64_t rc[count] = {k, k, 0, ny + k, 0, ny + k, 0, ny + k};
    offset[0] = 0;
    for (int s = 0; s < count; ++s) {
      offset[s + 1] = offset[s] + rows_[s] * cols_[s];
      cols[s] = cols_[s];
      send_r[s] = sr[s];
      send_c[s] = sc[s];
      recv_r[s] = rr[s];
      recv_c[s] = rc[s];
      present[s] = neighbours[std::size_t(s)];
    }
  }
  std::int64_t size() const { return offset[count]; }
  // The segment of buffer item i, and the item's row and column in it.
  KOKKOS_FORCEINLINE_FUNCTION void locate(std::int64_t i, int& s, std::int64_t& a,
                                          std::int64_t& b) const {
    s = 0;
    while (i >= offset[s + 1]) ++s;
    a = (i - offset[s]) / cols[s];
    b = (i - offset[s]) % cols[s];
  }
};

// Copies the block's edge cells (padded cur) into the send buffer, by segment.
template <class P, class B>
struct HaloPack {
  typename P::const_type cur;
  B send;
  HaloSegments seg;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    int s;
    std::int64_t a, b;
    seg.locate(i, s, a, b);
    send(i) = cur(seg.send_r[s] + a, seg.send_c[s] + b);
  }
};

// Copies the received segments into the ghost cells of padded cur; only the segments whose
// neighbour exists (the other ghost cells stay 0, the field's edge).
template <class P, class B>
struct HaloUnpack {
  P cur;
  typename B::const_type recv;
  HaloSegments seg;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    int s;
    std::int64_t a, b;
    seg.locate(i, s, a, b);
    if (seg.present[s]) cur(seg.recv_r[s] + a, seg.recv_c[s] + b) = recv(i);
  }
};

}  // namespace unison::mpi::detail
