#pragma once
/// \file unison/backends/tuning.hpp
/// Launch parameters that differ between backends: one struct per family, specialised for each
/// execution space. This file says what each parameter means; the values are in the backends'
/// files, unison/backends/host/tuning.hpp (Serial, OpenMP, Threads) and
/// unison/backends/cuda/tuning.hpp and unison/backends/hip/tuning.hpp. The algorithms read them;
/// none is written twice.

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// The families' tuning, per backend. The primary templates refuse an execution space they have
/// no values for (at compile time, naming the family), so that a new backend cannot fall back to
/// values chosen for another kind of hardware: each backend specialises every struct. The host
/// backends (Serial, OpenMP, Threads) take the Host* values of host/tuning.hpp; Cuda has its own,
/// cuda/tuning.hpp, and HIP its own, hip/tuning.hpp.
#define UNISON_BACKENDS_REFUSING_TUNING(Family)                                           \
  template <class Exec>                                                                   \
  struct Family {                                                                         \
    static_assert(sizeof(Exec) == 0, "unison::backends::" #Family                         \
                                     " has no values for this execution space: add a "    \
                                     "specialisation for it in its backend's tuning.hpp " \
                                     "(docs/tuning.md)");                                 \
  };

/// Element-wise kernels. GPUs: a work item handles `unroll` chunks of `vector` consecutive
/// elements. A GPU thread that loads one 4-byte element at a time keeps too few bytes in flight
/// to saturate HBM (docs/tuning.md); chunks of 4 floats are one 16-byte
/// load each, and with unroll > 1 all loads of a thread are issued before its first store.
/// Arrays that are strided or misaligned take one element at a time, vector * unroll per work
/// item. CPUs (`blocks`): a work item is a block of consecutive elements computed a pack at a
/// time (unison/backends/host/pack.hpp), about `blocks_per_thread` blocks per thread, each of
/// `min_block` to `max_block` elements (a multiple of 64). `group`: with unroll > 1, the work
/// items that share U chunks in turn so that each pass is one coalesced access (a GPU's warp;
/// CPUs take the same 32, which they use only where a caller forces unroll > 1, as the tests
/// do, so that the GPU's indexing is tested on every backend).
UNISON_BACKENDS_REFUSING_TUNING(ElementwiseTuning)

/// convolve: the tiled kernel gives each team `tile` consecutive outputs and stages the inputs
/// they need, `tile + chunk - 1` of x and `chunk` taps of k at a time, in team scratch. A GPU
/// team is `team_size` threads over consecutive outputs (coalesced loads, conflict-free scratch
/// reads); a CPU team is one thread with a tile that fits in its L1/L2. `automatic` takes the
/// tiled kernel from `tiled_min_taps` taps on (the direct kernel re-reads x through the cache
/// `taps` times; the crossover is measured, docs/tuning.md). `scratch_level` 0 is a GPU's
/// shared memory; host backends offer only 32 KiB at level 0, so they use level 1 (a per-thread
/// buffer in ordinary memory, which stays in that core's cache).
UNISON_BACKENDS_REFUSING_TUNING(ConvolveTuning)

/// Diffusion (5-point stencil): a team computes a tile of `tile_rows` x `tile_cols` cells, the
/// columns along the field's contiguous axis, from a copy in team scratch of the tile plus a
/// halo one cell wide per step of the pass. Threads of a team are `team_size` x `vector_length`
/// (rows x columns; on a GPU a warp spans 32 consecutive columns, so loads and stores are
/// coalesced). `steps_per_pass` is the temporal blocking used when only the final Laplacian is
/// wanted, with its own tile shape (a larger tile keeps the halo's redundant work small).
/// `streaming_every_step` / `streaming_final_only`: whether StencilAlgorithm::automatic takes
/// the `streaming` kernel (no scratch; the neighbours come through the caches) instead of the
/// tiled one. `streaming_row_blocks`: streaming's form, a block of whole rows per thread (CPUs,
/// whose threads are few) or strips (GPUs): `strip_rows` rows each thread walks down one column
/// chunk of `strip_chunk_bytes` (0 where the backend's form is row blocks);
/// `strip_rows_two_steps` for two steps per pass; `strip_rows_large` and
/// `strip_rows_two_steps_large` the same for a field of more than `strip_large_field_bytes` bytes
/// (past the cache); `strip_two_steps_block_threads` and `strip_two_steps_min_blocks`: the
/// two-step strip kernel's launch bounds (0, 0: Kokkos's own); `strip_prefetch_rows`: how many
/// rows ahead a strip thread loads (one step per pass). `streaming_steps_per_pass`: the steps per
/// pass of `streaming` when only the final Laplacian is wanted (strips: 1 or 2, computed in
/// registers; row blocks: any number, in a ring of rows per thread), and
/// `streaming_steps_per_pass_large` for a field of more than `streaming_large_field_bytes` bytes
/// (past the last-level cache), in row blocks no more than keep their ring of rows (3 a step but
/// the last) within `streaming_ring_max_bytes`. `history_steps_per_pass`: diffuse_history's steps
/// per pass of `streaming` (row blocks: any number; strips: 1 or 2). `plain_row_blocks`: the
/// `plain` reference kernel's cells walked as a block of whole rows per thread (CPU spaces with
/// threads), rather than by an MDRangePolicy (GPUs: a thread per cell; Serial, whose MDRangePolicy
/// loop GCC vectorises and which measured faster there than the row walk).
/// `wavefront`: teams of `wavefront_team_size` threads, `wavefront_cells` adjacent cells each (a
/// strip of team x cells columns, of which all but 2 x wavefront_steps, rounded up to whole
/// threads, are the strip's own), up to `wavefront_steps` steps per pass (a compile-time bound:
/// each step's rows are registers), each team walking between `wavefront_min_rows` and
/// `wavefront_max_rows` rows (as many as fill the backend's threads once), at least
/// `wavefront_min_teams` teams a GPU multiprocessor at once (launch bounds, which cap a thread's
/// registers; 0: none);
/// `wavefront_min_field_bytes`: `automatic` takes it with Laplacian::final_only for a field of at
/// least that many bytes (INT64_MAX: never).
UNISON_BACKENDS_REFUSING_TUNING(DiffusionTuning)

