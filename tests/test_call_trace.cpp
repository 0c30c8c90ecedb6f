// The suite's record of the Unison calls a piece of code makes (benchmarks/harness/call_trace.hpp),
// on every backend: what unison-bench holds each case's check to (a check that calls Unison
// itself judges a call the suite never timed: other steps, sizes or options). Each call is
// recorded with the kernels it launches, counted: a diffusion of 12 steps and one of 6 leave
// different records, the same call twice the same record; calls are recorded in order; the
// suite's own kernels and copies outside Unison's calls are not recorded; Kokkos Tools callbacks
// set before are in place after, also where the recorded code throws.
#include <stdexcept>
#include <string>
#include <vector>

#include <unison/diffusion.hpp>
#include <unison/field.hpp>

#include "call_trace.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::bench::describe;
using unison::bench::trace_calls;

template <class Exec>
struct Trace : ::testing::Test {};
TYPED_TEST_SUITE(Trace, Backends, BackendName);

template <class Exec>
void test_calls_and_kernels() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const int n = 37;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> f("f", n, n), lapl("lapl", n, n);
  unison::DiffusionBuffer<decltype(f)> buffer("buffer", n, n);
  const auto diffuse = [&](int steps) {
    return trace_calls([&] {
      unison::diffuse(exec, f, buffer, steps, 0.1, lapl);
      exec.fence();
    });
  };
  unison::jagged_field(exec, f);
  const auto twelve = diffuse(12), again = diffuse(12), six = diffuse(6);
  ASSERT_EQ(twelve.calls.size(), 1u) << describe(twelve);
  EXPECT_EQ(twelve.calls[0].rfind("unison::diffuse;", 0), 0u) << twelve.calls[0];
  EXPECT_NE(twelve.calls[0].find("; kernel unison::diffusion::"), std::string::npos)
      << twelve.calls[0];
  EXPECT_EQ(twelve.calls, again.calls);
  EXPECT_NE(twelve.calls, six.calls) << describe(twelve) << " against " << describe(six);

  // Two calls, in order.
  const auto two = trace_calls([&] {
    unison::jagged_field(exec, f);
    unison::diffuse(exec, f, buffer, 12, 0.1, lapl);
    exec.fence();
  });
  ASSERT_EQ(two.calls.size(), 2u) << describe(two);
  EXPECT_EQ(two.calls[0].rfind("unison::jagged_field", 0), 0u) << two.calls[0];
  EXPECT_EQ(two.calls[1], twelve.calls[0]);

  // The suite's own kernels and copies (a reference, host copies) are no Unison call.
  const auto own = trace_calls([&] {
    Kokkos::parallel_for(
        "unison::bench::own", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(int i) { lapl(i, 0) = float(i); });
    Kokkos::deep_copy(exec, lapl, f);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lapl);
    exec.fence();
  });
  EXPECT_TRUE(own.calls.empty()) << describe(own);
  EXPECT_EQ(describe(own), "");
}

TYPED_TEST(Trace, calls_and_kernels) { test_calls_and_kernels<TypeParam>(); }

int pushes = 0;
void count_push(const char*) { ++pushes; }

TEST(TraceCallbacks, restored_after) {
  namespace tools = Kokkos::Tools::Experimental;
  tools::set_push_region_callback(count_push);
  pushes = 0;
  const auto trace = trace_calls([] {
    Kokkos::Profiling::pushRegion("unison::example");
    Kokkos::Profiling::pushRegion("inner");
    Kokkos::Profiling::popRegion();
    Kokkos::Profiling::popRegion();
  });
  ASSERT_EQ(trace.calls.size(), 1u);
  EXPECT_EQ(trace.calls[0], "unison::example; region inner; end");
  EXPECT_EQ(pushes, 0);  // the recorder's callbacks, not the ones set before
  Kokkos::Profiling::pushRegion("after");
  Kokkos::Profiling::popRegion();
  EXPECT_EQ(pushes, 1);
  EXPECT_THROW(trace_calls([] { throw std::runtime_error("thrown"); }), std::runtime_error);
  Kokkos::Profiling::pushRegion("after a throw");
  Kokkos::Profiling::popRegion();
  EXPECT_EQ(pushes, 2);
  tools::set_push_region_callback(nullptr);
}

}  // namespace
