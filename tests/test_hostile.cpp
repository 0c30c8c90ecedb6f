// The hostile-input suite: calls on Views of random layouts (contiguous, strided, stride 0 where
// an input may broadcast, transposed, interleaved with the output, overlapping it, the output
// itself, empty), carved out of one allocation with guard elements around each, and on hostile
// values (NaN, infinities, subnormals, the extremes of the type). Each call must either give
// the float64 reference in every output element, or be refused with unison::invalid_argument
// where PRECONDITIONS.md says it is refused; either way no element of the allocation outside the
// output's may change (a refused call changes none). Whether a call may or must be refused is
// decided here from the layouts' element addresses, independently of the library's checks.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <unison/convolve.hpp>
#include <unison/elementwise.hpp>
#include <unison/examples.hpp>
#include <unison/histogram.hpp>
#include <unison/rowwise.hpp>
#include <unison/transform.hpp>

#include "test_helpers.hpp"

namespace {

using unison::test::BackendName;
using unison::test::Backends;

// A View's layout inside the arena: rank 1 or 2, offset and strides in elements.
struct Layout {
  int rank = 1;
  std::int64_t offset = 0, n0 = 0, n1 = 1, s0 = 1, s1 = 0;
  std::string kind;
  std::int64_t size() const { return n0 * n1; }
  // The arena index of element (i, j).
  std::int64_t at(std::int64_t i, std::int64_t j) const { return offset + i * s0 + j * s1; }
  std::vector<std::int64_t> addresses() const {
    std::vector<std::int64_t> a;
    for (std::int64_t i = 0; i < n0; ++i)
      for (std::int64_t j = 0; j < n1; ++j) a.push_back(at(i, j));
    return a;
  }
  std::int64_t last() const { return size() == 0 ? offset : at(n0 - 1, n1 - 1); }
  bool same_as(const Layout& o) const {
    return size() == o.size() && offset == o.offset && (n0 <= 1 || s0 == o.s0) &&
           (n1 <= 1 || s1 == o.s1) && n0 == o.n0 && n1 == o.n1;
  }
  std::string describe() const {
    std::ostringstream s;
    s << kind << " @" << offset << " " << n0;
    if (rank == 2) s << "x" << n1;
    s << " strides " << s0;
    if (rank == 2) s << "," << s1;
    return s.str();
  }
};

bool share_element(const Layout& a, const Layout& b) {
  auto x = a.addresses(), y = b.addresses();
  std::set<std::int64_t> sx(x.begin(), x.end());
  for (auto v : y)
    if (sx.count(v)) return true;
  return false;
}
bool self_overlapping(const Layout& a) {
  auto x = a.addresses();
  std::set<std::int64_t> sx(x.begin(), x.end());
  return sx.size() != x.size();
}
// PRECONDITIONS.md: Views of one allocation whose element spans meet are compared element by
// element only when their strides agree; otherwise such a pair counts as overlapping.
bool may_be_refused_as_overlap(const Layout& a, const Layout& b) {
  if (a.size() == 0 || b.size() == 0) return false;
  bool meet = a.offset <= b.last() && b.offset <= a.last();
  bool strides_agree =
      (a.n0 <= 1 || b.n0 <= 1 || a.s0 == b.s0) && (a.n1 <= 1 || b.n1 <= 1 || a.s1 == b.s1);
  return meet && !strides_agree;
}

// Hostile values of T: NaN, infinities, zeros, subnormals, the extremes and ordinary numbers.
template <class T>
T hostile_value(std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  const T specials[] = {L::quiet_NaN(), L::infinity(),   -L::infinity(), T(0),
                        -T(0),          L::denorm_min(), -L::min() / 3,  L::max(),
                        L::lowest(),    L::min(),        L::max() / 2,   T(1)};
  std::uniform_int_distribution<int> pick(0, 23);
  int k = pick(rng);
  if (k < 12) return specials[k];
  return T(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
}
template <class T>
T ordinary_value(std::mt19937_64& rng) {
  return T(std::uniform_real_distribution<double>(0.5, 4)(rng));  // a valid sigma too
}

// One allocation in Exec's memory, of random values; its host copy before a call.
template <class Exec, class T>
struct Arena {
  using Space = typename Exec::memory_space;
  Kokkos::View<T*, Space> data;
  std::vector<T> before;
  explicit Arena(std::int64_t n, std::mt19937_64& rng, bool hostile)
      : data("unison::test::arena", n), before(n) {
    for (auto& v : before) v = hostile ? hostile_value<T>(rng) : ordinary_value<T>(rng);
    auto h = Kokkos::create_mirror_view(data);
    for (std::int64_t i = 0; i < n; ++i) h(i) = before[i];
    Kokkos::deep_copy(data, h);
  }
  std::vector<T> now() const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), data);
    return std::vector<T>(h.data(), h.data() + h.extent(0));
  }
  template <int Rank>
  auto view(const Layout& l) const {
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    if constexpr (Rank == 1) {
      return Kokkos::View<T*, Kokkos::LayoutStride, Space, Unmanaged>(
          data.data() + l.offset, Kokkos::LayoutStride(l.n0, l.s0));
    } else {
      return Kokkos::View<T**, Kokkos::LayoutStride, Space, Unmanaged>(
          data.data() + l.offset, Kokkos::LayoutStride(l.n0, l.s0, l.n1, l.s1));
    }
  }
};

