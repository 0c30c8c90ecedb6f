// The row-wise family (l2_norm, matmul_core) on every backend against a host reference in long
// double / double: odd sizes, the seed sizes, LayoutRight, LayoutLeft and strided Views, the
// extremes of l2_norm (huge, tiny, zero, infinite and NaN rows), determinism, and every
// documented error.
// Beside them, the suites every family has: RowwisePreconditions, RowwiseDeterminism,
// RowwiseLabels and RowwiseInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include <unison/rowwise.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

// Every element within rel of its reference (relative to the reference; exact for 0, inf and
// NaN in the same places).
::testing::AssertionResult each_close(const std::vector<double>& got,
                                      const std::vector<double>& ref, double rel) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << ref.size();
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool ok = std::isnan(ref[i])   ? std::isnan(got[i])
                    : std::isinf(ref[i]) ? got[i] == ref[i]
                                         : std::abs(got[i] - ref[i]) <= rel * std::abs(ref[i]);
    if (!ok)
      return ::testing::AssertionFailure()
             << "[" << i << "] got " << got[i] << ", expected " << ref[i] << " (rel " << rel << ")";
  }
  return ::testing::AssertionSuccess();
}

// The row norms of v (rows x cols, row by row) in long double, rounded to T.
template <class T>
std::vector<double> norms(const std::vector<double>& v, long rows, long cols) {
  std::vector<double> out;
  for (long i = 0; i < rows; ++i) {
    long double s = 0;
    for (long j = 0; j < cols; ++j) {
      const long double x = v[std::size_t(i * cols + j)];
      s += x * x;
    }
    out.push_back(double(T(std::sqrt(s))));
  }
  return out;
}

// One float ulp (the norm is computed in double and rounded once); double: the sum's rounding.
template <class T>
double norm_tolerance() {
  return sizeof(T) == 4 ? 1.2e-7 : 1e-13;
}

template <class Exec, class T, class Layout>
void check_l2(long rows, long cols) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T**, Layout, Mem> V("V", rows, cols);
  Kokkos::View<T*, Mem> out("out", rows);
  fill(V, uniform<T>(-1, 1));
  const auto ref = norms<T>(to_host(V), rows, cols);
  poison_fill(out);
  unison::l2_norm(exec, V, out);
  exec.fence();
  const auto got = to_host(out);
  EXPECT_TRUE(each_close(got, ref, norm_tolerance<T>()))
      << rows << "x" << cols << ", " << (sizeof(T) == 4 ? "float" : "double") << ", "
      << typeid(Layout).name();
  // Deterministic: a second run gives the same bits.
  poison_fill(out);
  unison::l2_norm(exec, V, out);
  exec.fence();
  EXPECT_TRUE(close(to_host(out), got, 0)) << rows << "x" << cols << ": second run differs";
}

template <class Exec>
void test_l2_sizes() {
  const long sizes[][2] = {{1, 1},   {1, 37},  {37, 1},     {3, 5},  {1000, 2},
                           {33, 31}, {7, 100}, {103, 1000}, {5, 33}, {65, 64}};
  for (auto& s : sizes) {
    check_l2<Exec, float, Kokkos::LayoutRight>(s[0], s[1]);
    check_l2<Exec, double, Kokkos::LayoutRight>(s[0], s[1]);
    check_l2<Exec, float, Kokkos::LayoutLeft>(s[0], s[1]);
    check_l2<Exec, double, Kokkos::LayoutLeft>(s[0], s[1]);
  }
}

// docs/workloads.md's seed sizes: 1e6 points of the plane, 1e4 rows of 1e3.
template <class Exec>
void test_l2_seed_sizes() {
  check_l2<Exec, float, Kokkos::LayoutRight>(1000000, 2);
  check_l2<Exec, float, Kokkos::LayoutRight>(10000, 1000);
}

