#pragma once
// unison/detail/mpi/halo.hpp: part of unison/mpi.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The block's kernels: the interior and edge cells of one step from a padded block with its
// halos, and the halos packed and unpacked.

#include <unison/detail/mpi/agreement.hpp>

namespace unison::mpi::detail {

// The families this component builds on, through their interfaces to other components
// (unison/detail/<family>/interface.hpp): it names nothing else of theirs.
namespace diffusion = unison::detail::diffusion::interface;
namespace field = unison::detail::field::interface;
namespace matmul = unison::detail::matmul::interface;

// The padded copy of a block: one ghost cell around it, (local_nx + 2) x (local_ny + 2), in the
// layout diffuse uses for the field.
template <class F>
using Padded = Kokkos::View<typename F::non_const_value_type**, diffusion::layout_t<F>,
                            typename F::memory_space>;

// One diffusion step of the cells of a block's grid (rows across its contiguous axis, as the
// single-rank kernels see it): cell (r, c) is padded cell (r + 1, c + 1) of cur; its neighbours
// are other cells of the block or ghost cells, which hold the neighbouring blocks' cells (or 0 at
// the field's edge). The arithmetic is diffusion::step, as in every single-rank kernel.
template <bool Transposed, class P, class L>
struct HaloStencil {
  using T = typename P::non_const_value_type;
  typename P::const_type cur;
  P next;
  L lapl;
  T coeff;
  bool write_lapl;

  KOKKOS_FORCEINLINE_FUNCTION void cell(std::int64_t r, std::int64_t c) const {
    T lap, v;
    diffusion::step<T>(
        diffusion::at<Transposed>(cur, r + 1, c + 1), diffusion::at<Transposed>(cur, r, c + 1),
        diffusion::at<Transposed>(cur, r + 2, c + 1), diffusion::at<Transposed>(cur, r + 1, c),
        diffusion::at<Transposed>(cur, r + 1, c + 2), coeff, lap, v);
    diffusion::at<Transposed>(next, r + 1, c + 1) = v;
    if (write_lapl) diffusion::at<Transposed>(lapl, r, c) = lap;
  }
};

// The cells [r0, r0 + rows) x [c0, c0 + cols) of the grid: a team per segment of `width`
// columns of a grid row (segments of them per row), its threads along the row (the contiguous
// axis). Each thread loads the neighbours of U cells, a team's width apart, before it computes
// and stores any: U cells' loads in flight at once (one cell at a time, the stores of a cell
// could alias the next cell's loads as far as the compiler knows; docs/tuning.md).
template <bool Transposed, class P, class L, int U>
struct HaloStencilRows : HaloStencil<Transposed, P, L> {
  using T = typename P::non_const_value_type;
  std::int64_t r0, c0, cols, segments, width;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t league = team.league_rank();
    const std::int64_t r = r0 + league / segments + 1;  // padded row
    const std::int64_t begin = league % segments * width;
    const std::int64_t end = begin + width < cols ? begin + width : cols;
    const std::int64_t threads = team.team_size();
    for (std::int64_t base = begin + team.team_rank(); base < end; base += U * threads) {
      T mid[U] = {}, up[U] = {}, down[U] = {}, left[U] = {}, right[U] = {};
      for (int u = 0; u < U; ++u) {
        const std::int64_t k = base + u * threads, c = c0 + k + 1;  // padded column
        if (k < end) {
          mid[u] = diffusion::at<Transposed>(this->cur, r, c);
          up[u] = diffusion::at<Transposed>(this->cur, r - 1, c);
          down[u] = diffusion::at<Transposed>(this->cur, r + 1, c);
          left[u] = diffusion::at<Transposed>(this->cur, r, c - 1);
          right[u] = diffusion::at<Transposed>(this->cur, r, c + 1);
        }
      }
      for (int u = 0; u < U; ++u) {
        const std::int64_t k = base + u * threads, c = c0 + k + 1;
        if (k < end) {
          T lap, v;
          diffusion::step<T>(mid[u], up[u], down[u], left[u], right[u], this->coeff, lap, v);
          diffusion::at<Transposed>(this->next, r, c) = v;
          if (this->write_lapl) diffusion::at<Transposed>(this->lapl, r - 1, c - 1) = lap;
        }
      }
    }
  }
};

// The launch shape of HaloStencilRows (HaloTuning in unison/backends/tuning.hpp).
template <class Exec>
struct HaloRowsShape {
  using Tuning = backends::HaloTuning<Exec>;
  static constexpr int cells = Tuning::cells_per_thread;
  static constexpr int team = Tuning::team_size;
  static std::int64_t width(std::int64_t cols) {
    return Tuning::segment_cols > 0 ? std::int64_t(Tuning::segment_cols) : cols;
  }
  static std::int64_t segments(std::int64_t cols) {
    const std::int64_t w = width(cols);
    return w > 0 ? (cols + w - 1) / w : 1;
  }
  static std::int64_t teams(std::int64_t rows, std::int64_t cols) { return rows * segments(cols); }
};

// The ring of a grid of rows x cols cells that is not [1, rows - 1) x [1, cols - 1): the cells
// that read ghost cells. Item k: the first row, then the last, then the first and last cells of
// the rows between.
template <bool Transposed, class P, class L>
struct HaloStencilRing : HaloStencil<Transposed, P, L> {
  std::int64_t rows, cols;
  static std::int64_t size(std::int64_t rows, std::int64_t cols) {
    return cols * std::min<std::int64_t>(rows, 2) +
           std::max<std::int64_t>(rows - 2, 0) * std::min<std::int64_t>(cols, 2);
  }
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < cols) return this->cell(0, k);
    k -= cols;
    if (rows > 1) {
      if (k < cols) return this->cell(rows - 1, k);
      k -= cols;
    }
    if (cols > 1) this->cell(1 + k / 2, k % 2 == 1 ? cols - 1 : 0);
    else this->cell(1 + k, 0);
  }
};

// The halo buffers of a block of nx x ny cells, in four segments: north (ny cells: the block's
// first row), south (ny: its last row), west (nx: its first column), east (nx: its last column).
inline std::array<std::int64_t, 5> segments(std::int64_t nx, std::int64_t ny) {
  return {0, ny, 2 * ny, 2 * ny + nx, 2 * ny + 2 * nx};
}

// Copies the block's edge cells (padded cur) into the send buffer, by segment.
template <class P, class B>
struct HaloPack {
  typename P::const_type cur;
  B send;
  std::int64_t nx, ny;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < ny) send(k) = cur(1, k + 1);
    else if (k < 2 * ny) send(k) = cur(nx, k - ny + 1);
    else if (k < 2 * ny + nx) send(k) = cur(k - 2 * ny + 1, 1);
    else send(k) = cur(k - 2 * ny - nx + 1, ny);
  }
};

// Copies the received segments into the ghost cells of padded cur: north into row 0, south into
// row nx + 1, west into column 0, east into column ny + 1; only the segments whose neighbour
// exists (the other ghost cells stay 0, the field's edge).
template <class P, class B>
struct HaloUnpack {
  P cur;
  typename B::const_type recv;
  std::int64_t nx, ny;
  bool north, south, west, east;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < ny) {
      if (north) cur(0, k + 1) = recv(k);
    } else if (k < 2 * ny) {
      if (south) cur(nx + 1, k - ny + 1) = recv(k);
    } else if (k < 2 * ny + nx) {
      if (west) cur(k - 2 * ny + 1, 0) = recv(k);
    } else if (east) {
      cur(k - 2 * ny - nx + 1, ny + 1) = recv(k);
    }
  }
};

}  // namespace unison::mpi::detail