// Bitwise equality (NaN payloads and signed zeros included).
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Random layouts of the element-wise family: out and `inputs` operands of rank R with extents
// n0 x n1, placed in an arena with guards of `guard` elements around each separate region.
struct Case {
  Layout out;
  std::vector<Layout> in;
  std::int64_t arena = 0;
};

Case make_case(int rank, int inputs, std::mt19937_64& rng, bool allow_empty = true) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case c;
  const std::int64_t guard = 5;
  std::int64_t n0 = uni(0, 9) == 0 && allow_empty ? 0 : uni(1, 70);
  std::int64_t n1 = rank == 2 ? uni(1, 9) : 1;
  std::int64_t next = guard;
  // A separate region with a layout of the given kind; returns the layout, advances `next`.
  auto region = [&](const char* kind) {
    Layout l;
    l.rank = rank;
    l.n0 = n0;
    l.n1 = n1;
    l.kind = kind;
    std::string k = kind;
    const std::int64_t gap = uni(2, 3);
    if (k == "contiguous") {
      l.s0 = rank == 2 ? n1 : 1;
      l.s1 = rank == 2 ? 1 : 0;
    } else if (k == "strided") {
      l.s0 = rank == 2 ? n1 * gap + uni(0, 2) : gap;
      l.s1 = rank == 2 ? gap : 0;
    } else if (k == "transposed") {
      l.s0 = 1;
      l.s1 = rank == 2 ? n0 : 0;
    } else if (k == "broadcast") {  // stride 0 along the first extent
      l.s0 = 0;
      l.s1 = rank == 2 ? 1 : 0;
    } else if (k == "broadcast rows") {  // rank 2: stride 0 along the second extent
      l.s0 = 1;
      l.s1 = 0;
    }
    l.offset = next;
    next = std::max(next, l.last() + 1) + guard + uni(0, 3);
    return l;
  };
  const char* out_kinds[] = {"contiguous", "strided", "transposed", "contiguous", "broadcast"};
  // A stride-0 output is refused; draw it rarely.
  c.out = region(out_kinds[uni(0, 9) == 0 ? 4 : uni(0, 3)]);
  if (c.out.kind == "strided" && rank == 1) {
    // Room for interleaved inputs between out's elements.
  }
  for (int a = 0; a < inputs; ++a) {
    const int kind = uni(0, 8);
    Layout l;
    if (kind == 0) {
      l = c.out;  // exactly out: in place
      l.kind = "out itself";
    } else if (kind == 1 && c.out.s0 > 1 && rank == 1) {
      l = c.out;  // interleaved between out's elements
      l.offset += uni(1, int(c.out.s0) - 1);
      l.kind = "interleaved with out";
    } else if (kind == 2 && c.out.size() > 1) {
      l = c.out;  // out shifted by one element: shares all but one
      l.offset += 1;
      l.kind = "out shifted";
    } else if (kind == 3) {
      l = region("broadcast");
    } else if (kind == 4 && rank == 2) {
      l = region("broadcast rows");
    } else if (kind == 5) {
      l = region("strided");
    } else if (kind == 6 && rank == 2) {
      l = region("transposed");
    } else {
      l = region("contiguous");
    }
    c.in.push_back(l);
  }
  for (auto& l : c.in) next = std::max(next, l.last() + 1 + guard);
  c.arena = std::max(next, c.out.last() + 1 + guard);
  return c;
}