// Rows that overflow or underflow a plain sum of squares, zeros, infinities and NaN; strided
// rows; no rows or empty rows.
template <class Exec, class T>
void check_l2_extremes(const std::vector<std::vector<double>>& rows_in) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long rows = long(rows_in.size()), cols = long(rows_in[0].size());
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> h("h", rows, cols);
  std::vector<double> flat;
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j) {
      h(i, j) = T(rows_in[std::size_t(i)][std::size_t(j)]);
      flat.push_back(double(h(i, j)));
    }
  auto V = Kokkos::create_mirror_view_and_copy(Mem(), h);
  Kokkos::View<T*, Mem> out("out", rows);
  poison_fill(out);
  unison::l2_norm(exec, V, out);
  exec.fence();
  EXPECT_TRUE(each_close(to_host(out), norms<T>(flat, rows, cols), norm_tolerance<T>()))
      << (sizeof(T) == 4 ? "float" : "double");
}

template <class Exec>
void test_l2_extremes() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  check_l2_extremes<Exec, double>({{1e200, -3e200, 2e200, 0, 1e199},
                                   {1e-200, 3e-200, -2e-200, 0, 5e-201},
                                   {1e-310, 0, -2e-310, 0, 3e-311},
                                   {0, 0, 0, 0, 0},
                                   {1, inf, 2, 0, 0},
                                   {1, -inf, nan, 0, 0},
                                   {nan, 1e300, 1e300, 0, 0},
                                   {1e300, 1e300, 1e-300, 1, 0},
                                   {3, 4, 0, 0, 0}});
  check_l2_extremes<Exec, float>({{2e38, -1e38, 0, 0, 1e37},
                                  {3e38, 3e38, 0, 0, 0},  // the norm overflows float: inf
                                  {3e-39, 4e-39, 0, 0, 0},
                                  {1e-44, 0, 0, 0, 0},
                                  {0, 0, 0, 0, 0},
                                  {1, inf, 2, 0, 0},
                                  {nan, 1, 2, 0, 0},
                                  {3, 4, 0, 0, 0}});
  // Strided rows (every other column of a wider array).
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long rows = 41, cols = 23;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> wide("wide", rows, 2 * cols);
  fill(wide, uniform<float>(-2, 2));
  Kokkos::View<float**, Kokkos::LayoutStride, Mem> Vs(
      wide.data(),
      Kokkos::LayoutStride(std::size_t(rows), std::size_t(2 * cols), std::size_t(cols), 2));
  Kokkos::View<float*, Mem> out("out", rows);
  poison_fill(out);
  unison::l2_norm(exec, Vs, out);
  exec.fence();
  EXPECT_TRUE(
      each_close(to_host(out), norms<float>(to_host(Vs), rows, cols), norm_tolerance<float>()))
      << "strided";
  // Empty rows: zeros. No rows: nothing to do.
  Kokkos::View<double**, Mem> e("e", 6, 0);
  Kokkos::View<double*, Mem> eo("eo", 6);
  poison_fill(eo);
  unison::l2_norm(exec, e, eo);
  exec.fence();
  EXPECT_TRUE(close(to_host(eo), std::vector<double>(6, 0.0), 0));
  Kokkos::View<double**, Mem> none("none", 0, 4);
  Kokkos::View<double*, Mem> none_out("none_out", 0);
  unison::l2_norm(exec, none, none_out);
  exec.fence();
}

// C(q) = A(q) B(q) in double on the host; and the size of each element's terms, sum |a||b|.
std::vector<double> products(const std::vector<double>& a, const std::vector<double>& b, long batch,
                             long m, long n, long p, bool absolute) {
  std::vector<double> c;
  for (long q = 0; q < batch; ++q)
    for (long i = 0; i < m; ++i)
      for (long j = 0; j < p; ++j) {
        double s = 0;
        for (long l = 0; l < n; ++l) {
          const double x = a[std::size_t((q * m + i) * n + l)],
                       y = b[std::size_t((q * n + l) * p + j)];
          s += absolute ? std::abs(x) * std::abs(y) : x * y;
        }
        c.push_back(s);
      }
  return c;
}

