#pragma once
// Run-to-run determinism, shared by every family's <Family>Determinism tests: each public function
// (each algorithm or method of those that have several) runs twice on the same backend with the
// same fresh random inputs, into two separately allocated outputs poisoned with different bit
// patterns (a quiet NaN and a negative NaN of another payload; for integers 0x5A... and 0xA5...),
// and the two results must be BITWISE equal: std::memcmp of host copies, so NaN payloads, the
// sign of zero and any element one run leaves unwritten all count. Sizes are odd and large enough
// that the OpenMP backend splits the work over its threads and the team kernels run several
// teams (tiles, blocks of rows, histogram blocks, chunks of taps), yet each test takes well under
// a second in a Debug+ASan build on two cores. (The one exception, matmul_reduce's tiled method,
// is in tests/test_matmul.cpp.)
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "test_helpers.hpp"

namespace unison::test {

// Helpers: the second poison, host copies of any View, and the bitwise comparison.

template <class T, class Bits>
T from_bits(Bits bits) {
  static_assert(sizeof(T) == sizeof(Bits));
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Run 2's poison: unlike poison<T>() (run 1's) in every bit that matters.
template <class T>
T other_poison() {
  if constexpr (std::is_same_v<T, float>) return from_bits<float>(std::uint32_t(0xFFC0BEEFu));
  else if constexpr (std::is_same_v<T, double>)
    return from_bits<double>(std::uint64_t(0xFFF800000000BEEFull));
  else return static_cast<T>(0xA5A5A5A5A5A5A5A5ULL);
}

// a with run 1's poison, b with run 2's.
template <class A, class B>
void poison_pair(const A& a, const B& b) {
  Kokkos::deep_copy(a, poison<typename A::non_const_value_type>());
  Kokkos::deep_copy(b, other_poison<typename B::non_const_value_type>());
  Kokkos::fence("unison::test::poison_pair");
}

// The elements of a rank-1, -2 or -3 View of any layout and memory space, in row-major order, on
// the host, with their bits.
template <class V>
std::vector<typename V::non_const_value_type> host_values(const V& v) {
  using T = typename V::non_const_value_type;
  using Staging =
      Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, typename V::memory_space>;
  const std::string label = "unison::test::bits";
  Staging staged;
  if constexpr (V::rank() == 1) staged = Staging(label, v.extent(0));
  else if constexpr (V::rank() == 2) staged = Staging(label, v.extent(0), v.extent(1));
  else staged = Staging(label, v.extent(0), v.extent(1), v.extent(2));
  Kokkos::deep_copy(staged, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  return std::vector<T>(h.data(), h.data() + h.size());
}

template <class T>
std::string describe(const T& v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) s << std::setprecision(17) << v;
  else s << +v;
  s << " (bits 0x" << std::hex << bits << ")";
  return s.str();
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
  if (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0)
    return ::testing::AssertionSuccess();
  std::size_t differ = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0 && differ++ < 5)
      first << "\n  [" << i << "] run 1 " << describe(a[i]) << ", run 2 " << describe(b[i]);
  return ::testing::AssertionFailure()
         << differ << " of " << a.size() << " elements differ bitwise; the first:" << first.str();
}

// The two Views hold bitwise the same elements (same extents, any layouts and memory spaces).
template <class A, class B>
::testing::AssertionResult bitwise_equal(const A& a, const B& b) {
  static_assert(std::is_same_v<typename A::non_const_value_type, typename B::non_const_value_type>);
  return same_bits(host_values(a), host_values(b));
}

template <class T>
::testing::AssertionResult same_bits_scalar(T a, T b) {
  return same_bits(std::vector<T>{a}, std::vector<T>{b});
}

// Poisons a and b differently, runs run(a) then run(b), waits, and expects bitwise equal results.
template <class V, class Run>
void twice(const std::string& what, const V& a, const V& b, const Run& run) {
  poison_pair(a, b);
  run(a);
  run(b);
  Kokkos::fence("unison::test::twice");
  EXPECT_TRUE(bitwise_equal(a, b)) << what;
}

template <class Exec>
using Mem = typename Exec::memory_space;

// Elementwise inputs: enough elements for every OpenMP thread to take many.
inline constexpr long elements = 50021;
// Rank-2 elementwise shapes: odd, neither a multiple of the other.
inline constexpr long rows2 = 157, cols2 = 163;

}  // namespace unison::test
