#pragma once
// unison/detail/diffusion/launch.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). The launch of one pass of each kernel as
// a Schedule (schedule.hpp) says: nothing here decides or checks anything.

#include <cstdint>
#include <type_traits>

#include <unison/detail/diffusion/plain.hpp>
#include <unison/detail/diffusion/rows.hpp>
#include <unison/detail/diffusion/schedule.hpp>
#include <unison/detail/diffusion/strips.hpp>
#include <unison/detail/diffusion/tiled.hpp>
#include <unison/detail/diffusion/wavefront.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

// Enqueues a pass of `steps` (1 or 2) steps of the strip kernels (GPU `streaming`) from f to next:
// step s's Laplacian into laps[s - 1] where bit s - 1 of `write` is set; strips of the schedule's
// rows for that many steps, its rows loaded ahead with one step per pass.
template <class Exec, class F, class FN, class L>
void strips_pass(const Exec& exec, const Schedule& schedule, int steps, const F& f, const FN& next,
                 const L* laps, unsigned write, typename FN::non_const_value_type coeff) {
  using S = StaticSchedule<Exec>;
  using T = typename FN::non_const_value_type;
  constexpr bool tr = transposed_v<F>;
  const std::int64_t rows = tr ? f.extent(1) : f.extent(0), cols = tr ? f.extent(0) : f.extent(1);
  if (rows == 0 || cols == 0) return;
  const int strip = steps >= 2 ? schedule.strip_rows_two : schedule.strip_rows,
            prefetch = schedule.strip_prefetch;
  // Wide chunks when every array's rows start on 16-byte boundaries with unit columns.
  constexpr int bytes = S::strip_chunk_bytes;
  constexpr int K = bytes % sizeof(T) == 0 && int(sizeof(T)) < bytes ? int(bytes / sizeof(T)) : 1;
  const auto wide = [](const auto& v) {
    const std::int64_t pitch = tr ? v.stride(1) : v.stride(0);
    return column_stride<tr>(v) == 1 && reinterpret_cast<std::uintptr_t>(v.data()) % 16 == 0 &&
           (pitch * std::int64_t(sizeof(T))) % 16 == 0;
  };
  bool all_wide = wide(f) && wide(next);
  for (int s = 0; s < steps; ++s) all_wide = all_wide && (!(write >> s & 1u) || wide(laps[s]));
  const auto launch = [&](auto k) {
    constexpr int KK = decltype(k)::value;
    const std::int64_t chunks = (cols + KK - 1) / KK, strips = (rows + strip - 1) / strip;
    const Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> policy(exec, 0,
                                                                            chunks * strips);
    const auto one = [&](auto d) {
      Kokkos::parallel_for(
          "unison::diffusion::streaming", policy,
          DiffusionStrips<KK, decltype(d)::value, tr, F, FN, L>{
              f, next, laps[0], coeff, (write & 1u) != 0, rows, cols, chunks, strip});
    };
    const auto two = [&](auto first) {
      // Launch bounds of the backend's (Kokkos's own choice where they are 0)
      using Bounds =
          Kokkos::LaunchBounds<S::strip_two_steps_block_threads, S::strip_two_steps_min_blocks>;
      Kokkos::parallel_for(
          "unison::diffusion::streaming2",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>, Bounds>(exec, 0,
                                                                             chunks * strips),
          DiffusionStripsTwoSteps<KK, tr, decltype(first)::value, F, FN, L>{
              f, next, laps[1], laps[0], coeff, (write & 2u) != 0, rows, cols, chunks, strip});
    };
    if (steps == 2 && (write & 1u)) two(std::true_type());
    else if (steps == 2) two(std::false_type());
    else if (prefetch <= 1) one(std::integral_constant<int, 1>());
    else if (prefetch == 2) one(std::integral_constant<int, 2>());
    else if (prefetch == 3) one(std::integral_constant<int, 3>());
    else one(std::integral_constant<int, 4>());
  };
  if (all_wide) launch(std::integral_constant<int, K>());
  else launch(std::integral_constant<int, 1>());
}

