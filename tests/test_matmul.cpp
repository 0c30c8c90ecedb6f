// matmul_reduce against a float64 host reference on every backend: every method, float and
// double, LayoutRight, LayoutLeft and strided operands, sizes around the tile shapes, the seed
// size on GPUs (positive data: relative error per element below 1e-5 in float32; signed data
// elsewhere, each element within 1e-5 of the size of its terms), sums past the value type's
// range (against a long double reference), NaN and infinities in the data, and every
// documented error.
// Beside them, the suites every family has: MatmulPreconditions, MatmulDeterminism,
// MatmulLabels and MatmulInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unison/backends/host/blas.hpp>
#include <unison/matmul.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "matmul_names.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::MatmulMethod;

const MatmulMethod methods[] = {MatmulMethod::automatic, MatmulMethod::tiled, MatmulMethod::gemm,
                                MatmulMethod::reassociated};

// out[j] = sum_i (A B)[i, j] in float64, as (1^T A) B: the same number in exact arithmetic,
// and O(mk + kn) work, so that the seed size can be checked too. a and b are row by row.
std::vector<double> reference(const std::vector<double>& a, const std::vector<double>& b, long m,
                              long k, long n) {
  std::vector<double> s(std::size_t(k), 0.0), out(std::size_t(n), 0.0);
  for (long i = 0; i < m; ++i)
    for (long p = 0; p < k; ++p) s[std::size_t(p)] += a[std::size_t(i * k + p)];
  for (long p = 0; p < k; ++p)
    for (long j = 0; j < n; ++j)
      out[std::size_t(j)] += s[std::size_t(p)] * b[std::size_t(p * n + j)];
  return out;
}

// |got - ref| <= tol * scale elementwise, where scale = 1^T |A| |B| bounds every term's size:
// signed data can make a column sum cancel to almost nothing, and no float method can then
// match it to 1e-5 of itself (float32 inputs of 5 rows already differ by more).
::testing::AssertionResult close_scaled(const std::vector<double>& got,
                                        const std::vector<double>& ref,
                                        const std::vector<double>& scale, double tol) {
  for (std::size_t j = 0; j < ref.size(); ++j)
    if (!(std::abs(got[j] - ref[j]) <= tol * scale[j]))
      return ::testing::AssertionFailure() << "[" << j << "] got " << got[j] << ", expected "
                                           << ref[j] << " (scale " << scale[j] << ")";
  return ::testing::AssertionSuccess();
}

std::vector<double> absolute(std::vector<double> v) {
  for (auto& x : v) x = std::abs(x);
  return v;
}

template <class Exec, class T, class LA, class LB>
void check(long m, long k, long n, double lo = -1, double hi = 1) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T**, LA, Mem> A("A", m, k);
  Kokkos::View<T**, LB, Mem> B("B", k, n);
  Kokkos::View<T*, Mem> out("out", n);
  fill(A, uniform<T>(lo, hi));
  fill(B, uniform<T>(lo, hi));
  const auto ha = to_host(A), hb = to_host(B);
  const auto ref = reference(ha, hb, m, k, n);
  const auto scale = reference(absolute(ha), absolute(hb), m, k, n);
  const bool blas = std::is_same_v<LA, LB>;
  for (auto method : methods) {
    if (method == MatmulMethod::gemm && !blas) continue;
    poison_fill(out);
    unison::matmul_reduce(exec, A, B, out, method);
    exec.fence();
    const auto got = to_host(out);
    EXPECT_TRUE(lo >= 0 ? close(got, ref, tolerance<T>())
                        : close_scaled(got, ref, scale, tolerance<T>()))
        << name(method) << ", " << m << "x" << k << "x" << n << ", "
        << (sizeof(T) == 4 ? "float" : "double") << ", " << typeid(LA).name() << " "
        << typeid(LB).name();
    // The caller's workspace (poisoned) gives the same bits where the method is deterministic.
    Kokkos::View<T*, Mem> work("work", unison::matmul_reduce_workspace_size<Exec>(m, k, n, method));
    poison_fill(work);
    poison_fill(out);
    unison::matmul_reduce(exec, A, B, out, method, work);
    exec.fence();
    if (method == MatmulMethod::tiled)
      EXPECT_TRUE(lo >= 0 ? close(to_host(out), ref, tolerance<T>())
                          : close_scaled(to_host(out), ref, scale, tolerance<T>()))
          << "tiled with a workspace, " << m << "x" << k << "x" << n;
    else
      EXPECT_TRUE(close(to_host(out), got, 0))
          << name(method) << " with a workspace, " << m << "x" << k << "x" << n;
  }
}

template <class Exec>
void test_sizes() {
  using Tuning = unison::backends::MatmulTuning<Exec>;
  const long tm = Tuning::tile_m, tk = Tuning::tile_k, tn = Tuning::tile_n;
  const long sizes[][3] = {{1, 1, 1},
                           {37, 53, 29},
                           {1, 70, 3},
                           {5, 1, 130},
                           {tm, tk, tn},
                           {tm + 1, tk + 1, tn + 1},
                           {tm - 1, 3 * tk + 1, tn - 1},
                           {2 * tm + 3, 2 * tk - 1, 2 * tn + 5},
                           {2 * tm + 3, 4 * tk + 4, 2 * tn + 4}};
  for (auto& s : sizes) {
    check<Exec, float, Kokkos::LayoutRight, Kokkos::LayoutRight>(s[0], s[1], s[2]);
    check<Exec, double, Kokkos::LayoutLeft, Kokkos::LayoutLeft>(s[0], s[1], s[2]);
  }
  check<Exec, float, Kokkos::LayoutLeft, Kokkos::LayoutRight>(67, 45, 131);
  check<Exec, double, Kokkos::LayoutRight, Kokkos::LayoutLeft>(131, 9, 67);
}

