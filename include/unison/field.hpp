#pragma once
/// \file unison/field.hpp
/// Initial fields for the diffusion workload (docs/workloads.md section 4): the deterministic
/// "jagged image", smooth random structure thresholded so that a given fraction of the cells
/// is exactly zero.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/field/interface.hpp>
#include <unison/detail/field/jagged.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/field_types.hpp>

namespace unison {

/// \addtogroup field
/// \{

/// Fills f (a rank-2 View of float or double, any layout, accessible from exec) with the jagged
/// image for `seed`: smooth value noise in [0, 1), with the cells at or below the
/// `zero_fraction` quantile set to exactly 0 (ties at the threshold go to zero, so the share of
/// zeros is at least zero_fraction and as close to it as the values allow). The values depend on
/// the seed and on each cell's indices only, not on the backend or the layout.
/// Waits on `exec` while the threshold is found on the host (about 30 counting passes); the
/// final write is asynchronous. The noise array ("unison::field::noise") is temporary memory
/// Unison keeps for `exec` (release_temporary_memory).
/// \throws unison::invalid_argument for zero_fraction outside [0, 1].
///
/// Kernels: "unison::field::jagged_noise", "unison::field::jagged_count",
/// "unison::field::jagged_write".
///
/// \param exec           the execution space instance the kernels run on.
/// \param f              the field: a rank-2 View of float or double, any layout, accessible
///                       from exec.
/// \param seed           the noise's seed.
/// \param zero_fraction  the share of cells set to 0, in [0, 1].
template <class Exec, class F>
void jagged_field(const Exec& exec, const F& f, std::uint64_t seed = default_seed,
                  double zero_fraction = jagged_default_zero_fraction) {
  const detail::Region region("unison::jagged_field");
  detail::field::jagged_block("unison::jagged_field", exec, f, seed, zero_fraction, 0, 0,
                              std::int64_t(f.extent(0)) * std::int64_t(f.extent(1)),
                              [](std::int64_t count) { return count; });
}

/// \}

}  // namespace unison