// Enqueues a pass of `steps` steps (1 to the backend's wavefront_steps) of the wavefront kernel
// from f to next, each team walking the schedule's rows, the last step's Laplacian to lapl if
// write_lapl (the kernel of the backend's shape: wavefront_steps steps, wavefront_cells cells a
// thread, wavefront_team_size threads a team, at least wavefront_min_teams of them a
// multiprocessor as launch bounds on a GPU; 0: none).
template <class Exec, class F, class FN, class L>
void wavefront_pass(const Exec& exec, const Schedule& schedule, int steps, const F& f,
                    const FN& next, const L& lapl, typename FN::non_const_value_type coeff,
                    bool write_lapl) {
  using S = StaticSchedule<Exec>;
  using T = typename FN::non_const_value_type;
  constexpr int NT = S::wavefront_team_size, V = S::wavefront_cells,
                MinTeams = S::wavefront_min_teams;
  constexpr bool tr = transposed_v<F>;
  using Kernel = DiffusionWavefront<Exec, S::wavefront_steps, V, NT, tr, F, FN, L>;
  constexpr std::int64_t own = Kernel::strip_cols();
  static_assert(own > 0, "wavefront: a strip must own columns");
  const std::int64_t rows = tr ? f.extent(1) : f.extent(0), cols = tr ? f.extent(0) : f.extent(1);
  if (rows == 0 || cols == 0) return;
  const std::int64_t strips = (cols + own - 1) / own;
  const std::int64_t per_block = schedule.tile_rows;
  const std::int64_t blocks = (rows + per_block - 1) / per_block;
  // Whole chunks of V cells where f's and next's rows start on chunk boundaries.
  const auto aligned = [](const auto& v) {
    const std::int64_t pitch = tr ? v.stride(1) : v.stride(0);
    constexpr std::size_t align = alignof(Chunk<T, V>);
    return column_stride<tr>(v) == 1 && reinterpret_cast<std::uintptr_t>(v.data()) % align == 0 &&
           (std::size_t(pitch) * sizeof(T)) % align == 0;
  };
  const bool wide = aligned(f) && aligned(next);
  const auto launch = [&](auto policy) {
    policy.set_scratch_size(S::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
    Kokkos::parallel_for("unison::diffusion::wavefront", policy,
                         Kernel{f, next, lapl, coeff, write_lapl, rows, cols, strips, per_block,
                                steps, S::scratch_level, wide});
  };
  const int teams = int(blocks * strips);
  if constexpr (MinTeams > 0) {
    launch(Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<NT, MinTeams>>(exec, teams, NT, 1));
  } else {
    launch(Kokkos::TeamPolicy<Exec>(exec, teams, NT, 1));
  }
}

// Enqueues `n` steps from f into next by DiffusionRowsPasses (a CPU's row blocks, where the
// backend has them), the Laplacians that `sink` asks for written.
template <class Exec, class F, class FN, class Sink>
void rows_pass(const char* label, const Exec& exec, const F& f, const FN& next, const Sink& sink,
               int n, typename FN::non_const_value_type coeff, bool reverse) {
  using S = StaticSchedule<Exec>;
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if constexpr (S::streaming_row_blocks) {
    constexpr bool tr = transposed_v<F>;
    const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
    const RowBlocks blocks = row_blocks(exec, rows);
    using Kernel = DiffusionRowsPasses<Exec, tr, F, FN, Sink>;
    const std::int64_t pitch = Kernel::ring_pitch(cols);
    Kokkos::TeamPolicy<Exec, Kokkos::Schedule<Kokkos::Static>> policy(exec, int(blocks.items), 1);
    policy.set_scratch_size(S::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes(n, pitch)));
    Kokkos::parallel_for(label, policy,
                         Kernel{f, next, sink, coeff, rows, cols, blocks.per_item, pitch, n,
                                S::scratch_level, reverse});
  }
}

