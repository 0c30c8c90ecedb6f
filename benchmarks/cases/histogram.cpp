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

// n normal float32 values (the same for a size on every backend: Kokkos' XorShift64 pool, seed 7).
template <class Exec>
Kokkos::View<float*, typename Exec::memory_space> normal_values(const Exec& exec, std::int64_t n) {
  Kokkos::View<float*, typename Exec::memory_space> x(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("unison::bench::x")), n);
  Kokkos::Random_XorShift64_Pool<typename Exec::device_type> pool(7);
  Kokkos::parallel_for(
      "unison::bench::normal", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        auto g = pool.get_state();
        x(i) = float(g.normal());
        pool.free_state(g);
      });
  return x;
}

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

// Counts (weights null) or sums over given edges, against a host count or long double sum by
// bisection over them (NumPy's rule: e_k <= v < e_{k+1}, the last bin closed). Counts: the
// values off, exactly 0 to pass; sums: the largest error of a bin over the sum of its weights'
// magnitudes, 1e-12 to pass.
template <class HX, class HE, class HO, class HW = HX>
Check check_given_edges(const HX& x, const HE& edges, const HO& out, const HW* weights = nullptr) {
  const std::int64_t n = x.extent(0), nbins = out.extent(0);
  std::vector<std::int32_t> bin(std::size_t(n), -1);
  Kokkos::parallel_for(
      "unison::bench::histogram_reference",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
      [&](std::int64_t i) {
        const double v = x(i);
        if (!(v >= edges(0) && v <= edges(nbins))) return;
        std::int64_t lo = 0, hi = nbins;  // edges(lo) <= v < edges(hi), or v == edges(nbins)
        if (v == edges(nbins)) lo = nbins - 1;
        while (hi - lo > 1) {
          const std::int64_t mid = (lo + hi) / 2;
          (v >= edges(mid) ? lo : hi) = mid;
        }
        bin[std::size_t(i)] = std::int32_t(lo);
      });
  Check c;
  if (!weights) {
    std::vector<std::int64_t> ref(std::size_t(nbins), 0);
    for (const std::int32_t b : bin)
      if (b >= 0) ++ref[std::size_t(b)];
    std::int64_t off = 0;
    for (std::int64_t k = 0; k < nbins; ++k)
      off += std::abs(std::int64_t(out(k)) - ref[std::size_t(k)]);
    c = check_exact(off);
  } else {
    std::vector<long double> ref(std::size_t(nbins), 0), mag(std::size_t(nbins), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t b = bin[std::size_t(i)];
      if (b < 0) continue;
      ref[std::size_t(b)] += (long double)(*weights)(i);
      mag[std::size_t(b)] += std::fabs((long double)(*weights)(i));
    }
    double worst = 0;
    for (std::int64_t k = 0; k < nbins; ++k) {
      const long double m = mag[std::size_t(k)] > 0 ? mag[std::size_t(k)] : 1;
      const double e = double(std::fabs((long double)out(k) - ref[std::size_t(k)]) / m);
      worst = e > worst ? e : worst;
    }
    c.error = worst;
    c.tolerance = 1e-12;
  }
  c.bytes = double(n) * sizeof(float) * (weights ? 2 : 1) + double(nbins) * 8;
  const char* result = weights ? "sums" : "counts";
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "x", x);
    save_npy(folder, "edges", edges);
    save_npy(folder, result, out);
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
    const auto x = normal_values(exec, n);
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

// The 101 edges of the equal-bins case (e_k = fma(k, width, -4), e_100 = 4), given as an array:
// histogram over given edges, and with weights, on the same values and bins (the last bin closed
// here: a value of exactly 4 is counted). Counts: exact against a host count by bisection over
// the edges; sums: each bin's error against a long double sum, over the sum of its weights'
// magnitudes (tolerance 1e-12). Bytes: the values (and weights) read once.
template <class Exec>
void add_histogram_given_edges(bool weighted) {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = scaled(100000000), nbins = 100;
  Case info("histogram", "histogram",
            std::string(weighted ? "histogram/weighted/f32/" : "histogram/edges/f32/") +
                size_tag(n) + "/bins100",
            Kind::workload);
  info.api = {"histogram"};
  info.sizes = {{"n", double(n)}, {"bins", double(nbins)}};
  info.bytes = double(n) * sizeof(float) * (weighted ? 2 : 1);
  info.cells = double(n);
  info.cells_name = "Gvalues/s";
  add_case<Exec>(
      info, Setup<Exec>([=](const Exec& exec) -> Call<Exec> {
        const auto x = normal_values(exec, n);
        Kokkos::View<double*, Mem> edges(
            Kokkos::view_alloc(exec, std::string("unison::bench::edges")), nbins + 1);
        Kokkos::parallel_for(
            "unison::bench::edges", Kokkos::RangePolicy<Exec>(exec, 0, nbins + 1),
            KOKKOS_LAMBDA(std::int64_t k) {
              edges(k) = k == nbins ? 4.0 : Kokkos::fma(double(k), 8.0 / double(nbins), -4.0);
            });
        if (!weighted) {
          Kokkos::View<std::int64_t*, Mem> counts(
              Kokkos::view_alloc(exec, std::string("unison::bench::counts")), nbins);
          exec.fence();
          return Call<Exec>{[=](const Exec& e) { unison::histogram(e, x, edges, counts); },
                            [=](const Exec&) {
                              return check_given_edges(host_copy(x), host_copy(edges),
                                                       host_copy(counts));
                            }};
        }
        Kokkos::View<float*, Mem> w(
            Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("unison::bench::w")),
            n);
        Kokkos::parallel_for(
            "unison::bench::weights", Kokkos::RangePolicy<Exec>(exec, 0, n),
            KOKKOS_LAMBDA(std::int64_t i) { w(i) = 0.5f + float(i % 1000) * 1e-3f; });
        Kokkos::View<double*, Mem> sums(
            Kokkos::view_alloc(exec, std::string("unison::bench::sums")), nbins);
        exec.fence();
        return Call<Exec>{[=](const Exec& e) { unison::histogram(e, x, edges, w, sums); },
                          [=](const Exec&) {
                            const auto hw = host_copy(w);
                            return check_given_edges(host_copy(x), host_copy(edges),
                                                     host_copy(sums), &hw);
                          }};
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
    add_histogram_given_edges<Exec>(false);
    add_histogram_given_edges<Exec>(true);
  });
}

// This file's family in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_histogram =
    add_registration("histogram", register_histogram);
}  // namespace

}  // namespace unison::bench
