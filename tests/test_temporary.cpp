// Temporary memory kept between calls (unison/detail/temporary.hpp), on every backend: the forms
// that take memory of their own allocate it on the first call on an instance only, the calls
// after it allocate nothing and wait for nothing (no fence at all), and their results are bitwise
// those of the forms with the caller's memory; a larger problem grows the memory; each instance
// has its own; a call that finds its memory taken gets memory of its own and is still right; the
// pool keeps at most max_slots slots; release_temporary_memory gives everything back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <unison/core.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/diffusion.hpp>
#include <unison/matmul.hpp>

#include "labels.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::MatmulMethod;

template <class Exec>
struct Temporary : ::testing::Test {};

// The pool of Exec's own memory space.
template <class Exec>
using PoolOf = unison::detail::TemporaryPool<Exec, typename Exec::memory_space>;
TYPED_TEST_SUITE(Temporary, Backends, BackendName);

template <class Exec>
using Matrix = Kokkos::View<float**, Kokkos::LayoutLeft, typename Exec::memory_space>;
template <class Exec>
using Vector = Kokkos::View<float*, typename Exec::memory_space>;

// matmul_reduce by `method` of fresh random m x k and k x n matrices on exec, without and with a
// workspace: the two results, which must be bitwise equal.
template <class Exec>
struct MatmulCase {
  Matrix<Exec> A, B;
  Vector<Exec> out, expected, work;
  MatmulCase(std::int64_t m, std::int64_t k, std::int64_t n, MatmulMethod method)
      : A("A", m, k),
        B("B", k, n),
        out("out", n),
        expected("expected", n),
        work("work", unison::matmul_reduce_workspace_size<Exec, float>(m, k, n, method)) {
    fill(A, uniform<float>(-1, 1));
    fill(B, uniform<float>(-1, 1));
    poison_fill(out);
  }
  void run_without(const Exec& exec, MatmulMethod method) const {
    unison::matmul_reduce(exec, A, B, out, method);
  }
  void check(const Exec& exec, MatmulMethod method) const {
    unison::matmul_reduce(exec, A, B, expected, method, work);
    exec.fence();
    EXPECT_EQ(to_host(out), to_host(expected));
  }
};

bool allocated(const Events& seen, const std::string& label) {
  return has_label(seen, "allocation " + label);
}

template <class Exec>
void test_reuse_and_growth() {
  const Exec exec;
  for (auto method : {MatmulMethod::gemm, MatmulMethod::reassociated}) {
    unison::release_temporary_memory();
    EXPECT_EQ(PoolOf<Exec>::held_slots(), 0u);
    const MatmulCase<Exec> small(37, 29, 41, method), large(61, 29, 83, method);
    // The first call allocates; the next, on the same instance, neither allocates nor fences.
    auto seen = record([&] { small.run_without(exec, method); });
    EXPECT_TRUE(allocated(seen, "unison::matmul_reduce::work"));
    small.check(exec, method);
    poison_fill(small.out);
    exec.fence();
    seen = record([&] { small.run_without(exec, method); });
    EXPECT_FALSE(allocated(seen, "unison::matmul_reduce::work"));
    EXPECT_TRUE(seen.fences.empty()) << seen.fences.front().first;
    small.check(exec, method);
    EXPECT_GE(unison::temporary_memory_bytes(), sizeof(float) * small.work.extent(0));
    // A larger problem: the memory grows (if the method needs more), and the result is right.
    seen = record([&] { large.run_without(exec, method); });
    EXPECT_EQ(allocated(seen, "unison::matmul_reduce::work"),
              large.work.extent(0) > small.work.extent(0));
    large.check(exec, method);
  }
  EXPECT_EQ(PoolOf<Exec>::held_slots(), 1u);
  unison::release_temporary_memory();
  EXPECT_EQ(PoolOf<Exec>::held_slots(), 0u);
  EXPECT_EQ(PoolOf<Exec>::held_bytes(), 0u);
}
TYPED_TEST(Temporary, reuse_and_growth) { test_reuse_and_growth<TypeParam>(); }

// diffuse without a buffer, for a contiguous f and a strided one (which also takes a contiguous
// copy): the second call allocates nothing and fences nothing; bitwise the buffer form's result.
template <class Exec>
void test_diffuse() {
  using Mem = typename Exec::memory_space;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  const Exec exec;
  unison::release_temporary_memory();
  Field start("start", 43, 57), f("f", 43, 57), g("g", 43, 57), lapl("lapl", 43, 57),
      lapl_expected("lapl_expected", 43, 57);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> wide("wide", 43, 57, 2);
  auto strided = Kokkos::subview(wide, Kokkos::ALL, Kokkos::ALL, 1);
  unison::DiffusionBuffer<Field> buffer("buffer", 43, 57);
  fill(start, uniform<float>(-1, 1));
  Kokkos::deep_copy(g, start);
  unison::diffuse(exec, g, buffer, 7, 0.2, lapl_expected, unison::Laplacian::final_only);
  for (int round = 0; round < 2; ++round) {
    Kokkos::deep_copy(f, start);
    Kokkos::deep_copy(strided, start);
    exec.fence();
    const auto seen = record([&] {
      unison::diffuse(exec, f, 7, 0.2, lapl, unison::Laplacian::final_only);
      unison::diffuse(exec, strided, 7, 0.2, lapl, unison::Laplacian::final_only);
    });
    EXPECT_EQ(allocated(seen, "unison::diffusion::buffer"), round == 0);
    EXPECT_EQ(allocated(seen, "unison::diffusion::field"), round == 0);
    if (round == 1) {
      EXPECT_TRUE(seen.fences.empty()) << seen.fences.front().first;
    }
    exec.fence();
    EXPECT_EQ(to_host(f), to_host(g)) << "round " << round;
    EXPECT_EQ(to_host(strided), to_host(g)) << "round " << round;
    EXPECT_EQ(to_host(lapl), to_host(lapl_expected)) << "round " << round;
  }
  EXPECT_EQ(PoolOf<Exec>::held_slots(), 2u);
}
TYPED_TEST(Temporary, diffuse) { test_diffuse<TypeParam>(); }

