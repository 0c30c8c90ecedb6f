// docs/workloads.md section 6, the small examples, on every enabled backend at the seed sizes:
// atomic_counter of 1e6; rgb_to_grayscale of a 4000 x 3000 image (float32 and uint8); loop_sum
// of 1e4; lucas to N = 40. GB/s count the bytes read and written once. Each result is checked
// against a float64 (or exact integer) host reference; on a GPU the cases with arrays also have a
// "with_copies" twin (inputs in from host memory, results out).
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <type_traits>

#include <unison/examples.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// gray against 0.299 R + 0.587 G + 0.114 B in double. float: the relative error, 1e-5; uint8:
// the count of pixels off by more than the rounding to nearest (0.5, and 1e-4 for a luminance
// within float rounding of a half), exactly 0 to pass.
template <class HR, class HG>
Check check_grayscale(const HR& rgb, const HG& gray) {
  using Out = typename HG::non_const_value_type;
  const std::int64_t h = gray.extent(0), w = gray.extent(1);
  const auto want = [&](std::int64_t p) {
    const std::int64_t i = p / w, j = p % w;
    return 0.299 * double(rgb(i, j, 0)) + 0.587 * double(rgb(i, j, 1)) +
           0.114 * double(rgb(i, j, 2));
  };
  Check c;
  if constexpr (std::is_floating_point_v<Out>) {
    c.error = relative_error(
        h * w, [&](std::int64_t p) { return double(gray(p / w, p % w)); }, want);
    c.tolerance = tolerance<Out>();
  } else {
    std::int64_t off = 0;
    for (std::int64_t p = 0; p < h * w; ++p)
      off += !(std::abs(double(gray(p / w, p % w)) - want(p)) <= 0.5 + 1e-4);
    c.error = double(off);
  }
  c.bytes = double(h * w * 4) * sizeof(Out);
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "rgb", rgb);
    save_npy(folder, "gray", gray);
  };
  return c;
}

