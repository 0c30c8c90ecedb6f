#pragma once
// unison/detail/diffusion/schedule.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). Every decision of a diffusion call, made
// once before anything is launched: make_schedule turns the arguments, the options and the
// backend's tuning (backends::DiffusionTuning) into a Schedule (the kernel, the steps a pass, the
// tile or strip shape), which the launchers (launch.hpp, run.hpp) follow without deciding
// anything. This file is the only one of unison/detail/diffusion/ that reads the backend's
// tuning: the kernels and launchers that need its compile-time values take them from
// StaticSchedule.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/diffusion/resident.hpp>
#include <unison/detail/diffusion/stencil.hpp>
#include <unison/detail/diffusion/wavefront.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

// ---- What cannot be scheduled: the options against the decisions (make_schedule refuses them)
// ----

// diffuse: steps_per_pass against the algorithm `automatic` resolved to; row_passes: streaming
// in row blocks (any number of steps a pass).
inline void check_pass_options(const char* fn, const DiffusionOptions& options,
                               StencilAlgorithm algorithm, bool row_passes) {
  require(options.steps_per_pass <= 1 || algorithm != StencilAlgorithm::plain, fn,
          "steps_per_pass ", options.steps_per_pass,
          " needs the tiled, streaming or wavefront algorithm");
  require(options.steps_per_pass <= 2 || algorithm != StencilAlgorithm::streaming || row_passes, fn,
          "steps_per_pass ", options.steps_per_pass,
          " with the streaming algorithm in strips: it runs 1 or 2");
}

// diffuse_history: steps_per_pass needs the streaming algorithm, 1 or 2 in strips.
inline void check_history_options(const char* fn, const DiffusionOptions& options, bool streaming,
                                  bool strips) {
  require(options.steps_per_pass <= 1 || streaming, fn, "steps_per_pass ", options.steps_per_pass,
          " needs the streaming algorithm");
  require(options.steps_per_pass <= 2 || !strips, fn, "steps_per_pass ", options.steps_per_pass,
          " with the streaming algorithm in strips: it runs 1 or 2");
}

// A tiled pass's shape: positive, within the team scratch `limit` (the pass needs `bytes`), at
// most 2^31 - 1 tiles (one team each, in one launch) in either orientation of an nx x ny field.
inline void check_tile(const char* fn, int tile_rows, int tile_cols, int steps, std::size_t bytes,
                       std::size_t limit, std::int64_t nx, std::int64_t ny) {
  const auto tiles = [&](std::int64_t r, std::int64_t c) {
    return ((r + tile_rows - 1) / tile_rows) * ((c + tile_cols - 1) / tile_cols);
  };
  require(bytes <= limit, fn, "tile ", tile_rows, "x", tile_cols, " with ", steps,
          " steps per pass needs ", bytes, " bytes of team scratch, more than the ", limit,
          " this backend offers");
  require(tiles(nx, ny) <= INT32_MAX && tiles(ny, nx) <= INT32_MAX, fn, "tile ", tile_rows, "x",
          tile_cols, " on a field of ", nx, "x", ny, " makes more than 2^31 - 1 tiles");
}

inline void check_tile_extents(const char* fn, int tile_rows, int tile_cols, int steps) {
  require(tile_rows > 0 && tile_cols > 0, fn, "tile ", tile_rows, "x", tile_cols,
          " must have positive extents");
  require(steps > 0, fn, "steps_per_pass is ", steps, ", must be positive");
}

// The wavefront algorithm: no tile_cols, at most `most_steps` steps a pass, at most 2^31 - 1
// strips of `own` columns (either orientation of an nx x ny field).
inline void check_wavefront(const char* fn, const DiffusionOptions& options, int per_pass,
                            int most_steps, std::int64_t own, std::int64_t nx, std::int64_t ny) {
  require(options.tile_cols == 0, fn, "tile_cols ", options.tile_cols,
          " does not apply to the wavefront algorithm (its strips are a team's threads wide)");
  require(per_pass <= most_steps, fn, "steps_per_pass ", per_pass,
          " with the wavefront algorithm: this backend runs at most ", most_steps);
  require((nx + own - 1) / own <= INT32_MAX && (ny + own - 1) / own <= INT32_MAX, fn, "a field of ",
          nx, "x", ny, " makes more than 2^31 - 1 wavefront strips");
}

