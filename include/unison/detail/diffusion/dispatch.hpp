#pragma once
// unison/detail/diffusion/dispatch.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). One pass of any algorithm: the tile shape
// checked against the team scratch, the algorithm that `automatic` stands for, the checks every
// form shares, and the launch of each kernel.

#include <unison/detail/diffusion/plain.hpp>
#include <unison/detail/diffusion/rows.hpp>
#include <unison/detail/diffusion/strips.hpp>
#include <unison/detail/diffusion/tiled.hpp>
#include <unison/detail/diffusion/wavefront.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

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
  using Tuning = backends::DiffusionTuning<Exec>;
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

// The steps per pass of `algorithm` for diffuse on a field of `field_bytes` bytes whose grid rows
// (along the contiguous axis) are `row_bytes` long: the caller's (checked by diffuse), else the
// backend's for temporal blocking with Laplacian::final_only (tiled: steps_per_pass; wavefront:
// wavefront_steps; streaming:
// streaming_steps_per_pass, or streaming_steps_per_pass_large past streaming_large_field_bytes,
// in row blocks at most as many as keep the ring of rows within streaming_ring_max_bytes), else 1.
template <class Exec>
int steps_per_pass(StencilAlgorithm algorithm, Laplacian which, const DiffusionOptions& options,
                   std::int64_t field_bytes, std::int64_t row_bytes) {
  using Tuning = backends::DiffusionTuning<Exec>;
  if (algorithm == StencilAlgorithm::plain || which == Laplacian::every_step) return 1;
  if (options.steps_per_pass > 0) return options.steps_per_pass;
  if (algorithm == StencilAlgorithm::tiled) return Tuning::steps_per_pass;
  if (algorithm == StencilAlgorithm::wavefront) return Tuning::wavefront_steps;
  if (field_bytes <= Tuning::streaming_large_field_bytes) return Tuning::streaming_steps_per_pass;
  std::int64_t steps = Tuning::streaming_steps_per_pass_large;
  if (Tuning::streaming_row_blocks && options.strip_rows == 0 && row_bytes > 0) {
    const std::int64_t fit = 1 + Tuning::streaming_ring_max_bytes / (3 * row_bytes);
    steps = fit < steps ? fit : steps;
  }
  return int(steps);
}

// The pass shape of `algorithm` with `per_pass` steps a pass: for tiled, the caller's tile or the
// backend's (its blocked tile when several steps run per pass), checked by checked_shape; for
// the others no tile.
template <class Exec, class T>
PassShape pass_shape(const char* fn, StencilAlgorithm algorithm, const DiffusionOptions& options,
                     int per_pass, std::int64_t nx, std::int64_t ny) {
  using Tuning = backends::DiffusionTuning<Exec>;
  if (algorithm == StencilAlgorithm::wavefront) {
    // tile_rows: rows a team walks (0: the backend's choice for the field, wavefront_pass).
    require(options.tile_cols == 0, fn, "tile_cols ", options.tile_cols,
            " does not apply to the wavefront algorithm (its strips are a team's threads wide)");
    require(per_pass <= Tuning::wavefront_steps, fn, "steps_per_pass ", per_pass,
            " with the wavefront algorithm: this backend runs at most ", Tuning::wavefront_steps);
    // One team per block of rows of a strip, in one launch: at most 2^31 - 1 strips (wavefront_pass
    // lengthens the blocks to keep the teams within that).
    constexpr std::int64_t own =
        DiffusionWavefront<Exec, Tuning::wavefront_steps, Tuning::wavefront_cells,
                           Tuning::wavefront_team_size, false,
                           Kokkos::View<const T**, typename Exec::memory_space>,
                           Kokkos::View<T**, typename Exec::memory_space>,
                           Kokkos::View<T**, typename Exec::memory_space>>::strip_cols();
    require((nx + own - 1) / own <= INT32_MAX && (ny + own - 1) / own <= INT32_MAX, fn,
            "a field of ", nx, "x", ny, " makes more than 2^31 - 1 wavefront strips");
    return {options.tile_rows, 0, per_pass};
  }
  if (algorithm != StencilAlgorithm::tiled) return {1, 1, per_pass};
  const bool blocked = per_pass > 1;
  const PassShape shape{options.tile_rows > 0 ? options.tile_rows
                        : blocked             ? Tuning::blocked_tile_rows
                                              : Tuning::tile_rows,
                        options.tile_cols > 0 ? options.tile_cols
                        : blocked             ? Tuning::blocked_tile_cols
                                              : Tuning::tile_cols,
                        per_pass};
  return checked_shape<Exec, T>(fn, shape, options.tile_rows > 0 || options.tile_cols > 0, nx, ny);
}