// The tiled and reassociated methods on Views A and B of any layout, against the reference.
template <class Exec, class AV, class BV>
void check_views(const Exec& exec, const AV& A, const BV& B, const char* what) {
  const long m = long(A.extent(0)), k = long(A.extent(1)), n = long(B.extent(1));
  Kokkos::View<float*, typename Exec::memory_space> out("out", n);
  const auto ha = to_host(A), hb = to_host(B);
  const auto ref = reference(ha, hb, m, k, n);
  const auto scale = reference(absolute(ha), absolute(hb), m, k, n);
  for (auto method : {MatmulMethod::tiled, MatmulMethod::reassociated}) {
    poison_fill(out);
    unison::matmul_reduce(exec, A, B, out, method);
    exec.fence();
    EXPECT_TRUE(close_scaled(to_host(out), ref, scale, tolerance<float>()))
        << name(method) << ", " << what;
  }
}

// A and B as strided subviews (every other column of a wider array), and as rows with
// contiguous elements that start one element past an aligned address (subviews from column 1,
// over sizes with whole tiles and edges); empty extents.
template <class Exec>
void test_strided_and_empty() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long m = 45, k = 37, n = 51;
  Kokkos::View<float**, Mem> wa("wa", m, 2 * k), wb("wb", k, 2 * n);
  fill(wa, uniform<float>(-1, 1));
  fill(wb, uniform<float>(-1, 1));
  Kokkos::View<float**, Kokkos::LayoutStride, Mem> As(
      wa.data(), Kokkos::LayoutStride(std::size_t(m), std::size_t(2 * k), std::size_t(k), 2));
  Kokkos::View<float**, Kokkos::LayoutStride, Mem> Bs(
      wb.data(), Kokkos::LayoutStride(std::size_t(k), std::size_t(2 * n), std::size_t(n), 2));
  check_views(exec, As, Bs, "strided");
  using Tuning = unison::backends::MatmulTuning<Exec>;
  const long m2 = 2 * Tuning::tile_m + 1, k2 = 2 * Tuning::tile_k + 4, n2 = 2 * Tuning::tile_n + 4;
  Kokkos::View<float**, Mem> wa2("wa2", m2, k2 + 4), wb2("wb2", k2, n2 + 4);
  fill(wa2, uniform<float>(-1, 1));
  fill(wb2, uniform<float>(-1, 1));
  check_views(exec, Kokkos::subview(wa2, Kokkos::ALL, std::make_pair(1L, 1 + k2)),
              Kokkos::subview(wb2, Kokkos::ALL, std::make_pair(1L, 1 + n2)), "rows from column 1");
  // m or k zero: out is all zeros; n zero: nothing to do.
  for (auto mk : {std::make_pair(0L, 5L), std::make_pair(7L, 0L)}) {
    Kokkos::View<float**, Mem> a0("a0", mk.first, mk.second), b0("b0", mk.second, 9);
    Kokkos::View<float*, Mem> o0("o0", 9);
    for (auto method : methods) {
      poison_fill(o0);
      unison::matmul_reduce(exec, a0, b0, o0, method);
      exec.fence();
      EXPECT_TRUE(close(to_host(o0), std::vector<double>(9, 0.0), 0))
          << name(method) << ", " << mk.first << "x" << mk.second << "x9";
    }
  }
  Kokkos::View<float**, Mem> a1("a1", 4, 3), b1("b1", 3, 0);
  Kokkos::View<float*, Mem> o1("o1", 0);
  for (auto method : methods) unison::matmul_reduce(exec, a1, b1, o1, method);
  exec.fence();
}

// docs/workloads.md's seed size, m, k, n = 10000, 5000, 7000 float32, on GPUs (positive data, so
// that the relative error is that of each element). UNISON_MATMUL_SIZE="m k n" runs another size
// instead (a smaller one under compute-sanitizer, which slows the kernels down a hundredfold).
template <class Exec>
void test_seed_size() {
  if constexpr (is_host_v<Exec>) {
    GTEST_SKIP() << "the seed size runs on GPUs only (hours for the tiled method on one core)";
  } else {
    long m = 10000, k = 5000, n = 7000;
    if (const char* size = std::getenv("UNISON_MATMUL_SIZE")) {
      std::istringstream in(size);
      ASSERT_TRUE(in >> m >> k >> n && m > 0 && k > 0 && n > 0)
          << "UNISON_MATMUL_SIZE=\"" << size << "\": expected three positive sizes, \"m k n\"";
      std::cout << "matmul_reduce at " << m << "x" << k << "x" << n << " (UNISON_MATMUL_SIZE)\n";
    }
    check<Exec, float, Kokkos::LayoutRight, Kokkos::LayoutRight>(m, k, n, 0, 1);
  }
}

