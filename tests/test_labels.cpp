// Every kernel and allocation the library makes is labelled "unison::...": recorded through
// Kokkos Tools callbacks while each function runs.
#include <algorithm>
#include <string>
#include <vector>

#include <unison/convolve.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/examples.hpp>
#include <unison/field.hpp>
#include <unison/histogram.hpp>
#include <unison/matmul.hpp>
#include <unison/random.hpp>
#include <unison/rowwise.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;

std::vector<std::string> labels;

void record_kernel(const char* name, uint32_t, uint64_t* id) {
  labels.emplace_back(std::string("kernel ") + name);
  *id = 0;
}
void record_alloc(Kokkos::Profiling::SpaceHandle, const char* name, const void*, uint64_t) {
  labels.emplace_back(std::string("allocation ") + name);
}

// Runs f with the recording callbacks on and returns what was launched or allocated.
template <class F>
std::vector<std::string> record(F&& f) {
  namespace tools = Kokkos::Tools::Experimental;
  labels.clear();
  tools::set_begin_parallel_for_callback(record_kernel);
  tools::set_begin_parallel_reduce_callback(record_kernel);
  tools::set_begin_parallel_scan_callback(record_kernel);
  tools::set_allocate_data_callback(record_alloc);
  f();
  tools::set_begin_parallel_for_callback(nullptr);
  tools::set_begin_parallel_reduce_callback(nullptr);
  tools::set_begin_parallel_scan_callback(nullptr);
  tools::set_allocate_data_callback(nullptr);
  return labels;
}

// Every label seen starts with "unison::", but the team scratch that Kokkos allocates and
// labels itself for team policies.
void expect_unison_labels(const std::vector<std::string>& seen) {
  for (const auto& label : seen) {
    auto name = label.substr(label.find(' ') + 1);
    if (label.rfind("allocation Kokkos::", 0) == 0 &&
        (name.find("scratch") != std::string::npos || name.find("Scratch") != std::string::npos))
      continue;
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
}

template <class Exec>
void test_labels() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const int n = 100;
  Kokkos::View<float*, Mem> a("a", n), b("b", n), out("out", n);
  Kokkos::View<float*, Kokkos::HostSpace> ha("ha", n), hb("hb", n), hout("hout", n);
  Kokkos::View<std::int16_t*, Mem> w("w", n);
  Kokkos::deep_copy(a, 1.f);
  Kokkos::deep_copy(b, 2.f);
  Kokkos::deep_copy(ha, 1.f);
  Kokkos::deep_copy(hb, 2.f);
  exec.fence();
  auto seen = record([&] {
    unison::add(exec, a, b, out);
    unison::hypot(exec, a, b, out);
    unison::gaussian_pdf(exec, a, 0.f, 1.f, out);
    unison::polar_distance(exec, a, b, a, b, out);
    unison::zero_suppress(exec, w, std::int16_t(3), w);
    unison::make_pulses(exec, ha, hb, 3.f, 2.f, hout);
    unison::hidden_layer(exec, ha, hb, hout, unison::Fusion::separate);
    unison::hidden_layer(exec, a, b, unison::Fusion::fused);
    unison::transform(
        exec, out, KOKKOS_LAMBDA(float x) { return x; }, a);
    exec.fence();
  });
  EXPECT_GE(seen.size(), 12u);
  for (const auto& label : seen) {
    auto name = label.substr(label.find(' ') + 1);
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
  auto has = [&](const std::string& l) {
    return std::find(seen.begin(), seen.end(), l) != seen.end();
  };
  for (const char* k :
       {"add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "make_pulses",
        "normalize", "weigh", "activate", "hidden_layer", "transform"})
    EXPECT_TRUE(has(std::string("kernel unison::elementwise::") + k)) << k;
}

// matmul_reduce (its own kernels and allocations; KokkosBlas::gemm's are Kokkos Kernels') and
// the row-wise family.
template <class Exec>
void test_matmul_rowwise_labels() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", 9, 5), B("B", 5, 7);
  Kokkos::View<float*, Mem> out("out", 7), norms("norms", 9);
  Kokkos::View<float***, Mem> a3("a3", 3, 2, 4), b3("b3", 3, 4, 5), c3("c3", 3, 2, 5);
  exec.fence();
  auto seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, unison::MatmulMethod::tiled);
    unison::matmul_reduce(exec, A, B, out, unison::MatmulMethod::reassociated);
    unison::l2_norm(exec, A, norms);
    unison::matmul_core(exec, a3, b3, c3);
    exec.fence();
  });
  expect_unison_labels(seen);
  auto has = [&](const std::string& l) {
    return std::find(seen.begin(), seen.end(), l) != seen.end();
  };
  for (const char* k :
       {"kernel unison::matmul_reduce::fill", "kernel unison::matmul_reduce::tiled",
        "kernel unison::matmul_reduce::a_partials", "kernel unison::matmul_reduce::a_sum",
        "kernel unison::matmul_reduce::b_partials", "kernel unison::matmul_reduce::b_sum",
        "allocation unison::matmul_reduce::work", "kernel unison::rowwise::l2_norm",
        "kernel unison::rowwise::matmul_core"})
    EXPECT_TRUE(has(k)) << k;
  // The gemm method: its own allocations and column sums are labelled.
  seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, unison::MatmulMethod::gemm);
    exec.fence();
  });
  for (const char* k :
       {"allocation unison::matmul_reduce::work", "kernel unison::matmul_reduce::product_partials",
        "kernel unison::matmul_reduce::product_sum"})
    EXPECT_TRUE(has(k)) << k;
}