// The resident algorithm asked for: no tile or pass options (`shaped`), no callback between steps,
// a backend that has it (`available`) and a field it holds (`fits`).
inline void check_resident(const char* fn, bool shaped, bool callback, bool available, bool fits,
                           std::int64_t rows, std::int64_t cols) {
  require(!shaped, fn,
          "tile_rows, tile_cols, steps_per_pass, strip_rows and strip_prefetch do not apply to "
          "the resident algorithm (it runs every step in one launch)");
  require(!callback, fn,
          "the resident algorithm runs every step in one launch: a callback after each step needs "
          "another algorithm");
  require(available, fn,
          "the resident algorithm needs a CUDA GPU; this backend has no resident kernel");
  require(fits, fn, "the resident algorithm: a field of ", rows, "x", cols,
          " grid rows and columns does not fit in this GPU's registers at once");
}

// The compile-time half of the schedule: the backend's values that the kernels and launchers are
// compiled with (team shapes, wide accesses, which CPU forms exist, the wavefront kernel's shape).
template <class Exec>
struct StaticSchedule {
  using Tuning = backends::DiffusionTuning<Exec>;
  static constexpr bool streaming_row_blocks = Tuning::streaming_row_blocks;
  static constexpr bool plain_row_blocks = Tuning::plain_row_blocks;
  static constexpr bool read_in_place = Tuning::read_in_place;
  static constexpr int scratch_level = Tuning::scratch_level;
  static constexpr int vector_bytes = Tuning::vector_bytes;
  static constexpr int team_size = Tuning::team_size;
  static constexpr int vector_length = Tuning::vector_length;
  static constexpr int strip_chunk_bytes = Tuning::strip_chunk_bytes;
  static constexpr unsigned strip_two_steps_block_threads = Tuning::strip_two_steps_block_threads;
  static constexpr unsigned strip_two_steps_min_blocks = Tuning::strip_two_steps_min_blocks;
  static constexpr int wavefront_steps = Tuning::wavefront_steps;
  static constexpr int wavefront_cells = Tuning::wavefront_cells;
  static constexpr int wavefront_team_size = Tuning::wavefront_team_size;
  static constexpr int wavefront_min_teams = Tuning::wavefront_min_teams;
};

// Bytes of team scratch a tiled pass of `steps` steps over tiles of tile_rows x tile_cols cells of
// T takes (DiffusionPass: a tile with a halo `steps` cells wide, two buffers for several steps).
// In size_t, and capped: a tile or steps_per_pass near INT_MAX must not overflow into a small size
// (any extent over 2^24 is far beyond every backend's team scratch).
template <class Exec, class T>
std::size_t tile_scratch_bytes(int tile_rows, int tile_cols, int steps) {
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::size_t rows = std::size_t(tile_rows) + 2 * std::size_t(steps),
                    cols = std::size_t(tile_cols) + 2 * std::size_t(steps);
  if (rows > (std::size_t(1) << 24) || cols > (std::size_t(1) << 24))
    return std::numeric_limits<std::size_t>::max();
  const std::size_t cells = rows * cols;
  return Scratch::shmem_size(cells) * (steps > 1 ? 2 : 1);
}

// Which public form a schedule is for.
enum class Form {
  step,      // diffusion_step: one step
  diffuse,   // diffuse without a callback between steps
  callback,  // diffuse with a callback after each step
  history    // diffuse_history
};