template <class Exec>
void test_errors() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const std::string fn = "unison::matmul_reduce";
  Kokkos::View<float**, Mem> A("A", 6, 5), B("B", 5, 4), wrong_b("wrong_b", 4, 4);
  Kokkos::View<float*, Mem> out("out", 4), short_out("short_out", 3);
  Kokkos::deep_copy(A, 1.f);
  Kokkos::deep_copy(B, 1.f);
  for (auto method : methods) {
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, wrong_b, out, method); }, fn,
                               {"A is 6x5 and B is 4x4: A's columns must be B's rows"}));
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, B, short_out, method); }, fn,
                               {"out is 3, expected 4 (B's columns)"}));
    Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> inside(A.data() + 2, 4);
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, B, inside, method); }, fn,
                               {"out (4) overlaps A (6x5)"}));
  }
  EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, B, out, MatmulMethod(7)); }, fn,
                             {"unknown method 7"}));
  // The gemm method takes two LayoutLeft or two LayoutRight operands.
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> right("right", 6, 5);
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> left("left", 5, 4);
  auto strided = Kokkos::subview(A, Kokkos::ALL, std::make_pair(0, 5));
  Kokkos::View<float**, Kokkos::LayoutStride, Mem> as(strided);
  for (auto call : {std::function<void()>(
                        [&] { unison::matmul_reduce(exec, right, left, out, MatmulMethod::gemm); }),
                    std::function<void()>(
                        [&] { unison::matmul_reduce(exec, as, B, out, MatmulMethod::gemm); })})
    EXPECT_TRUE(throws_invalid(call, fn,
                               {"the gemm method takes A and B both LayoutLeft or both "
                                "LayoutRight"}));
  // A temporary of 1e6 x 1e6 floats (4 TB): refused before anything is allocated. A and B are
  // unmanaged Views of 1e6 x 1 and 1 x 1e6 over one small allocation.
  Kokkos::View<float*, Mem> store("store", 1000000);
  Kokkos::View<float**, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> tall(store.data(), 1000000,
                                                                           1),
      wide(store.data(), 1, 1000000);
  Kokkos::View<float*, Mem> big_out("big_out", 1000000);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, tall, wide, big_out, MatmulMethod::gemm); }, fn,
      {"the gemm method's temporary A.B (1000000x1000000) with its partial column sums needs ",
       std::string(" bytes free in the ") + Mem::name() + " memory space"}));
  // A temporary of (2^31 - 1)^2 floats, more bytes than a 64-bit size counts: refused as such.
  // A (2^31 - 1 x 1) and B (1 x 2^31 - 1) view one float, out (2^31 - 1) the addresses just past
  // A's: never read nor written, the call being refused before anything runs.
  Kokkos::View<float*, Mem> x("x", 1);
  const std::int64_t max_int = std::numeric_limits<int>::max();
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<float**, Mem, Unmanaged> taller(x.data(), max_int, 1), wider(x.data(), 1, max_int);
  Kokkos::View<float*, Mem, Unmanaged> out_past(
      reinterpret_cast<float*>(reinterpret_cast<std::uintptr_t>(x.data()) +
                               std::uintptr_t(max_int) * sizeof(float)),
      max_int);
  const auto huge = [&] {
    unison::matmul_reduce(exec, taller, wider, out_past, MatmulMethod::gemm);
  };
  EXPECT_TRUE(throws_invalid(
      huge, fn,
      {"the gemm method's temporary A.B (2147483647x2147483647) with its partial column sums "
       "needs about ",
       "e+19 bytes, more than 2^63 - 1"}));
  try {
    huge();
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).find("18446744073709551615"), std::string::npos) << e.what();
  }
  // The caller's workspace: too small, or overlapping an operand.
  const auto need = unison::matmul_reduce_workspace_size<Exec>(6, 5, 4, MatmulMethod::reassociated);
  Kokkos::View<float*, Mem> small("small", need - 1), work("work", need);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, A, B, out, MatmulMethod::reassociated, small); }, fn,
      {"workspace has " + std::to_string(need - 1) + " elements, the method needs " +
       std::to_string(need)}));
  Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> over_b(B.data(), need);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, A, B, out, MatmulMethod::automatic, over_b); }, fn,
      {"workspace (" + std::to_string(need) + ") overlaps B (5x4)"}));
  Kokkos::View<float*, Mem> both("both", need + 2);  // out and the workspace share 2 elements
  Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out_in(both.data(), 4),
      work_in(both.data() + 2, need);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, A, B, out_in, MatmulMethod::reassociated, work_in); }, fn,
      {"workspace (" + std::to_string(need) + ") overlaps out (4)"}));
  EXPECT_EQ(unison::matmul_reduce_workspace_size<Exec>(6, 5, 4, MatmulMethod::tiled), 0);
  EXPECT_GE(unison::matmul_reduce_workspace_size<Exec>(6, 5, 4, MatmulMethod::gemm), 6 * 4 + 4);
  // A refused call writes nothing.
  Kokkos::deep_copy(out, 3.f);
  EXPECT_ANY_THROW(unison::matmul_reduce(exec, A, wrong_b, out));
  EXPECT_ANY_THROW(unison::matmul_reduce(exec, right, left, out, MatmulMethod::gemm));
  exec.fence();
  for (double v : to_host(out)) EXPECT_EQ(v, 3.0);
}

// Range: sums that leave the value type's range while the result does not. Compared with a long
// double host reference (64-bit mantissa and a 15-bit exponent on x86-64: no overflow here),
// each element within tolerance<T>() of the size of its terms, 1^T |A| |B|.

