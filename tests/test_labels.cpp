// Every kernel and allocation the library makes is labelled "unison::...": recorded through
// Kokkos Tools callbacks while each function runs.
#include <string>
#include <vector>

#include <unison/elementwise.hpp>

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
    unison::transform(exec, out, KOKKOS_LAMBDA(float x) { return x; }, a);
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
  for (const char* k : {"add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress",
                        "make_pulses", "normalize", "weigh", "activate", "hidden_layer",
                        "transform"})
    EXPECT_TRUE(has(std::string("kernel unison::elementwise::") + k)) << k;
}

template <class Exec>
struct Labels : ::testing::Test {};
TYPED_TEST_SUITE(Labels, Backends, BackendName);
TYPED_TEST(Labels, every_kernel_and_allocation) { test_labels<TypeParam>(); }

}  // namespace