enum class Verdict { must_run, may_refuse, must_refuse };

Verdict verdict(const Case& c) {
  if (c.out.size() == 0) return Verdict::must_run;
  if (self_overlapping(c.out)) return Verdict::must_refuse;
  Verdict v = Verdict::must_run;
  for (const auto& l : c.in) {
    if (l.same_as(c.out)) continue;
    if (share_element(l, c.out)) return Verdict::must_refuse;
    if (may_be_refused_as_overlap(l, c.out)) v = Verdict::may_refuse;
  }
  return v;
}

std::string describe(const Case& c) {
  std::ostringstream s;
  s << "out: " << c.out.describe();
  for (std::size_t a = 0; a < c.in.size(); ++a) s << "; input " << a << ": " << c.in[a].describe();
  return s.str();
}

// Runs `call(out, inputs...)` on the case's Views and checks it against `ref` (the reference of
// one element from the inputs' elements as double) within `ulps` units in the last place (0:
// exact). `call` throws for a refusal.
template <class Exec, class T, int Rank, int Inputs, class Call, class Ref>
void check_case(const Case& c, Arena<Exec, T>& arena, const Call& call, const Ref& ref, double ulps,
                int& ran, int& refused) {
  auto out = arena.template view<Rank>(c.out);
  std::array<decltype(out), Inputs> ins;
  for (int a = 0; a < Inputs; ++a) ins[a] = arena.template view<Rank>(c.in[a]);
  const Verdict expected = verdict(c);
  bool threw = false;
  std::string what;
  try {
    std::apply([&](const auto&... in) { call(out, in...); }, ins);
    Kokkos::fence();
  } catch (const unison::invalid_argument& e) {
    threw = true;
    what = e.what();
  }
  const auto after = arena.now();
  SCOPED_TRACE(describe(c));
  if (threw) {
    ++refused;
    EXPECT_NE(expected, Verdict::must_run) << "refused a valid call: " << what;
  } else {
    ++ran;
    EXPECT_NE(expected, Verdict::must_refuse) << "ran a call that overlaps out";
  }
  // Every element: out's hold the reference (unless refused); all others are untouched.
  std::vector<char> is_out(arena.before.size(), 0);
  int shown = 0;
  if (!threw && expected != Verdict::must_refuse) {
    for (std::int64_t i = 0; i < c.out.n0; ++i)
      for (std::int64_t j = 0; j < c.out.n1; ++j) {
        const std::int64_t o = c.out.at(i, j);
        is_out[o] = 1;
        std::array<double, Inputs> x;
        for (int a = 0; a < Inputs; ++a) x[a] = double(arena.before[c.in[a].at(i, j)]);
        const double r = std::apply(ref, x);
        const T got = after[o];
        bool ok;
        if (std::isnan(r)) ok = std::isnan(got);
        else if (ulps == 0) ok = double(got) == double(T(r));
        else if (std::isinf(T(r))) ok = got == T(r);
        else {
          int e = 0;
          std::frexp(r, &e);
          constexpr int digits = std::numeric_limits<T>::digits;
          constexpr int min_exp = std::numeric_limits<T>::min_exponent;
          const double spacing = std::ldexp(1.0, std::max(e - digits, min_exp - digits));
          ok = std::isfinite(got) && std::fabs(double(got) - r) <= ulps * spacing;
        }
        if (!ok && shown++ < 4)
          ADD_FAILURE() << "element (" << i << ", " << j << "): got " << got << ", expected " << r
                        << " from inputs " << ::testing::PrintToString(x);
      }
  }
  for (std::size_t k = 0; k < after.size(); ++k)
    if (!is_out[k] && !same_bits(after[k], arena.before[k]) && shown++ < 8)
      ADD_FAILURE() << "arena element " << k << " outside out changed: " << arena.before[k]
                    << " -> " << after[k] << (threw ? " (by a refused call)" : "");
}