template <class Exec>
void add_small() {
  using Mem = typename Exec::memory_space;
  const std::int64_t n = scaled(1000000);
  Case counter("examples", "atomic_counter", "atomic_counter/" + size_tag(n));
  counter.api = {"examples::atomic_counter"};
  counter.sizes = {{"n", double(n)}};
  counter.cells = double(n);
  counter.cells_name = "Gadds/s";
  counter.time_unit = benchmark::kMicrosecond;
  add_case<Exec>(counter, [=](const Exec&) -> Call<Exec> {
    auto result = std::make_shared<std::int64_t>(0);  // the last timed call's, for the check
    return {[=](const Exec& e) { *result = unison::examples::atomic_counter(e, n); },
            [=](const Exec&) {
              const std::int64_t count = *result;
              Check c = check_exact(std::abs(count - n));
              c.bytes = sizeof count;
              c.save = [=](const std::filesystem::path& folder) {
                save_scalar(folder, "count", count);
              };
              return c;
            }};
  });
  const std::int64_t h = scaled(4000, 1, 2), w = scaled(3000, 1, 2);
  const std::string image = std::to_string(h) + "x" + std::to_string(w);
  const std::int64_t sum_n = scaled(10000, 1, 2);
  Case gray32("examples", "rgb_to_grayscale", "rgb_to_grayscale/f32/" + image);
  gray32.api = {"examples::rgb_to_grayscale"};
  gray32.sizes = {{"rows", double(h)}, {"cols", double(w)}};
  gray32.bytes = double(h * w * 4) * sizeof(float);
  gray32.time_unit = benchmark::kMicrosecond;
  add_case_and_copies<Exec>(gray32, [=](const Exec& exec) -> Call<Exec> {
    auto flat = random_view<float, Mem>(std::size_t(h * w * 3), 0, 1, "unison::bench::rgb");
    Kokkos::View<float***, Kokkos::LayoutRight, Mem> rgb(flat.data(), h, w, 3);
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> gray(
        Kokkos::view_alloc(exec, std::string("unison::bench::gray")), h, w);
    Call<Exec> call{[=](const Exec& e) {
                      (void)flat;
                      unison::examples::rgb_to_grayscale(e, rgb, gray);
                    },
                    [=](const Exec&) { return check_grayscale(host_copy(rgb), host_copy(gray)); }};
    // (the float image's gray goes past a CPU's caches where the image is large)
    call.out_bytes =
        streamed_out<Exec>(double(h * w * 4) * sizeof(float), double(h * w) * sizeof(float));
    copy_in(call, rgb);
    copy_out(call, gray);
    return call;
  });
  Case gray8("examples", "rgb_to_grayscale", "rgb_to_grayscale/u8/" + image);
  gray8.api = {"examples::rgb_to_grayscale"};
  gray8.sizes = {{"rows", double(h)}, {"cols", double(w)}};
  gray8.bytes = double(h * w * 4);
  gray8.time_unit = benchmark::kMicrosecond;
  add_case_and_copies<Exec>(gray8, [=](const Exec& exec) -> Call<Exec> {
    Kokkos::View<std::uint8_t***, Kokkos::LayoutRight, Mem> rgb(
        Kokkos::view_alloc(exec, std::string("unison::bench::rgb8")), h, w, 3);
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem> gray(
        Kokkos::view_alloc(exec, std::string("unison::bench::gray8")), h, w);
    auto host_rgb = Kokkos::create_mirror_view(rgb);  // random bytes, drawn on the host
    std::mt19937_64 engine(2024);
    for (std::size_t i = 0; i < host_rgb.size(); ++i)
      host_rgb.data()[i] = std::uint8_t(engine() >> 56);
    Kokkos::deep_copy(exec, rgb, host_rgb);
    exec.fence();
    Call<Exec> call{[=](const Exec& e) { unison::examples::rgb_to_grayscale(e, rgb, gray); },
                    [=](const Exec&) { return check_grayscale(host_copy(rgb), host_copy(gray)); }};
    copy_in(call, rgb);
    copy_out(call, gray);
    return call;
  });
  Case sum("examples", "loop_sum", "loop_sum/" + size_tag(sum_n));
  sum.api = {"examples::loop_sum"};
  sum.sizes = {{"n", double(sum_n)}};
  sum.cells = double(sum_n) * double(sum_n);
  sum.cells_name = "Gterms/s";
  sum.time_unit = benchmark::kMicrosecond;
  add_case<Exec>(sum, [=](const Exec&) -> Call<Exec> {
    auto result = std::make_shared<double>(0.0);  // the last timed call's, for the check
    return {[=](const Exec& e) { *result = unison::examples::loop_sum(e, sum_n); },
            [=](const Exec&) {  // exactly the integer sum times 0.1, rounded once
              const std::int64_t half = sum_n * (sum_n - 1) / 2;
              const double ref = double(half * half) * 0.1, got = *result;
              Check c;
              c.error = ref != 0 ? std::abs(got - ref) / ref : std::abs(got);
              c.bytes = sizeof got;
              c.save = [=](const std::filesystem::path& folder) {
                save_scalar(folder, "sum", got);
              };
              return c;
            }};
  });
  Case lucas("examples", "lucas", "lucas/40");
  lucas.api = {"examples::lucas"};
  lucas.sizes = {{"n", 40}};
  lucas.bytes = 41 * 8;
  lucas.time_unit = benchmark::kMicrosecond;
  add_case_and_copies<Exec>(lucas, [=](const Exec& exec) -> Call<Exec> {
    Kokkos::View<std::int64_t*, Mem> out(
        Kokkos::view_alloc(exec, std::string("unison::bench::lucas")), 41);
    Call<Exec> call{[=](const Exec& e) { unison::examples::lucas(e, out); },
                    [=](const Exec&) {
                      auto got = host_copy(out);
                      std::int64_t off = 0, a = 2, b = 1;  // L(i), L(i + 1)
                      for (std::size_t i = 0; i < got.extent(0); ++i, b = a + b, a = b - a)
                        off += got(i) != a;
                      Check c = check_exact(off);
                      c.bytes = double(got.size()) * sizeof(std::int64_t);
                      c.save = [=](const std::filesystem::path& folder) {
                        save_npy(folder, "out", got);
                      };
                      return c;
                    }};
    copy_out(call, out);
    return call;
  });
}

}  // namespace

void register_examples() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_small<Exec>();
  });
}

// This file's family in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_examples = add_registration("examples", register_examples);
}  // namespace

}  // namespace unison::bench
