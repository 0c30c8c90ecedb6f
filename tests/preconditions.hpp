#pragma once
// Bad input, shared by every family's <Family>Preconditions tests (docs/PRECONDITIONS.md: the rows
// of the preconditions table that the families' other tests do not check, on every backend). Each
// refused call throws unison::invalid_argument naming the function and the offending value
// (throws_invalid, tests/test_helpers.hpp); a few representative calls are also shown to write
// nothing when refused (their outputs are filled with a marker value first), and empty Views to
// be valid where the table says so.
#include <limits>

#include "test_helpers.hpp"

namespace unison::test {

inline constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf_d = std::numeric_limits<double>::infinity();
inline constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
inline constexpr float inf_f = std::numeric_limits<float>::infinity();

// Every element of v equals `value` (v is fenced first by the caller's exec.fence()).
template <class V>
::testing::AssertionResult all_equal(const V& v, double value) {
  const auto h = to_host(v);
  for (std::size_t i = 0; i < h.size(); ++i)
    if (!(h[i] == value))
      return ::testing::AssertionFailure() << "element " << i << " is " << h[i] << ", expected "
                                           << value << " (the marker: nothing written)";
  return ::testing::AssertionSuccess();
}

}  // namespace unison::test
