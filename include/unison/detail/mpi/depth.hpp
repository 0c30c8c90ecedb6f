#pragma once
// unison/detail/mpi/depth.hpp: part of unison/mpi.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The halos' depth: the deepest a decomposition allows, and the choice from measured times.

#include <unison/detail/mpi/exchange.hpp>
#include <unison/detail/mpi/packing.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// The deepest halo the plan's choice considers (the model's candidates are 1 to this).
inline constexpr int deepest_chosen = 16;

// The deepest halo d allows: the rows (columns) of its thinnest block along each axis split
// into more than one block (a neighbour sends that many of its own cells); 2^31 - 1 when no axis
// is split.
std::int64_t deepest_halo(const unison::mpi::Decomposition& d);

// Which of HaloSegments' eight neighbours d's block has.
std::array<bool, HaloSegments::count> neighbours_present(const unison::mpi::Decomposition& d);

// The depth in [1, deep] whose modelled time per step (docs/scaling.md) is shortest for the
// slowest rank, from this rank's measured times (collective over d.comm: every rank gets the
// same depth).
int choose_depth(const unison::mpi::Decomposition& d, const unison::mpi::HaloTimes& t, bool overlap,
                 int deep);

}  // namespace unison::detail::mpi
