#pragma once
/// \file unison/backends/host/tuning.hpp
/// The families' launch parameters on CPUs (Serial, OpenMP, Threads): what each means is in
/// unison/backends/tuning.hpp; comments here say why a value was chosen.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>

namespace unison::backends {

struct HostElementwiseTuning {
  static constexpr int vector = 1;
  static constexpr int unroll = 1;
  static constexpr int group = 32;
  static constexpr bool blocks = true;
  static constexpr std::int64_t min_block = 1024;
  static constexpr std::int64_t max_block = 1 << 16;
  static constexpr std::int64_t blocks_per_thread = 4;
};

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
  // CPUs: outputs in packs (unison/backends/host/pack.hpp), pack_groups packs of consecutive
  // outputs sharing each tap (register accumulators), in blocks of consecutive outputs per work
  // item.
  static constexpr bool packs = true;
  static constexpr int pack_groups = 4;
  // CPUs, from broadcast_min_taps taps to broadcast_max_taps: broadcast_groups packs of
  // consecutive outputs take each element of x as a broadcast and the taps as packs
  // (detail::convolve::window_sums_broadcast), which avoids the loads of x that straddle cache
  // lines.
  static constexpr int broadcast_min_taps = 64;
  static constexpr int broadcast_max_taps = 1024;
  static constexpr int broadcast_groups = 8;
};

struct HostDiffusionTuning {
  static constexpr bool streaming_every_step = true;
  static constexpr bool streaming_final_only = true;
  static constexpr bool streaming_row_blocks = true;
  static constexpr bool plain_row_blocks = true;
  static constexpr int strip_rows = 0;
  static constexpr int strip_rows_two_steps = 16;
  // (strips are a GPU form: the same at every size here)
  static constexpr std::int64_t strip_large_field_bytes = std::int64_t(32) << 20;
  static constexpr int strip_rows_large = 0;
  static constexpr int strip_rows_two_steps_large = 16;
  static constexpr unsigned strip_two_steps_block_threads = 0;
  static constexpr unsigned strip_two_steps_min_blocks = 0;
  static constexpr int strip_chunk_bytes = 16;
  static constexpr int strip_prefetch_rows = 1;
  static constexpr int streaming_steps_per_pass = 1;
  // Past the last-level cache (a field of more than streaming_large_field_bytes), 8: a field that
  // streams from memory crosses it an eighth as often, and the pass runs at the rate of its row
  // kernel in the caches; in the caches no faster (docs/tuning.md has the figures).
  static constexpr std::int64_t streaming_large_field_bytes = std::int64_t(128) << 20;
  static constexpr int streaming_steps_per_pass_large = 8;
  // The rows a thread keeps for such a pass (3 a step but the last) at most this many bytes, half
  // of a server core's L2: fewer steps a pass for longer rows (8 for rows of 8192 floats, 6 for
  // 16384, one for a row of more than 1/3 of it).
  static constexpr std::int64_t streaming_ring_max_bytes = std::int64_t(1) << 20;
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
  // wavefront: a team is one thread walking a strip of 256 columns (its rows, 16 KiB of float
  // for 8 steps, stay in L1).
  // (automatic never takes it: slower than the row blocks' several steps a pass past the L3,
  // docs/tuning.md)
  static constexpr std::int64_t wavefront_min_field_bytes = INT64_MAX;
  static constexpr int wavefront_steps = 8;
  static constexpr int wavefront_cells = 256;
  static constexpr int wavefront_team_size = 1;
  static constexpr int wavefront_min_teams = 0;
  static constexpr int wavefront_min_rows = 32;
  static constexpr int wavefront_max_rows = 512;
};
// Serial: the plain reference by the MDRangePolicy (see plain_row_blocks).
struct SerialDiffusionTuning : HostDiffusionTuning {
  static constexpr bool plain_row_blocks = false;
};

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

struct HostRowwiseTuning {
  static constexpr bool packs = true;  // CPUs: packs of rows (unison/backends/host/pack.hpp)
  static constexpr int max_vector_length = 1;
  static constexpr int team_lanes = 1;
  static constexpr int rows_per_thread = 256;
};

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

struct HostRandomTuning {
  static constexpr bool packs = true;
  static constexpr int items_per_thread = 4;
  static constexpr int min_per_item = 4096;
};

struct HostHaloTuning {
  static constexpr bool row_blocks = true;
  static constexpr int align_cols = 16;
  static constexpr int team_size = 1;
};

#define UNISON_BACKENDS_HOST_TUNING(Space, Stencil)           \
  template <>                                                 \
  struct ElementwiseTuning<Space> : HostElementwiseTuning {}; \
  template <>                                                 \
  struct ConvolveTuning<Space> : HostConvolveTuning {};       \
  template <>                                                 \
  struct DiffusionTuning<Space> : Stencil {};                 \
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
UNISON_BACKENDS_HOST_TUNING(Kokkos::Serial, SerialDiffusionTuning)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
UNISON_BACKENDS_HOST_TUNING(Kokkos::OpenMP, HostDiffusionTuning)
#endif
#ifdef KOKKOS_ENABLE_THREADS
UNISON_BACKENDS_HOST_TUNING(Kokkos::Threads, HostDiffusionTuning)
#endif
#undef UNISON_BACKENDS_HOST_TUNING

}  // namespace unison::backends
