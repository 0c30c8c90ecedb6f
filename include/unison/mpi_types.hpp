#pragma once
/// \file unison/mpi_types.hpp
/// The MPI component's public types (unison/mpi.hpp): the transport (and whether MPI takes GPU
/// pointers), the decomposition of a field over ranks, the times a DiffusionPlan measures and its
/// options. Included by that header and by its implementation (unison/detail/mpi/).

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

namespace unison::mpi {

/// \defgroup mpi MPI: the distributed diffusion and matmul-reduce
/// \{

/// How data that crosses ranks reaches MPI: `device` hands MPI pointers to the Views' own memory
/// (GPU memory on a GPU backend: needs a GPU-aware MPI); `host` copies GPU data into pinned host
/// memory first and back after; `automatic` is `device` on the host backends and where
/// gpu_aware() says yes, else `host`.
enum class Transport { automatic, device, host };

/// Whether the MPI library in use takes CUDA device pointers: Open MPI's MPIX_Query_cuda_support()
/// where the MPI headers offer it, else false. The environment variable UNISON_MPI_GPU_AWARE
/// (1 or 0) overrides the answer, for MPI libraries that have no such query.
///
/// \return whether MPI takes CUDA device pointers.
bool gpu_aware();

/// A 2-D field of nx x ny cells split into a grid of dims[0] x dims[1] blocks, one per rank of
/// a communicator: rank r holds block (r / dims[1], r % dims[1]) (rows of the grid split the
/// field's first index). Blocks differ by at most one row or column: along an axis of n cells in
/// p blocks the first n % p blocks have one more. Made by decompose(); holds a duplicate of the
/// caller's communicator for Unison's own messages (freed with the last copy of the object).
struct Decomposition {
  MPI_Comm comm = MPI_COMM_NULL;  ///< Unison's duplicate of the caller's communicator
  int rank = 0;                   ///< this rank
  int size = 0;                   ///< the number of ranks
  std::array<int, 2> dims{};      ///< blocks along the first and the second index
  std::array<int, 2> coords{};    ///< this rank's block in the grid of blocks
  std::int64_t nx = 0;            ///< the whole field's rows
  std::int64_t ny = 0;            ///< the whole field's columns
  std::int64_t x0 = 0;            ///< this block's first row in the whole field
  std::int64_t y0 = 0;            ///< this block's first column in the whole field
  std::int64_t local_nx = 0;      ///< this block's rows
  std::int64_t local_ny = 0;      ///< this block's columns
  // The ranks holding the neighbouring blocks; MPI_PROC_NULL at the field's edge.
  int north = MPI_PROC_NULL;              ///< the rank holding row x0 - 1
  int south = MPI_PROC_NULL;              ///< the rank holding row x0 + local_nx
  int west = MPI_PROC_NULL;               ///< the rank holding column y0 - 1
  int east = MPI_PROC_NULL;               ///< the rank holding column y0 + local_ny
  std::shared_ptr<const MPI_Comm> owner;  ///< frees comm

  /// \return whether any neighbouring block exists (false on a single rank).
  bool has_neighbours() const {
    return north != MPI_PROC_NULL || south != MPI_PROC_NULL || west != MPI_PROC_NULL ||
           east != MPI_PROC_NULL;
  }
};

/// The first index of block p when n cells are split into `parts` blocks (block p holds
/// [block_begin(n, parts, p), block_begin(n, parts, p + 1))).
///
/// \param n      the cells along the axis.
/// \param parts  the blocks along it.
/// \param p      the block, 0 to parts.
/// \return block p's first cell (n for p = parts).
inline std::int64_t block_begin(std::int64_t n, int parts, int p) {
  return p * (n / parts) + std::min<std::int64_t>(p, n % parts);
}

/// The times, on one rank, from which a DiffusionPlan chooses its halos' depth (seconds; each the
/// median of five after an untimed run): one halo exchange (packing, the copies through host
/// memory if any, the messages, unpacking) of halos one cell deep and of the deepest considered,
/// with the values each moves; one update of the block's interior and its cells; one update of
/// a single cell (the cost of a kernel launch).
struct HaloTimes {
  double exchange_one = 0;          ///< one exchange of halos one cell deep
  double exchange_deep = 0;         ///< one exchange of the deepest halos considered
  double interior = 0;              ///< one update of the block's interior
  double launch = 0;                ///< one update of a single cell
  std::int64_t one_values = 0;      ///< the values one exchange one cell deep moves
  std::int64_t deep_values = 0;     ///< the values one deepest exchange moves
  std::int64_t interior_cells = 0;  ///< the interior's cells
  int deep = 0;                     ///< the deepest halos' depth
};

/// Options of a DiffusionPlan (and of the one-shot mpi::diffuse).
struct ExchangeOptions {
  Transport transport = Transport::automatic;  ///< how halo data reaches MPI
  /// Update each block's interior while its halos travel, then its edge cells (true); or
  /// exchange the halos first and update every cell after (false: the comparison that shows
  /// what the overlap hides).
  bool overlap = true;
  /// The halos' depth k: k cells deep, exchanged once every k steps, each rank computing the
  /// cells of its neighbours' edges that its own block's next k - 1 steps need (temporal
  /// blocking across ranks); 0 (the default): chosen when the plan is made, from measured
  /// times (DiffusionPlan). At most the rows (columns) of the thinnest block along an axis
  /// split into several blocks.
  int halo_depth = 0;
};

/// \}

}  // namespace unison::mpi
