#pragma once
/// \file unison/diffusion_types.hpp
/// The diffusion's public types (unison/diffusion.hpp): its algorithms, Laplacian choice, options
/// buffer type and schedule. Included by that header and by its kernels (unison/detail/diffusion/).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace unison {

/// \defgroup diffusion Diffusion
/// \{

/// Which kernel advances the field: `plain` is the reference (one cell per index, neighbours
/// read from memory with bounds checks; a thread per cell on a GPU, a block of whole rows per
/// thread on a CPU); `tiled` stages a tile and its halo in team scratch
/// (and, with Laplacian::final_only, runs several steps per pass; on a CPU the first step reads
/// the field in place where its grid rows are contiguous); `streaming` reads the
/// neighbours straight from memory and leaves their reuse to the caches, with no scratch and no
/// barrier: on a CPU each thread sweeps a block of whole rows (the Laplacian written past the
/// caches with non-temporal stores), on a GPU each thread walks down a strip of rows of one
/// 16-byte column chunk, keeping the rows above and below in registers (with two steps per pass,
/// those of both steps, the first on the chunk widened by the cells the second reads).
/// `wavefront` is deep temporal blocking (several steps per pass with Laplacian::final_only,
/// up to the backend's `wavefront_steps`): a team walks down a strip of columns a row at a time,
/// each step one row behind the one before, its threads keeping the rows above in registers and
/// exchanging only the cells at their edges through team scratch. `resident` (diffuse and
/// diffuse_history, CUDA GPUs) runs all of a call's steps (diffuse_history: a group of planes) in
/// one launch for a field that fits in the GPU's registers at once: each block keeps a tile of
/// the field in its threads' registers for the whole launch and swaps only the tile's edges with
/// its neighbours between steps (through the L2 cache, no barrier of the whole grid); no tile or
/// pass options, and with diffuse no callback between steps. `automatic` is the backend's choice
/// (DiffusionTuning in unison/backends/tuning.hpp); for diffuse and diffuse_history on a CUDA GPU
/// without tile or pass options (or diffuse's per-step callback), `resident` wherever the field
/// fits.
enum class StencilAlgorithm { automatic, plain, tiled, streaming, wavefront, resident };

/// Which Laplacians diffuse() writes: that of every step (each step writes lapl, and a callback
/// can see it), or only that of the final step (which lets several steps run per pass).
enum class Laplacian { every_step, final_only };

/// Tuning of diffuse(); zero means the backend's choice (DiffusionTuning in
/// unison/backends/tuning.hpp).
struct DiffusionOptions {
  StencilAlgorithm algorithm = StencilAlgorithm::automatic;  ///< the kernel
  int tile_rows = 0;       ///< tile extent across the field's contiguous axis (wavefront: the
                           ///< rows a team walks)
  int tile_cols = 0;       ///< tile extent along the contiguous axis (not for wavefront)
  int steps_per_pass = 0;  ///< temporal blocking: diffuse with Laplacian::final_only (tiled;
                           ///< wavefront up to the backend's wavefront_steps; streaming: in row
                           ///< blocks any, in strips 1 or 2); diffuse_history with streaming
  int strip_rows = 0;      ///< rows per thread of `streaming` in strips (0: the backend's form)
  int strip_prefetch = 0;  ///< rows a strip thread loads ahead, 1 to 4 (0: the backend's choice)
};

/// The buffer type diffuse() works with for a field of type F: contiguous, of F's value type and
/// memory space, LayoutLeft for a LayoutLeft field and LayoutRight for any other.
template <class F>
using DiffusionBuffer =
    Kokkos::View<typename F::non_const_value_type**,
                 std::conditional_t<std::is_same_v<typename F::array_layout, Kokkos::LayoutLeft>,
                                    Kokkos::LayoutLeft, Kokkos::LayoutRight>,
                 typename F::memory_space>;

/// What a diffuse or diffuse_history call decides before it launches anything
/// (unison::diffusion_schedule): the kernel, the steps of a pass and the shape of its work.
struct DiffusionSchedule {
  /// The kernel that runs (never `automatic`): `resident` where every step of a call (of
  /// diffuse_history: of a group of planes) runs in one launch.
  StencilAlgorithm algorithm = StencilAlgorithm::plain;
  /// Steps a full pass runs (a call's last pass may run fewer); 0 for `resident`.
  int steps_per_pass = 1;
  /// `tiled`: the tile's extent across the field's contiguous axis; `wavefront`: the rows a team
  /// walks; else 0.
  std::int64_t tile_rows = 0;
  /// `tiled`: the tile's extent along the contiguous axis; else 0.
  int tile_cols = 0;
  /// `streaming` in strips: the rows per thread of a full pass and the rows a thread loads ahead
  /// with one step a pass; 0 where `streaming` runs in row blocks, and for the other algorithms.
  int strip_rows = 0;
  int strip_prefetch = 0;  ///< (see strip_rows)
  /// The label of a full pass's kernel, e.g. "unison::diffusion::blocked".
  const char* kernel = "";
};

/// \}

}  // namespace unison
