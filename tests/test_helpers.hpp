#pragma once
// Shared by every test: the backends a test body runs on, fresh random data, poisoned outputs,
// and comparisons against a float64 host reference that report the first mismatches.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/enabled.hpp>

#include "../testing/reference.hpp"

namespace unison::test {

// Every enabled backend (unison/backends/enabled.hpp); each typed test body runs once per entry.
template <class List>
struct GTestTypes;
template <class... Spaces>
struct GTestTypes<unison::backends::SpaceList<Spaces...>> {
  using type = ::testing::Types<Spaces...>;
};
#if defined(UNISON_TEST_BACKENDS)
// A test program's backend (UNISON_TEST_BACKENDS, set by tests/CMakeLists.txt for each program).
using Backends = ::testing::Types<UNISON_TEST_BACKENDS>;
#else
using Backends = GTestTypes<unison::backends::EnabledSpaces>::type;
#endif

// Names typed tests after the backend: Elementwise/Serial.add, Elementwise/Cuda.add, ...
struct BackendName {
  template <class Exec>
  static std::string GetName(int) {
    return Exec::name();
  }
};

template <class Exec>
constexpr bool is_host_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

// Whether this build runs under AddressSanitizer (the debug preset's): there, the largest fields
// of a few checks give way to smaller ones that cross the same tile and block edges (the
// optimised builds check the large ones), as the sanitised kernels run some fifty times slower.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// A new random engine for every call, seeded from a process-wide counter: each check draws
// fresh data, and a failing run is reproducible.
inline std::mt19937_64 engine() {
  static std::uint64_t counter = 0x5eed;
  return std::mt19937_64(++counter);
}

template <class T>
T poison() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else return static_cast<T>(0x5A5A5A5A5A5A5A5AULL);
}

// A View in Exec's memory with the given extents, filled by gen(engine) on the host.
template <class V, class Gen>
void fill(const V& v, Gen gen) {
  using T = typename V::non_const_value_type;
  using Staging = std::conditional_t<V::rank() == 1, T*, T**>;
  Kokkos::View<Staging, Kokkos::LayoutRight, Kokkos::HostSpace> h;
  if constexpr (V::rank() == 1) h = decltype(h)("unison::test::fill", v.extent(0));
  else h = decltype(h)("unison::test::fill", v.extent(0), v.extent(1));
  auto rng = engine();
  if constexpr (V::rank() == 1) {
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = gen(rng);
  } else {
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j) h(i, j) = gen(rng);
  }
  // Host -> a contiguous View in v's space -> v (which may be strided or of another layout).
  auto staged = Kokkos::create_mirror_view_and_copy(typename V::memory_space(), h);
  Kokkos::deep_copy(v, staged);
}

template <class T>
auto uniform(double lo, double hi) {
  return [=](std::mt19937_64& rng) {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
    } else {
      return static_cast<T>(std::uniform_int_distribution<long long>(
          static_cast<long long>(lo), static_cast<long long>(hi))(rng));
    }
  };
}

template <class V>
void poison_fill(const V& v) {
  Kokkos::deep_copy(v, poison<typename V::non_const_value_type>());
}

// The elements of a rank-1 or rank-2 View, row by row, as doubles on the host. (A View the host
// cannot read is first copied into a contiguous View of its own memory space: Kokkos copies
// between spaces only contiguous Views of one layout.)
template <class V>
std::vector<double> to_host(const V& v) {
  using T = typename V::non_const_value_type;
  using Staging = std::conditional_t<V::rank() == 1, T*, T**>;
  Kokkos::View<Staging, Kokkos::LayoutRight, typename V::memory_space> staged;
  if constexpr (V::rank() == 1) staged = decltype(staged)("unison::test::staged", v.extent(0));
  else staged = decltype(staged)("unison::test::staged", v.extent(0), v.extent(1));
  Kokkos::deep_copy(staged, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  std::vector<double> out;
  out.reserve(v.size());
  if constexpr (V::rank() == 1) {
    for (std::size_t i = 0; i < h.extent(0); ++i) out.push_back(static_cast<double>(h(i)));
  } else {
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j) out.push_back(static_cast<double>(h(i, j)));
  }
  return out;
}

// ‖got − ref‖ / ‖ref‖ ≤ tol (tol = 0: exact), no NaN; else the first mismatches.
inline ::testing::AssertionResult close(const std::vector<double>& got,
                                        const std::vector<double>& ref, double tol) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << ref.size();
  double diff2 = 0, ref2 = 0;
  std::ostringstream first;
  int shown = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = got[i] - ref[i];
    const bool bad =
        std::isnan(got[i]) != std::isnan(ref[i]) ||
        (!std::isnan(ref[i]) &&
         (tol == 0 ? got[i] != ref[i] : std::abs(d) > tol * (std::abs(ref[i]) + 1e-30)));
    unison::reference::add_error_terms(got[i], ref[i], diff2, ref2);
    if (bad && shown < 5) {
      first << "\n  [" << i << "] got " << got[i] << ", expected " << ref[i];
      ++shown;
    }
  }
  const double rel = unison::reference::relative_error(diff2, ref2);
  bool ok = tol == 0 ? shown == 0 : rel <= tol;
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "relative error " << rel << " > " << tol << " over " << got.size()
         << " elements; first elements off by more than the tolerance:" << first.str();
}

// Tolerance for results of type T against a float64 reference (docs/workloads.md: 1e-5 for
// float32): the benchmarks' too (testing/reference.hpp).
using unison::reference::tolerance;

// Runs f and expects unison::invalid_argument whose message starts with `function` and contains
// every string in `parts`.
template <class F>
::testing::AssertionResult throws_invalid(F&& f, const std::string& function,
                                          const std::vector<std::string>& parts = {});

}  // namespace unison::test

#include <unison/core.hpp>

template <class F>
::testing::AssertionResult unison::test::throws_invalid(F&& f, const std::string& function,
                                                        const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const unison::invalid_argument& e) {
    std::string what = e.what();
    if (what.rfind(function + ": ", 0) != 0)
      return ::testing::AssertionFailure()
             << "message does not start with " << function << ": " << what;
    for (const auto& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks '" << p << "': " << what;
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw unison::invalid_argument";
}
