// Every kernel and allocation the library makes is labelled "unison::...", and every function
// keeps to the execution-space instance it is given: recorded through Kokkos Tools callbacks
// while each function runs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
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

// What the library did while a function ran: labels ("kernel NAME", "allocation NAME"), and
// each kernel's and fence's name with the device id Kokkos Tools gives it (backend, device and
// instance), and each deep copy's destination and source.
struct Events {
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, std::uint32_t>> kernels, fences;
  std::vector<std::string> last_kernel;  // for each fence: the kernel launched last before it
  std::vector<std::string> copies;
};
Events events;

void record_kernel(const char* name, std::uint32_t device, std::uint64_t* id) {
  events.labels.emplace_back(std::string("kernel ") + name);
  events.kernels.emplace_back(name, device);
  *id = 0;
}
void record_alloc(Kokkos::Profiling::SpaceHandle, const char* name, const void*, std::uint64_t) {
  events.labels.emplace_back(std::string("allocation ") + name);
}
void record_fence(const char* name, std::uint32_t device, std::uint64_t* id) {
  events.fences.emplace_back(name, device);
  events.last_kernel.push_back(events.kernels.empty() ? "none" : events.kernels.back().first);
  *id = 0;
}
void record_copy(Kokkos::Profiling::SpaceHandle, const char* dst, const void*,
                 Kokkos::Profiling::SpaceHandle, const char* src, const void*, std::uint64_t) {
  events.copies.emplace_back(std::string(dst) + " <- " + src);
}

// Runs f with the recording callbacks on and returns what it launched, allocated, fenced and
// copied.
template <class F>
Events record(F&& f) {
  namespace tools = Kokkos::Tools::Experimental;
  events = Events{};
  tools::set_begin_parallel_for_callback(record_kernel);
  tools::set_begin_parallel_reduce_callback(record_kernel);
  tools::set_begin_parallel_scan_callback(record_kernel);
  tools::set_allocate_data_callback(record_alloc);
  tools::set_begin_fence_callback(record_fence);
  tools::set_begin_deep_copy_callback(record_copy);
  f();
  tools::set_begin_parallel_for_callback(nullptr);
  tools::set_begin_parallel_reduce_callback(nullptr);
  tools::set_begin_parallel_scan_callback(nullptr);
  tools::set_allocate_data_callback(nullptr);
  tools::set_begin_fence_callback(nullptr);
  tools::set_begin_deep_copy_callback(nullptr);
  return events;
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

// Kokkos' own fences when memory is allocated or freed: every instance of the backend, before
// the memory goes back (the host's and the GPU's memory alike), and after a stream-ordered
// allocation on a GPU. The forms of a function that allocate temporary memory (documented:
// diffuse without a buffer, matmul_reduce without a workspace, jagged_field, atomic_counter,
// hidden_layer returning a host View) have these and no other.
bool kokkos_memory_fence(const std::string& name) {
  for (const char* f :
       {"HostSpace::impl_deallocate before free", "Kokkos::Cuda: backend fence before async free",
        "Kokkos::Cuda: backend fence after async free",
        "Kokkos::Cuda: backend fence after async malloc"})
    if (name == f) return true;
  return false;
}

enum class Memory { not_allocated, allocated };

// Every kernel ran on exec's backend, device and instance, and every fence waited for exec alone:
// no global fence, no fence of another instance (but Kokkos' own when the function allocates).
// A deep_copy without an instance shows here too: Kokkos fences every instance around it.
template <class Exec>
void expect_on(const Exec& exec, const Events& seen, Memory memory = Memory::not_allocated) {
  const std::uint32_t id = Kokkos::Tools::Experimental::device_id(exec);
  EXPECT_FALSE(seen.kernels.empty());
  for (const auto& [name, device] : seen.kernels)
    EXPECT_EQ(device, id) << "kernel " << name << " ran on another instance (device id " << device
                          << ", exec's " << id << ")";
  for (std::size_t i = 0; i < seen.fences.size(); ++i)
    if (memory == Memory::not_allocated || !kokkos_memory_fence(seen.fences[i].first)) {
      EXPECT_EQ(seen.fences[i].second, id)
          << "fence \"" << seen.fences[i].first << "\" waited for another instance or all of them"
          << " (device id " << seen.fences[i].second << ", exec's " << id << "), after the kernel "
          << seen.last_kernel[i];
    }
}

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
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
    unison::hidden_layer(exec, a, b, out, unison::Fusion::fused);
    unison::transform(
        exec, out, KOKKOS_LAMBDA(float x) { return x; }, a);
    exec.fence();
  });
  EXPECT_GE(seen.labels.size(), 12u);
  for (const auto& label : seen.labels) {
    auto name = label.substr(label.find(' ') + 1);
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
  expect_on(exec, seen);
  auto has = [&](const std::string& l) {
    return std::find(seen.labels.begin(), seen.labels.end(), l) != seen.labels.end();
  };
  for (const char* k :
       {"add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "make_pulses",
        "normalize", "weigh", "activate", "hidden_layer", "transform"})
    EXPECT_TRUE(has(std::string("kernel unison::elementwise::") + k)) << k;
  // The form that returns a new host View (kept past the recording: its release is the test's).
  Kokkos::View<float*, Kokkos::HostSpace> result;
  seen = record([&] { result = unison::hidden_layer(exec, a, b, unison::Fusion::fused); });
  expect_on(exec, seen, Memory::allocated);
  EXPECT_TRUE(has("allocation unison::elementwise::hidden_layer::host"));
}

