#pragma once
/// \file unison/backends/tuning.hpp
/// Launch parameters that differ between backends, in one place. The algorithms read them;
/// none is written twice.

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// Element-wise kernels. GPUs: a work item handles `unroll` chunks of `vector` consecutive
/// elements. A GPU thread that loads one 4-byte element at a time keeps too few bytes in flight
/// to saturate HBM (docs/tuning.md); chunks of 4 floats are one 16-byte
/// load each, and with unroll > 1 all loads of a thread are issued before its first store.
/// Arrays that are strided or misaligned take one element at a time, vector * unroll per work
/// item. CPUs (`blocks`): a work item is a block of consecutive elements computed a pack at a
/// time (unison/backends/simd.hpp), about `blocks_per_thread` blocks per thread, each of
/// `min_block` to `max_block` elements (a multiple of 64). `group`: with unroll > 1, the work
/// items that share U chunks in turn so that each pass is one coalesced access (a GPU's warp;
/// CPUs take the same 32, which they use only where a caller forces unroll > 1, as the tests
/// do, so that the GPU's indexing is tested on every backend).
struct HostElementwiseTuning {
  static constexpr int vector = 1;
  static constexpr int unroll = 1;
  static constexpr int group = 32;
  static constexpr bool blocks = true;
  static constexpr std::int64_t min_block = 1024;
  static constexpr std::int64_t max_block = 1 << 16;
  static constexpr std::int64_t blocks_per_thread = 4;
};

