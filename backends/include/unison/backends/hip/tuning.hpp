#pragma once
/// \file unison/backends/hip/tuning.hpp
/// The families' launch parameters on AMD GPUs (Kokkos::HIP): what each means is in
/// unison/backends/tuning.hpp. These values are reasoned, not measured: no AMD GPU has run
/// Unison (the HIP build is compiled and linked, docs/building.md). They start from CUDA's
/// (unison/backends/cuda/tuning.hpp) and change what AMD's hardware changes:
/// - a wavefront is 64 threads (CDNA: MI100, MI200, MI300; RDNA runs wave32 or wave64), so
///   that what is a warp of 32 on CUDA is a wavefront of 64 here (vector lanes, groups);
/// - a compute unit has 64 KiB of LDS (shared memory), and a work-group may use all of it;
/// - LDS has 32 banks of 4 bytes, as CUDA's shared memory does;
/// - HIP's launch bounds take no "blocks per multiprocessor" that caps registers as CUDA's do.
/// docs/tuning.md says how to measure them once an AMD GPU is at hand.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>

#ifdef KOKKOS_ENABLE_HIP
namespace unison::backends {

template <>
struct ElementwiseTuning<Kokkos::HIP> {
  static constexpr int vector = 4;  // 16-byte loads (global_load_dwordx4)
  static constexpr int unroll = 1;
  static constexpr int group = 64;  // a wavefront
  static constexpr bool blocks = false;
  static constexpr std::int64_t min_block = 0, max_block = 0, blocks_per_thread = 0;
};

template <>
struct HaloTuning<Kokkos::HIP> {
  static constexpr bool row_blocks = false;
  static constexpr int strip_rows = 8;
  static constexpr int prefetch_rows = 3;
  static constexpr int chunk_bytes = 16;
  static constexpr int align_cols = 32;  // 128 bytes of float: a cache line of CDNA's L2
  static constexpr int team_size = 256;
};

template <>
struct RandomTuning<Kokkos::HIP> {
  static constexpr bool packs = false;
  static constexpr int items_per_thread = 1;
  static constexpr int min_per_item = 64;
};

template <>
struct ConvolveTuning<Kokkos::HIP> {
  static constexpr int scratch_level = 0;  // LDS
  static constexpr int vector_bytes = 16;
  static constexpr int team_size = 256;  // four wavefronts
  static constexpr int tile = 2048;      // (2048 + 1023 + 1024) floats: 16 KiB of LDS
  static constexpr int chunk = 1024;
  static constexpr int tiled_min_taps = 128;  // CUDA's crossover, unmeasured here
  static constexpr int window_taps = 8;
  static constexpr bool packs = false;
  static constexpr int pack_groups = 0;
};

template <>
struct DiffusionTuning<Kokkos::HIP> {
  static constexpr bool streaming_every_step = true;
  static constexpr bool streaming_final_only = true;
  static constexpr bool streaming_row_blocks = false;
  static constexpr bool plain_row_blocks = false;
  static constexpr int strip_rows = 8;
  static constexpr int strip_rows_two_steps = 16;
  // (Cuda's shorter strips for fields past the L2 are measured on NVIDIA GPUs only: the same
  // strips at every size here.)
  static constexpr std::int64_t strip_large_field_bytes = std::int64_t(32) << 20;
  static constexpr int strip_rows_large = 8;
  static constexpr int strip_rows_two_steps_large = 16;
  static constexpr unsigned strip_two_steps_block_threads = 0;  // Kokkos's own launch (unmeasured)
  static constexpr unsigned strip_two_steps_min_blocks = 0;
  static constexpr int strip_chunk_bytes = 16;
  static constexpr int strip_prefetch_rows = 3;
  static constexpr int streaming_steps_per_pass = 2;
  // (strips run 1 or 2 steps a pass: the same at every size)
  static constexpr std::int64_t streaming_large_field_bytes = std::int64_t(32) << 20;
  static constexpr int streaming_steps_per_pass_large = 2;
  static constexpr std::int64_t streaming_ring_max_bytes = 0;  // (no ring: registers)
  static constexpr int history_steps_per_pass = 2;
  static constexpr int scratch_level = 0;
  static constexpr int vector_bytes = 16;
  static constexpr int team_size = 4;       // 4 rows x 64 columns: 256 threads
  static constexpr int vector_length = 64;  // a wavefront spans 64 consecutive columns
  static constexpr int tile_rows = 32;      // (32 + 2) x (256 + 2) floats: 35 KiB of LDS
  static constexpr int tile_cols = 256;
  static constexpr int steps_per_pass = 4;
  static constexpr int blocked_tile_rows = 24;
  static constexpr int blocked_tile_cols = 120;
  static constexpr bool read_in_place = false;  // tiles staged in LDS
  // wavefront: 128 threads of 4 adjacent cells (16-byte loads of float), 8 steps a pass.
  static constexpr std::int64_t wavefront_min_field_bytes = INT64_MAX;  // (unmeasured: never)
  static constexpr int wavefront_steps = 8;
  static constexpr int wavefront_cells = 4;
  static constexpr int wavefront_team_size = 128;
  static constexpr int wavefront_min_teams = 0;
  static constexpr int wavefront_min_rows = 64;
  static constexpr int wavefront_max_rows = 512;
};

template <>
struct RowwiseTuning<Kokkos::HIP> {
  static constexpr bool packs = false;
  static constexpr int max_vector_length = 64;  // a long row over a whole wavefront
  static constexpr int team_lanes = 256;
  static constexpr int rows_per_thread = 1;
};

template <>
struct HistogramTuning<Kokkos::HIP> {
  static constexpr bool packs = false;
  static constexpr std::size_t max_scratch_bytes = 64 << 10;  // a compute unit's LDS
  static constexpr int team_size = 256;
  static constexpr int copies = 32;  // one per LDS bank: no two lanes of a bank's access share one
  static constexpr int scratch_level = 0;
  static constexpr int vector_bytes = 16;
  static constexpr int chunks_per_load = 2;
  static constexpr int teams_per_thread = 1;
  static constexpr std::int64_t min_per_team = 4096;
};

template <>
struct MatmulTuning<Kokkos::HIP> {
  static constexpr int scratch_level = 0;
  static constexpr int team_size = 256;
  static constexpr int tile_m = 128;
  static constexpr int tile_n = 128;
  static constexpr int tile_k = 8;
  static constexpr int micro_m = 8;
  static constexpr int micro_n = 8;
  static constexpr int column_rows = 64;
  static constexpr int column_chunk = 1;
  static constexpr int min_teams = 1;  // no register cap asked for (see above)
  static constexpr bool packs = false;
  static constexpr int host_tile_m = 0, host_tile_n = 0, host_tile_k = 0;
};

}  // namespace unison::backends
#endif
