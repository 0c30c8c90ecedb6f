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
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <unison/convolve.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/examples.hpp>
#include <unison/field.hpp>
#include <unison/histogram.hpp>
#include <unison/matmul.hpp>
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

// A uniform integer in [lo, hi], as the shapes and layouts of the cases draw them.
int uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
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
  auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
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
// written, not even past its one element; lucas and jagged_field alike); as an input it is a
// broadcast of that element.
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
  // lucas and jagged_field refuse such an out or f too, with the message that says why.
  const std::string same = "has elements that are the same memory";
  EXPECT_TRUE(unison::test::throws_invalid([&] { unison::examples::lucas(exec, zero); },
                                           "unison::examples::lucas", {"out (8) " + same}));
  using Strided2 = Kokkos::View<float**, Kokkos::LayoutStride, Space, Unmanaged>;
  const Strided2 rows(arena.data.data() + 3, Kokkos::LayoutStride(4, 0, 5, 1));
  EXPECT_TRUE(unison::test::throws_invalid([&] { unison::jagged_field(exec, rows, 11); },
                                           "unison::jagged_field", {"f (4x5) " + same}));
  Kokkos::fence();
  after = arena.now();
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

// The diffusion's messages name the View whose extents are expected (f: it has no out).
TYPED_TEST(Hostile, diffusion_messages_name_f) {
  using Exec = TypeParam;
  using Field = Kokkos::View<double**, typename Exec::memory_space>;
  Field f("f", 5, 7), lapl("lapl", 5, 6), next("next", 5, 7);
  for (int call = 0; call < 2; ++call) {
    try {
      if (call == 0) unison::diffuse(Exec(), f, 1, 0.1, lapl);
      else unison::diffusion_step(Exec(), f, next, lapl, 0.1);
      ADD_FAILURE() << "not refused";
    } catch (const unison::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("lapl is 5x6, expected 5x7 (the extents of f)"),
                std::string::npos)
          << e.what();
    }
  }
}

constexpr int cases_per_function = 60;