template <class Exec>
class Hostile : public ::testing::Test {};
TYPED_TEST_SUITE(Hostile, Backends, BackendName);

// A rank-1 View of stride 0 is one element seen n times: as an output it is refused (nothing
// written, not even past its one element); as an input it is a broadcast of that element.
TYPED_TEST(Hostile, stride_zero_views) {
  using Exec = TypeParam;
  using Space = typename Exec::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Strided = Kokkos::View<float*, Kokkos::LayoutStride, Space, Unmanaged>;
  const Exec exec;
  auto rng = unison::test::engine();
  Arena<Exec, float> arena(64, rng, false);
  Strided zero(arena.data.data() + 3, Kokkos::LayoutStride(8, 0));
  Strided y(arena.data.data() + 20, Kokkos::LayoutStride(8, 1));
  Strided out(arena.data.data() + 40, Kokkos::LayoutStride(8, 1));
  EXPECT_THROW(unison::add(exec, y, 0.f, zero), unison::invalid_argument);
  EXPECT_THROW(unison::add(exec, y, y, zero), unison::invalid_argument);
  Kokkos::fence();
  auto after = arena.now();
  for (std::size_t k = 0; k < after.size(); ++k) ASSERT_EQ(after[k], arena.before[k]) << k;
  // out(i) = zero(i) + y(i) = arena[3] + y(i), never a neighbour of arena[3].
  unison::add(exec, zero, y, out);
  Kokkos::fence();
  after = arena.now();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(after[40 + i], arena.before[3] + arena.before[20 + i]) << "element " << i;
}

// Views that share an allocation but no element are not refused: the columns of an 8 x 2
// matrix, the even and the odd elements of an array.
TYPED_TEST(Hostile, interleaved_views) {
  using Exec = TypeParam;
  const Exec exec;
  Kokkos::View<float**, Kokkos::LayoutRight, typename Exec::memory_space> M("M", 8, 2);
  unison::test::fill(M, unison::test::uniform<float>(-1, 1));
  const auto before = unison::test::to_host(M);
  auto c0 = Kokkos::subview(M, Kokkos::ALL, 0), c1 = Kokkos::subview(M, Kokkos::ALL, 1);
  unison::add(exec, c1, 1.f, c0);
  auto after = unison::test::to_host(M);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(after[2 * i], float(before[2 * i + 1] + 1.f)) << i;
    EXPECT_EQ(after[2 * i + 1], before[2 * i + 1]) << i;
  }
  Kokkos::View<double*, typename Exec::memory_space> a("a", 17);
  unison::test::fill(a, unison::test::uniform<double>(-1, 1));
  const auto a0 = unison::test::to_host(a);
  using Strided = Kokkos::View<double*, Kokkos::LayoutStride, typename Exec::memory_space>;
  Strided evens(a.data(), Kokkos::LayoutStride(8, 2)),
      odds(a.data() + 1, Kokkos::LayoutStride(8, 2));
  unison::hypot(exec, evens, 0.0, odds);
  unison::clip(exec, odds, -0.5, 0.5, evens);
  const auto a1 = unison::test::to_host(a);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(a1[2 * i + 1], std::fabs(a0[2 * i])) << i;
    EXPECT_EQ(a1[2 * i], std::min(0.5, std::fabs(a0[2 * i]))) << i;
  }
  EXPECT_EQ(a1[16], a0[16]);
  // Shifted by one element, the same strides: they share elements, and are refused.
  Strided shifted(a.data() + 2, Kokkos::LayoutStride(8, 2));
  EXPECT_THROW(unison::add(exec, evens, 1.0, shifted), unison::invalid_argument);
}