// Enqueues one pass of `steps` steps (plain and rows: exactly one) of the schedule's algorithm
// (plain, tiled, streaming or wavefront) from f to next. `reverse` runs the tiles, or on a CPU
// each thread's rows, from the last to the first: diffuse() alternates, so that a pass starts
// where the one before ended, on the part of the field still in the cache. (The GPU strip
// kernels ignore it: a reversed strip order measured slower, docs/tuning.md; so does the plain
// reference.)
template <class Exec, class F, class FN, class L>
void diffusion_pass(const Exec& exec, const Schedule& schedule, int steps, const F& f,
                    const FN& next, const L& lapl, typename FN::non_const_value_type coeff,
                    bool write_lapl, bool reverse = false) {
  using S = StaticSchedule<Exec>;
  const StencilAlgorithm algorithm = schedule.algorithm;
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if (algorithm == StencilAlgorithm::plain) {
    constexpr bool tr = transposed_v<F>;
    const DiffusionPlain<F, FN, L> cells{f, next, lapl, coeff, write_lapl};
    if constexpr (S::plain_row_blocks) {
      // A CPU's threads: a block of whole rows each (DiffusionPlainRows).
      const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
      const RowBlocks blocks = row_blocks(exec, rows);
      Kokkos::parallel_for(
          "unison::diffusion::plain",
          Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>,
                              Kokkos::IndexType<std::int64_t>>(exec, 0, blocks.items),
          DiffusionPlainRows<tr, F, FN, L>{cells, rows, cols, blocks.per_item});
    } else {
      // A thread per cell. On a CPU (one thread) the index along the View's contiguous axis
      // varies fastest (Kokkos's default order there strides a LayoutLeft field); a GPU keeps
      // Kokkos's default.
      constexpr auto order = tr ? Kokkos::Iterate::Left : Kokkos::Iterate::Right;
      using Rank = std::conditional_t<
          Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible,
          Kokkos::Rank<2, order, order>, Kokkos::Rank<2>>;
      Kokkos::parallel_for("unison::diffusion::plain",
                           Kokkos::MDRangePolicy<Exec, Rank, Kokkos::IndexType<std::int64_t>>(
                               exec, {0, 0}, {nx, ny}),
                           cells);
    }
    return;
  }
  constexpr bool tr = transposed_v<F>;
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
  if (algorithm == StencilAlgorithm::wavefront) {
    wavefront_pass(exec, schedule, steps, f, next, lapl, coeff, write_lapl);
    return;
  }
  if (algorithm == StencilAlgorithm::streaming) {
    if (schedule.strip_rows <= 0 && steps == 1) {
      // A block of rows per thread (DiffusionRows); for a GPU, whose threads are many, a row.
      const RowBlocks blocks = row_blocks(exec, rows);
      Kokkos::parallel_for(
          "unison::diffusion::streaming",
          Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>,
                              Kokkos::IndexType<std::int64_t>>(exec, 0, blocks.items),
          DiffusionRows<tr, F, FN, L>{f, next, lapl, coeff, write_lapl, rows, cols, blocks.per_item,
                                      reverse});
      return;
    }
    const L laps[2] = {lapl, lapl};
    strips_pass(exec, schedule, steps, f, next, laps, write_lapl ? 1u << (steps - 1) : 0u, coeff);
    return;
  }
  using Kernel = DiffusionPass<Exec, tr, F, FN, L>;
  const int tile_rows = int(schedule.tile_rows), tile_cols = schedule.tile_cols;
  const std::int64_t across = (cols + tile_cols - 1) / tile_cols;
  const std::int64_t down = (rows + tile_rows - 1) / tile_rows;
  Kokkos::TeamPolicy<Exec> policy(exec, int(across * down), S::team_size, S::vector_length);
  policy.set_scratch_size(
      S::scratch_level, Kokkos::PerTeam(tile_scratch_bytes<Exec, typename FN::non_const_value_type>(
                            tile_rows, tile_cols, steps)));
  Kokkos::parallel_for(steps > 1 ? "unison::diffusion::blocked" : "unison::diffusion::tiled",
                       policy,
                       Kernel{f, next, lapl, coeff, write_lapl, rows, cols, across, tile_rows,
                              tile_cols, steps, S::scratch_level, reverse});
}

}  // namespace unison::detail::diffusion