// The rank-3 View's elements in (q, i, j) order as doubles on the host.
template <class V>
std::vector<double> to_host3(const V& v) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T***, Kokkos::LayoutRight, typename V::memory_space> staged(
      "unison::test::staged", v.extent(0), v.extent(1), v.extent(2));
  Kokkos::deep_copy(staged, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  return std::vector<double>(h.data(), h.data() + h.size());
}

template <class V>
void fill3(const V& v, double lo, double hi) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T***, Kokkos::LayoutRight, Kokkos::HostSpace> h("unison::test::fill", v.extent(0),
                                                               v.extent(1), v.extent(2));
  auto rng = engine();
  auto gen = uniform<T>(lo, hi);
  for (std::size_t e = 0; e < h.size(); ++e) h.data()[e] = gen(rng);
  auto staged = Kokkos::create_mirror_view_and_copy(typename V::memory_space(), h);
  Kokkos::deep_copy(v, staged);
}

template <class Exec, class T, class LA, class LB, class LC>
void check_core(long batch, long m, long n, long p) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T***, LA, Mem> A("A", batch, m, n);
  Kokkos::View<T***, LB, Mem> B("B", batch, n, p);
  Kokkos::View<T***, LC, Mem> C("C", batch, m, p);
  fill3(A, -1, 1);
  fill3(B, -1, 1);
  const auto ha = to_host3(A), hb = to_host3(B);
  const auto ref = products(ha, hb, batch, m, n, p, false);
  const auto scale = products(ha, hb, batch, m, n, p, true);
  poison_fill(C);
  unison::matmul_core(exec, A, B, C);
  exec.fence();
  const auto got = to_host3(C);
  // Each element within a few roundings of the size of its terms (signed terms may cancel).
  const double eps = std::numeric_limits<T>::epsilon() * double(n + 1);
  bool ok = got.size() == ref.size();
  for (std::size_t e = 0; ok && e < ref.size(); ++e) {
    ok = std::abs(got[e] - ref[e]) <= eps * scale[e];
    EXPECT_TRUE(ok) << "[" << e << "] got " << got[e] << ", expected " << ref[e] << "; " << batch
                    << "x" << m << "x" << n << "x" << p << ", " << typeid(LC).name();
  }
  // Deterministic.
  poison_fill(C);
  unison::matmul_core(exec, A, B, C);
  exec.fence();
  EXPECT_TRUE(close(to_host3(C), got, 0)) << "second run differs";
}

// The same products from LayoutRight and LayoutLeft copies of the same operands: on CPUs the
// first are computed whole in registers where they fit, the second by gathers, and both add each
// element's terms in the same order, so they agree bit for bit.
template <class Exec, class T>
void check_core_layouts_agree(long batch, long m, long n, long p) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> A("A", batch, m, n), B("B", batch, n, p),
      C("C", batch, m, p);
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> Al("Al", batch, m, n), Bl("Bl", batch, n, p),
      Cl("Cl", batch, m, p);
  fill3(A, -1, 1);
  fill3(B, -1, 1);
  Kokkos::deep_copy(exec, Al, A);
  Kokkos::deep_copy(exec, Bl, B);
  poison_fill(C);
  poison_fill(Cl);
  unison::matmul_core(exec, A, B, C);
  unison::matmul_core(exec, Al, Bl, Cl);
  exec.fence();
  EXPECT_TRUE(close(to_host3(C), to_host3(Cl), 0))
      << batch << "x" << m << "x" << n << "x" << p << ": the two layouts' products differ";
}