/// convolve: the tiled kernel gives each team `tile` consecutive outputs and stages the inputs
/// they need, `tile + chunk - 1` of x and `chunk` taps of k at a time, in team scratch. A GPU
/// team is `team_size` threads over consecutive outputs (coalesced loads, conflict-free scratch
/// reads); a CPU team is one thread with a tile that fits in its L1/L2. `automatic` takes the
/// tiled kernel from `tiled_min_taps` taps on (the direct kernel re-reads x through the cache
/// `taps` times; the crossover is measured, docs/tuning.md). `scratch_level` 0 is a GPU's
/// shared memory; host backends offer only 32 KiB at level 0, so they use level 1 (a per-thread
/// buffer in ordinary memory, which stays in that core's cache).
struct HostConvolveTuning {
  static constexpr int scratch_level = 1;
  static constexpr int vector_bytes = 0;  // 16: outputs written 16 bytes at a time
  static constexpr int team_size = 1;
  static constexpr int tile = 16384;
  static constexpr int chunk = 1024;
  static constexpr int tiled_min_taps = 1 << 30;  // CPUs: never tiled by default
  // The direct kernel computes vector_bytes of consecutive outputs per work item from a window
  // of x in registers, for up to window_taps taps (0: never).
  static constexpr int window_taps = 0;
  // CPUs: outputs in packs (unison/backends/simd.hpp), pack_groups packs of consecutive outputs
  // sharing each tap (register accumulators), in blocks of consecutive outputs per work item.
  static constexpr bool packs = true;
  static constexpr int pack_groups = 4;
  // CPUs, from broadcast_min_taps taps to broadcast_max_taps: broadcast_groups packs of
  // consecutive outputs take each element of x as a broadcast and the taps as packs
  // (detail::window_sums_broadcast), which avoids the loads of x that straddle cache lines.
  static constexpr int broadcast_min_taps = 64;
  static constexpr int broadcast_max_taps = 1024;
  static constexpr int broadcast_groups = 8;
};

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
/// `strip_rows_two_steps` for two steps per pass; `strip_prefetch_rows`: how many rows ahead a
/// strip thread loads (one step per pass). `streaming_steps_per_pass`: 1, or 2 (the
/// strip form computes two steps per pass in registers when only the final Laplacian is wanted;
/// always in strips). `history_steps_per_pass`: diffuse_history's steps per pass of `streaming`
/// (row blocks: any number; strips: 1 or 2). `plain_row_blocks`: the `plain` reference kernel's
/// cells walked as a block of whole rows per thread (CPU spaces with threads), rather than by an
/// MDRangePolicy (GPUs: a thread per cell; Serial, whose MDRangePolicy loop GCC vectorises and
/// which measured faster there than the row walk).
struct HostStencilTuning {
  static constexpr bool streaming_every_step = true;
  static constexpr bool streaming_final_only = true;
  static constexpr bool streaming_row_blocks = true;
  static constexpr bool plain_row_blocks = true;
  static constexpr int strip_rows = 0;
  static constexpr int strip_rows_two_steps = 16;
  static constexpr int strip_chunk_bytes = 16;
  static constexpr int strip_prefetch_rows = 1;
  static constexpr int streaming_steps_per_pass = 1;
  // diffuse_history: steps per pass of the streaming kernel (each step's Laplacian to its plane,
  // the field read and written once per pass); on CPUs more measured no faster.
  static constexpr int history_steps_per_pass = 1;
  static constexpr int scratch_level = 1;  // as for ConvolveTuning
  static constexpr int vector_bytes = 0;   // as for ConvolveTuning
  static constexpr int team_size = 1;
  static constexpr int vector_length = 1;
  static constexpr int tile_rows = 16;
  static constexpr int tile_cols = 2048;
  static constexpr int steps_per_pass = 4;
  static constexpr int blocked_tile_rows = 32;
  static constexpr int blocked_tile_cols = 1024;
  // A tiled team reads the first step's cells from a field with contiguous grid rows itself, not
  // from a copy in scratch (a CPU team's scratch is ordinary memory).
  static constexpr bool read_in_place = true;
};
// Serial: the plain reference by the MDRangePolicy (see plain_row_blocks).
struct SerialStencilTuning : HostStencilTuning {
  static constexpr bool plain_row_blocks = false;
};

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
struct HostMatmulTuning {
  static constexpr int scratch_level = 1;  // as for ConvolveTuning
  static constexpr int team_size = 1;
  static constexpr int tile_m = 64;
  static constexpr int tile_n = 64;
  static constexpr int tile_k = 64;
  static constexpr int micro_m = 4;
  static constexpr int micro_n = 16;
  // CPUs: a work item sums 256 rows of 256 consecutive columns (1 KiB of each float row, the
  // chunk's sums in 16 AVX-512 registers).
  static constexpr int column_rows = 256;
  static constexpr int column_chunk = 256;
  static constexpr int min_teams = 1;
  // CPUs, rows of B with contiguous elements (`packs`): register micro-tiles, each team (one
  // thread) a host_tile_m x host_tile_n tile of A.B in slices of host_tile_k along k (a slice
  // of B's panel, 1024 x 32 floats, 128 KiB, copied into scratch, stays in L2; the tile's sums,
  // 256 KiB, in scratch too).
  static constexpr bool packs = true;
  static constexpr int host_tile_m = 256;
  static constexpr int host_tile_n = 256;
  static constexpr int host_tile_k = 1024;
};

/// Row-wise functions (unison/rowwise.hpp). l2_norm: a row's sum of squares is reduced by up to
/// `max_vector_length` lanes (a power of two, no more than the row's 16-byte chunks; one lane
/// when the rows are not contiguous, so that consecutive threads read consecutive rows),
/// `team_lanes` lanes per team, and every team thread takes `rows_per_thread` rows. A GPU spreads a
/// long row over a warp and a short one over a few lanes (coalesced either way); a CPU thread walks
/// rows_per_thread whole rows, the compiler vectorising along each.
struct HostRowwiseTuning {
  static constexpr bool packs = true;  // CPUs: packs of rows (unison/backends/simd.hpp)
  static constexpr int max_vector_length = 1;
  static constexpr int team_lanes = 1;
  static constexpr int rows_per_thread = 256;
};

/// histogram: teams of `team_size` threads, each team counting a block of x (at least
/// `min_per_team` values) into up to `copies` private histograms (interleaved bin by bin, thread
/// t counting into copy t % copies; fewer when the bins would not fit) in scratch level
/// `scratch_level`, `teams_per_thread` teams per thread the backend runs at once (divided by the
/// team size). `vector_bytes` > 0: contiguous x read that many bytes at a time, `chunks_per_load`
/// such reads issued together by each thread. A CPU team is one thread counting with plain
/// increments in its own memory (level 1), up to 1 MiB of counters (`max_scratch_bytes`; more
/// bins take global atomics); with `packs`, a pack of values at a time (bins
/// found in vector registers), one histogram per lane.
struct HostHistogramTuning {
  static constexpr bool packs = true;
  static constexpr std::size_t max_scratch_bytes = 1 << 20;
  static constexpr int team_size = 1;
  static constexpr int copies = 1;
  static constexpr int scratch_level = 1;
  static constexpr int vector_bytes = 0;
  static constexpr int chunks_per_load = 1;
  static constexpr int teams_per_thread = 1;
  static constexpr std::int64_t min_per_team = 1 << 16;
};