// Runs the element-wise function `call` over random cases of rank 1 and 2, hostile values.
template <class Exec, class T, int Inputs, int MaxRank = 2, class Call, class Ref>
void elementwise_cases(const Call& call, const Ref& ref, double ulps, bool hostile = true) {
  auto rng = unison::test::engine();
  int ran = 0, refused = 0;
  for (int k = 0; k < cases_per_function; ++k) {
    const int rank = k % MaxRank + 1;
    const Case c = make_case(rank, Inputs, rng);
    Arena<Exec, T> arena(c.arena, rng, hostile);
    if (rank == 1) check_case<Exec, T, 1, Inputs>(c, arena, call, ref, ulps, ran, refused);
    else if constexpr (MaxRank == 2)
      check_case<Exec, T, 2, Inputs>(c, arena, call, ref, ulps, ran, refused);
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
        [](double x, double lo, double hi) {  // NumPy's: a NaN anywhere gives NaN; lo > hi: hi
          if (std::isnan(x) || std::isnan(lo) || std::isnan(hi)) return x + lo + hi;
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

// make_pulses and hidden_layer (rank 1; out may be an input exactly), on ordinary values.
TYPED_TEST(Hostile, pulses_and_hidden_layer) {
  using Exec = TypeParam;
  const Exec exec;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    SCOPED_TRACE(sizeof(T) == 4 ? "float" : "double");
    // max(sin(t / period) - 0.3, 0) * amplitude + noise, within the sine's accuracy (the
    // argument t / period < 8 is rounded to T first: a few ulps of a value near 1).
    elementwise_cases<Exec, T, 2, 1>(
        [&](const auto& out, const auto& t, const auto& noise) {
          unison::make_pulses(exec, t, noise, T(0.5), T(2), out);
        },
        [](double t, double noise) {
          const double s = std::sin(double(T(t / 0.5))) - 0.3;
          return (s > 0 ? s : 0.0) * 2 + noise;
        },
        64, false);
    for (auto fusion : {unison::Fusion::fused, unison::Fusion::separate})
      elementwise_cases<Exec, T, 2, 1>(
          [&](const auto& out, const auto& g, const auto& w) {
            unison::hidden_layer(exec, g, w, out, fusion);
          },
          [](double g, double w) { return std::tanh(double(T(g / 255)) * w); }, 16, false);
  };
  body(0.0f);
  body(0.0);
}

// The other families: each operand a random layout in one arena (contiguous, strided,
// transposed, stride 0 for an input), an output now and then laid over an input (refused: these
// functions write a separate array) or of stride 0 (refused).
struct Operand {
  int rank;
  std::int64_t n0, n1;
  bool output;
  // A View of another rank over this layout's elements (a rank-3 View of its rows): Unison
  // compares its byte span with the other operands' (PRECONDITIONS.md), not its elements.
  bool conservative = false;
};

std::vector<Layout> make_family_case(const std::vector<Operand>& ops, std::mt19937_64& rng,
                                     std::int64_t& arena) {
  auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
  const std::int64_t guard = 5;
  std::int64_t next = guard;
  std::vector<Layout> ls;
  for (const auto& op : ops) {
    Layout l;
    l.rank = op.rank;
    l.n0 = op.n0;
    l.n1 = op.rank == 2 ? op.n1 : 1;
    const int kind = uni(0, 9);
    const std::int64_t gap = uni(2, 3);
    if (op.output && kind == 0 && !ls.empty()) {
      l = ls[uni(0, int(ls.size()) - 1)];  // over an earlier operand, shifted by 0 or 1
      l.rank = op.rank;
      l.n0 = op.n0;
      l.n1 = op.rank == 2 ? op.n1 : 1;
      l.offset += uni(0, 1);
      l.kind = "over an input";
      ls.push_back(l);
      continue;
    }
    if (kind == 1 && (!op.output || uni(0, 3) == 0)) {
      l.kind = "broadcast";
      l.s0 = 0;
      l.s1 = op.rank == 2 ? 1 : 0;
    } else if (kind <= 4) {
      l.kind = "strided";
      l.s0 = op.rank == 2 ? l.n1 * gap + uni(0, 2) : gap;
      l.s1 = op.rank == 2 ? gap : 0;
    } else if (kind <= 6 && op.rank == 2) {
      l.kind = "transposed";
      l.s0 = 1;
      l.s1 = l.n0;
    } else {
      l.kind = "contiguous";
      l.s0 = op.rank == 2 ? l.n1 : 1;
      l.s1 = op.rank == 2 ? 1 : 0;
    }
    l.offset = next;
    next = std::max(next, l.last() + 1) + guard + uni(0, 3);
    ls.push_back(l);
  }
  for (const auto& l : ls) next = std::max(next, l.last() + 1 + guard);
  arena = next;
  return ls;
}

// Runs `call(arena, layouts)` and checks its outputs against `ref(inputs)`: the elements of
// every operand as doubles, row by row; ref returns each output's elements row by row. tol is
// relative to the norm of each output (unison::test::close). Refusals are decided as for the
// element-wise family, except that no output may share an element with any other operand.
// How many calls of a test ran and how many were refused: the generator must reach both, or the
// suite tests less than it claims.
struct Tally {
  int ran = 0, refused = 0;
  ~Tally() {
    EXPECT_GT(ran, (ran + refused) / 3);
    EXPECT_GT(refused, 0);
  }
};

template <class Exec, class T, class Call, class Ref>
void family_cases(Tally& tally, const std::function<std::vector<Operand>(std::mt19937_64&)>& shapes,
                  const Call& call, const Ref& ref, double tol, int cases = cases_per_function) {
  auto rng = unison::test::engine();
  int& ran = tally.ran;
  int& refused = tally.refused;
  for (int c = 0; c < cases && !::testing::Test::HasFailure(); ++c) {
    const auto ops = shapes(rng);
    std::int64_t size = 0;
    const auto ls = make_family_case(ops, rng, size);
    Arena<Exec, T> arena(size, rng, false);
    std::ostringstream trace;
    Verdict expected = Verdict::must_run;
    for (std::size_t a = 0; a < ls.size(); ++a) {
      trace << "operand " << a << ": " << ls[a].describe() << "; ";
      if (!ops[a].output || ls[a].size() == 0) continue;
      if (self_overlapping(ls[a])) expected = Verdict::must_refuse;
      for (std::size_t b = 0; b < ls.size(); ++b) {
        if (b == a) continue;
        const bool spans_meet = ls[a].size() && ls[b].size() && ls[a].offset <= ls[b].last() &&
                                ls[b].offset <= ls[a].last();
        const bool conservative = ops[a].conservative || ops[b].conservative;
        if (share_element(ls[a], ls[b])) expected = Verdict::must_refuse;
        else if ((may_be_refused_as_overlap(ls[a], ls[b]) || (conservative && spans_meet)) &&
                 expected == Verdict::must_run)
          expected = Verdict::may_refuse;
      }
    }
    SCOPED_TRACE(trace.str());
    bool threw = false;
    std::string what;
    try {
      call(arena, ls);
      Kokkos::fence();
    } catch (const unison::invalid_argument& e) {
      threw = true;
      what = e.what();
    }
    const auto after = arena.now();
    std::vector<char> is_out(after.size(), 0);
    if (threw) {
      ++refused;
      EXPECT_NE(expected, Verdict::must_run) << "refused a valid call: " << what;
    } else {
      ++ran;
      EXPECT_NE(expected, Verdict::must_refuse) << "ran a call whose output overlaps an operand";
      std::vector<std::vector<double>> in;
      for (const auto& l : ls) {
        std::vector<double> v;
        for (auto k : l.addresses()) v.push_back(double(arena.before[k]));
        in.push_back(v);
      }
      const auto want = ref(in, ls);
      std::size_t o = 0;
      for (std::size_t a = 0; a < ls.size(); ++a) {
        if (!ops[a].output) continue;
        std::vector<double> got;
        for (auto k : ls[a].addresses()) {
          got.push_back(double(after[k]));
          is_out[k] = 1;
        }
        EXPECT_TRUE(unison::test::close(got, want.at(o++), tol)) << "output operand " << a;
      }
    }
    int shown = 0;
    for (std::size_t k = 0; k < after.size(); ++k)
      if (!is_out[k] && !same_bits(after[k], arena.before[k]) && shown++ < 4)
        ADD_FAILURE() << "arena element " << k
                      << " outside the outputs changed: " << arena.before[k] << " -> " << after[k]
                      << (threw ? " (by a refused call)" : "");
  }
}

template <class T>
constexpr double sum_tol() {
  return std::is_same_v<T, float> ? 2e-6 : 1e-13;
}

TYPED_TEST(Hostile, convolve) {
  using Exec = TypeParam;
  const Exec exec;
  Tally tally;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    for (auto mode :
         {unison::ConvolveMode::full, unison::ConvolveMode::same, unison::ConvolveMode::valid})
      for (auto alg : {unison::ConvolveAlgorithm::automatic, unison::ConvolveAlgorithm::direct,
                       unison::ConvolveAlgorithm::tiled}) {
        family_cases<Exec, T>(
            tally,
            [&](std::mt19937_64& rng) {
              const std::int64_t n = std::uniform_int_distribution<int>(1, 90)(rng);
              const std::int64_t m =
                  std::uniform_int_distribution<int>(1, int(std::min<std::int64_t>(n, 9)))(rng);
              return std::vector<Operand>{{1, n, 1, false},
                                          {1, m, 1, false},
                                          {1, unison::convolve_extent(n, m, mode), 1, true}};
            },
            [&](auto& arena, const std::vector<Layout>& l) {
              unison::convolve(exec, arena.template view<1>(l[0]), arena.template view<1>(l[1]),
                               arena.template view<1>(l[2]), mode, alg);
            },
            [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>&) {
              const auto &x = in[0], &k = in[1];
              const std::int64_t n = x.size(), m = k.size();
              std::vector<double> full(n + m - 1, 0.0);
              for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < m; ++j) full[i + j] += x[i] * k[j];
              const std::int64_t first = mode == unison::ConvolveMode::full   ? 0
                                         : mode == unison::ConvolveMode::same ? (m - 1) / 2
                                                                              : m - 1;
              const std::int64_t len = unison::convolve_extent(n, m, mode);
              return std::vector<std::vector<double>>{
                  std::vector<double>(full.begin() + first, full.begin() + first + len)};
            },
            sum_tol<T>(), 12);
      }
  };
  body(0.0f);
  body(0.0);
}