template <class Exec>
void test_core_sizes() {
  using R = Kokkos::LayoutRight;
  using L = Kokkos::LayoutLeft;
  const long sizes[][4] = {{1, 1, 1, 1}, {7, 4, 4, 4},   {13, 3, 5, 7},
                           {5, 1, 9, 1}, {1, 17, 2, 19}, {3, 33, 31, 35}};
  for (auto& s : sizes) {
    check_core<Exec, float, R, R, R>(s[0], s[1], s[2], s[3]);
    check_core<Exec, double, L, L, L>(s[0], s[1], s[2], s[3]);
  }
  check_core<Exec, float, L, R, L>(9, 4, 6, 5);
  check_core<Exec, double, R, L, R>(9, 6, 4, 5);
  // Products small enough for one or more whole entries per CPU pack (4 or 8 doubles, 8 or 16
  // floats): whole and part packs, a group's last entries one by one, every lane's A and B
  // from a different place.
  const long small[][4] = {{1001, 2, 2, 2}, {999, 2, 3, 2}, {37, 1, 16, 1}, {50, 16, 1, 1},
                           {23, 1, 4, 2},   {41, 2, 1, 4},  {10, 3, 3, 3}};
  for (auto& s : small) {
    check_core<Exec, float, R, R, R>(s[0], s[1], s[2], s[3]);
    check_core<Exec, double, R, R, R>(s[0], s[1], s[2], s[3]);
    check_core_layouts_agree<Exec, float>(s[0], s[1], s[2], s[3]);
    check_core_layouts_agree<Exec, double>(s[0], s[1], s[2], s[3]);
  }
  check_core_layouts_agree<Exec, float>(1000, 4, 4, 4);
  // docs/workloads.md's seed size: 1e5 products of 4 x 4 by 4 x 4.
  check_core<Exec, float, R, R, R>(100000, 4, 4, 4);
  check_core<Exec, float, L, L, L>(100000, 4, 4, 4);
}

template <class Exec>
void test_core_strided_and_empty() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  // A as every other matrix of a batch twice as long; C strided likewise.
  const long batch = 11, m = 3, n = 4, p = 5;
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> wa("wa", 2 * batch, m, n), B("B", batch, n, p),
      wc("wc", 2 * batch, m, p);
  fill3(wa, -1, 1);
  fill3(B, -1, 1);
  Kokkos::View<float***, Kokkos::LayoutStride, Mem> As(
      wa.data(), Kokkos::LayoutStride(std::size_t(batch), std::size_t(2 * m * n), std::size_t(m),
                                      std::size_t(n), std::size_t(n), 1));
  Kokkos::View<float***, Kokkos::LayoutStride, Mem> Cs(
      wc.data(), Kokkos::LayoutStride(std::size_t(batch), std::size_t(2 * m * p), std::size_t(m),
                                      std::size_t(p), std::size_t(p), 1));
  poison_fill(wc);
  unison::matmul_core(exec, As, B, Cs);
  exec.fence();
  const auto ha = to_host3(As), hb = to_host3(B), got = to_host3(Cs);
  const auto ref = products(ha, hb, batch, m, n, p, false);
  const auto scale = products(ha, hb, batch, m, n, p, true);
  for (std::size_t e = 0; e < ref.size(); ++e)
    EXPECT_LE(std::abs(got[e] - ref[e]), 1e-6 * scale[e]) << "strided [" << e << "]";
  // n = 0: C is zeros. An empty batch or an empty C: nothing to do.
  Kokkos::View<double***, Mem> a0("a0", 4, 3, 0), b0("b0", 4, 0, 2), c0("c0", 4, 3, 2);
  poison_fill(c0);
  unison::matmul_core(exec, a0, b0, c0);
  exec.fence();
  EXPECT_TRUE(close(to_host3(c0), std::vector<double>(24, 0.0), 0));
  Kokkos::View<double***, Mem> a1("a1", 0, 3, 2), b1("b1", 0, 2, 2), c1("c1", 0, 3, 2);
  unison::matmul_core(exec, a1, b1, c1);
  exec.fence();
}

