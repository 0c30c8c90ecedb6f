// WORKLOADS.md section 6 on every enabled backend at the seed sizes: monte_carlo_pi of 2e9
// samples (2e8 on Serial), with streams built once (`streams`) and built by the call (`seed`);
// histogram of 1e8 normal float32 samples into 100 bins over [-4, 4); atomic_counter of 1e6;
// rgb_to_grayscale of a 4000 x 3000 image (float32 and uint8); loop_sum of 1e4; lucas to
// N = 40. GB/s count the bytes read and written once.
#include <cstdint>
#include <memory>
#include <string>

#include <Kokkos_Random.hpp>

#include <unison/examples.hpp>
#include <unison/histogram.hpp>
#include <unison/random.hpp>

#include "bench_common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
std::int64_t pi_samples() {
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return 200000000;
#endif
  return 2000000000;
}

template <class Exec>
void add_monte_carlo() {
  const std::int64_t samples = scaled(pi_samples<Exec>());
  const std::string size = samples == 2000000000 ? "2e9" : samples == 200000000 ? "2e8" : std::to_string(samples);
  add_case<Exec>(
      "monte_carlo_pi/" + size + "/streams",
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        auto streams = std::make_shared<unison::RandomStreams<Exec>>(exec, 2024);
        return [=](const Exec& e) { benchmark::DoNotOptimize(unison::monte_carlo_pi(e, samples, *streams)); };
      },
      0, 0, 1, double(samples), benchmark::kMillisecond, 3, 5, "Gsamples/s");
  add_case<Exec>(
      "monte_carlo_pi/" + size + "/seed",
      [=](const Exec&) -> std::function<void(const Exec&)> {
        return [=](const Exec& e) { benchmark::DoNotOptimize(unison::monte_carlo_pi(e, samples, std::uint64_t(2024))); };
      },
      0, 0, 1, double(samples), benchmark::kMillisecond, 3, 5, "Gsamples/s");
}

template <class Exec>
void add_histogram() {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = scaled(100000000);
  add_case<Exec>(
      "histogram/f32/" + size_tag(n) + "/bins100",
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        Kokkos::View<float*, Mem> x(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing,
                                                       std::string("unison::bench::x")), n);
        Kokkos::Random_XorShift64_Pool<typename Exec::device_type> pool(7);
        Kokkos::parallel_for("unison::bench::normal", Kokkos::RangePolicy<Exec>(exec, 0, n),
                             KOKKOS_LAMBDA(std::int64_t i) {
                               auto g = pool.get_state();
                               x(i) = float(g.normal());
                               pool.free_state(g);
                             });
        Kokkos::View<std::int64_t*, Mem> counts(
            Kokkos::view_alloc(exec, std::string("unison::bench::counts")), 100);
        exec.fence();
        return [=](const Exec& e) { unison::histogram(e, x, -4.0, 4.0, counts); };
      },
      double(n) * sizeof(float), 0, 1, double(n), benchmark::kMillisecond, 3, 5, "Gvalues/s");
}

template <class Exec>
void add_small() {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = scaled(1000000);
  add_case<Exec>(
      "atomic_counter/" + size_tag(n),
      [=](const Exec&) -> std::function<void(const Exec&)> {
        return [=](const Exec& e) { benchmark::DoNotOptimize(unison::atomic_counter(e, n)); };
      },
      0, 0, 1, double(n), benchmark::kMicrosecond, 3, 5, "Gadds/s");
  const std::int64_t h = scaled(4000, 1, 2), w = scaled(3000, 1, 2);
  const std::string image = std::to_string(h) + "x" + std::to_string(w);
  const std::int64_t sum_n = scaled(10000, 1, 2);
  add_case<Exec>(
      "rgb_to_grayscale/f32/" + image,
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        auto flat = random_view<float, Mem>(std::size_t(h * w * 3), 0, 1, "unison::bench::rgb");
        Kokkos::View<float***, Kokkos::LayoutRight, Mem> rgb(flat.data(), h, w, 3);
        Kokkos::View<float**, Kokkos::LayoutRight, Mem> gray(
            Kokkos::view_alloc(exec, std::string("unison::bench::gray")), h, w);
        return [=](const Exec& e) {
          (void)flat;
          unison::rgb_to_grayscale(e, rgb, gray);
        };
      },
      double(h * w * 4) * sizeof(float), 0, 1, 0, benchmark::kMicrosecond);
  add_case<Exec>(
      "rgb_to_grayscale/u8/" + image,
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        Kokkos::View<std::uint8_t***, Kokkos::LayoutRight, Mem> rgb(
            Kokkos::view_alloc(exec, std::string("unison::bench::rgb8")), h, w, 3);
        Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem> gray(
            Kokkos::view_alloc(exec, std::string("unison::bench::gray8")), h, w);
        return [=](const Exec& e) { unison::rgb_to_grayscale(e, rgb, gray); };
      },
      double(h * w * 4), 0, 1, 0, benchmark::kMicrosecond);
  add_case<Exec>(
      "loop_sum/" + size_tag(sum_n),
      [=](const Exec&) -> std::function<void(const Exec&)> {
        return [=](const Exec& e) { benchmark::DoNotOptimize(unison::loop_sum(e, sum_n)); };
      },
      0, 0, 1, double(sum_n) * double(sum_n), benchmark::kMicrosecond, 3, 5, "Gterms/s");
  add_case<Exec>(
      "lucas/40",
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        Kokkos::View<std::int64_t*, Mem> out(Kokkos::view_alloc(exec, std::string("unison::bench::lucas")), 41);
        return [=](const Exec& e) { unison::lucas(e, out); };
      },
      41 * 8, 0, 1, 0, benchmark::kMicrosecond);
}

}  // namespace

void register_counting() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_monte_carlo<Exec>();
    add_histogram<Exec>();
    add_small<Exec>();
  });
}

}  // namespace unison::bench