// A call's decisions. The launchers read nothing else.
struct Schedule {
  // The kernel: never automatic. resident: every step of a call (diffuse_history: of a group of
  // planes) in one launch.
  StencilAlgorithm algorithm = StencilAlgorithm::plain;
  // Steps of a full pass (a call's last pass may run fewer); 0 for resident.
  int steps_per_pass = 1;
  // tiled: the tile; wavefront: the rows a team walks (tile_cols 0); else 0.
  std::int64_t tile_rows = 0;
  int tile_cols = 0;
  // streaming in a CPU's row blocks: passes of several steps by DiffusionRowsPasses.
  bool row_passes = false;
  // diffuse_history's streaming in strips (GPUs, or strip_rows given).
  bool strips = false;
  // Whether a full pass runs the strip kernels (any form).
  bool full_strips = false;
  // streaming: the rows per strip thread for a pass of one step (diffuse, diffusion_step: 0, a
  // block of rows per thread instead) and of two steps, and the rows a strip thread loads ahead.
  int strip_rows = 0, strip_rows_two = 0, strip_prefetch = 0;
  // The label of a full pass's kernel.
  const char* kernel = "unison::diffusion::plain";
};

// The algorithm `automatic` stands for on a field of `field_bytes` bytes: the backend's choice
// (wavefront for the final Laplacian of a field of at least wavefront_min_field_bytes, unless
// that is INT64_MAX: never), or `tiled` when the caller set a tile shape or several steps per
// pass.
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

// The steps per pass of `algorithm` for diffuse on a field of `field_bytes` bytes whose grid rows
// (along the contiguous axis) are `row_bytes` long: the caller's, else the backend's for temporal
// blocking with Laplacian::final_only (tiled: steps_per_pass; wavefront: wavefront_steps;
// streaming: streaming_steps_per_pass, or streaming_steps_per_pass_large past
// streaming_large_field_bytes, in row blocks at most as many as keep the ring of rows within
// streaming_ring_max_bytes), else 1.
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

// Whether a call runs the resident kernel on a field of rows x cols of T: where the caller asks
// for it (then it must apply: no tile or pass options, no callback between steps, and a CUDA GPU
// that holds the field; else invalid_argument), or for `automatic` without such options where it
// fits.
template <class Exec, class T>
bool use_resident(const char* fn, const Exec& exec, const DiffusionOptions& options, bool callback,
                  std::int64_t rows, std::int64_t cols) {
  const bool asked = options.algorithm == StencilAlgorithm::resident;
  const bool shaped = options.tile_rows > 0 || options.tile_cols > 0 ||
                      options.steps_per_pass > 0 || options.strip_rows > 0 ||
                      options.strip_prefetch > 0;
  if (!asked) {
    return options.algorithm == StencilAlgorithm::automatic && !shaped && !callback &&
           rows * cols > 0 && resident_fits<Exec, T>(exec, rows, cols, rows * cols);
  }
  check_resident(fn, shaped, callback, resident_available_v<Exec>,
                 rows * cols == 0 || resident_fits<Exec, T>(exec, rows, cols, rows * cols), rows,
                 cols);
  return true;
}