/// monte_carlo_pi: work items of consecutive values of the random sequence, about
/// `items_per_thread` per thread the backend runs at once (its concurrency), at least
/// `min_per_item` values each. A CPU item (`packs`) computes its values in host vectors of
/// 64-bit lanes, all of a register's lanes at once; a GPU thread computes its own.
struct HostRandomTuning {
  static constexpr bool packs = true;
  static constexpr int items_per_thread = 4;
  static constexpr int min_per_item = 4096;
};

/// The MPI component's diffusion of a block (unison/mpi.hpp): a team of `team_size` threads per
/// segment of `segment_cols` columns of a grid row (0: the whole row), each thread computing
/// `cells_per_thread` cells a team's width apart, their loads issued before any store (more
/// loads in flight per thread; docs/tuning.md).
struct HostHaloTuning {
  static constexpr int team_size = 1;
  static constexpr int cells_per_thread = 4;
  static constexpr int segment_cols = 0;
};

/// The families' tuning, per backend. The primary templates refuse an execution space they have
/// no values for (at compile time, naming the family), so that a new backend cannot fall back to
/// values chosen for another kind of hardware: each backend specialises every struct. The host
/// backends (Serial, OpenMP, Threads) take the Host* values above; Cuda has its own below.
#define UNISON_BACKENDS_REFUSING_TUNING(Family)                                             \
  template <class Exec>                                                                     \
  struct Family {                                                                           \
    static_assert(sizeof(Exec) == 0, "unison::backends::" #Family                           \
                                     " has no values for this execution space: add a "      \
                                     "specialisation for it in unison/backends/tuning.hpp " \
                                     "(docs/tuning.md)");                                   \
  };
UNISON_BACKENDS_REFUSING_TUNING(ElementwiseTuning)
UNISON_BACKENDS_REFUSING_TUNING(ConvolveTuning)
UNISON_BACKENDS_REFUSING_TUNING(StencilTuning)
UNISON_BACKENDS_REFUSING_TUNING(MatmulTuning)
UNISON_BACKENDS_REFUSING_TUNING(RowwiseTuning)
UNISON_BACKENDS_REFUSING_TUNING(HistogramTuning)
UNISON_BACKENDS_REFUSING_TUNING(RandomTuning)
UNISON_BACKENDS_REFUSING_TUNING(HaloTuning)
#undef UNISON_BACKENDS_REFUSING_TUNING

#define UNISON_BACKENDS_HOST_TUNING(Space, Stencil)           \
  template <>                                                 \
  struct ElementwiseTuning<Space> : HostElementwiseTuning {}; \
  template <>                                                 \
  struct ConvolveTuning<Space> : HostConvolveTuning {};       \
  template <>                                                 \
  struct StencilTuning<Space> : Stencil {};                   \
  template <>                                                 \
  struct MatmulTuning<Space> : HostMatmulTuning {};           \
  template <>                                                 \
  struct RowwiseTuning<Space> : HostRowwiseTuning {};         \
  template <>                                                 \
  struct HistogramTuning<Space> : HostHistogramTuning {};     \
  template <>                                                 \
  struct RandomTuning<Space> : HostRandomTuning {};           \
  template <>                                                 \
  struct HaloTuning<Space> : HostHaloTuning {};