TYPED_TEST(Hostile, l2_norm_and_matmul_reduce) {
  using Exec = TypeParam;
  const Exec exec;
  Tally tally;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    family_cases<Exec, T>(
        tally,
        [&](std::mt19937_64& rng) {
          const std::int64_t n = std::uniform_int_distribution<int>(0, 40)(rng);
          const std::int64_t k = std::uniform_int_distribution<int>(1, 20)(rng);
          return std::vector<Operand>{{2, n, k, false}, {1, n, 1, true}};
        },
        [&](auto& arena, const std::vector<Layout>& l) {
          unison::l2_norm(exec, arena.template view<2>(l[0]), arena.template view<1>(l[1]));
        },
        [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>&) {
          const auto& V = in[0];
          const std::size_t n = in[1].size(), k = n ? V.size() / n : 0;
          std::vector<double> out(n, 0.0);
          for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < k; ++j) out[i] += V[i * k + j] * V[i * k + j];
            out[i] = std::sqrt(out[i]);
          }
          return std::vector<std::vector<double>>{out};
        },
        sum_tol<T>());
    for (auto method : {unison::MatmulMethod::automatic, unison::MatmulMethod::tiled}) {
      family_cases<Exec, T>(
          tally,
          [&](std::mt19937_64& rng) {
            auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
            const std::int64_t m = uni(1, 30), k = uni(1, 20), n = uni(1, 25);
            return std::vector<Operand>{{2, m, k, false}, {2, k, n, false}, {1, n, 1, true}};
          },
          [&](auto& arena, const std::vector<Layout>& l) {
            unison::matmul_reduce(exec, arena.template view<2>(l[0]), arena.template view<2>(l[1]),
                                  arena.template view<1>(l[2]), method);
          },
          [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>&) {
            const auto &A = in[0], &B = in[1];
            const std::size_t n = in[2].size(), k = B.size() / n, m = A.size() / k;
            std::vector<double> out(n, 0.0);
            for (std::size_t i = 0; i < m; ++i)
              for (std::size_t p = 0; p < k; ++p)
                for (std::size_t j = 0; j < n; ++j) out[j] += A[i * k + p] * B[p * n + j];
            return std::vector<std::vector<double>>{out};
          },
          // Sums of m k products of either sign: relative to the output's norm, with room
          // for cancellation.
          std::is_same_v<T, float> ? 2e-4 : 1e-11);
    }
  };
  body(0.0f);
  body(0.0);
}