/// matmul_reduce's `tiled` method: a team computes a tile_m x tile_n tile of A.B, staging
/// tile_k columns of A and rows of B at a time in team scratch (A's tile transposed, so that a
/// thread reads its rows as consecutive words). The tile is cut into micro-tiles of micro_m x
/// micro_n products, one thread per micro-tile on a GPU (accumulated in registers over the whole
/// k loop, the next slice of A and B loaded into registers while this one is multiplied), and
/// all of them on the one thread of a CPU team (accumulated in a scratch copy of the tile).
/// `column_rows`: how many rows one work item of the column sums (the `gemm` and `reassociated`
/// methods) adds up; `column_chunk`: how many consecutive columns it carries (a GPU thread one,
/// so that a warp reads 32 consecutive words of a row; a CPU thread a vector's worth).
/// `min_teams`: tiled teams that must fit on one GPU multiprocessor at once (launch bounds,
/// which cap the registers per thread); ignored on CPUs.
UNISON_BACKENDS_REFUSING_TUNING(MatmulTuning)

/// Row-wise functions (unison/rowwise.hpp). l2_norm: a row's sum of squares is reduced by up to
/// `max_vector_length` lanes (a power of two, no more than the row's 16-byte chunks; one lane
/// when the rows are not contiguous, so that consecutive threads read consecutive rows),
/// `team_lanes` lanes per team, and every team thread takes `rows_per_thread` rows. A GPU spreads a
/// long row over a warp and a short one over a few lanes (coalesced either way); a CPU thread walks
/// rows_per_thread whole rows, the compiler vectorising along each.
UNISON_BACKENDS_REFUSING_TUNING(RowwiseTuning)

/// histogram: teams of `team_size` threads, each team counting a block of x (at least
/// `min_per_team` values) into up to `copies` private histograms (interleaved bin by bin, thread
/// t counting into copy t % copies; fewer when the bins would not fit) in scratch level
/// `scratch_level`, `teams_per_thread` teams per thread the backend runs at once (divided by the
/// team size). `vector_bytes` > 0: contiguous x read that many bytes at a time, `chunks_per_load`
/// such reads issued together by each thread. A CPU team is one thread counting with plain
/// increments in its own memory (level 1), up to 1 MiB of counters (`max_scratch_bytes`; more
/// bins take global atomics); with `packs`, a pack of values at a time (bins
/// found in vector registers), one histogram per lane.
UNISON_BACKENDS_REFUSING_TUNING(HistogramTuning)

/// monte_carlo_pi: work items of consecutive values of the random sequence, about
/// `items_per_thread` per thread the backend runs at once (its concurrency), at least
/// `min_per_item` values each. A CPU item (`packs`) computes its values in host vectors of
/// 64-bit lanes, all of a register's lanes at once; a GPU thread computes its own.
UNISON_BACKENDS_REFUSING_TUNING(RandomTuning)

/// The MPI component's diffusion of a block (unison/mpi.hpp): with `row_blocks` (CPUs) a block of
/// rows per thread the backend runs at once, each row by the single-rank CPU row code; else
/// (GPUs) a thread per chunk of `chunk_bytes` of a grid row (one wide access; 1 value where that
/// is not a whole number of values) walking down a strip of `strip_rows` rows, `prefetch_rows`
/// rows loaded ahead, as the single-rank streaming kernel on a GPU. The padded block's rows, and
/// the block's first column in them, start on multiples of `align_cols` values (for the strips a
/// whole number of chunks). The copy of the field into the padded block: a team of `team_size`
/// threads per grid row.
UNISON_BACKENDS_REFUSING_TUNING(HaloTuning)

#undef UNISON_BACKENDS_REFUSING_TUNING

}  // namespace unison::backends

#include <unison/backends/host/tuning.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <unison/backends/cuda/tuning.hpp>
#endif
#ifdef KOKKOS_ENABLE_HIP
#include <unison/backends/hip/tuning.hpp>
#endif
