#pragma once
// unison/detail/diffusion/rows.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// `streaming` on CPUs: a block of whole rows per thread (diffuse), and several steps per pass
// (diffuse_history with every step's Laplacian kept, diffuse with the final one only).

#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail::diffusion {

// `streaming` on CPUs: a work item per block of consecutive grid rows (rows along the contiguous
// axis), one block per thread of the backend. A static schedule hands thread i block i on every
// pass, so each thread finds the rows it wrote in the last pass in its own cache; a `reverse`
// pass sweeps its block bottom-up, starting on the rows the last pass left there. Rows by
// stencil_row, reading the rows above and below straight from memory, the Laplacian stored
// non-temporally (docs/tuning.md).
template <bool Transposed, class F, class FN, class L>
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
    const T* mid = &cell<Transposed>(f, r, 0);
    // A local copy of coeff: the functor is shared by the threads, and the stores through out
    // and lout might alias it as far as the compiler knows (it would reload it every iteration).
    stencil_row<T, K, Lapl>(r, rows, r > 0 ? &cell<Transposed>(f, r - 1, 0) : mid, mid,
                            r + 1 < rows ? &cell<Transposed>(f, r + 1, 0) : mid,
                            column_stride<Transposed>(f), &cell<Transposed>(next, r, 0),
                            column_stride<Transposed>(next),
                            Lapl ? &cell<Transposed>(lapl, r, 0) : nullptr,
                            column_stride<Transposed>(lapl), cols, T(coeff));
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

// Where a pass of several steps on CPUs (DiffusionRowsPasses) writes Laplacians: row(s, steps, r)
// is step s's Laplacian row r (nullptr: not written), `stride` its column stride.
// diffuse_history: every step's, into its plane of the history (plane0 + s - 1 for step s).
template <bool Transposed, class H>
struct HistoryPlanes {
  using T = typename H::non_const_value_type;
  H history;
  int plane0;
  KOKKOS_FUNCTION std::int64_t stride() const {
    return Transposed ? history.stride(1) : history.stride(2);
  }
  KOKKOS_FUNCTION T* row(int s, int, std::int64_t r) const {
    return Transposed ? &history(plane0 + s - 1, 0, r) : &history(plane0 + s - 1, r, 0);
  }
};
// diffuse with Laplacian::final_only: the pass's last step's, where `write` (the call's last pass).
template <bool Transposed, class L>
struct LastLaplacian {
  using T = typename L::non_const_value_type;
  L lapl;
  bool write;
  KOKKOS_FUNCTION std::int64_t stride() const { return column_stride<Transposed>(lapl); }
  KOKKOS_FUNCTION T* row(int s, int steps, std::int64_t r) const {
    return write && s == steps ? &cell<Transposed>(lapl, r, 0) : nullptr;
  }
};

// `streaming` on CPUs with several steps per pass (diffuse_history, and diffuse with
// Laplacian::final_only): `steps` steps per pass, the field read and written once per pass, the
// Laplacians the Sink asks for written. The work item owning rows [r0, r1) (as DiffusionRows)
// computes the field after s steps on rows [r0 - (steps - s), r1 + (steps - s)), a halo that
// shrinks by a row per step, as a wavefront: at sweep position i it computes step 1's row i - 1
// from f, step s's row i - s from step s - 1's three rows around it, ... step `steps`'s row
// i - steps into next (i + s when reversed). Step s < steps keeps only its last three rows, in a
// ring in the item's team scratch (a few rows: the core's L1 or L2 cache). Halo rows are
// computed again by the neighbouring item, with the same operations, so the result is bitwise
// that of single steps; only owned rows are written.
template <class Exec, bool Transposed, class F, class FN, class Sink>
struct DiffusionRowsPasses {
  using T = typename FN::non_const_value_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int K = host_chunk_v<T>;
  F f;
  FN next;
  Sink sink;
  T coeff;
  std::int64_t rows, cols, per_item, pitch;  // pitch: ring row length, a multiple of K
  int steps, scratch_level;
  bool reverse;

  static std::int64_t ring_pitch(std::int64_t cols) { return (cols + K - 1) / K * K; }
  static std::size_t scratch_bytes(int steps, std::int64_t pitch) {
    return std::size_t(steps - 1) * 3 * std::size_t(pitch) * sizeof(T) + 64;
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    std::int64_t r0, r1;
    owned_rows(team.league_rank(), per_item, rows, r0, r1);
    T* ring = steps > 1
                  ? static_cast<T*>(
                        team.team_scratch(scratch_level)
                            .get_shmem_aligned(std::size_t(steps - 1) * 3 * pitch * sizeof(T), 64))
                  : nullptr;
    const T step_coeff = coeff;
    const std::int64_t f_stride = column_stride<Transposed>(f),
                       next_stride = column_stride<Transposed>(next), lapl_stride = sink.stride();
    // Row r of the field after s steps of this pass (s < steps), and its column stride.
    const auto level_row = [&](int s, std::int64_t r) -> T* {
      return s == 0 ? const_cast<T*>(&cell<Transposed>(f, r, 0))
                    : ring + ((s - 1) * 3 + r % 3) * pitch;
    };
    const std::int64_t span = (r1 - r0) + 2 * steps;
    for (std::int64_t k = 0; k <= span; ++k) {
      const std::int64_t i = reverse ? r1 + steps - k : r0 - steps + k;
      for (int s = 1; s <= steps; ++s) {
        const std::int64_t r = reverse ? i + s : i - s;
        const std::int64_t halo = steps - s;
        if (r < 0 || r >= rows || r < r0 - halo || r >= r1 + halo) continue;
        const std::int64_t in_stride = s == 1 ? f_stride : 1;
        const T* mid = level_row(s - 1, r);
        const T* up = r > 0 ? level_row(s - 1, r - 1) : mid;
        const T* down = r + 1 < rows ? level_row(s - 1, r + 1) : mid;
        T* out = s == steps ? &cell<Transposed>(next, r, 0) : level_row(s, r);
        const std::int64_t out_stride = s == steps ? next_stride : 1;
        T* lout = r >= r0 && r < r1 ? sink.row(s, steps, r) : nullptr;
        if (lout)
          stencil_row<T, K, true>(r, rows, up, mid, down, in_stride, out, out_stride, lout,
                                  lapl_stride, cols, step_coeff);
        else
          stencil_row<T, K, false>(r, rows, up, mid, down, in_stride, out, out_stride, nullptr, 1,
                                   cols, step_coeff);
      }
    }
    backends::store_streaming_fence();
  }
};

}  // namespace unison::detail::diffusion