// The tile of `algorithm` with `per_pass` steps a pass on an nx x ny field (View extents) of T
// whose kernel-oriented extents are rows x cols, on exec: for tiled, the caller's tile or the
// backend's (its blocked tile when several steps run per pass; the backend's shrinks, rows first,
// until it fits the team scratch, e.g. for double; a caller's must fit as given); for wavefront,
// the rows a team walks: the caller's tile_rows, else enough teams to fill the backend's threads
// once (each row a team walks costs 2 x steps rows of redundant work at its block's edges, so no
// more), within [wavefront_min_rows, wavefront_max_rows], lengthened to keep the teams of a launch
// within 2^31 - 1; for the others none.
template <class Exec, class T>
std::pair<std::int64_t, int> tile_shape(const char* fn, const Exec& exec,
                                        StencilAlgorithm algorithm, const DiffusionOptions& options,
                                        int per_pass, std::int64_t nx, std::int64_t ny,
                                        std::int64_t rows, std::int64_t cols) {
  using Tuning = backends::DiffusionTuning<Exec>;
  if (algorithm == StencilAlgorithm::wavefront) {
    constexpr std::int64_t own =
        DiffusionWavefront<Exec, Tuning::wavefront_steps, Tuning::wavefront_cells,
                           Tuning::wavefront_team_size, false,
                           Kokkos::View<const T**, typename Exec::memory_space>,
                           Kokkos::View<T**, typename Exec::memory_space>,
                           Kokkos::View<T**, typename Exec::memory_space>>::strip_cols();
    check_wavefront(fn, options, per_pass, Tuning::wavefront_steps, own, nx, ny);
    if (rows == 0 || cols == 0) return {options.tile_rows, 0};
    const std::int64_t strips = (cols + own - 1) / own;
    std::int64_t per_block = options.tile_rows;
    if (per_block <= 0) {
      const int team = Tuning::wavefront_team_size;
      const std::int64_t teams = exec.concurrency() / team > 0 ? exec.concurrency() / team : 1;
      per_block = (rows * strips + teams - 1) / teams;
      if (per_block < Tuning::wavefront_min_rows) per_block = Tuning::wavefront_min_rows;
      if (per_block > Tuning::wavefront_max_rows) per_block = Tuning::wavefront_max_rows;
    }
    const std::int64_t most = INT32_MAX / strips;  // blocks a launch can take (strips checked)
    if ((rows + per_block - 1) / per_block > most) per_block = (rows + most - 1) / most;
    return {per_block, 0};
  }
  if (algorithm != StencilAlgorithm::tiled) return {0, 0};
  const bool blocked = per_pass > 1;
  const bool user_tile = options.tile_rows > 0 || options.tile_cols > 0;
  int tile_rows = options.tile_rows > 0 ? options.tile_rows
                  : blocked             ? Tuning::blocked_tile_rows
                                        : Tuning::tile_rows;
  const int tile_cols = options.tile_cols > 0 ? options.tile_cols
                        : blocked             ? Tuning::blocked_tile_cols
                                              : Tuning::tile_cols;
  check_tile_extents(fn, tile_rows, tile_cols, per_pass);
  const std::size_t limit = Kokkos::TeamPolicy<Exec>(1, Tuning::team_size, Tuning::vector_length)
                                .scratch_size_max(Tuning::scratch_level);
  while (!user_tile && tile_rows > 1 &&
         tile_scratch_bytes<Exec, T>(tile_rows, tile_cols, per_pass) > limit)
    tile_rows /= 2;
  check_tile(fn, tile_rows, tile_cols, per_pass,
             tile_scratch_bytes<Exec, T>(tile_rows, tile_cols, per_pass), limit, nx, ny);
  return {tile_rows, tile_cols};
}

