#pragma once
// unison/detail/mpi/jagged_field.hpp: part of unison/mpi.hpp (its implementation, which compiles
// on its own: it includes what it uses).
// The distributed jagged field: this rank's block of the whole field's image, its noise array
// allocated within the ranks' agreement, and the count of zeros summed over the ranks.

#include <mpi.h>

#include <cstdint>

#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/mpi/agreement.hpp>
#include <unison/detail/mpi/halo.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// This rank's block f of d's field: the arguments agreed by every rank of d (f the block's
// extents, the single-rank jagged_field's checks, the noise array allocated, seed and
// zero_fraction alike), then the block, the count of nonzero cells summed over the ranks.
template <class Exec, class F>
void jagged_field(const char* fn, const Exec& exec, const unison::mpi::Decomposition& d, const F& f,
                  std::uint64_t seed, double zero_fraction) {
  using Noise = field::NoiseArray<F>;
  Noise noise;
  agree(d.comm, fn,
        [&] {
          check_block(fn, d, f);
          unison::detail::check_output(fn, "f", f);
          require(zero_fraction >= 0 && zero_fraction <= 1, fn, "zero_fraction is ", zero_fraction,
                  ", must be in [0, 1]");
          // The noise array in the agreement: a rank short of memory makes every rank
          // refuse, rather than leave the others waiting in the reduction below.
          noise = unison::detail::allocate<Noise>(fn, "the noise array", exec,
                                                  "unison::field::noise", f.extent(0), f.extent(1));
        },
        {{"seed", (long long)seed}, {"zero_fraction", bits(zero_fraction)}});
  field::jagged_block(
      fn, exec, f, seed, zero_fraction, d.x0, d.y0, d.nx * d.ny,
      [&](std::int64_t count) {
        long long local = count, total = 0;
        check_mpi(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, d.comm), fn,
                  "MPI_Allreduce");
        return std::int64_t(total);
      },
      &noise);
  exec.fence("unison::mpi::jagged_field: release the noise");
}

}  // namespace unison::detail::mpi
