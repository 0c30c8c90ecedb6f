#pragma once
/// \file unison/backends/cuda/tuning.hpp
/// The families' launch parameters on CUDA GPUs: what each means is in
/// unison/backends/tuning.hpp; comments here say why a value was chosen.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>

#ifdef KOKKOS_ENABLE_CUDA
namespace unison::backends {

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
  static constexpr bool row_blocks = false;
  static constexpr int strip_rows = 8;
  static constexpr int prefetch_rows = 3;
  static constexpr int chunk_bytes = 16;
  static constexpr int align_cols = 32;  // 128 bytes of float
  static constexpr int team_size = 256;
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
struct DiffusionTuning<Kokkos::Cuda> {
  static constexpr bool streaming_every_step = true;
  static constexpr bool streaming_final_only = true;
  static constexpr bool streaming_row_blocks = false;
  static constexpr bool plain_row_blocks = false;
  static constexpr int strip_rows = 8;
  static constexpr int strip_rows_two_steps = 16;
  // A field of more than 32 MiB streams past a 50 MiB L2 (which also holds the Laplacian and the
  // other buffer): there strips half as long measured faster, at 2000^2 the longer ones
  // (docs/tuning.md has the figures).
  static constexpr std::int64_t strip_large_field_bytes = std::int64_t(32) << 20;
  static constexpr int strip_rows_large = 4;
  static constexpr int strip_rows_two_steps_large = 8;
  // The two-step strip kernel (about 90 registers) in blocks of 256 threads, at least two a
  // multiprocessor: faster past the L2 than Kokkos's own block size (no change for the one-step
  // kernel; docs/tuning.md has the figures).
  static constexpr unsigned strip_two_steps_block_threads = 256;
  static constexpr unsigned strip_two_steps_min_blocks = 2;
  static constexpr int strip_chunk_bytes = 16;
  static constexpr int strip_prefetch_rows = 3;
  static constexpr int streaming_steps_per_pass = 2;
  // (strips run 1 or 2 steps a pass: the same at every size)
  static constexpr std::int64_t streaming_large_field_bytes = std::int64_t(32) << 20;
  static constexpr int streaming_steps_per_pass_large = 2;
  static constexpr std::int64_t streaming_ring_max_bytes = 0;  // (no ring: registers)
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
  // wavefront: 128 threads of 4 adjacent cells (16-byte loads of float), 8 steps a pass.
  // automatic takes it for the final Laplacian of a field of 128 MiB or more: faster than the
  // two-step strips at 8192^2 and 16384^2 floats, slower at 4096^2 (64 MiB) and below
  // (docs/tuning.md has the figures).
  static constexpr std::int64_t wavefront_min_field_bytes = std::int64_t(128) << 20;
  static constexpr int wavefront_steps = 8;
  static constexpr int wavefront_cells = 4;
  static constexpr int wavefront_team_size = 128;
  static constexpr int wavefront_min_teams = 0;
  static constexpr int wavefront_min_rows = 64;
  static constexpr int wavefront_max_rows = 512;
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

}  // namespace unison::backends
#endif