// Random numbers, histogram and the small examples.
template <class Exec>
void test_counting_labels() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  unison::RandomSequence sequence(5);
  Kokkos::View<float*, Mem> x("x", 1000);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 10), many("many", 1 << 22);
  Kokkos::View<float***, Mem> rgb("rgb", 3, 4, 3);
  Kokkos::View<float**, Mem> gray("gray", 3, 4);
  Kokkos::View<std::int64_t*, Mem> lucas("lucas", 20);
  exec.fence();
  auto seen = record([&] {
    unison::monte_carlo_pi(exec, 1000, sequence);
    unison::histogram(exec, x, 0.0, 1.0, counts);
    unison::histogram(exec, x, 0.0, 1.0, many);  // the global-atomics kernel
    unison::atomic_counter(exec, 100);
    unison::rgb_to_grayscale(exec, rgb, gray);
    unison::loop_sum(exec, 100);
    unison::lucas(exec, lucas);
    exec.fence();
  });
  expect_unison_labels(seen);
  auto has = [&](const std::string& l) {
    return std::find(seen.begin(), seen.end(), l) != seen.end();
  };
  for (const char* k :
       {"kernel unison::random::monte_carlo_pi", "kernel unison::histogram::zero",
        "kernel unison::histogram::bins", "kernel unison::histogram::atomic_counter",
        "allocation unison::histogram::counter", "kernel unison::examples::rgb_to_grayscale",
        "kernel unison::examples::loop_sum", "kernel unison::examples::lucas"})
    EXPECT_TRUE(has(k)) << k;
}

// Diffusion (every algorithm, diffuse with each Laplacian choice and a caller's buffer,
// diffuse_history, the jagged field) and convolution.
template <class Exec>
void test_stencil_labels() {
  using Mem = typename Exec::memory_space;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Exec exec;
  Field f("f", 37, 53), g("g", 37, 53), lapl("lapl", 37, 53);
  unison::DiffusionBuffer<Field> buffer("buffer", 37, 53);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("history", 3, 37, 53);
  Kokkos::View<float*, Mem> x("x", 1000), k("k", 5), y("y", 996);
  exec.fence();
  using unison::StencilAlgorithm;
  auto seen = record([&] {
    unison::jagged_field(exec, f, 3);
    for (auto a : {StencilAlgorithm::plain, StencilAlgorithm::tiled, StencilAlgorithm::streaming})
      unison::diffusion_step(exec, f, g, lapl, 0.25, a);
    unison::diffuse(exec, f, 5, 0.25, lapl, unison::Laplacian::every_step);
    unison::diffuse(exec, f, buffer, 5, 0.25, lapl, unison::Laplacian::final_only);
    unison::DiffusionOptions blocked;
    blocked.algorithm = StencilAlgorithm::tiled;
    blocked.steps_per_pass = 2;
    unison::diffuse(exec, f, buffer, 4, 0.25, lapl, unison::Laplacian::final_only, blocked);
    unison::diffuse_history(exec, f, buffer, 6, 0.25, history, [](auto...) {});
    unison::convolve(exec, x, k, y, unison::ConvolveMode::valid, unison::ConvolveAlgorithm::direct);
    unison::convolve(exec, x, k, y, unison::ConvolveMode::valid, unison::ConvolveAlgorithm::tiled);
    exec.fence();
  });
  expect_unison_labels(seen);
  auto has = [&](const std::string& l) {
    return std::find(seen.begin(), seen.end(), l) != seen.end();
  };
  for (const char* name : {"kernel unison::field::jagged_noise", "kernel unison::diffusion::plain",
                           "kernel unison::diffusion::tiled", "kernel unison::diffusion::blocked",
                           "kernel unison::convolve::direct", "kernel unison::convolve::tiled"})
    EXPECT_TRUE(has(name)) << name;
  EXPECT_TRUE(has("kernel unison::diffusion::streaming") ||
              has("kernel unison::diffusion::streaming2"));
  // On CPUs diffuse_history runs its own kernel; on GPUs diffuse's single steps.
  if (is_host_v<Exec>) {
    EXPECT_TRUE(has("kernel unison::diffusion::history"));
  }
}

template <class Exec>
struct Labels : ::testing::Test {};
TYPED_TEST_SUITE(Labels, Backends, BackendName);
TYPED_TEST(Labels, every_kernel_and_allocation) { test_labels<TypeParam>(); }
TYPED_TEST(Labels, matmul_and_rowwise) { test_matmul_rowwise_labels<TypeParam>(); }
TYPED_TEST(Labels, counting) { test_counting_labels<TypeParam>(); }
TYPED_TEST(Labels, stencil) { test_stencil_labels<TypeParam>(); }

}  // namespace
