// Convolution on every enabled backend at the seed sizes (docs/workloads.md section 3). GB/s
// counts x read once and y written once. Checks: each case against np.convolve in double. On a
// GPU the cases also have a "with_copies" twin: x and k in from host memory and y out, around
// every call.
#include <cmath>
#include <cstdint>
#include <string>

#include <unison/convolve.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// y against np.convolve(x, k, 'valid') in double: the relative error, within sqrt(taps) times the
// tolerance of T (longer sums lose more digits).
template <class HX, class HY>
Check check_convolve(const HX& x, const HX& k, const HY& y) {
  using T = typename HY::non_const_value_type;
  const std::int64_t taps = k.extent(0);
  Check c;
  c.error = relative_error(
      std::int64_t(y.extent(0)), [&](std::int64_t i) { return double(y(i)); },
      [&](std::int64_t i) {
        double sum = 0;
        for (std::int64_t j = 0; j < taps; ++j) sum += double(x(i + taps - 1 - j)) * k(j);
        return sum;
      });
  c.tolerance = tolerance<T>() * std::max(1.0, std::sqrt(double(taps)));
  c.bytes = double(x.extent(0) + k.extent(0) + y.extent(0)) * sizeof(T);
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "x", x);
    save_npy(folder, "k", k);
    save_npy(folder, "y", y);
  };
  return c;
}

// `sweep`: a case of the sweep past the caches (--sizes), "convolve/sizes/<type>/<n>/taps<taps>",
// with the default algorithm and no with_copies twin.
template <class Exec, class T>
void add_convolve(std::size_t n, int taps, ConvolveAlgorithm algorithm, bool sweep = false) {
  using Mem = typename Exec::memory_space;
  const bool headline = !sweep && sizeof(T) == 4 && n == 100000000 && taps == 5 &&
                        algorithm == ConvolveAlgorithm::direct;  // the tutorial's 1e8 signal
  n = std::size_t(scaled(std::int64_t(n), taps));
  const std::string size = size_tag(std::int64_t(n));
  const std::size_t len = n - taps + 1;
  const std::string type = sizeof(T) == 4 ? "f32/" : "f64/";
  Case info("convolve", "convolve",
            sweep ? "convolve/sizes/" + type + size + "/taps" + std::to_string(taps)
                  : "convolve/valid/" + type + size + "/taps" + std::to_string(taps) + "/" +
                        (algorithm == ConvolveAlgorithm::direct ? "direct" : "tiled"),
            sweep ? Kind::sizes : Kind::workload);
  info.api = {"convolve"};
  info.headline = headline;
  info.sizes = {{"n", double(n)}, {"taps", double(taps)}};
  info.bytes = double(n + len) * sizeof(T);
  info.flops = 2.0 * taps * len;
  const auto add = [&](const Setup<Exec>& setup) {
    if (sweep) add_case<Exec>(info, setup);
    else add_case_and_copies<Exec>(info, setup);
  };
  add(Setup<Exec>([=](const Exec& exec) -> Call<Exec> {
    auto x = random_view<T, Mem>(n, -1, 1, "unison::bench::x");
    auto k = random_view<T, Mem>(std::size_t(taps), -1, 1, "unison::bench::k");
    Kokkos::View<T*, Mem> y(Kokkos::view_alloc(exec, std::string("unison::bench::y")), len);
    Call<Exec> call{
        [=](const Exec& e) { unison::convolve(e, x, k, y, ConvolveMode::valid, algorithm); },
        [=](const Exec&) { return check_convolve(host_copy(x), host_copy(k), host_copy(y)); }};
    call.out_bytes = streamed_out<Exec>(double(n + len) * sizeof(T), double(len) * sizeof(T));
    copy_in(call, x);
    copy_in(call, k);
    copy_out(call, y);
    return call;
  }));
}

// Crossover sweep: the call with the data on the device, and with the host copies around it (x
// in and y out). On a CPU backend the two are the same case and only "device" is registered.
template <class Exec>
void add_crossover_convolve(std::int64_t n) {
  using Mem = typename Exec::memory_space;
  n = scaled(n, 5);
  const std::int64_t len = n - 4;
  const std::string base = "crossover/convolve_f32_taps5/" + size_tag(n);
  for (const bool copies : {false, true}) {
    if (copies && std::is_same_v<Mem, Kokkos::HostSpace>) continue;
    Case info("convolve", "convolve", base + (copies ? "/with_copies" : "/device"),
              Kind::crossover);
    info.api = {"convolve"};
    info.with_copies = copies;
    info.sizes = {{"n", double(n)}, {"taps", 5}};
    info.bytes = double(n + len) * sizeof(float);
    info.flops = 10.0 * double(len);
    add_case<Exec>(info, [=](const Exec& exec) -> std::function<void(const Exec&)> {
      auto x = random_view<float, Mem>(std::size_t(n), -1, 1, "unison::bench::x");
      auto k = random_view<float, Mem>(5, -1, 1, "unison::bench::k");
      Kokkos::View<float*, Mem> y(Kokkos::view_alloc(exec, std::string("unison::bench::y")), len);
      auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      auto hy = Kokkos::create_mirror_view(y);
      return [=](const Exec& e) {
        if (copies) Kokkos::deep_copy(e, x, hx);
        unison::convolve(e, x, k, y, ConvolveMode::valid);
        if (copies) Kokkos::deep_copy(e, hy, y);
      };
    });
  }
}

template <class Exec>
void register_backend() {
  for (auto algorithm : {ConvolveAlgorithm::direct, ConvolveAlgorithm::tiled}) {
    add_convolve<Exec, float>(100000000, 5, algorithm);
    add_convolve<Exec, double>(1000000, 5, algorithm);
    add_convolve<Exec, float>(10000000, 33, algorithm);
    add_convolve<Exec, float>(10000000, 257, algorithm);
  }
}

}  // namespace

void register_crossover_convolve() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (std::int64_t n = 1000; n <= 100'000'000; n *= 10) add_crossover_convolve<Exec>(n);
  });
}

void register_sizes_convolve() {
  for_each_parallel_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (const std::int64_t n : sizes_counts)
      add_convolve<Exec, float>(std::size_t(n), 5, ConvolveAlgorithm::automatic, true);
  });
}

void register_convolve() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

// This file's family in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered = add_registration("convolve", register_convolve);
}  // namespace

}  // namespace unison::bench