// The diffusion's float64 reference: `steps` steps of f (nx x ny, row by row) with coefficient
// 0.1; returns the field after them, and each step's Laplacian in laps.
std::vector<double> diffused(std::vector<double> f, std::int64_t nx, std::int64_t ny, int steps,
                             std::vector<std::vector<double>>& laps) {
  laps.clear();
  for (int step = 0; step < steps; ++step) {
    auto at = [&](std::int64_t i, std::int64_t j) {
      return i < 0 || j < 0 || i >= nx || j >= ny ? 0.0 : f[i * ny + j];
    };
    std::vector<double> lapl(f.size());
    for (std::int64_t i = 0; i < nx; ++i)
      for (std::int64_t j = 0; j < ny; ++j)
        lapl[i * ny + j] =
            4 * at(i, j) - ((at(i - 1, j) + at(i + 1, j)) + (at(i, j - 1) + at(i, j + 1)));
    for (std::size_t c = 0; c < f.size(); ++c) f[c] -= 0.1 * lapl[c];
    laps.push_back(lapl);
  }
  return f;
}

TYPED_TEST(Hostile, diffusion_step) {
  using Exec = TypeParam;
  const Exec exec;
  Tally tally;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    for (auto alg : {unison::StencilAlgorithm::automatic, unison::StencilAlgorithm::plain,
                     unison::StencilAlgorithm::tiled, unison::StencilAlgorithm::streaming}) {
      family_cases<Exec, T>(
          tally,
          [&](std::mt19937_64& rng) {
            auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
            const std::int64_t nx = uni(1, 30), ny = uni(1, 40);
            return std::vector<Operand>{{2, nx, ny, false}, {2, nx, ny, true}, {2, nx, ny, true}};
          },
          [&](auto& arena, const std::vector<Layout>& l) {
            unison::diffusion_step(exec, arena.template view<2>(l[0]), arena.template view<2>(l[1]),
                                   arena.template view<2>(l[2]), 0.1, alg);
          },
          [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>& ls) {
            std::vector<std::vector<double>> laps;
            const auto next = diffused(in[0], ls[0].n0, ls[0].n1, 1, laps);
            return std::vector<std::vector<double>>{next, laps[0]};
          },
          sum_tol<T>(), 20);
      // diffuse: f in place, 3 steps, lapl the Laplacian before the last one.
      if (alg == unison::StencilAlgorithm::streaming) continue;
      family_cases<Exec, T>(
          tally,
          [&](std::mt19937_64& rng) {
            auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
            const std::int64_t nx = uni(1, 30), ny = uni(1, 40);
            return std::vector<Operand>{{2, nx, ny, true}, {2, nx, ny, true}};
          },
          [&](auto& arena, const std::vector<Layout>& l) {
            unison::DiffusionOptions options;
            options.algorithm = alg;
            unison::diffuse(exec, arena.template view<2>(l[0]), 3, 0.1,
                            arena.template view<2>(l[1]), unison::Laplacian::every_step, options);
          },
          [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>& ls) {
            std::vector<std::vector<double>> laps;
            const auto f = diffused(in[0], ls[0].n0, ls[0].n1, 3, laps);
            return std::vector<std::vector<double>>{f, laps.back()};
          },
          sum_tol<T>() * 4, 12);
    }
  };
  body(0.0f);
  body(0.0);
}