// out[j] = sum_i (A B)[i, j] as (1^T A) B in long double; `abs` takes |A| and |B|.
std::vector<long double> reference_wide(const std::vector<double>& a, const std::vector<double>& b,
                                        long m, long k, long n, bool abs = false) {
  std::vector<long double> s(std::size_t(k), 0.0L), out(std::size_t(n), 0.0L);
  const auto at = [&](const std::vector<double>& v, long i) {
    const long double x = v[std::size_t(i)];
    return abs ? std::fabs(x) : x;
  };
  for (long i = 0; i < m; ++i)
    for (long p = 0; p < k; ++p) s[std::size_t(p)] += at(a, i * k + p);
  for (long p = 0; p < k; ++p)
    for (long j = 0; j < n; ++j) out[std::size_t(j)] += s[std::size_t(p)] * at(b, p * n + j);
  return out;
}

// Finite and |got - ref| <= tol * scale elementwise, in long double.
::testing::AssertionResult close_wide(const std::vector<double>& got,
                                      const std::vector<long double>& ref,
                                      const std::vector<long double>& scale, double tol) {
  for (std::size_t j = 0; j < ref.size(); ++j)
    if (!std::isfinite(got[j]) || !(std::fabs(got[j] - ref[j]) <= tol * scale[j]))
      return ::testing::AssertionFailure()
             << "[" << j << "] got " << got[j] << ", expected " << double(ref[j]) << " (scale "
             << double(scale[j]) << ")";
  return ::testing::AssertionSuccess();
}

// A (m x k) and B (k x n) from the host's row-by-row values, every method in `which`, with and
// without a workspace, against the long double reference.
template <class Exec, class T, class LA = Kokkos::LayoutRight, class LB = Kokkos::LayoutRight>
void check_wide(const std::vector<double>& ha, const std::vector<double>& hb, long m, long k,
                long n, std::vector<MatmulMethod> which, const std::string& what) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T**, LA, Mem> A("A", m, k);
  Kokkos::View<T**, LB, Mem> B("B", k, n);
  Kokkos::View<T*, Mem> out("out", n);
  auto a = Kokkos::create_mirror_view(A);
  auto b = Kokkos::create_mirror_view(B);
  for (long i = 0; i < m; ++i)
    for (long p = 0; p < k; ++p) a(i, p) = T(ha[std::size_t(i * k + p)]);
  for (long p = 0; p < k; ++p)
    for (long j = 0; j < n; ++j) b(p, j) = T(hb[std::size_t(p * n + j)]);
  Kokkos::deep_copy(A, a);
  Kokkos::deep_copy(B, b);
  const auto ref = reference_wide(ha, hb, m, k, n);
  const auto scale = reference_wide(ha, hb, m, k, n, true);
  for (auto method : which) {
    if (method == MatmulMethod::gemm && !std::is_same_v<LA, LB>) continue;
    poison_fill(out);
    unison::matmul_reduce(exec, A, B, out, method);
    exec.fence();
    EXPECT_TRUE(close_wide(to_host(out), ref, scale, tolerance<T>()))
        << name(method) << ", " << what << ", " << m << "x" << k << "x" << n << ", "
        << (sizeof(T) == 4 ? "float" : "double");
    // The workspace of T's own size, from the second element of a View (not aligned to 8
    // bytes for float: the double sums in it align themselves).
    const auto size = unison::matmul_reduce_workspace_size<Exec, T>(m, k, n, method);
    EXPECT_LE(size, unison::matmul_reduce_workspace_size<Exec>(m, k, n, method));
    Kokkos::View<T*, Mem> all("all", size + 1);
    const auto work = Kokkos::subview(all, std::make_pair(std::int64_t(1), size + 1));
    poison_fill(all);
    poison_fill(out);
    unison::matmul_reduce(exec, A, B, out, method, work);
    exec.fence();
    EXPECT_TRUE(close_wide(to_host(out), ref, scale, tolerance<T>()))
        << name(method) << " with a workspace, " << what << ", " << m << "x" << k << "x" << n
        << ", " << (sizeof(T) == 4 ? "float" : "double");
  }
}

const std::vector<MatmulMethod> all_methods(std::begin(methods), std::end(methods));
const std::vector<MatmulMethod> reassociated_only = {MatmulMethod::automatic,
                                                     MatmulMethod::reassociated};

// Where long double is no wider than double, no reference for double data near its largest value.
constexpr bool wide_reference = std::numeric_limits<long double>::max_exponent > 1024;