// Each instance its own memory; a call whose memory is taken (as by a call on another host thread
// at that moment) gets memory of its own, waits for it on its instance only, and is right.
template <class Exec>
void test_instances_and_taken() {
  unison::release_temporary_memory();
  const auto instances = Kokkos::Experimental::partition_space(Exec(), 1, 1);
  const MatmulCase<Exec> c(45, 31, 53, MatmulMethod::gemm);
  for (const auto& exec : instances) {
    c.run_without(exec, MatmulMethod::gemm);
    c.check(exec, MatmulMethod::gemm);
  }
  using Pool = PoolOf<Exec>;
  EXPECT_EQ(Pool::held_slots(), 2u);
  auto* slot = Pool::get().take(instances[1], "unison::matmul_reduce::work");
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(Pool::get().take(instances[1], "unison::matmul_reduce::work"), nullptr);
  poison_fill(c.out);
  Kokkos::fence();
  const auto seen = record([&] { c.run_without(instances[1], MatmulMethod::gemm); });
  EXPECT_TRUE(allocated(seen, "unison::matmul_reduce::work"));
  const auto released = std::find(
      seen.fences.begin(), seen.fences.end(),
      std::pair<std::string, std::uint32_t>("unison: release temporary memory",
                                            Kokkos::Tools::Experimental::device_id(instances[1])));
  EXPECT_NE(released, seen.fences.end()) << "no fence of the instance before its memory is freed";
  c.check(instances[1], MatmulMethod::gemm);
  EXPECT_EQ(Pool::held_slots(), 2u);
  // release_temporary_memory leaves a taken slot where it is.
  unison::release_temporary_memory();
  EXPECT_EQ(Pool::held_slots(), 1u);
  Pool::get().give_back(slot);
  unison::release_temporary_memory();
  EXPECT_EQ(Pool::held_slots(), 0u);
}
TYPED_TEST(Temporary, instances_and_taken) { test_instances_and_taken<TypeParam>(); }

// At most max_slots slots: the least recently used idle one makes room; every Temporary is usable.
template <class Exec>
void test_bounded() {
  using Pool = PoolOf<Exec>;
  const Exec exec;
  unison::release_temporary_memory();
  const std::int64_t n = 1001;
  Vector<Exec> out("out", n);
  for (std::size_t k = 0; k < Pool::max_slots + 5; ++k) {
    const auto t = unison::detail::temporary<Vector<Exec>>("unison::test", "a vector", exec,
                                                           "unison::test::" + std::to_string(k), n);
    ASSERT_EQ(t.view.extent(0), std::size_t(n));
    Kokkos::deep_copy(exec, t.view, float(k));
    Kokkos::deep_copy(exec, out, t.view);
    exec.fence();
    EXPECT_EQ(to_host(out), std::vector<double>(n, double(k)));
    EXPECT_LE(Pool::held_slots(), Pool::max_slots);
  }
  EXPECT_EQ(Pool::held_slots(), Pool::max_slots);
  unison::release_temporary_memory();
  EXPECT_EQ(unison::temporary_memory_bytes(), 0u);
}
TYPED_TEST(Temporary, bounded) { test_bounded<TypeParam>(); }

// A field in another memory space than the execution space's own (CUDA managed memory): its
// buffer comes from the pool of that space, so the step callback may read the field (the buffer
// after an odd step) on the host.
TEST(TemporarySpaces, managed_field_on_cuda) {
#ifdef KOKKOS_ENABLE_CUDA
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaUVMSpace>;
  unison::release_temporary_memory();
  const Kokkos::Cuda exec;
  Field f("f", 31, 45), lapl("lapl", 31, 45);
  fill(f, uniform<float>(-1, 1));
  double sum = 0;
  unison::diffuse(exec, f, 3, 0.2, lapl, [&](std::int64_t, const auto& field, const auto&) {
    exec.fence();
    sum += field(3, 4);  // managed memory: readable here
  });
  exec.fence();
  EXPECT_TRUE(std::isfinite(sum));
  EXPECT_EQ((unison::detail::TemporaryPool<Kokkos::Cuda, Kokkos::CudaUVMSpace>::held_slots()), 1u);
  EXPECT_EQ((unison::detail::TemporaryPool<Kokkos::Cuda, Kokkos::CudaSpace>::held_slots()), 0u);
#else
  GTEST_SKIP() << "needs CUDA managed memory";
#endif
}

}  // namespace