#ifdef KOKKOS_ENABLE_SERIAL
UNISON_BACKENDS_HOST_TUNING(Kokkos::Serial, SerialStencilTuning)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
UNISON_BACKENDS_HOST_TUNING(Kokkos::OpenMP, HostStencilTuning)
#endif
#ifdef KOKKOS_ENABLE_THREADS
UNISON_BACKENDS_HOST_TUNING(Kokkos::Threads, HostStencilTuning)
#endif
#undef UNISON_BACKENDS_HOST_TUNING

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct ElementwiseTuning<Kokkos::Cuda> {
  static constexpr int vector = 4;
  static constexpr int unroll = 1;
  static constexpr int group = 32;  // a warp (CUDA's warpSize)
  static constexpr bool blocks = false;
  static constexpr std::int64_t min_block = 0, max_block = 0, blocks_per_thread = 0;
};

template <>
struct HaloTuning<Kokkos::Cuda> {
  static constexpr int team_size = 256;
  static constexpr int cells_per_thread = 4;
  static constexpr int segment_cols = team_size * cells_per_thread;
};

template <>
struct RandomTuning<Kokkos::Cuda> {
  static constexpr bool packs = false;
  static constexpr int items_per_thread = 1;
  static constexpr int min_per_item = 64;
};

template <>
struct ConvolveTuning<Kokkos::Cuda> {
  static constexpr int scratch_level = 0;
  static constexpr int vector_bytes = 16;
  static constexpr int team_size = 256;
  static constexpr int tile = 2048;
  static constexpr int chunk = 1024;
  static constexpr int tiled_min_taps = 128;
  static constexpr int window_taps = 8;
  static constexpr bool packs = false;
  static constexpr int pack_groups = 0;
};

template <>
struct StencilTuning<Kokkos::Cuda> {
  static constexpr bool streaming_every_step = true;
  static constexpr bool streaming_final_only = true;
  static constexpr bool streaming_row_blocks = false;
  static constexpr bool plain_row_blocks = false;
  static constexpr int strip_rows = 8;
  static constexpr int strip_rows_two_steps = 16;
  static constexpr int strip_chunk_bytes = 16;
  static constexpr int strip_prefetch_rows = 3;
  static constexpr int streaming_steps_per_pass = 2;
  // diffuse_history: two steps per pass in strips (every Laplacian written, the field once a pass)
  static constexpr int history_steps_per_pass = 2;
  static constexpr int scratch_level = 0;
  static constexpr int vector_bytes = 16;
  static constexpr int team_size = 8;
  static constexpr int vector_length = 32;
  static constexpr int tile_rows = 32;
  static constexpr int tile_cols = 256;
  static constexpr int steps_per_pass = 4;
  static constexpr int blocked_tile_rows = 24;
  static constexpr int blocked_tile_cols = 120;
  static constexpr bool read_in_place = false;  // tiles staged in shared memory
};

template <>
struct RowwiseTuning<Kokkos::Cuda> {
  static constexpr bool packs = false;
  static constexpr int max_vector_length = 32;
  static constexpr int team_lanes = 256;
  static constexpr int rows_per_thread = 1;
};

template <>
struct HistogramTuning<Kokkos::Cuda> {
  static constexpr bool packs = false;
  static constexpr std::size_t max_scratch_bytes = 48 << 10;  // shared memory without opt-in
  static constexpr int team_size = 256;
  static constexpr int copies =
      32;  // one per lane of a warp: no two lanes share a counter or a bank
  static constexpr int scratch_level = 0;
  static constexpr int vector_bytes = 16;
  static constexpr int chunks_per_load = 2;
  static constexpr int teams_per_thread = 1;
  static constexpr std::int64_t min_per_team = 4096;
};

template <>
struct MatmulTuning<Kokkos::Cuda> {
  static constexpr int scratch_level = 0;
  static constexpr int team_size = 256;
  static constexpr int tile_m = 128;
  static constexpr int tile_n = 128;
  static constexpr int tile_k = 8;
  static constexpr int micro_m = 8;
  static constexpr int micro_n = 8;
  static constexpr int column_rows = 64;
  static constexpr int column_chunk = 1;
  // Teams the compiler must fit on one multiprocessor at once (CUDA launch bounds): 2 caps a
  // thread at 128 registers (without it the kernel took 154, one team per multiprocessor).
  static constexpr int min_teams = 2;
  static constexpr bool packs = false;
  static constexpr int host_tile_m = 0, host_tile_n = 0, host_tile_k = 0;
};
#endif

}  // namespace unison::backends