template <class Exec>
void test_sums_past_the_range() {
  // A's column sum passes float's largest value (6e38) before its last term brings it back: every
  // method gives 3e28 (each element of A.B is small).
  check_wide<Exec, float>({3e38, 3e38, -3e38}, {1e-10}, 3, 1, 1, all_methods, "A's column sum");
  if (wide_reference)
    check_wide<Exec, double>({1.5e308, 1.5e308, -1.5e308}, {1e-10}, 3, 1, 1, all_methods,
                             "A's column sum");
  // Without cancellation: 6e28, 3e298.
  check_wide<Exec, float>({3e38, 3e38}, {1e-10}, 2, 1, 1, all_methods, "A's column sum");
  if (wide_reference)
    check_wide<Exec, double>({1.5e308, 1.5e308}, {1e-10}, 2, 1, 1, all_methods, "A's column sum");
  // A.B's column sums pass the range (the gemm method's too): 3e38, 1.5e308. The tiled method
  // sums them in T (documented).
  const std::vector<MatmulMethod> but_tiled = {MatmulMethod::automatic, MatmulMethod::gemm,
                                               MatmulMethod::reassociated};
  check_wide<Exec, float>({3e38, 3e38, -3e38}, {1}, 3, 1, 1, but_tiled, "A.B's column sum");
  if (wide_reference)
    check_wide<Exec, double>({1.5e308, 1.5e308, -1.5e308}, {1}, 3, 1, 1, but_tiled,
                             "A.B's column sum");
  // The sum over k of s_p B[p, j] passes the range while out does not (1.5e38, 1.5e308), and
  // B's columns mixed: large, small, and cancelling. The tiled and gemm methods compute that
  // same sum as an element of A.B (m = 1), whose range is the value type's (documented): only
  // the reassociated method is asked for it.
  check_wide<Exec, float>({3e38, 3e38, 3e38}, {1, 1e-30f, 2, 1, 1e-30f, -1, -1.5, 1e-30f, -1}, 1, 3,
                          3, reassociated_only, "the sum over k");
  if (wide_reference)
    check_wide<Exec, double>({1e308, 1e308, 1e308}, {1, 1e-300, 2, 1, 1e-300, -1, -1.5, 1e-300, -1},
                             1, 3, 3, reassociated_only, "the sum over k");
  // Column sums of A past the range and products s_p B[p, j] past it, the result within it:
  // A's column sums are 9e38 (4.5e308), B's elements 0.5 and -0.25: 2.25e38 (1.125e308).
  check_wide<Exec, float>({3e38, 3e38, 3e38, 3e38, 3e38, 3e38}, {0.5, -0.25}, 3, 2, 1, all_methods,
                          "products of large column sums");
  if (wide_reference)
    check_wide<Exec, double>({1.5e308, 1.5e308, 1.5e308, 1.5e308, 1.5e308, 1.5e308}, {0.5, -0.25},
                             3, 2, 1, all_methods, "products of large column sums");
}

// Random data near the largest magnitude of T, random signs, A (m x k) with |A| in [0.5, 1] of
// it, B (k x n) in [-1, 1] / (m k): every element of A.B and every column sum of it within range,
// A's column sums beyond it. Odd sizes, more rows than one block of the column sums (256 on a
// CPU, 64 on a GPU), both layouts.
template <class Exec, class T, class LA, class LB>
void check_near_max(long m, long k, long n) {
  auto rng = engine();
  const double big = double(std::numeric_limits<T>::max());
  std::uniform_real_distribution<double> mag(0.5, 1.0), unit(-1.0, 1.0);
  std::vector<double> ha(std::size_t(m * k)), hb(std::size_t(k * n));
  for (auto& x : ha) x = double(T((rng() & 1 ? 1 : -1) * mag(rng) * big));
  for (auto& x : hb) x = double(T(unit(rng) / double(m * k)));
  check_wide<Exec, T, LA, LB>(ha, hb, m, k, n, all_methods, "near the largest value");
}

template <class Exec>
void test_near_max() {
  for (auto s : {std::array<long, 3>{37, 23, 19}, std::array<long, 3>{301, 45, 29},
                 std::array<long, 3>{1031, 7, 3}}) {
    check_near_max<Exec, float, Kokkos::LayoutRight, Kokkos::LayoutRight>(s[0], s[1], s[2]);
    check_near_max<Exec, float, Kokkos::LayoutLeft, Kokkos::LayoutLeft>(s[0], s[1], s[2]);
    if (wide_reference) {
      check_near_max<Exec, double, Kokkos::LayoutRight, Kokkos::LayoutRight>(s[0], s[1], s[2]);
      check_near_max<Exec, double, Kokkos::LayoutLeft, Kokkos::LayoutRight>(s[0], s[1], s[2]);
    }
  }
}

// NaN and infinities in A or B reach the elements of out whose terms hold them: +inf in A with
// B positive makes every element +inf; a NaN in B's column 2 makes out[2] NaN, the other elements
// as without it.
template <class Exec, class T>
void check_non_finite() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long m = 5, k = 4, n = 3;
  Kokkos::View<T**, Kokkos::LayoutRight, Mem> A("A", m, k), B("B", k, n);
  Kokkos::View<T*, Mem> out("out", n);
  fill(A, uniform<T>(0.5, 1));
  fill(B, uniform<T>(0.5, 1));
  const auto ref = reference(to_host(A), to_host(B), m, k, n);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  Kokkos::View<T**, Kokkos::LayoutRight, Mem> A_inf("A_inf", m, k), B_nan("B_nan", k, n);
  Kokkos::deep_copy(A_inf, A);
  Kokkos::deep_copy(B_nan, B);
  Kokkos::deep_copy(Kokkos::subview(A_inf, 2, 1), inf);
  Kokkos::deep_copy(Kokkos::subview(B_nan, 3, 2), nan);
  for (auto method : methods) {
    poison_fill(out);
    unison::matmul_reduce(exec, A_inf, B, out, method);
    exec.fence();
    for (double v : to_host(out))
      EXPECT_EQ(v, double(inf)) << name(method) << ", +inf in A, "
                                << (sizeof(T) == 4 ? "float" : "double");
    poison_fill(out);
    unison::matmul_reduce(exec, A, B_nan, out, method);
    exec.fence();
    const auto got = to_host(out);
    EXPECT_TRUE(std::isnan(got[2])) << name(method) << ", NaN in B: " << got[2];
    EXPECT_TRUE(close({got[0], got[1]}, {ref[0], ref[1]}, tolerance<T>()))
        << name(method) << ", NaN in B's column 2, " << (sizeof(T) == 4 ? "float" : "double");
  }
}