template <class Exec>
void test_errors() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  {
    const std::string fn = "unison::l2_norm";
    Kokkos::View<float**, Mem> V("V", 6, 5);
    Kokkos::View<float*, Mem> out("out", 6), short_out("short_out", 5);
    Kokkos::deep_copy(V, 1.f);
    EXPECT_TRUE(throws_invalid([&] { unison::l2_norm(exec, V, short_out); }, fn,
                               {"out is 5, expected 6 (V's rows; V is 6x5)"}));
    Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> inside(V.data() + 3, 6);
    EXPECT_TRUE(throws_invalid([&] { unison::l2_norm(exec, V, inside); }, fn,
                               {"out (6) overlaps V (6x5)"}));
    Kokkos::deep_copy(out, 3.f);
    EXPECT_ANY_THROW(unison::l2_norm(exec, V, short_out));
    exec.fence();
    for (double v : to_host(V)) EXPECT_EQ(v, 1.0);
    for (double v : to_host(out)) EXPECT_EQ(v, 3.0);
  }
  {
    const std::string fn = "unison::matmul_core";
    Kokkos::View<float***, Mem> A("A", 4, 3, 5), B("B", 4, 5, 2), C("C", 4, 3, 2);
    Kokkos::View<float***, Mem> B3("B3", 3, 5, 2), Bk("Bk", 4, 4, 2), Cw("Cw", 4, 2, 3);
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_core(exec, A, B3, C); }, fn,
                               {"A is 4x3x5 and B is 3x5x2: the batch extents differ"}));
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_core(exec, A, Bk, C); }, fn,
                               {"A is 4x3x5 and B is 4x4x2: A's columns must be B's rows"}));
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_core(exec, A, B, Cw); }, fn,
                               {"C is 4x2x3, expected 4x3x2"}));
    Kokkos::View<float***, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in_a(A.data() + 1, 4, 3,
                                                                              2),
        in_b(B.data(), 4, 3, 2);
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_core(exec, A, B, in_a); }, fn,
                               {"C (4x3x2) overlaps A (4x3x5)"}));
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_core(exec, A, B, in_b); }, fn,
                               {"C (4x3x2) overlaps B (4x5x2)"}));
    Kokkos::deep_copy(C, 3.f);
    EXPECT_ANY_THROW(unison::matmul_core(exec, A, Bk, C));
    exec.fence();
    for (double v : to_host3(C)) EXPECT_EQ(v, 3.0);
  }
}

template <class Exec>
struct Rowwise : ::testing::Test {};
TYPED_TEST_SUITE(Rowwise, Backends, BackendName);

TYPED_TEST(Rowwise, l2_norm_sizes_layouts) { test_l2_sizes<TypeParam>(); }
TYPED_TEST(Rowwise, l2_norm_seed_sizes) { test_l2_seed_sizes<TypeParam>(); }
TYPED_TEST(Rowwise, l2_norm_extremes_strided_empty) { test_l2_extremes<TypeParam>(); }
TYPED_TEST(Rowwise, matmul_core_sizes_layouts) { test_core_sizes<TypeParam>(); }
TYPED_TEST(Rowwise, matmul_core_strided_and_empty) { test_core_strided_and_empty<TypeParam>(); }
TYPED_TEST(Rowwise, errors) { test_errors<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// The row-wise functions: empty inputs valid, as the table says.
template <class Exec>
void test_rowwise() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  // l2_norm of a matrix with no columns: zeros, like NumPy.
  Kokkos::View<float**, Mem> V("V", 3, 0);
  Kokkos::View<float*, Mem> norms("norms", 3);
  Kokkos::deep_copy(norms, 7.f);
  unison::l2_norm(exec, V, norms);
  exec.fence();
  EXPECT_TRUE(all_equal(norms, 0.0));
  // matmul_core with n = 0: C is zeros.
  Kokkos::View<float***, Mem> A("A", 2, 3, 0), B("B", 2, 0, 4), C("C", 2, 3, 4);
  Kokkos::deep_copy(C, 7.f);
  unison::matmul_core(exec, A, B, C);
  exec.fence();
  const auto c = to_host(
      Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(C.data(), C.size()));
  for (double v : c) EXPECT_EQ(v, 0.0);
}

}  // namespace preconditions