// diffuse_history: f advanced in place; a history of 3 planes over the rows of another operand
// (3 nx x ny), 4 steps, so that the planes end holding the Laplacians of steps 4, 2 and 3.
// lucas: out of any layout. jagged_field: any layout gives the values of a contiguous field, bit
// for bit (they depend on the seed and each cell's indices only).
TYPED_TEST(Hostile, history_lucas_and_jagged) {
  using Exec = TypeParam;
  using Space = typename Exec::memory_space;
  const Exec exec;
  Tally tally;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    auto uni = [](std::mt19937_64& rng, int lo, int hi) {
      return std::int64_t(std::uniform_int_distribution<int>(lo, hi)(rng));
    };
    for (auto alg : {unison::StencilAlgorithm::automatic, unison::StencilAlgorithm::plain,
                     unison::StencilAlgorithm::streaming}) {
      family_cases<Exec, T>(
          tally,
          [&](std::mt19937_64& rng) {
            const std::int64_t nx = uni(rng, 1, 20), ny = uni(rng, 1, 30);
            return std::vector<Operand>{{2, nx, ny, true}, {2, 3 * nx, ny, true, true}};
          },
          [&](auto& arena, const std::vector<Layout>& l) {
            const Layout& h = l[1];
            const std::int64_t nx = l[0].n0;
            const Kokkos::View<T***, Kokkos::LayoutStride, Space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
                history(arena.data.data() + h.offset,
                        Kokkos::LayoutStride(3, nx * h.s0, nx, h.s0, h.n1, h.s1));
            std::vector<std::pair<std::int64_t, std::int64_t>> groups;
            unison::DiffusionOptions options;
            options.algorithm = alg;
            unison::diffuse_history(
                exec, arena.template view<2>(l[0]), 4, 0.1, history,
                [&](std::int64_t first, std::int64_t count, const auto&, const auto&) {
                  groups.emplace_back(first, count);
                },
                options);
            EXPECT_EQ(groups, (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 3}, {4, 1}}));
          },
          [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>& ls) {
            std::vector<std::vector<double>> laps;
            const auto f = diffused(in[0], ls[0].n0, ls[0].n1, 4, laps);
            std::vector<double> planes = laps[3];
            for (int k : {1, 2}) planes.insert(planes.end(), laps[k].begin(), laps[k].end());
            return std::vector<std::vector<double>>{f, planes};
          },
          sum_tol<T>() * 4, 12);
    }
    family_cases<Exec, T>(
        tally,
        [&](std::mt19937_64& rng) {
          return std::vector<Operand>{{1, uni(rng, 0, 30), 1, true}};
        },
        [&](auto& arena, const std::vector<Layout>& l) {
          unison::examples::lucas(exec, arena.template view<1>(l[0]));
        },
        [&](const std::vector<std::vector<double>>& in, const std::vector<Layout>&) {
          std::vector<double> out;
          double a = 2, b = 1;  // L(i), L(i + 1)
          for (std::size_t i = 0; i < in[0].size(); ++i) {
            out.push_back(a);
            a = std::exchange(b, a + b);
          }
          return std::vector<std::vector<double>>{out};
        },
        0);
    family_cases<Exec, T>(
        tally,
        [&](std::mt19937_64& rng) {
          return std::vector<Operand>{{2, uni(rng, 1, 30), uni(rng, 1, 40), true}};
        },
        [&](auto& arena, const std::vector<Layout>& l) {
          unison::jagged_field(exec, arena.template view<2>(l[0]), 11);
        },
        [&](const std::vector<std::vector<double>>&, const std::vector<Layout>& ls) {
          Kokkos::View<T**, Space> whole("whole", ls[0].n0, ls[0].n1);
          unison::jagged_field(exec, whole, 11);
          return std::vector<std::vector<double>>{unison::test::to_host(whole)};
        },
        0, 20);
  };
  body(0.0f);
  body(0.0);
}

// Rank-3 outputs whose elements are not distinct: matmul_core's C and diffuse_history's planes
// with a stride of 0 along the batch or planes, refused with nothing written.
TYPED_TEST(Hostile, rank3_outputs_with_shared_elements) {
  using Exec = TypeParam;
  using Space = typename Exec::memory_space;
  using Rank3 =
      Kokkos::View<float***, Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Exec exec;
  auto rng = unison::test::engine();
  Arena<Exec, float> arena(256, rng, false);
  float* p = arena.data.data();
  const Rank3 A(p, Kokkos::LayoutStride(2, 12, 3, 4, 4, 1)),
      B(p + 24, Kokkos::LayoutStride(2, 8, 4, 2, 2, 1));
  const Rank3 C(p + 64, Kokkos::LayoutStride(2, 0, 3, 2, 2, 1));  // both products in one place
  EXPECT_TRUE(unison::test::throws_invalid([&] { unison::matmul_core(exec, A, B, C); },
                                           "unison::matmul_core",
                                           {"C (2x3x2) has elements that are the same memory"}));
  Kokkos::View<float**, Space> f("f", 3, 2);
  const Rank3 planes(p + 128, Kokkos::LayoutStride(4, 0, 3, 2, 2, 1));
  EXPECT_TRUE(unison::test::throws_invalid(
      [&] { unison::diffuse_history(exec, f, 4, 0.1, planes, [](auto...) {}); },
      "unison::diffuse_history", {"history (4x3x2) has elements that are the same memory"}));
  Kokkos::fence();
  const auto after = arena.now();
  for (std::size_t k = 0; k < after.size(); ++k)
    ASSERT_TRUE(same_bits(after[k], arena.before[k])) << k;
}

