// docs/workloads.md section 6, the histogram, on every enabled backend at the seed size: 1e8
// normal float32 samples into 100 bins over [-4, 4), checked exactly against a host count by the
// documented edges. GB/s count the bytes read once; on a GPU the case also has a "with_copies"
// twin (the values in from host memory, the counts out).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Random.hpp>

#include <unison/histogram.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// Counts against a host count by the documented edges (e_k = fma(k, width, xmin), e_nbins =
// xmax; each value's bin found by bisection over them): the sum over the bins of |count -
// reference count|, exactly 0 to pass.
template <class HX, class HC>
Check check_histogram(const HX& x, double xmin, double xmax, const HC& counts) {
  const std::int64_t n = x.extent(0), nbins = counts.extent(0);
  const double width = (xmax - xmin) / double(nbins);
  const auto edge = [=](std::int64_t k) {
    return k >= nbins ? xmax : std::fma(double(k), width, xmin);
  };
  std::vector<std::int32_t> bin(std::size_t(n), -1);
  Kokkos::parallel_for(
      "unison::bench::histogram_reference",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
      [&](std::int64_t i) {
        const double v = x(i);
        if (!(v >= xmin && v < xmax)) return;
        std::int64_t lo = 0, hi = nbins;  // edge(lo) <= v < edge(hi)
        while (hi - lo > 1) {
          const std::int64_t mid = (lo + hi) / 2;
          (v >= edge(mid) ? lo : hi) = mid;
        }
        bin[std::size_t(i)] = std::int32_t(lo);
      });
  std::vector<std::int64_t> ref(std::size_t(nbins), 0);
  for (const std::int32_t b : bin)
    if (b >= 0) ++ref[std::size_t(b)];
  std::int64_t off = 0;
  for (std::int64_t k = 0; k < nbins; ++k) off += std::abs(counts(k) - ref[std::size_t(k)]);
  Check c = check_exact(off);
  c.bytes = double(n) * sizeof(float) + double(nbins) * sizeof(std::int64_t);
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "x", x);
    save_npy(folder, "counts", counts);
  };
  return c;
}

// `sweep`: a case of the sweep past the caches (--sizes), "histogram/sizes/f32/<n>/bins100", with
// no with_copies twin.
template <class Exec>
void add_histogram(std::int64_t seed_n = 100000000, bool sweep = false) {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = scaled(seed_n);
  Case info(
      "histogram", "histogram",
      std::string(sweep ? "histogram/sizes/f32/" : "histogram/f32/") + size_tag(n) + "/bins100",
      sweep ? Kind::sizes : Kind::workload);
  info.api = {"histogram"};
  info.headline = !sweep && seed_n == 100000000;
  info.sizes = {{"n", double(n)}, {"bins", 100}};
  info.bytes = double(n) * sizeof(float);
  info.cells = double(n);
  info.cells_name = "Gvalues/s";
  const auto add = [&](const Setup<Exec>& setup) {
    if (sweep) add_case<Exec>(info, setup);
    else add_case_and_copies<Exec>(info, setup);
  };
  add(Setup<Exec>([=](const Exec& exec) -> Call<Exec> {
    Kokkos::View<float*, Mem> x(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("unison::bench::x")), n);
    Kokkos::Random_XorShift64_Pool<typename Exec::device_type> pool(7);
    Kokkos::parallel_for(
        "unison::bench::normal", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) {
          auto g = pool.get_state();
          x(i) = float(g.normal());
          pool.free_state(g);
        });
    Kokkos::View<std::int64_t*, Mem> counts(
        Kokkos::view_alloc(exec, std::string("unison::bench::counts")), 100);
    exec.fence();
    Call<Exec> call{
        [=](const Exec& e) { unison::histogram(e, x, -4.0, 4.0, counts); },
        [=](const Exec&) { return check_histogram(host_copy(x), -4.0, 4.0, host_copy(counts)); }};
    copy_in(call, x);
    copy_out(call, counts);
    return call;
  }));
}

}  // namespace

void register_sizes_histogram() {
  for_each_parallel_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (const std::int64_t n : sizes_counts) add_histogram<Exec>(n, true);
  });
}

void register_histogram() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_histogram<Exec>();
  });
}

// This file's family in the workload registry (apps/unison-bench/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_histogram =
    add_registration("histogram", register_histogram);
}  // namespace

}  // namespace unison::bench