// The gemm method runs on the library matmul_gemm_library names: Kokkos Kernels announces its
// vendor-BLAS paths with a profiling region "KokkosBlas::gemm[TPL_<library>,<type>]", recorded
// here, for float and double, both layouts, and operands declared with the memory space (whose
// execution space is the default one, not necessarily exec's) or with exec itself.
std::vector<std::string> regions;
void record_region(const char* name) { regions.emplace_back(name); }

template <class Exec, class T, class Layout, class Space>
void expect_gemm_library(const std::string& tpl) {
  Exec exec;
  const long m = 7, k = 5, n = 3;
  Kokkos::View<T**, Layout, Space> A("A", m, k), B("B", k, n);
  Kokkos::View<T*, Space> out("out", n);
  Kokkos::deep_copy(A, T(1));
  Kokkos::deep_copy(B, T(2));
  regions.clear();
  Kokkos::Tools::Experimental::set_push_region_callback(record_region);
  unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm);
  Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
  exec.fence();
  for (double v : to_host(out)) EXPECT_EQ(v, double(m * k * 2));
  const std::string expected = "KokkosBlas::gemm[" + tpl + ",";
  bool found = false, any_tpl = false;
  for (const auto& r : regions) {
    found = found || r.rfind(expected, 0) == 0;
    any_tpl = any_tpl || r.rfind("KokkosBlas::gemm[TPL_", 0) == 0;
  }
  if (tpl.empty())
    EXPECT_FALSE(any_tpl) << "a vendor BLAS ran where matmul_gemm_library says Kokkos Kernels";
  else
    EXPECT_TRUE(found) << "expected " << expected << "...], " << regions.size() << " regions seen"
                       << (regions.empty() ? "" : ", the first " + regions.front()) << "; "
                       << (sizeof(T) == 4 ? "float" : "double") << " " << typeid(Layout).name()
                       << " " << Space::name();
}

template <class Exec>
void test_gemm_library() {
  const std::string library = unison::matmul_gemm_library<Exec>();
  const std::string tpl = library == "host BLAS" ? "TPL_BLAS"
                          : library == "cuBLAS"  ? "TPL_CUBLAS"
                                                 : "";
  using Mem = typename Exec::memory_space;
  expect_gemm_library<Exec, float, Kokkos::LayoutRight, Mem>(tpl);
  expect_gemm_library<Exec, double, Kokkos::LayoutLeft, Mem>(tpl);
  expect_gemm_library<Exec, float, Kokkos::LayoutLeft, Exec>(tpl);
  expect_gemm_library<Exec, double, Kokkos::LayoutRight, Exec>(tpl);
}

template <class Exec>
struct Matmul : ::testing::Test {};
TYPED_TEST_SUITE(Matmul, Backends, BackendName);

TYPED_TEST(Matmul, sizes_methods_layouts) { test_sizes<TypeParam>(); }
TYPED_TEST(Matmul, strided_and_empty) { test_strided_and_empty<TypeParam>(); }
TYPED_TEST(Matmul, seed_size) { test_seed_size<TypeParam>(); }
TYPED_TEST(Matmul, errors) { test_errors<TypeParam>(); }
TYPED_TEST(Matmul, sums_past_the_range) { test_sums_past_the_range<TypeParam>(); }
TYPED_TEST(Matmul, near_the_largest_value) { test_near_max<TypeParam>(); }
TYPED_TEST(Matmul, non_finite_inputs) {
  check_non_finite<TypeParam, float>();
  check_non_finite<TypeParam, double>();
}
TYPED_TEST(Matmul, gemm_runs_on_the_library_it_names) { test_gemm_library<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// matmul_reduce: its workspace size's arguments, and a refused call writing nothing.
template <class Exec>
void test_matmul() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* ws = "unison::matmul_reduce_workspace_size";
  EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(-1, 2, 3); }, ws,
                             {"m, k, n are -1, 2, 3", "expected 0 or more"}));
  EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(1, 2, -3); }, ws,
                             {"expected 0 or more"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(2, 2, 2, MatmulMethod(9)); },
                     ws, {"unknown method 9"}));
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce_workspace_size<Exec>(big, 1, big, MatmulMethod::gemm); }, ws,
      {"overflows a 64-bit count"}));
  EXPECT_EQ(unison::matmul_reduce_workspace_size<Exec>(big, 1, big, MatmulMethod::tiled), 0);
  EXPECT_EQ(unison::matmul_reduce_workspace_size<Exec>(0, 5, 4, MatmulMethod::gemm), 0);

  Kokkos::View<float**, Mem> A("A", 6, 5), B("B", 5, 4);
  Kokkos::View<float*, Mem> out("out", 4);
  Kokkos::deep_copy(out, 7.f);
  for (auto method : {MatmulMethod(7), MatmulMethod(-1)})
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, B, out, method); },
                               "unison::matmul_reduce", {"unknown method"}));
  Kokkos::View<float*, Mem> work("work", 1);
  EXPECT_ANY_THROW(unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm, work));
  exec.fence();
  EXPECT_TRUE(all_equal(out, 7.0));

  // The tiled method: more tiles of A.B than one launch holds (2^26 x 2^22, from Views whose
  // strides are 0, over one element each), refused with out unwritten.
  using Stride0 =
      Kokkos::View<float**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<float*, Mem> two("two", 2), wide_out("wide_out", std::int64_t(1) << 22);
  const Stride0 tall(two.data(), Kokkos::LayoutStride(std::int64_t(1) << 26, 0, 1, 0)),
      wide(two.data() + 1, Kokkos::LayoutStride(1, 0, std::int64_t(1) << 22, 0));
  Kokkos::deep_copy(wide_out, 7.f);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, tall, wide, wide_out, MatmulMethod::tiled); },
      "unison::matmul_reduce",
      {"A.B (67108864x4194304) has", "more than 2^31 - 1 for one launch"}));
  exec.fence();
  EXPECT_TRUE(all_equal(wide_out, 7.0));
}

}  // namespace preconditions