// detail::self_overlapping against the list of the elements' offsets, on random layouts of rank
// 2 and 3 (strides 0 to 12, extents 1 to 5).
TEST(HostileChecks, self_overlapping_is_exact) {
  auto rng = unison::test::engine();
  auto uni = [&](int lo, int hi) {
    return std::int64_t(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  std::vector<float> buf(1024);
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  int shared = 0, distinct = 0;
  for (int c = 0; c < 4000; ++c) {
    const bool three = c % 2 == 1;
    const std::int64_t n[3] = {uni(1, 5), uni(1, 5), three ? uni(1, 5) : 1};
    const std::int64_t s[3] = {uni(0, 12), uni(0, 12), three ? uni(0, 12) : 0};
    std::set<std::int64_t> seen;
    bool repeats = false;
    for (std::int64_t i = 0; i < n[0]; ++i)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t k = 0; k < n[2]; ++k)
          repeats = !seen.insert(i * s[0] + j * s[1] + k * s[2]).second || repeats;
    const bool got =
        three ? unison::detail::self_overlapping(
                    Kokkos::View<float***, Kokkos::LayoutStride, Kokkos::HostSpace, Unmanaged>(
                        buf.data(), Kokkos::LayoutStride(n[0], s[0], n[1], s[1], n[2], s[2])))
              : unison::detail::self_overlapping(
                    Kokkos::View<float**, Kokkos::LayoutStride, Kokkos::HostSpace, Unmanaged>(
                        buf.data(), Kokkos::LayoutStride(n[0], s[0], n[1], s[1])));
    ASSERT_EQ(got, repeats) << "extents " << n[0] << "x" << n[1] << "x" << n[2] << ", strides "
                            << s[0] << "," << s[1] << "," << s[2];
    ++(repeats ? shared : distinct);
  }
  EXPECT_GT(shared, 400);
  EXPECT_GT(distinct, 400);
}

// The histogram: x (float or double, hostile values) strided, transposed out of a matrix or of
// stride 0; counts (int64) strided or, refused, of stride 0; guards around both. The reference
// is the documented rule: bin k holds e_k <= v < e_{k+1}, e_k = fma(k, w, xmin), e_nbins = xmax.
TYPED_TEST(Hostile, histogram) {
  using Exec = TypeParam;
  const Exec exec;
  Tally tally;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    auto rng = unison::test::engine();
    auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
    for (int c = 0; c < cases_per_function && !::testing::Test::HasFailure(); ++c) {
      const std::int64_t n = uni(0, 200), nbins = uni(1, 40);
      Layout lx, lc;
      lx.n0 = n;
      lx.s0 = uni(0, 6) == 0 ? 0 : uni(1, 3);
      lx.offset = 5;
      lx.kind = lx.s0 == 0 ? "broadcast" : "strided";
      lc.n0 = nbins;
      lc.s0 = uni(0, 9) == 0 ? 0 : uni(1, 3);
      lc.offset = 5;
      lc.kind = lc.s0 == 0 ? "stride 0" : "strided";
      Arena<Exec, T> xs(lx.last() + 6, rng, true);
      Arena<Exec, std::int64_t> counts(lc.last() + 6, rng, false);
      // Ordinary values spread over the range too (the arena's hostile ones rarely fall in it).
      const double xmin = -3, xmax = uni(0, 1) ? 5 : 1e-3;
      SCOPED_TRACE("x: " + lx.describe() + "; counts: " + lc.describe());
      bool threw = false;
      try {
        unison::histogram(exec, xs.template view<1>(lx), xmin, xmax, counts.template view<1>(lc));
        Kokkos::fence();
      } catch (const unison::invalid_argument&) {
        threw = true;
      }
      const bool must_refuse = lc.s0 == 0 && nbins > 1;
      EXPECT_EQ(threw, must_refuse);
      (threw ? tally.refused : tally.ran) += 1;
      std::vector<std::int64_t> want(nbins, 0);
      const double w = (xmax - xmin) / double(nbins);
      for (std::int64_t i = 0; i < n; ++i) {
        const double v = double(xs.before[lx.at(i, 0)]);
        if (!(v >= xmin && v < xmax)) continue;
        std::int64_t k = 0;
        while (k + 1 < nbins && v >= std::fma(double(k + 1), w, xmin)) ++k;
        ++want[k];
      }
      const auto after = counts.now();
      for (std::size_t k = 0; k < after.size(); ++k) {
        const bool is_count = !threw && std::int64_t(k) >= lc.offset &&
                              (lc.s0 == 0 ? std::int64_t(k) == lc.offset
                                          : (std::int64_t(k) - lc.offset) % lc.s0 == 0 &&
                                                (std::int64_t(k) - lc.offset) / lc.s0 < nbins);
        if (is_count) EXPECT_EQ(after[k], want[(k - lc.offset) / (lc.s0 ? lc.s0 : 1)]) << k;
        else EXPECT_EQ(after[k], counts.before[k]) << "counts' arena element " << k << " changed";
      }
      const auto x_after = xs.now();
      for (std::size_t k = 0; k < x_after.size(); ++k)
        EXPECT_TRUE(same_bits(x_after[k], xs.before[k])) << "x's arena element " << k;
    }
  };
  body(0.0f);
  body(0.0);
}

