// docs/workloads.md section 6, random numbers, on every enabled backend at the seed size:
// monte_carlo_pi of 2e9 samples (2e8 on Serial), checked against pi within five standard
// deviations of the estimate.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include <unison/random.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
std::int64_t pi_samples() {
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return 200000000;
#endif
  return 2000000000;
}

// An estimate of pi from `samples` points: |estimate - pi| / pi against five standard deviations
// of the estimate (4 sqrt(p (1 - p) / samples) with p = pi / 4, relative to pi).
Check check_pi(double estimate, std::int64_t samples) {
  const double p = M_PI / 4;
  Check c;
  c.error = std::abs(estimate - M_PI) / M_PI;
  c.tolerance = 5 * 4 * std::sqrt(p * (1 - p) / double(samples)) / M_PI;
  c.bytes = 2 * sizeof(double);
  c.save = [=](const std::filesystem::path& folder) {
    save_scalar(folder, "estimate", estimate);
    save_scalar(folder, "samples", std::int64_t(samples));
  };
  return c;
}

template <class Exec>
void add_monte_carlo() {
  const std::int64_t samples = scaled(pi_samples<Exec>());
  const std::string size = samples == 2000000000  ? "2e9"
                           : samples == 200000000 ? "2e8"
                                                  : std::to_string(samples);
  Case info("random", "monte_carlo_pi", "monte_carlo_pi/" + size);
  info.api = {"monte_carlo_pi"};
  info.headline = pi_samples<Exec>() == 2000000000;  // the tutorial's 2e9 (not Serial's 2e8)
  info.sizes = {{"samples", double(samples)}};
  info.cells = double(samples);
  info.cells_name = "Gsamples/s";
  add_case<Exec>(info, [=](const Exec&) -> Call<Exec> {
    auto estimate = std::make_shared<double>(0.0);  // the last timed call's, for the check
    return {
        [=](const Exec& e) { *estimate = unison::monte_carlo_pi(e, samples, std::uint64_t(2024)); },
        [=](const Exec&) { return check_pi(*estimate, samples); }};
  });
}

}  // namespace

void register_random() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_monte_carlo<Exec>();
  });
}

// This file's family in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_random = add_registration("random", register_random);
}  // namespace

}  // namespace unison::bench