template <class Exec>
struct MatmulPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(MatmulPreconditions, Backends, BackendName);
TYPED_TEST(MatmulPreconditions, matmul) { preconditions::test_matmul<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// The one exception is the tiled method: each team adds its tile's column sums into out
// with a floating-point atomic, and the order of those additions (so the rounding) varies from
// run to run on a parallel backend, as its documentation says. Its two runs are compared within
// the float tolerance instead.

namespace determinism {

// Twice into out and twice with a caller's workspace (poisoned differently each time): bitwise.
template <class Exec, class T, class Layout>
void check_matmul_bitwise(MatmulMethod method, long m, long k, long n) {
  Exec exec;
  Kokkos::View<T**, Layout, Mem<Exec>> A("A", m, k), B("B", k, n);
  fill(A, uniform<T>(-1, 1));
  fill(B, uniform<T>(-1, 1));
  Kokkos::View<T*, Mem<Exec>> a("a", n), b("b", n);
  const std::string where = std::string(name(method)) + ", " + std::to_string(m) + "x" +
                            std::to_string(k) + "x" + std::to_string(n);
  twice(where, a, b, [&](const auto& out) { unison::matmul_reduce(exec, A, B, out, method); });
  const auto size = unison::matmul_reduce_workspace_size<Exec>(m, k, n, method);
  Kokkos::View<T*, Mem<Exec>> w1("w1", size), w2("w2", size), c("c", n), d("d", n);
  poison_pair(w1, w2);
  poison_pair(c, d);
  unison::matmul_reduce(exec, A, B, c, method, w1);
  unison::matmul_reduce(exec, A, B, d, method, w2);
  exec.fence();
  EXPECT_TRUE(bitwise_equal(c, d)) << where << ", with a workspace";
  EXPECT_TRUE(bitwise_equal(a, c)) << where << ", with and without a workspace";
}

template <class Exec>
void test_matmul_reduce_gemm() {
  // More rows than one block of the column sums (1024 on a CPU, 64 on a GPU); LayoutLeft too.
  // (Small k and n: Kokkos Kernels' own gemm, which the Serial backend gets, is slow in a Debug
  // build.)
  check_matmul_bitwise<Exec, float, Kokkos::LayoutRight>(MatmulMethod::gemm, 1031, 7, 37);
  check_matmul_bitwise<Exec, double, Kokkos::LayoutLeft>(MatmulMethod::gemm, 67, 5, 21);
}

template <class Exec>
void test_matmul_reduce_reassociated() {
  // More rows of A, then of B, than one block of the column sums; automatic is reassociated.
  check_matmul_bitwise<Exec, float, Kokkos::LayoutRight>(MatmulMethod::reassociated, 1031, 37, 131);
  check_matmul_bitwise<Exec, double, Kokkos::LayoutLeft>(MatmulMethod::automatic, 67, 1031, 53);
}

// The tiled method cannot promise bitwise equal runs: each team adds its tile's column sums to
// out with Kokkos::atomic_add (MatmulReduceTiled), and on a parallel backend the teams of one
// column finish in a different order from run to run, so the float additions round differently
// (matmul.hpp: "The order of the atomic additions varies from run to run: so do the last bits").
// The two runs must agree within the float tolerance, and neither may leave an element unwritten
// (poisons are NaN).
template <class Exec, class T>
void check_matmul_tiled(long m, long k, long n) {
  Exec exec;
  Kokkos::View<T**, Kokkos::LayoutRight, Mem<Exec>> A("A", m, k), B("B", k, n);
  fill(A, uniform<T>(-1, 1));
  fill(B, uniform<T>(-1, 1));
  Kokkos::View<T*, Mem<Exec>> a("a", n), b("b", n);
  poison_pair(a, b);
  unison::matmul_reduce(exec, A, B, a, MatmulMethod::tiled);
  unison::matmul_reduce(exec, A, B, b, MatmulMethod::tiled);
  exec.fence();
  const auto ha = to_host(a), hb = to_host(b);
  for (std::size_t j = 0; j < ha.size(); ++j) {
    ASSERT_TRUE(std::isfinite(ha[j])) << "run 1, [" << j << "] " << ha[j];
    ASSERT_TRUE(std::isfinite(hb[j])) << "run 2, [" << j << "] " << hb[j];
  }
  EXPECT_TRUE(close(hb, ha, tolerance<T>())) << m << "x" << k << "x" << n;
}

template <class Exec>
void test_matmul_reduce_tiled() {
  // Several tiles along m (whose column sums meet in out's atomics) and n, and several slices of
  // k: 64 x 64 x 64 tiles on a CPU, 128 x 128 x 8 on a GPU.
  using Tuning = unison::backends::MatmulTuning<Exec>;
  check_matmul_tiled<Exec, float>(3 * Tuning::tile_m + 1, Tuning::tile_k + 7, Tuning::tile_n + 3);
}

}  // namespace determinism

template <class Exec>
struct MatmulDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(MatmulDeterminism, Backends, BackendName);
TYPED_TEST(MatmulDeterminism, matmul_reduce_tiled) {
  determinism::test_matmul_reduce_tiled<TypeParam>();
}
TYPED_TEST(MatmulDeterminism, matmul_reduce_gemm) {
  determinism::test_matmul_reduce_gemm<TypeParam>();
}
TYPED_TEST(MatmulDeterminism, matmul_reduce_reassociated) {
  determinism::test_matmul_reduce_reassociated<TypeParam>();
}

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

// matmul_reduce's own kernels and allocations (KokkosBlas::gemm's are Kokkos Kernels').
template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", 9, 5), B("B", 5, 7);
  Kokkos::View<float*, Mem> out("out", 7);
  using unison::MatmulMethod;
  Kokkos::View<float*, Mem> work(
      "work",
      std::max(unison::matmul_reduce_workspace_size<Exec>(9, 5, 7, MatmulMethod::gemm),
               unison::matmul_reduce_workspace_size<Exec>(9, 5, 7, MatmulMethod::reassociated)));
  exec.fence();
  auto seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::tiled);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::reassociated, work);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm, work);
    exec.fence();
  });
  // KokkosBlas::gemm's own kernels run only where no BLAS library serves it ("Kokkos Kernels":
  // a build without OpenBLAS), and carry Kokkos Kernels' labels.
  std::vector<std::string> ours;
  for (const auto& label : seen.labels)
    if (label.rfind("kernel KokkosBlas::", 0) != 0) ours.push_back(label);
    else EXPECT_EQ(unison::matmul_gemm_library<Exec>(), "Kokkos Kernels") << label;
  expect_unison_labels(ours);
  expect_on(exec, seen);
  const std::string m = "unison::matmul_reduce::";
  expect_calls(seen,
               {{"unison::matmul_reduce", {m + "tiled"}},
                {"unison::matmul_reduce", {m + "a_partials", m + "a_sum"}},
                {"unison::matmul_reduce", {m + "product_partials", m + "product_sum"}}},
               {m, "KokkosBlas::"});
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* k :
       {"kernel unison::matmul_reduce::fill", "kernel unison::matmul_reduce::tiled",
        "kernel unison::matmul_reduce::a_partials", "kernel unison::matmul_reduce::a_sum",
        "kernel unison::matmul_reduce::b_partials", "kernel unison::matmul_reduce::b_sum",
        "kernel unison::matmul_reduce::product_partials",
        "kernel unison::matmul_reduce::product_sum"})
    EXPECT_TRUE(has(k)) << k;
  // The methods that take temporary memory: it is labelled when allocated (the first call after
  // release_temporary_memory), and no fence but Kokkos' own after an allocation waits for it.
  unison::release_temporary_memory();
  seen = record([&] {
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm);
    unison::matmul_reduce(exec, A, B, out, MatmulMethod::reassociated);
    exec.fence();
  });
  expect_on(exec, seen, Memory::allocated);
  expect_calls(seen,
               {{"unison::matmul_reduce", {m + "product_partials", m + "product_sum"}},
                {"unison::matmul_reduce", {m + "a_partials", m + "a_sum"}}},
               {m, "KokkosBlas::"});
  for (const char* k :
       {"allocation unison::matmul_reduce::work", "kernel unison::matmul_reduce::product_partials",
        "kernel unison::matmul_reduce::product_sum"})
    EXPECT_TRUE(has(k)) << k;
}

}  // namespace labels

