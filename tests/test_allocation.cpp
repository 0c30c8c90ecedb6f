// Allocations larger than memory (issue 7), on every backend: each function that allocates for
// itself refuses a request larger than the memory free in its space with
// unison::invalid_argument naming the function and the bytes, before allocating anything; the
// space's free memory is what it was (nothing leaked; ASan's leak check covers the host in the
// debug preset) and the next call works.
//
// The huge inputs cost nothing: Views whose strides are 0 show one element as 10^6 x 10^6 (or
// 2^40) elements, so a function that needs a temporary of their extents asks for terabytes.
#include <cstdint>
#include <string>
#include <vector>

#include <unison/backends/device_info.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/field.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec>
struct Allocation : ::testing::Test {};
TYPED_TEST_SUITE(Allocation, Backends, BackendName);

template <class T, class Mem>
using Strided2D =
    Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T, class Mem>
using Strided1D =
    Kokkos::View<T*, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// A rank-2 View of n x n distinct elements from p on, every other one (a View from p + 1 on
// interleaves with it): laid over a small array, for calls refused before any element is touched.
template <class T, class Mem>
Strided2D<T, Mem> everywhere(T* p, std::int64_t n) {
  return Strided2D<T, Mem>(p, Kokkos::LayoutStride(n, 2 * n, n, 2));
}

// Free memory of Exec's space, before and after a refused call: equal where the system tells
// (a GPU's free memory; the host's available memory moves with everything else on the machine,
// so it is not compared).
template <class Exec>
long long device_free() {
  using Mem = typename Exec::memory_space;
  if constexpr (is_host_v<Exec>) return -1;
  else return unison::backends::free_memory_bytes(Mem::name());
}

template <class Exec>
void test_refused_then_works() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const std::int64_t huge = 1000000;  // 10^12 cells: 8 TB of int64 noise, 4 TB of float
  Kokkos::View<float*, Mem> cells("cells", 2);
  const std::string space = std::string(" bytes free in the ") + Mem::name() + " memory space";
  unison::release_temporary_memory();  // a refused request frees what the pool holds, then retries
  const long long before = device_free<Exec>();

  // jagged_field's noise array.
  auto f = everywhere<float, Mem>(cells.data(), huge);
  EXPECT_TRUE(throws_invalid([&] { unison::jagged_field(exec, f, 7); }, "unison::jagged_field",
                             {"the noise array needs 8000000000000 bytes, more than the", space}));
  // diffuse's second field (f is not contiguous, so its contiguous copy is asked first).
  auto lapl = everywhere<float, Mem>(cells.data() + 1, huge);
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, 3, 0.1, lapl); }, "unison::diffuse",
                             {"needs 4000000000000 bytes, more than the", space}));
  // hidden_layer's host result of 2^40 values.
  const std::int64_t n = std::int64_t(1) << 40;
  Strided1D<float, Mem> g(cells.data(), Kokkos::LayoutStride(n, 0)),
      w(cells.data() + 1, Kokkos::LayoutStride(n, 0));
  EXPECT_TRUE(throws_invalid([&] { unison::hidden_layer(exec, g, w); }, "unison::hidden_layer",
                             {"the host result needs 4398046511104 bytes, more than the",
                              " bytes free in the Host memory space"}));
  exec.fence();
  if (before >= 0) {
    EXPECT_EQ(device_free<Exec>(), before) << "memory left allocated";
  }

  // The next calls work.
  Kokkos::View<float**, Mem> field("field", 37, 53), lap("lapl", 37, 53);
  unison::jagged_field(exec, field, 7);
  unison::diffuse(exec, field, 3, 0.1, lap);
  exec.fence();
  for (double v : to_host(field)) ASSERT_TRUE(std::isfinite(v));
}

TYPED_TEST(Allocation, refused_then_works) { test_refused_then_works<TypeParam>(); }

// When the space cannot say how much is free, the allocator's own failure is turned into the
// same error: here a petabyte of CUDA managed memory (only where CUDA is enabled).
TEST(AllocationFailure, allocator_refusal_becomes_invalid_argument) {
#ifdef KOKKOS_ENABLE_CUDA
  using View = Kokkos::View<char*, Kokkos::CudaUVMSpace>;
  ASSERT_EQ(unison::backends::free_memory_bytes(Kokkos::CudaUVMSpace::name()), -1);
  EXPECT_TRUE(throws_invalid(
      [] {
        unison::detail::allocate<View>("unison::test", "a petabyte", Kokkos::Cuda(),
                                       "unison::test::pb", std::size_t(1) << 50);
      },
      "unison::test",
      {"a petabyte (1125899906842624 bytes) could not be allocated in the CudaUVM memory space"}));
  View small = unison::detail::allocate<View>("unison::test", "a kilobyte", Kokkos::Cuda(),
                                              "unison::test::kb", 1024);
  EXPECT_EQ(small.extent(0), 1024u);
#else
  GTEST_SKIP() << "needs a memory space whose free memory is not known (CUDA managed memory)";
#endif
}

}  // namespace