// Rank-3 operands (matmul_core, rgb_to_grayscale): each a window inside a larger array of random
// values, LayoutRight or LayoutLeft (a transposed layout), so that the rest of the array guards
// it; an input now and then a broadcast along the batch (stride 0); the output now and then laid
// over an input's window (refused). Checked against a float64 reference; the arrays' elements
// outside the output's window must keep their bits.
template <class T, class Mem>
struct Window3 {
  Kokkos::View<T***, Kokkos::LayoutStride, Mem> big;   // the whole array (its layout as a stride)
  Kokkos::View<T***, Kokkos::LayoutStride, Mem> view;  // the window
  std::vector<T> before;
  std::vector<T> host_big() const {
    Kokkos::View<T***, Kokkos::LayoutRight, Mem> staged("staged", big.extent(0), big.extent(1),
                                                        big.extent(2));
    Kokkos::deep_copy(staged, big);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
    return std::vector<T>(h.data(), h.data() + h.size());
  }
};

template <class T, class Mem>
Window3<T, Mem> window3(std::int64_t n0, std::int64_t n1, std::int64_t n2, bool broadcast,
                        std::mt19937_64& rng) {
  Window3<T, Mem> w;
  auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
  const std::int64_t b0 = n0 + uni(0, 1), b1 = n1 + 2, b2 = n2 + 3;
  if (uni(0, 1)) w.big = Kokkos::View<T***, Kokkos::LayoutLeft, Mem>("big", b0, b1, b2);
  else w.big = Kokkos::View<T***, Kokkos::LayoutRight, Mem>("big", b0, b1, b2);
  unison::test::fill(
      Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(w.big.data(), w.big.span()),
      unison::test::uniform<T>(-2, 2));
  auto sub = Kokkos::subview(w.big, std::pair<std::int64_t, std::int64_t>(0, n0),
                             std::pair<std::int64_t, std::int64_t>(1, 1 + n1),
                             std::pair<std::int64_t, std::int64_t>(1, 1 + n2));
  Kokkos::LayoutStride l(n0, broadcast ? 0 : sub.stride(0), n1, sub.stride(1), n2, sub.stride(2));
  w.view = Kokkos::View<T***, Kokkos::LayoutStride, Mem>(sub.data(), l);
  w.before = w.host_big();
  return w;
}

// Element (i, j, k) of a window as its index in host_big()'s row-major order.
template <class W>
std::int64_t big_index(const W& w, std::int64_t i, std::int64_t j, std::int64_t k) {
  const std::int64_t off = w.view.data() - w.big.data() + i * std::int64_t(w.view.stride(0)) +
                           j * std::int64_t(w.view.stride(1)) + k * std::int64_t(w.view.stride(2));
  // Back from the offset in big's layout to big's (a, b, c).
  const std::int64_t s0 = w.big.stride(0), s1 = w.big.stride(1), s2 = w.big.stride(2);
  std::int64_t a, b, c;
  if (s2 == 1) {
    a = off / s0, b = off % s0 / s1, c = off % s1;
  } else {
    c = off / s2, b = off % s2 / s1, a = off % s1;
  }
  return (a * std::int64_t(w.big.extent(1)) + b) * std::int64_t(w.big.extent(2)) + c;
}