// make_pulses takes period and amplitude as out's value type: a double beyond float's range
// arrives as an infinity, and the message says so rather than blaming the caller's value.
TYPED_TEST(Hostile, make_pulses_period_beyond_float) {
  using Exec = TypeParam;
  Kokkos::View<float*, typename Exec::memory_space> t("t", 4), noise("noise", 4), out("out", 4);
  try {
    unison::make_pulses(Exec(), t, noise, float(1e300), 1.f, out);
    ADD_FAILURE() << "not refused";
  } catch (const unison::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("as out's value type"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3.40282e+38"), std::string::npos) << e.what();
  }
}

constexpr int cases_per_function = 60;

// Runs the element-wise function `call` over random cases of rank 1 and 2, hostile values.
template <class Exec, class T, int Inputs, class Call, class Ref>
void elementwise_cases(const Call& call, const Ref& ref, double ulps, bool hostile = true) {
  auto rng = unison::test::engine();
  int ran = 0, refused = 0;
  for (int k = 0; k < cases_per_function; ++k) {
    const int rank = k % 2 + 1;
    const Case c = make_case(rank, Inputs, rng);
    Arena<Exec, T> arena(c.arena, rng, hostile);
    if (rank == 1) check_case<Exec, T, 1, Inputs>(c, arena, call, ref, ulps, ran, refused);
    else check_case<Exec, T, 2, Inputs>(c, arena, call, ref, ulps, ran, refused);
    if (::testing::Test::HasFailure()) return;
  }
  // The generator must reach both outcomes, or the suite tests less than it claims.
  EXPECT_GT(ran, cases_per_function / 3);
  EXPECT_GT(refused, 0);
}

// A user's function for transform: r where p < q, else p.
template <class T>
struct Select {
  KOKKOS_FUNCTION T operator()(T p, T q, T r) const { return p < q ? r : p; }
};

TYPED_TEST(Hostile, elementwise_float_and_double) {
  using Exec = TypeParam;
  const Exec exec;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    SCOPED_TRACE(sizeof(T) == 4 ? "float" : "double");
    elementwise_cases<Exec, T, 2>(
        [&](const auto& out, const auto& x, const auto& y) { unison::add(exec, x, y, out); },
        [](double x, double y) { return x + y; }, 0);
    elementwise_cases<Exec, T, 2>(
        [&](const auto& out, const auto& x, const auto& y) { unison::hypot(exec, x, y, out); },
        [](double x, double y) {
          return double(std::hypot(static_cast<long double>(x), static_cast<long double>(y)));
        },
        2);
    elementwise_cases<Exec, T, 1>(
        [&](const auto& out, const auto& x) { unison::zero_suppress(exec, x, T(15), out); },
        [](double x) { return x < 15 ? 0.0 : x; }, 0);
    elementwise_cases<Exec, T, 3>(
        [&](const auto& out, const auto& x, const auto& lo, const auto& hi) {
          unison::clip(exec, x, lo, hi, out);
        },
        [](double x, double lo, double hi) {  // NaN x stays NaN; lo > hi gives hi
          const double above = x < lo ? lo : x;
          return above > hi ? hi : above;
        },
        0);
    // A user's function through transform: three operands, exact arithmetic (a choice).
    elementwise_cases<Exec, T, 3>(
        [&](const auto& out, const auto& a, const auto& b, const auto& c) {
          unison::transform(exec, out, Select<T>{}, a, b, c);
        },
        [](double p, double q, double r) { return p < q ? r : p; }, 0);
    // Transcendental functions on ordinary values, within their documented accuracy.
    elementwise_cases<Exec, T, 3>(
        [&](const auto& out, const auto& x, const auto& m, const auto& s) {
          unison::gaussian_pdf(exec, x, m, s, out);
        },
        [](double x, double m, double s) {
          const long double z = (static_cast<long double>(x) - m) / s;
          return double(std::exp(-0.5L * z * z) / (s * std::sqrt(2 * 3.14159265358979323846L)));
        },
        // z is rounded to T before it is squared: exp(-z²/2) carries a relative error of about
        // z² ulps, and z² reaches 49 with these values.
        2 * 49 + 8, false);
  };
  body(0.0f);
  body(0.0);
}

}  // namespace
