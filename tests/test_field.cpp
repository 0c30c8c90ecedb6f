// The jagged field (unison/field.hpp), the diffusion workload's start, on every backend: exact
// zeros for ~70% of the cells, values in [0, 1), the same on every backend and layout (compared
// with the generator evaluated on the host), and every bad input's error. Beside them, the suites
// every family has: FieldPreconditions, FieldDeterminism, FieldLabels and FieldInstance
// (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <unison/field.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec, class T, class Layout>
using Field = Kokkos::View<T**, Layout, typename Exec::memory_space>;

template <class Exec>
void test_jagged() {
  Exec exec;
  const long nx = 301, ny = 517;
  Field<Exec, float, Kokkos::LayoutRight> right("right", nx, ny);
  Field<Exec, float, Kokkos::LayoutLeft> left("left", nx, ny);
  unison::jagged_field(exec, right, 42);
  unison::jagged_field(exec, left, 42);
  const auto r = to_host(right), l = to_host(left);
  EXPECT_TRUE(close(l, r, 0));
  std::vector<std::int64_t> noise;
  const unison::JaggedNoise gen{42};
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j) noise.push_back(gen(i, j));
  long zeros = 0;
  for (std::size_t c = 0; c < r.size(); ++c) {
    zeros += r[c] == 0;
    EXPECT_GE(r[c], 0.0);
    EXPECT_LT(r[c], 1.0);
  }
  const double share = double(zeros) / double(r.size());
  EXPECT_GE(share, 0.7);
  EXPECT_LT(share, 0.71);
  // Nonzero cells are exactly the noise above the threshold, scaled.
  std::int64_t max_zero = -1, min_kept = unison::JaggedNoise::max_value + 1;
  for (std::size_t c = 0; c < r.size(); ++c) {
    if (r[c] == 0) max_zero = std::max(max_zero, noise[c]);
    else {
      min_kept = std::min(min_kept, noise[c]);
      EXPECT_EQ(float(r[c]), float(noise[c]) * (1.f / float(unison::JaggedNoise::max_value + 1)));
    }
  }
  EXPECT_LT(max_zero, min_kept);
  // Another seed, another field; zero_fraction 0 keeps every nonzero value.
  unison::jagged_field(exec, right, 43);
  EXPECT_FALSE(close(to_host(right), r, 0));
  unison::jagged_field(exec, right, 42, 0.0);
  long kept = 0;
  for (double v : to_host(right)) kept += v > 0;
  EXPECT_GT(kept, long(r.size()) - 5);
  EXPECT_TRUE(throws_invalid([&] { unison::jagged_field(exec, right, 1, 1.5); },
                             "unison::jagged_field", {"zero_fraction is 1.5"}));
}

template <class Exec>
struct JaggedField : ::testing::Test {};
TYPED_TEST_SUITE(JaggedField, Backends, BackendName);
TYPED_TEST(JaggedField, values_layouts_seeds) { test_jagged<TypeParam>(); }

namespace preconditions {

// zero_fraction must be a number in [0, 1]; a refused call writes nothing; an empty field is
// valid.
template <class Exec>
void test_field() {
  Exec exec;
  using F = Field<Exec, float, Kokkos::LayoutRight>;
  F e0("e0", 0, 5), f("f", 8, 9);
  EXPECT_NO_THROW(unison::jagged_field(exec, e0));
  for (double z : {nan_d, -0.1, inf_d, 1.0 + 1e-12})
    EXPECT_TRUE(throws_invalid([&] { unison::jagged_field(exec, f, 1, z); }, "unison::jagged_field",
                               {"zero_fraction is", "must be in [0, 1]"}))
        << z;
  Kokkos::deep_copy(f, 7.f);
  EXPECT_ANY_THROW(unison::jagged_field(exec, f, 1, nan_d));
  exec.fence();
  EXPECT_TRUE(all_equal(f, 7.0));
  // The bounds themselves are valid: no zeros asked, or every cell zero.
  unison::jagged_field(exec, f, 1, 1.0);
  exec.fence();
  EXPECT_TRUE(all_equal(f, 0.0));
}

}  // namespace preconditions

template <class Exec>
struct FieldPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(FieldPreconditions, Backends, BackendName);
TYPED_TEST(FieldPreconditions, jagged_field) { preconditions::test_field<TypeParam>(); }

namespace determinism {

// (One field: each call runs some 30 counting passes, each a parallel reduction and a fence.)
template <class Exec>
void test_jagged_field() {
  Exec exec;
  Field<Exec, float, Kokkos::LayoutRight> a("a", 67, 131), b("b", 67, 131);
  twice("float", a, b, [&](const auto& f) { unison::jagged_field(exec, f, 42); });
}

}  // namespace determinism

template <class Exec>
struct FieldDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(FieldDeterminism, Backends, BackendName);
TYPED_TEST(FieldDeterminism, jagged_field) { determinism::test_jagged_field<TypeParam>(); }

namespace labels {

// The jagged field's kernels, on the instance given; its noise array is temporary memory (the
// first call after release_temporary_memory allocates it).
template <class Exec>
void test_labels(const Exec& exec) {
  using F = Kokkos::View<float**, Kokkos::LayoutRight, typename Exec::memory_space>;
  F f("f", 37, 53);
  exec.fence();
  unison::release_temporary_memory();
  auto seen = record([&] {
    unison::jagged_field(exec, f, 3);
    exec.fence();
  });
  expect_on(exec, seen, Memory::allocated);
  expect_calls(seen, {{"unison::jagged_field", {"unison::field::jagged_noise"}}},
               {"unison::field::"});
  expect_unison_labels(seen.labels);
  for (const char* name :
       {"kernel unison::field::jagged_noise", "kernel unison::field::jagged_count",
        "kernel unison::field::jagged_write"})
    EXPECT_TRUE(has_label(seen, name)) << name;
}

}  // namespace labels

template <class Exec>
struct FieldLabels : ::testing::Test {};
TYPED_TEST_SUITE(FieldLabels, Backends, BackendName);
TYPED_TEST(FieldLabels, jagged_field) { labels::test_labels(TypeParam()); }

template <class Exec>
struct FieldInstance : ::testing::Test {};
TYPED_TEST_SUITE(FieldInstance, Backends, BackendName);
TYPED_TEST(FieldInstance, jagged_field) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