// The rows per strip thread and the rows it loads ahead (GPU `streaming`) for a pass of `steps`
// steps over a field of `field_bytes` bytes: the caller's, else the backend's (its shorter strips
// for a field larger than strip_large_field_bytes, which streams past the cache).
template <class Exec>
std::pair<int, int> strip_shape(const DiffusionOptions& options, int steps,
                                std::int64_t field_bytes) {
  using Tuning = backends::DiffusionTuning<Exec>;
  const bool large = field_bytes > Tuning::strip_large_field_bytes;
  const int rows = steps >= 2
                       ? (large ? Tuning::strip_rows_two_steps_large : Tuning::strip_rows_two_steps)
                       : (large ? Tuning::strip_rows_large : Tuning::strip_rows);
  return {options.strip_rows > 0 ? options.strip_rows : rows,
          options.strip_prefetch > 0 ? options.strip_prefetch : Tuning::strip_prefetch_rows};
}

// Enqueues a pass of `steps` (1 or 2) steps of the strip kernels (GPU `streaming`) from f to next:
// step s's Laplacian into laps[s - 1] where bit s - 1 of `write` is set; strips of `strip` rows,
// `prefetch` rows loaded ahead with one step per pass.
template <class Exec, class F, class FN, class L>
void strips_pass(const Exec& exec, int steps, const F& f, const FN& next, const L* laps,
                 unsigned write, typename FN::non_const_value_type coeff, int strip, int prefetch) {
  using Tuning = backends::DiffusionTuning<Exec>;
  using T = typename FN::non_const_value_type;
  constexpr bool tr = transposed_v<F>;
  const std::int64_t rows = tr ? f.extent(1) : f.extent(0), cols = tr ? f.extent(0) : f.extent(1);
  if (rows == 0 || cols == 0) return;
  // Wide chunks when every array's rows start on 16-byte boundaries with unit columns.
  constexpr int bytes = Tuning::strip_chunk_bytes;
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
      using Bounds = Kokkos::LaunchBounds<Tuning::strip_two_steps_block_threads,
                                          Tuning::strip_two_steps_min_blocks>;
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

// The rows a wavefront team of `team` threads walks on a field of rows x cols cells with `strips`
// strips across: enough teams to fill the backend's threads once (each row a team walks costs
// 2 x steps rows of redundant work at its block's edges, so no more), within
// [wavefront_min_rows, wavefront_max_rows].
template <class Exec>
int wavefront_rows(const Exec& exec, int team, std::int64_t rows, std::int64_t strips) {
  using Tuning = backends::DiffusionTuning<Exec>;
  const std::int64_t teams = exec.concurrency() / team > 0 ? exec.concurrency() / team : 1;
  std::int64_t r = (rows * strips + teams - 1) / teams;
  if (r < Tuning::wavefront_min_rows) r = Tuning::wavefront_min_rows;
  if (r > Tuning::wavefront_max_rows) r = Tuning::wavefront_max_rows;
  return int(r);
}

// Enqueues a pass of `steps` steps (1 to Steps) of the wavefront kernel of Steps steps, V cells a
// thread and NT threads a team (at least MinTeams of them a multiprocessor, as launch bounds on a
// GPU; 0: none) from f to next, each team walking `block_rows` rows (0: wavefront_rows), the last
// step's Laplacian to lapl if write_lapl.
template <int Steps, int V, int NT, int MinTeams, class Exec, class F, class FN, class L>
void wavefront_pass_of(const Exec& exec, int steps, int block_rows, const F& f, const FN& next,
                       const L& lapl, typename FN::non_const_value_type coeff, bool write_lapl) {
  using Tuning = backends::DiffusionTuning<Exec>;
  using T = typename FN::non_const_value_type;
  constexpr bool tr = transposed_v<F>;
  using Kernel = DiffusionWavefront<Exec, Steps, V, NT, tr, F, FN, L>;
  constexpr std::int64_t own = Kernel::strip_cols();
  static_assert(own > 0, "wavefront: a strip must own columns");
  const std::int64_t rows = tr ? f.extent(1) : f.extent(0), cols = tr ? f.extent(0) : f.extent(1);
  if (rows == 0 || cols == 0) return;
  const std::int64_t strips = (cols + own - 1) / own;
  std::int64_t per_block = block_rows > 0 ? block_rows : wavefront_rows(exec, NT, rows, strips);
  const std::int64_t most = INT32_MAX / strips;  // blocks a launch can take (strips checked)
  if ((rows + per_block - 1) / per_block > most) per_block = (rows + most - 1) / most;
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
    policy.set_scratch_size(Tuning::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
    Kokkos::parallel_for("unison::diffusion::wavefront", policy,
                         Kernel{f, next, lapl, coeff, write_lapl, rows, cols, strips, per_block,
                                steps, Tuning::scratch_level, wide});
  };
  const int teams = int(blocks * strips);
  if constexpr (MinTeams > 0) {
    launch(Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<NT, MinTeams>>(exec, teams, NT, 1));
  } else {
    launch(Kokkos::TeamPolicy<Exec>(exec, teams, NT, 1));
  }
}

// The backend's wavefront pass (wavefront_pass_of with its tuning's shape).
template <class Exec, class F, class FN, class L>
void wavefront_pass(const Exec& exec, int steps, int block_rows, const F& f, const FN& next,
                    const L& lapl, typename FN::non_const_value_type coeff, bool write_lapl) {
  using Tuning = backends::DiffusionTuning<Exec>;
  wavefront_pass_of<Tuning::wavefront_steps, Tuning::wavefront_cells, Tuning::wavefront_team_size,
                    Tuning::wavefront_min_teams>(exec, steps, block_rows, f, next, lapl, coeff,
                                                 write_lapl);
}

// Enqueues one pass (plain and rows: exactly one step) from f to next. `reverse` runs the
// tiles, or on a CPU each thread's rows, from the last to the first: diffuse() alternates, so
// that a pass starts where the one before ended, on the part of the field still in the cache.
// (The GPU strip kernels ignore it: a reversed strip order measured slower, docs/tuning.md; so
// does the plain reference.)
template <class Exec, class F, class FN, class L>
void diffusion_pass(const Exec& exec, StencilAlgorithm algorithm, PassShape shape, const F& f,
                    const FN& next, const L& lapl, typename FN::non_const_value_type coeff,
                    bool write_lapl, bool reverse = false,
                    int strip = backends::DiffusionTuning<Exec>::strip_rows,
                    int prefetch = backends::DiffusionTuning<Exec>::strip_prefetch_rows) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if (algorithm == StencilAlgorithm::plain) {
    constexpr bool tr = transposed_v<F>;
    const DiffusionPlain<F, FN, L> cells{f, next, lapl, coeff, write_lapl};
    if constexpr (backends::DiffusionTuning<Exec>::plain_row_blocks) {
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
  using Tuning = backends::DiffusionTuning<Exec>;
  constexpr bool tr = transposed_v<F>;
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
  if (algorithm == StencilAlgorithm::wavefront) {
    wavefront_pass(exec, shape.steps, shape.tile_rows, f, next, lapl, coeff, write_lapl);
    return;
  }
  if (algorithm == StencilAlgorithm::streaming) {
    if (strip <= 0 && shape.steps == 1) {
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
    if (strip <= 0) strip = Tuning::strip_rows_two_steps;
    const L laps[2] = {lapl, lapl};
    strips_pass(exec, shape.steps, f, next, laps, write_lapl ? 1u << (shape.steps - 1) : 0u, coeff,
                strip, prefetch);
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

// The algorithm `automatic` stands for on a field of `field_bytes` bytes: the backend's choice
// (wavefront for the final Laplacian of a field of at least wavefront_min_field_bytes, unless
// that is INT64_MAX: never), or
// `tiled` when the caller set a tile shape or several steps per pass.
template <class Exec>
StencilAlgorithm resolve_algorithm(StencilAlgorithm algorithm, Laplacian which,
                                   const DiffusionOptions& options = {},
                                   std::int64_t field_bytes = 0) {
  using Tuning = backends::DiffusionTuning<Exec>;
  if (algorithm != StencilAlgorithm::automatic) return algorithm;
  if (options.tile_rows > 0 || options.tile_cols > 0 || options.steps_per_pass > 1)
    return StencilAlgorithm::tiled;
  constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
  if (which == Laplacian::final_only && Tuning::wavefront_min_field_bytes < never &&
      field_bytes >= Tuning::wavefront_min_field_bytes)
    return StencilAlgorithm::wavefront;
  const bool streaming =
      which == Laplacian::every_step ? Tuning::streaming_every_step : Tuning::streaming_final_only;
  return streaming ? StencilAlgorithm::streaming : StencilAlgorithm::tiled;
}

inline bool known_algorithm(StencilAlgorithm a) {
  return a == StencilAlgorithm::automatic || a == StencilAlgorithm::plain ||
         a == StencilAlgorithm::tiled || a == StencilAlgorithm::streaming ||
         a == StencilAlgorithm::wavefront || a == StencilAlgorithm::resident;
}

inline void check_laplacian(const char* fn, Laplacian which) {
  require(which == Laplacian::every_step || which == Laplacian::final_only, fn,
          "unknown Laplacian choice ", int(which));
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
  check_extents(fn, "lapl", lapl, f, "f");
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

// static_checks for a field f advanced in place and its Laplacian lapl.
template <class Exec, class F, class L>
constexpr void static_checks_field_lapl() {
  static_checks<Exec, F, L>();
  static_assert(std::is_same_v<typename L::non_const_value_type, typename F::non_const_value_type>,
                "unison::diffusion: f and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename F::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::diffusion: f and lapl must have a non-const value type");
}

}  // namespace unison::detail::diffusion