// The one place a diffusion call is decided: the schedule of `form` for field f on exec with
// options (diffusion_step: options.algorithm only) and, for diffuse, which Laplacians it writes;
// for diffuse_history `planes` planes a group. Throws unison::invalid_argument for options that do
// not apply (the arguments are checked before, checks.hpp).
template <class Exec, class F>
Schedule make_schedule(const char* fn, const Exec& exec, const F& f, Form form, Laplacian which,
                       const DiffusionOptions& options, std::int64_t planes = 0) {
  using Tuning = backends::DiffusionTuning<Exec>;
  using T = typename F::non_const_value_type;
  constexpr bool tr = transposed_v<F>;
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
  const std::int64_t field_bytes = std::int64_t(f.size() * sizeof(T)),
                     row_bytes = std::int64_t(cols * sizeof(T));
  Schedule s;
  bool resident = false;
  if (form == Form::history) {
    resident = use_resident<Exec, T>(fn, exec, options, false, rows, cols);
    DiffusionOptions shape_options = options;
    shape_options.steps_per_pass = 0;  // here: steps per pass of the streaming kernels only
    s.algorithm = resolve_algorithm<Exec>(options.algorithm, Laplacian::every_step, shape_options);
    // The streaming algorithm runs several steps per pass: on a CPU in blocks of rows (unless
    // strips are asked for), in strips (GPUs) 1 or 2.
    const bool streaming = s.algorithm == StencilAlgorithm::streaming;
    s.strips = streaming && (!Tuning::streaming_row_blocks || options.strip_rows > 0);
    check_history_options(fn, options, streaming, s.strips);
    std::int64_t per_pass = !streaming                   ? 1
                            : options.steps_per_pass > 0 ? options.steps_per_pass
                                                         : Tuning::history_steps_per_pass;
    if (per_pass > planes) per_pass = planes;
    s.steps_per_pass = int(per_pass);
    const auto tile = tile_shape<Exec, T>(fn, exec, s.algorithm, options, 1, nx, ny, rows, cols);
    s.tile_rows = tile.first, s.tile_cols = tile.second;
  } else {
    s.algorithm = resolve_algorithm<Exec>(options.algorithm, which, options, field_bytes);
    // The streaming algorithm runs several steps per pass: on a CPU in blocks of rows, any
    // number (unless strips are asked for); in strips (GPUs) 1 or 2.
    s.row_passes = s.algorithm == StencilAlgorithm::streaming && Tuning::streaming_row_blocks &&
                   options.strip_rows == 0;
    check_pass_options(fn, options, s.algorithm, s.row_passes);
    s.steps_per_pass = steps_per_pass<Exec>(s.algorithm, which, options, field_bytes, row_bytes);
    const auto tile =
        tile_shape<Exec, T>(fn, exec, s.algorithm, options, s.steps_per_pass, nx, ny, rows, cols);
    s.tile_rows = tile.first, s.tile_cols = tile.second;
    if (form != Form::step)
      resident = use_resident<Exec, T>(fn, exec, options, form == Form::callback, rows, cols);
  }
  // Strips: a pass of one step in strips of `one` rows (diffuse's 0: a block of rows per thread,
  // DiffusionRows; diffuse_history's strips take the two-step rows), of two steps in `two`.
  const std::pair<int, int> one = strip_shape<Exec>(options, 1, field_bytes),
                            two = strip_shape<Exec>(options, 2, field_bytes);
  s.strip_rows = form == Form::history && one.first <= 0 ? Tuning::strip_rows_two_steps : one.first;
  s.strip_rows_two = two.first > 0 ? two.first : Tuning::strip_rows_two_steps;
  s.strip_prefetch = one.second;
  // diffuse and diffusion_step run streaming in strips but in row blocks (several steps a pass:
  // DiffusionRowsPasses; one: DiffusionRows where the one-step strip rows are 0).
  s.full_strips =
      s.strips || (form != Form::history && s.algorithm == StencilAlgorithm::streaming &&
                   !s.row_passes && (s.steps_per_pass >= 2 || s.strip_rows > 0));
  if (resident) {
    s.algorithm = StencilAlgorithm::resident;
    s.steps_per_pass = 0;
    s.tile_rows = s.tile_cols = 0;
    s.row_passes = s.strips = s.full_strips = false;
  }
  switch (s.algorithm) {
    case StencilAlgorithm::tiled:
      s.kernel = s.steps_per_pass > 1 ? "unison::diffusion::blocked" : "unison::diffusion::tiled";
      break;
    case StencilAlgorithm::wavefront:
      s.kernel = "unison::diffusion::wavefront";
      break;
    case StencilAlgorithm::resident:
      s.kernel = "unison::diffusion::resident";
      break;
    case StencilAlgorithm::streaming:
      s.kernel = form == Form::history && !s.strips       ? "unison::diffusion::history"
                 : s.full_strips && s.steps_per_pass == 2 ? "unison::diffusion::streaming2"
                                                          : "unison::diffusion::streaming";
      break;
    default:
      s.kernel = "unison::diffusion::plain";
  }
  return s;
}

// The public view of a schedule (unison::diffusion_schedule).
inline DiffusionSchedule public_schedule(const Schedule& s) {
  DiffusionSchedule p;
  p.algorithm = s.algorithm;
  p.steps_per_pass = s.steps_per_pass;
  p.tile_rows = s.tile_rows;
  p.tile_cols = s.tile_cols;
  if (s.full_strips) {
    p.strip_rows = s.steps_per_pass >= 2 ? s.strip_rows_two : s.strip_rows;
    p.strip_prefetch = s.strip_prefetch;
  }
  p.kernel = s.kernel;
  return p;
}

}  // namespace unison::detail::diffusion
