#pragma once
/// \file unison/random.hpp
/// Random numbers (docs/workloads.md section 6): RandomSequence (a counter-based generator: any
/// work item computes any of its values, with no state to share or seed) and monte_carlo_pi.
///
/// Common contract: see unison/core.hpp. monte_carlo_pi returns a host value, so it waits for
/// its result on `exec` (and only there). Kernel: "unison::random::monte_carlo_pi".

#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/detail/random/monte_carlo.hpp>
#include <unison/random_types.hpp>

namespace unison {

/// \addtogroup random
/// \{

/// An estimate of pi: 4 times the fraction of `samples` points of the unit square that fall
/// inside the quarter circle x^2 + y^2 < 1, drawn from `sequence` from its position on, two
/// points per value (its high and its low 32 bits: each the centre of a cell of a 2^16 x 2^16
/// grid, tested exactly in integers; the grid itself is within 1.5e-8 of pi, relative); the
/// sequence then stands (samples + 1) / 2 values further on. The estimate depends only on the
/// sequence's seed and position and on `samples`: the same on every run, every backend and
/// every thread count. Returns on the host: waits for the result on `exec`.
///
/// \param exec      the execution space instance the kernel runs on.
/// \param samples   the number of points, at least 1.
/// \param sequence  the random sequence, advanced by (samples + 1) / 2 values.
/// \return the estimate of pi.
/// \throws unison::invalid_argument when samples < 1.
///
/// Kernel: "unison::random::monte_carlo_pi".
///
/// Temporary memory: none (the count comes back through Kokkos's reduction).
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, RandomSequence& sequence) {
  const detail::Region region("unison::monte_carlo_pi");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::monte_carlo_pi: the first argument must be a Kokkos execution space");
  detail::require(samples >= 1, "unison::monte_carlo_pi", "samples is ", samples,
                  ", expected at least 1");
  return detail::random::monte_carlo_pi(exec, samples, sequence);
}

/// monte_carlo_pi from the start of RandomSequence(seed): the same seed gives the same estimate
/// on every backend and thread count.
///
/// \param exec, samples  as monte_carlo_pi(exec, samples, sequence).
/// \param seed           the sequence's seed.
/// \return the estimate of pi.
/// \throws unison::invalid_argument when samples < 1.
///
/// Returns on the host: waits for the result on exec. Kernel and memory as the form with a
/// RandomSequence.
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, std::uint64_t seed) {
  RandomSequence sequence(seed);
  return monte_carlo_pi(exec, samples, sequence);
}

/// \}

}  // namespace unison