template <class Exec>
struct MatmulLabels : ::testing::Test {};
TYPED_TEST_SUITE(MatmulLabels, Backends, BackendName);
TYPED_TEST(MatmulLabels, matmul) { labels::test_labels(TypeParam()); }

template <class Exec>
struct MatmulInstance : ::testing::Test {};
TYPED_TEST_SUITE(MatmulInstance, Backends, BackendName);
TYPED_TEST(MatmulInstance, matmul) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace

// The host BLAS's kernels, named, and a better choice offered exactly when OpenBLAS fell back to
// generic kernels on a CPU with AVX2 and FMA. CTest runs this test a second time with
// OPENBLAS_CORETYPE=Prescott (unison.host_blas_fallback): the fallback, forced.
TEST(HostBlas, names_its_kernels_and_a_better_choice_after_a_fallback) {
  const std::string core = unison::backends::host_blas_core();
  if (core.empty()) GTEST_SKIP() << "the linked BLAS is not OpenBLAS, or none is linked";
  const std::string better = unison::backends::host_blas_better_core();
  EXPECT_TRUE(better.empty() || better == "SkylakeX" || better == "Haswell") << better;
  for (const char* chosen : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    if (core == chosen) {
      EXPECT_EQ(better, "") << core;
    }
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced && std::string(forced) == "Prescott") {
    EXPECT_EQ(core, "Prescott");
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      EXPECT_NE(better, "");
    }
#endif
  }
}