template <class Exec>
struct RowwisePreconditions : ::testing::Test {};
TYPED_TEST_SUITE(RowwisePreconditions, Backends, BackendName);
TYPED_TEST(RowwisePreconditions, rowwise) { preconditions::test_rowwise<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.

namespace determinism {

template <class Exec>
void test_l2_norm() {
  Exec exec;
  // float rows, contiguous: several teams of rows (256 rows per CPU team).
  Kokkos::View<float**, Kokkos::LayoutRight, Mem<Exec>> v("v", 1031, 257);
  fill(v, uniform<float>(-10, 10));
  Kokkos::View<float*, Mem<Exec>> a("a", 1031), b("b", 1031);
  twice("float", a, b, [&](const auto& out) { unison::l2_norm(exec, v, out); });
  // double rows, strided (LayoutLeft), some huge or tiny: the rescaled second pass.
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem<Exec>> w("w", 1031, 129);
  fill(w, uniform<double>(-1, 1));
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  for (std::size_t i = 0; i < hw.extent(0); ++i)
    for (std::size_t j = 0; j < hw.extent(1); ++j)
      hw(i, j) *= i % 7 == 0 ? 1e200 : i % 11 == 0 ? 1e-170 : 1.0;
  Kokkos::deep_copy(w, hw);
  Kokkos::View<double*, Mem<Exec>> c("c", 1031), d("d", 1031);
  twice("double, rescaled rows", c, d, [&](const auto& out) { unison::l2_norm(exec, w, out); });
}

template <class Exec, class T, class Layout>
void check_matmul_core(long batch, long m, long n, long p) {
  Exec exec;
  using V = Kokkos::View<T***, Layout, Mem<Exec>>;
  V A("A", batch, m, n), B("B", batch, n, p), a("a", batch, m, p), b("b", batch, m, p);
  // fill() takes rank 1 and 2: fill the data through a rank-1 View of the same memory.
  Kokkos::View<T*, Mem<Exec>, Kokkos::MemoryTraits<Kokkos::Unmanaged>> fa(A.data(), A.size()),
      fb(B.data(), B.size());
  fill(fa, uniform<T>(-1, 1));
  fill(fb, uniform<T>(-1, 1));
  twice(typeid(Layout).name(), a, b, [&](const auto& C) { unison::matmul_core(exec, A, B, C); });
}

template <class Exec>
void test_matmul_core() {
  check_matmul_core<Exec, double, Kokkos::LayoutRight>(1001, 5, 7, 3);
  check_matmul_core<Exec, float, Kokkos::LayoutLeft>(1001, 4, 9, 5);  // batch fastest
}

}  // namespace determinism

template <class Exec>
struct RowwiseDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(RowwiseDeterminism, Backends, BackendName);
TYPED_TEST(RowwiseDeterminism, l2_norm) { determinism::test_l2_norm<TypeParam>(); }
TYPED_TEST(RowwiseDeterminism, matmul_core) { determinism::test_matmul_core<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", 9, 5);
  Kokkos::View<float*, Mem> norms("norms", 9);
  Kokkos::View<float***, Mem> a3("a3", 3, 2, 4), b3("b3", 3, 4, 5), c3("c3", 3, 2, 5);
  exec.fence();
  auto seen = record([&] {
    unison::l2_norm(exec, A, norms);
    unison::matmul_core(exec, a3, b3, c3);
    exec.fence();
  });
  expect_unison_labels(seen.labels);
  expect_calls(seen,
               {{"unison::l2_norm", {"unison::rowwise::l2_norm"}},
                {"unison::matmul_core", {"unison::rowwise::matmul_core"}}},
               {"unison::rowwise::"});
  expect_on(exec, seen);
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* k : {"kernel unison::rowwise::l2_norm", "kernel unison::rowwise::matmul_core"})
    EXPECT_TRUE(has(k)) << k;
}

}  // namespace labels

template <class Exec>
struct RowwiseLabels : ::testing::Test {};
TYPED_TEST_SUITE(RowwiseLabels, Backends, BackendName);
TYPED_TEST(RowwiseLabels, rowwise) { labels::test_labels(TypeParam()); }

template <class Exec>
struct RowwiseInstance : ::testing::Test {};
TYPED_TEST_SUITE(RowwiseInstance, Backends, BackendName);
TYPED_TEST(RowwiseInstance, rowwise) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