// matmul_reduce (its own kernels and allocations; KokkosBlas::gemm's are Kokkos Kernels') and
// the row-wise family.
template <class Exec>
void test_matmul_rowwise_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", 9, 5), B("B", 5, 7);
  Kokkos::View<float*, Mem> out("out", 7), norms("norms", 9);
  Kokkos::View<float***, Mem> a3("a3", 3, 2, 4), b3("b3", 3, 4, 5), c3("c3", 3, 2, 5);
  using unison::MatmulMethod;
  Kokkos::View<float*, Mem> work(
      "work",
      std::max(unison::matmul_reduce_workspace_size<Exec>(9, 5, 7, MatmulMethod::gemm),
               unison::matmul_reduce_workspace_size<Exec>(9, 5, 7, MatmulMethod::reassociated)));
  exec.fence();
  auto seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::tiled);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::reassociated, work);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm, work);
    unison::l2_norm(exec, A, norms);
    unison::matmul_core(exec, a3, b3, c3);
    exec.fence();
  });
  expect_unison_labels(seen.labels);
  expect_on(exec, seen);
  auto has = [&](const std::string& l) {
    return std::find(seen.labels.begin(), seen.labels.end(), l) != seen.labels.end();
  };
  for (const char* k :
       {"kernel unison::matmul_reduce::fill", "kernel unison::matmul_reduce::tiled",
        "kernel unison::matmul_reduce::a_partials", "kernel unison::matmul_reduce::a_sum",
        "kernel unison::matmul_reduce::b_partials", "kernel unison::matmul_reduce::b_sum",
        "kernel unison::matmul_reduce::product_partials",
        "kernel unison::matmul_reduce::product_sum", "kernel unison::rowwise::l2_norm",
        "kernel unison::rowwise::matmul_core"})
    EXPECT_TRUE(has(k)) << k;
  // The methods that allocate their temporary memory: it is labelled.
  seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::reassociated);
    exec.fence();
  });
  expect_on(exec, seen, Memory::allocated);
  for (const char* k :
       {"allocation unison::matmul_reduce::work", "kernel unison::matmul_reduce::product_partials",
        "kernel unison::matmul_reduce::product_sum"})
    EXPECT_TRUE(has(k)) << k;
}

// Random numbers, histogram and the small examples.
template <class Exec>
void test_counting_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
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
    unison::rgb_to_grayscale(exec, rgb, gray);
    unison::loop_sum(exec, 100);
    unison::lucas(exec, lucas);
    exec.fence();
  });
  expect_on(exec, seen);
  // atomic_counter allocates its counter.
  const auto allocating = record([&] { unison::atomic_counter(exec, 100); });
  expect_on(exec, allocating, Memory::allocated);
  seen.labels.insert(seen.labels.end(), allocating.labels.begin(), allocating.labels.end());
  expect_unison_labels(seen.labels);
  auto has = [&](const std::string& l) {
    return std::find(seen.labels.begin(), seen.labels.end(), l) != seen.labels.end();
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
void test_stencil_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Field f("f", 37, 53), g("g", 37, 53), lapl("lapl", 37, 53);
  unison::DiffusionBuffer<Field> buffer("buffer", 37, 53);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("history", 3, 37, 53);
  Kokkos::View<float*, Mem> x("x", 1000), k("k", 5), y("y", 996);
  exec.fence();
  using unison::StencilAlgorithm;
  // jagged_field and diffuse without a buffer allocate theirs.
  const auto allocating = record([&] {
    unison::jagged_field(exec, f, 3);
    unison::diffuse(exec, f, 5, 0.25, lapl, unison::Laplacian::every_step);
  });
  expect_on(exec, allocating, Memory::allocated);
  auto seen = record([&] {
    for (auto a : {StencilAlgorithm::plain, StencilAlgorithm::tiled, StencilAlgorithm::streaming})
      unison::diffusion_step(exec, f, g, lapl, 0.25, a);
    unison::diffuse(exec, f, buffer, 5, 0.25, lapl, unison::Laplacian::every_step);
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
  expect_on(exec, seen);
  seen.labels.insert(seen.labels.end(), allocating.labels.begin(), allocating.labels.end());
  expect_unison_labels(seen.labels);
  auto has = [&](const std::string& l) {
    return std::find(seen.labels.begin(), seen.labels.end(), l) != seen.labels.end();
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
TYPED_TEST(Labels, every_kernel_and_allocation) { test_labels(TypeParam()); }
TYPED_TEST(Labels, matmul_and_rowwise) { test_matmul_rowwise_labels(TypeParam()); }
TYPED_TEST(Labels, counting) { test_counting_labels(TypeParam()); }
TYPED_TEST(Labels, stencil) { test_stencil_labels(TypeParam()); }

// The same calls on an instance that is not the default one (a new CUDA stream; a partition of
// the OpenMP threads; a new Serial instance): each kernel on that instance, no other fence.
template <class Exec>
Exec another_instance() {
  return Kokkos::Experimental::partition_space(Exec(), 1, 1)[1];
}

template <class Exec>
struct Instance : ::testing::Test {};
TYPED_TEST_SUITE(Instance, Backends, BackendName);
TYPED_TEST(Instance, elementwise) { test_labels(another_instance<TypeParam>()); }
TYPED_TEST(Instance, matmul_and_rowwise) {
  test_matmul_rowwise_labels(another_instance<TypeParam>());
}
TYPED_TEST(Instance, counting) { test_counting_labels(another_instance<TypeParam>()); }
TYPED_TEST(Instance, stencil) { test_stencil_labels(another_instance<TypeParam>()); }

}  // namespace
