#pragma once
/// \file unison/random.hpp
/// Random numbers (WORKLOADS.md section 6): RandomStreams (a Kokkos random pool, one stream per
/// work item) and monte_carlo_pi.
///
/// Common contract: see unison/core.hpp. monte_carlo_pi returns a host value, so it waits for
/// its result on `exec` (and only there). Kernel: "unison::random::monte_carlo_pi".

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <unison/impl/checks.hpp>

namespace unison {
namespace impl {

// Work item i draws its share of the samples from the pool's state i (never the pool's
// first-free state, which depends on scheduling). A sample is one half of a 64-bit draw: its
// two 16-bit halves a and b give the point ((2a + 1) 2^-17, (2b + 1) 2^-17), the centre of a cell
// of a 2^16 x 2^16 grid on [0, 1)^2, inside the quarter circle when (2a + 1)^2 + (2b + 1)^2 <
// 2^34, tested exactly in integers (no rounding, the same on every backend). The grid's own
// error is tiny: 4 (centres inside) / 2^32 = pi (1 + 1.5e-8), against a statistical error of
// 1.2e-5 relative at 2e9 samples (the grid of cell corners at 2^-24, used before, is off by
// 7.6e-8). Half a draw per sample halves the generator's share of the work, which dominates on
// a GPU (integer instructions: three 64-bit shifts and xors and a 64-bit multiply per draw).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t outside_quarter_circle(std::uint32_t half) {
  const std::uint32_t a = 2 * (half >> 16) + 1, b = 2 * (half & 0xffffu) + 1;
  return std::uint32_t((std::uint64_t(a) * a + std::uint64_t(b) * b) >> 34);  // 0 or 1
}

template <class Pool>
struct MonteCarloPi {
  Pool pool;
  std::int64_t samples;
  int streams;

  KOKKOS_FUNCTION void operator()(int i, std::uint64_t& hits) const {
    const std::int64_t base = samples / streams, extra = samples % streams;
    const std::int64_t count = base + (i < extra ? 1 : 0);
    auto gen = pool.get_state(i);
    std::uint64_t outside = 0;
    std::int64_t left = count;
    while (left >= 2) {  // in rounds of at most 2^30 draws: a 32-bit loop and count
      const std::int32_t draws = std::int32_t(left / 2 < (std::int64_t(1) << 30) ? left / 2 : std::int64_t(1) << 30);
      std::uint32_t out = 0;
      for (std::int32_t d = 0; d < draws; ++d) {
        const std::uint64_t r = gen.urand64();
        out += outside_quarter_circle(std::uint32_t(r >> 32)) + outside_quarter_circle(std::uint32_t(r));
      }
      outside += out;
      left -= 2 * std::int64_t(draws);
    }
    if (left == 1) outside += outside_quarter_circle(std::uint32_t(gen.urand64() >> 32));
    pool.free_state(gen);
    hits += std::uint64_t(count) - outside;
  }
};

}  // namespace impl

/// Independent random streams for Unison's random functions: a Kokkos::Random_XorShift64_Pool
/// in exec's memory space with `count` states, seeded with `seed` (count 0: one per thread
/// `exec` can run at once, exec.concurrency(): the cores of a CPU backend, the resident threads
/// of a GPU). A function that takes RandomStreams gives work item i stream i, so its result
/// depends only on the seed, the count and its own arguments, never on scheduling; the streams
/// advance, so a second call draws new numbers. Building seeds the states one by one on the
/// host: milliseconds for a GPU's ~10^5 streams; build once, draw many times. Throws
/// unison::invalid_argument for a negative count, or when the streams' memory cannot be
/// allocated.
template <class Exec>
class RandomStreams {
 public:
  using pool_type = Kokkos::Random_XorShift64_Pool<typename Exec::device_type>;

  RandomStreams(const Exec& exec, std::uint64_t seed, int count = 0)
      : count_(count > 0 ? count : exec.concurrency()) {
    impl::require(count >= 0, "unison::RandomStreams", "count is ", count,
                  ", expected 0 (one per thread) or more");
    try {
      pool_.init(seed, count_);
    } catch (const std::runtime_error& e) {  // Kokkos' allocation failure
      impl::fail("unison::RandomStreams", count_, " streams could not be allocated: ", e.what());
    }
  }
  const pool_type& pool() const { return pool_; }
  int count() const { return count_; }

 private:
  int count_;
  pool_type pool_;
};

/// An estimate of pi: 4 times the fraction of `samples` uniform points of the unit square that
/// fall inside the quarter circle x^2 + y^2 < 1 (the points: centres of the cells of a 2^16 x
/// 2^16 grid, two points from each 64-bit draw; the test is exact in integers; the grid itself
/// is within 1.5e-8 of pi, relative). Work item i draws its share of the samples
/// from stream i, so the estimate is the same on every run for the same streams' seed and count,
/// and on every backend (the generator and the test are integer arithmetic).
/// Returns on the host: waits for the result on `exec`. Throws unison::invalid_argument when
/// samples < 1. Kernel: "unison::random::monte_carlo_pi".
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, const RandomStreams<Exec>& streams) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::monte_carlo_pi: the first argument must be a Kokkos execution space");
  impl::require(samples >= 1, "unison::monte_carlo_pi", "samples is ", samples,
                ", expected at least 1");
  using Pool = typename RandomStreams<Exec>::pool_type;
  std::uint64_t hits = 0;
  Kokkos::parallel_reduce("unison::random::monte_carlo_pi",
                          Kokkos::RangePolicy<Exec>(exec, 0, streams.count()),
                          impl::MonteCarloPi<Pool>{streams.pool(), samples, streams.count()}, hits);
  exec.fence("unison::monte_carlo_pi: the result");
  return 4.0 * double(hits) / double(samples);
}

/// monte_carlo_pi with new RandomStreams(exec, seed): the same seed, backend and thread count
/// give the same estimate. Includes seeding the streams on the host (see RandomStreams).
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, std::uint64_t seed) {
  impl::require(samples >= 1, "unison::monte_carlo_pi", "samples is ", samples,
                ", expected at least 1");
  return monte_carlo_pi(exec, samples, RandomStreams<Exec>(exec, seed));
}

}  // namespace unison