TYPED_TEST(Hostile, matmul_core_and_grayscale) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  const Exec exec;
  Tally tally;
  auto rng = unison::test::engine();
  auto uni = [&](int lo, int hi) { return uniform(rng, lo, hi); };
  for (int c = 0; c < cases_per_function && !::testing::Test::HasFailure(); ++c) {
    const std::int64_t b = uni(1, 6), m = uni(1, 7), n = uni(0, 6), p = uni(1, 7);
    auto A = window3<double, Mem>(b, m, n, uni(0, 5) == 0, rng);
    auto B = window3<double, Mem>(b, n, p, uni(0, 5) == 0, rng);
    auto C = window3<double, Mem>(b, m, p, false, rng);
    const bool over = uni(0, 7) == 0 && n == p;  // C over A's window (same shape)
    auto out = C.view;
    if (over)
      out = Kokkos::View<double***, Kokkos::LayoutStride, Mem>(A.view.data(), A.view.layout());
    SCOPED_TRACE(::testing::Message() << b << "x" << m << "x" << n << " times " << b << "x" << n
                                      << "x" << p << (over ? ", C over A" : ""));
    bool threw = false;
    try {
      unison::matmul_core(exec, A.view, B.view, out);
      Kokkos::fence();
    } catch (const unison::invalid_argument&) {
      threw = true;
    }
    EXPECT_EQ(threw, over);
    (threw ? tally.refused : tally.ran) += 1;
    const auto a1 = A.host_big(), b1 = B.host_big(), c1 = C.host_big();
    for (std::size_t k = 0; k < b1.size(); ++k) ASSERT_TRUE(same_bits(b1[k], B.before[k])) << k;
    if (threw || over) {
      for (std::size_t k = 0; k < c1.size(); ++k) ASSERT_TRUE(same_bits(c1[k], C.before[k])) << k;
      if (threw) {
        for (std::size_t k = 0; k < a1.size(); ++k) ASSERT_TRUE(same_bits(a1[k], A.before[k])) << k;
      }
      continue;
    }
    for (std::size_t k = 0; k < a1.size(); ++k) ASSERT_TRUE(same_bits(a1[k], A.before[k])) << k;
    std::vector<char> is_out(c1.size(), 0);
    for (std::int64_t q = 0; q < b; ++q)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < p; ++j) {
          double want = 0;
          for (std::int64_t k = 0; k < n; ++k)
            want += A.before[big_index(A, q, i, k)] * B.before[big_index(B, q, k, j)];
          const auto o = big_index(C, q, i, j);
          is_out[o] = 1;
          EXPECT_NEAR(c1[o], want, 1e-12 * (1 + std::fabs(want))) << q << " " << i << " " << j;
        }
    for (std::size_t k = 0; k < c1.size(); ++k)
      if (!is_out[k]) {
        ASSERT_TRUE(same_bits(c1[k], C.before[k])) << "C's array element " << k;
      }
  }
  for (int c = 0; c < cases_per_function && !::testing::Test::HasFailure(); ++c) {
    const std::int64_t h = uni(1, 9), w = uni(1, 11);
    auto rgb = window3<float, Mem>(h, w, 3, uni(0, 5) == 0, rng);
    auto gray = window3<float, Mem>(1, h, w, false, rng);  // plane 0 of a window
    auto g = Kokkos::subview(gray.view, 0, Kokkos::ALL, Kokkos::ALL);
    bool threw = false;
    try {
      unison::examples::rgb_to_grayscale(exec, rgb.view, g);
      Kokkos::fence();
    } catch (const unison::invalid_argument& e) {
      threw = true;
      ADD_FAILURE() << e.what();
    }
    (threw ? tally.refused : tally.ran) += 1;
    const auto r1 = rgb.host_big(), g1 = gray.host_big();
    for (std::size_t k = 0; k < r1.size(); ++k) ASSERT_TRUE(same_bits(r1[k], rgb.before[k])) << k;
    std::vector<char> is_out(g1.size(), 0);
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        const double want = 0.299 * rgb.before[big_index(rgb, i, j, 0)] +
                            0.587 * rgb.before[big_index(rgb, i, j, 1)] +
                            0.114 * rgb.before[big_index(rgb, i, j, 2)];
        const auto o = big_index(gray, 0, i, j);
        is_out[o] = 1;
        EXPECT_NEAR(g1[o], want, 2e-6 * 4) << i << " " << j;
      }
    for (std::size_t k = 0; k < g1.size(); ++k)
      if (!is_out[k]) {
        ASSERT_TRUE(same_bits(g1[k], gray.before[k])) << "gray's array element " << k;
      }
  }
  // A refusal is reached above only by matmul_core's C over A; make sure one is seen.
  {
    auto A = window3<double, Mem>(2, 3, 3, false, rng);
    auto B = window3<double, Mem>(2, 3, 3, false, rng);
    EXPECT_THROW(unison::matmul_core(exec, A.view, B.view, A.view), unison::invalid_argument);
    tally.refused += 1;
  }
}
}  // namespace
