// docs/workloads.md section 6, the histogram, on every backend: exact counts against a host count
// by the edges, adversarial values, both kernels, and every bad input's error. Beside them, the
// suites every family has: HistogramPreconditions, HistogramDeterminism, HistogramLabels and
// HistogramInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unison/histogram.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec>
struct Histogram : ::testing::Test {};
TYPED_TEST_SUITE(Histogram, Backends, BackendName);

// The bin of v by the documented edges, found by bisection over them (not by the kernel's way).
std::int64_t host_bin(double v, double xmin, double xmax, std::int64_t nbins) {
  if (!(v >= xmin && v < xmax)) return -1;
  const double width = (xmax - xmin) / double(nbins);
  const auto edge = [&](std::int64_t k) {
    return k >= nbins ? xmax : std::fma(double(k), width, xmin);
  };
  std::int64_t lo = 0, hi = nbins;  // edge(lo) <= v < edge(hi)
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    (v >= edge(mid) ? lo : hi) = mid;
  }
  // The documented rule itself, compared in long double (the edges' double values).
  const long double lv = v;
  if (!((long double)edge(lo) <= lv && lv < (long double)edge(lo + 1)))
    ADD_FAILURE() << "host_bin: " << v << " is not in its bin " << lo;
  return lo;
}

// The most bins whose private histograms fit a team's scratch for values of type T on Exec (one
// more takes the global-atomics kernel): HistogramTuning's room, found by bisection.
template <class Exec, class T>
std::int64_t team_bins_limit() {
  Exec exec;
  std::int64_t lo = 1, hi = std::int64_t(1) << 31;  // team kernel at lo, global atomics at hi
  EXPECT_GT((unison::detail::histogram::histogram_team_copies<Exec, T>(exec, lo)), 0);
  EXPECT_EQ((unison::detail::histogram::histogram_team_copies<Exec, T>(exec, hi)), 0);
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    (unison::detail::histogram::histogram_team_copies<Exec, T>(exec, mid) > 0 ? lo : hi) = mid;
  }
  return lo;
}

// Doubles and floats in the order of their values, as integers (-0 and +0 apart), and back.
std::int64_t ordered(double v) {
  std::int64_t i;
  std::memcpy(&i, &v, sizeof i);
  return i < 0 ? std::numeric_limits<std::int64_t>::min() - i - 1 : i;
}
double from_ordered(std::int64_t i) {
  if (i < 0) i = std::numeric_limits<std::int64_t>::min() - i - 1;
  double v;
  std::memcpy(&v, &i, sizeof v);
  return v;
}
std::int32_t ordered(float v) {
  std::int32_t i;
  std::memcpy(&i, &v, sizeof i);
  return i < 0 ? std::numeric_limits<std::int32_t>::min() - i - 1 : i;
}
float from_ordered(std::int32_t i) {
  if (i < 0) i = std::numeric_limits<std::int32_t>::min() - i - 1;
  float v;
  std::memcpy(&v, &i, sizeof v);
  return v;
}

template <class Exec, class T, class Count>
void check_histogram(const std::vector<T>& values, double xmin, double xmax, std::int64_t nbins,
                     const std::string& what) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T*, Kokkos::HostSpace> hx("hx", values.size());
  for (std::size_t i = 0; i < values.size(); ++i) hx(i) = values[i];
  auto x = Kokkos::create_mirror_view_and_copy(Mem(), hx);
  Kokkos::View<Count*, Mem> counts("counts", nbins);
  Kokkos::deep_copy(counts, Count(7));  // overwritten, not added to
  unison::histogram(exec, x, xmin, xmax, counts);
  exec.fence();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  std::vector<std::int64_t> want(nbins, 0);
  for (T v : values) {
    const std::int64_t k = host_bin(double(v), xmin, xmax, nbins);
    if (k >= 0) ++want[k];
  }
  int bad = 0;
  for (std::int64_t k = 0; k < nbins; ++k)
    if (std::int64_t(got(k)) != want[k] && ++bad <= 5)
      ADD_FAILURE() << what << ": bin " << k << " got " << std::int64_t(got(k)) << ", expected "
                    << want[k];
}

template <class Exec>
void test_histogram() {
  auto rng = engine();
  std::normal_distribution<double> normal(0, 1);
  // Random normal data, odd sizes, float and double, 32- and 64-bit counts.
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(300007)}) {
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = f[i] = float(normal(rng));
    check_histogram<Exec, float, std::int32_t>(f, -3, 3, 100, "normal float " + std::to_string(n));
    check_histogram<Exec, double, std::uint64_t>(d, -2.5, 4, 37,
                                                 "normal double " + std::to_string(n));
    check_histogram<Exec, float, std::int64_t>(f, -4, 4, 1, "one bin " + std::to_string(n));
  }
  // Too many bins for a team's scratch: the global-atomics kernel.
  {
    std::vector<float> f(200001);
    for (auto& v : f) v = float(normal(rng));
    check_histogram<Exec, float, std::int64_t>(f, -5, 5, 3000001, "3000001 bins");
  }
  // Fewer private copies on a GPU (400 bins: 16 copies fit a team's scratch, 4000: one), and on
  // a CPU that counts in packs (up to 4095 bins: 64 copies in its 1 MiB; 8000: 32; 10000: 16,
  // the fewest that take 16 increments at once; 20000: 8; 50000: 4).
  {
    std::vector<float> f(300007);
    for (auto& v : f) v = float(normal(rng));
    check_histogram<Exec, float, std::int32_t>(f, -3, 3, 400, "400 bins");
    check_histogram<Exec, float, std::int32_t>(f, -3.7, 3.1, 4000, "4000 bins");
    for (std::int64_t nbins : {8000, 10000, 20000, 50000})
      check_histogram<Exec, float, std::int64_t>(f, -3.3, 3.6, nbins,
                                                 std::to_string(nbins) + " bins");
  }
  // Float values whose first threshold lies many bins above xmin (float spacing 1 at 1e7, bins
  // of 0.01): the estimate is made in double. Edges beyond float's range: thresholds at
  // -FLT_MAX and +inf.
  {
    std::vector<float> f;
    for (int i = -3; i < 45; ++i) f.push_back(1e7f + float(i));
    for (int i = 0; i < 100001; ++i) f.push_back(1e7f + float(std::floor(normal(rng) * 15 + 20)));
    check_histogram<Exec, float, std::int32_t>(f, 1e7 + 0.3, 1e7 + 40.3, 4000, "offset float bins");
    std::vector<float> wide{-INFINITY, -FLT_MAX, -1e30f, -1.f, 0.f, 1e30f, FLT_MAX, INFINITY, NAN};
    for (int i = 0; i < 1001; ++i) wide.push_back(float(normal(rng)) * 1e38f);
    check_histogram<Exec, float, std::int64_t>(wide, -1e39, 1e39, 3, "bins past float's range");
  }
  // Adversarial: every value in one bin; the edges themselves, just below them, xmin, xmax,
  // below xmin, NaN, infinities.
  {
    std::vector<float> same(100003, 0.3f);
    check_histogram<Exec, float, std::int32_t>(same, 0, 1, 10, "one value");
    const double xmin = -1.3, xmax = 2.9;
    const std::int64_t nbins = 21;
    const double width = (xmax - xmin) / double(nbins);
    std::vector<double> v;
    for (std::int64_t k = 0; k <= nbins; ++k) {
      const double e = k == nbins ? xmax : std::fma(double(k), width, xmin);
      v.insert(v.end(), {e, std::nextafter(e, -INFINITY), std::nextafter(e, INFINITY)});
    }
    for (double e : std::vector<double>{xmin, xmax, xmin - 1, xmax + 1, std::nan(""), INFINITY,
                                        -INFINITY, 1e300, -1e300})
      v.push_back(e);
    check_histogram<Exec, double, std::int32_t>(v, xmin, xmax, nbins, "edges");
    std::vector<float> vf(v.begin(), v.end());
    check_histogram<Exec, float, std::int32_t>(vf, xmin, xmax, nbins, "edges as floats");
  }
  // Values 0 to 300 steps of their type either side of every edge, shuffled among normal
  // values: on CPUs those far enough from an edge are placed by the estimate alone, the others
  // by steps against the edges (it fails when the estimate's margin is 0).
  {
    const double xmin = -1.3, xmax = 2.9;
    const std::int64_t nbins = 21;
    const double width = (xmax - xmin) / double(nbins);
    std::vector<float> vf;
    std::vector<double> vd;
    for (std::int64_t k = 0; k <= nbins; ++k) {
      const double e = k == nbins ? xmax : std::fma(double(k), width, xmin);
      float fu = float(e), fd = fu;
      double du = e, dd = e;
      for (int s = 0; s <= 300; ++s) {
        vf.insert(vf.end(), {fu, fd});
        vd.insert(vd.end(), {du, dd});
        fu = std::nextafter(fu, INFINITY), fd = std::nextafter(fd, -INFINITY);
        du = std::nextafter(du, INFINITY), dd = std::nextafter(dd, -INFINITY);
      }
    }
    for (int i = 0; i < 20000; ++i) {
      vf.push_back(float(normal(rng) * 1.5 + 0.8));
      vd.push_back(normal(rng) * 1.5 + 0.8);
    }
    std::shuffle(vf.begin(), vf.end(), rng);
    std::shuffle(vd.begin(), vd.end(), rng);
    check_histogram<Exec, float, std::int32_t>(vf, xmin, xmax, nbins, "near the edges, float");
    check_histogram<Exec, double, std::int32_t>(vd, xmin, xmax, nbins, "near the edges, double");
  }
  // Values outside [xmin, xmax) a little or far (past 2^31 bins, infinite, NaN), one in about
  // five, shuffled among values inside: on CPUs the packs they fall in are placed by the range
  // check, the others by the estimate alone.
  {
    const double xmin = -2.2, xmax = 1.7;
    const std::int64_t nbins = 100;
    const double width = (xmax - xmin) / double(nbins);
    std::vector<double> outside{std::nan(""), INFINITY, -INFINITY, 1e300, -1e300, 1e30, -1e30};
    for (double d : {0.0, 1e-12, 1e-3, 0.25, 0.5, 0.99, 1.0, 1.5, 2.5, 1e3, 3e9, 1e10}) {
      outside.push_back(xmax + d * width);
      outside.push_back(std::nextafter(xmin, -INFINITY) - d * width);
    }
    std::vector<float> vf;
    std::vector<double> vd;
    for (int i = 0; i < 50000; ++i) {
      const double v =
          i % 5 == 0 ? outside[std::size_t(i / 5) % outside.size()] : normal(rng) * 0.9 - 0.25;
      vd.push_back(v);
      vf.push_back(float(v));
    }
    std::shuffle(vf.begin(), vf.end(), rng);
    std::shuffle(vd.begin(), vd.end(), rng);
    check_histogram<Exec, float, std::int32_t>(vf, xmin, xmax, nbins, "outside the range, float");
    check_histogram<Exec, double, std::int32_t>(vd, xmin, xmax, nbins, "outside the range, double");
  }
  // Errors.
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<float*, Mem> x("x", 10);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 4), none("none", 0);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 1.0, 1.0, counts); },
                             "unison::histogram", {"must be below xmax"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 2.0, 1.0, counts); },
                             "unison::histogram", {"must be below xmax"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 0.0, 1.0, none); },
                             "unison::histogram", {"counts is empty"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, -INFINITY, 1.0, counts); },
                             "unison::histogram", {"must be finite"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 0.0, std::nan(""), counts); },
                             "unison::histogram", {"must be finite"}));
  Kokkos::View<std::int32_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> alias(
      reinterpret_cast<std::int32_t*>(x.data()), 4);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 0.0, 1.0, alias); },
                             "unison::histogram", {"overlaps x"}));
  Kokkos::View<std::int32_t*, Mem> one("one", 1);
  Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> huge(
      x.data(), std::size_t(std::numeric_limits<std::int32_t>::max()) + 1);  // never read
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, huge, 0.0, 1.0, one); },
                             "unison::histogram", {"more than counts' type can count"}));
}

// Bins far narrower than the spacing of doubles in their range: runs of equal edges (empty bins
// between them), values whose bin lies thousands of bins from (v - xmin) / width, on both
// kernels (the most bins a team's scratch holds, one more, and 200000).
template <class Exec>
void test_histogram_narrow_bins() {
  const std::int64_t limit = team_bins_limit<Exec, double>();
  // Doubles 0.125 apart at 1e15, bins of 5e-6: edges 87500 to 112499 are all 1e15 + 0.5.
  EXPECT_EQ(host_bin(1e15 + 0.5, 1e15, 1e15 + 1, 200000), 112499);
  for (const std::int64_t nbins : {std::int64_t(200000), limit + 1, limit})
    check_histogram<Exec, double, std::int64_t>({1e15 + 0.5}, 1e15, 1e15 + 1, nbins,
                                                "1e15 + 0.5, " + std::to_string(nbins) + " bins");
  // Every double of [1e6, 1e6 + 1e-5): 85899 of them, 2^-33 apart, in bins of 5e-11.
  std::vector<double> all;
  for (double v = 1e6; v < 1e6 + 1e-5; v = std::nextafter(v, INFINITY)) all.push_back(v);
  EXPECT_EQ(all.size(), 85899u);
  for (const std::int64_t nbins : {std::int64_t(200000), limit + 1, limit})
    check_histogram<Exec, double, std::int32_t>(
        all, 1e6, 1e6 + 1e-5, nbins, "[1e6, 1e6 + 1e-5), " + std::to_string(nbins) + " bins");
}

// Random ranges at the extremes, values of type T: a few to thousands of T's (and for floats, of
// double's) spacings wide at any magnitude (runs of equal edges), wide up to where xmax - xmin
// nearly overflows, subnormal and with subnormal bins; bins counts on both kernels (a few, some
// thousands, the most a team's scratch holds, one more, 200000). Values: any T in and around the
// range (uniform over its representations and over its length), the edges and their neighbours, NaN
// and infinities.
template <class Exec, class T>
void check_extreme_ranges(const std::string& type) {
  auto rng = engine();
  std::uniform_real_distribution<double> unit(0, 1);
  const std::int64_t limit = team_bins_limit<Exec, T>();
  const double top = std::is_same_v<T, float> ? 38.5 : 307.9;  // log10 of the largest magnitude
  const auto magnitude = [&](double lo, double hi) {
    return (unit(rng) < 0.5 ? -1 : 1) * std::pow(10.0, lo + (hi - lo) * unit(rng));
  };
  std::vector<std::pair<double, double>> ranges{
      {1e15, 1e15 + 1},  {1e6, 1e6 + 1e-5}, {-8e307, 8e307},
      {-1e-308, 1e-308}, {0, 3e-308},       {-6e-309, 6e-309},
      {-1e39, 1e39},     {-3.4e38, 1e-30},  {16777216 - 3.7, 16777216 + 2.2}};
  for (int i = 0; i < 6; ++i) {
    // A few to thousands of T's spacings either side of a T at any magnitude.
    const T c = T(magnitude(-top, top));
    const double spacing = double(std::nextafter(c, T(INFINITY))) - double(c);
    ranges.push_back({double(c) - spacing * std::pow(2.0, 12 * unit(rng)),
                      double(c) + spacing * std::pow(2.0, 12 * unit(rng))});
    // Floats: a few to thousands of double's spacings either side of one (it alone in range).
    const double fine = std::nextafter(double(c), INFINITY) - double(c);
    if (std::is_same_v<T, float>)
      ranges.push_back({double(c) - fine * std::ceil(std::pow(2.0, 12 * unit(rng))),
                        double(c) + fine * std::ceil(std::pow(2.0, 12 * unit(rng)))});
    // Wide: from far below to far above, each end at any magnitude.
    const double a = std::fabs(magnitude(-300, 307.9)), b = std::fabs(magnitude(-300, 307.9));
    ranges.push_back({-a, b});
  }
  for (const auto& range : ranges) {
    const double xmin = range.first, xmax = range.second;  // (lambdas below capture them)
    std::uniform_int_distribution<std::int64_t> some(2, 50000);
    for (const std::int64_t nbins : {std::int64_t(1) + std::int64_t(unit(rng) * 3), some(rng),
                                     limit, limit + 1, std::int64_t(200000)}) {
      const double width = (xmax - xmin) / double(nbins);
      if (!std::isfinite(1 / width)) continue;  // too narrow for its bins (refused)
      const auto edge = [&](std::int64_t k) {
        return k >= nbins ? xmax : std::fma(double(k), width, xmin);
      };
      const T lo = std::nextafter(T(xmin), T(-INFINITY)), hi = std::nextafter(T(xmax), T(INFINITY));
      std::uniform_int_distribution<decltype(ordered(T()))> representation(ordered(lo),
                                                                           ordered(hi));
      std::uniform_int_distribution<std::int64_t> bin(0, nbins);
      std::vector<T> v{T(NAN), T(INFINITY), T(-INFINITY), T(xmin), T(xmax), T(0), lo, hi};
      for (int i = 0; i < 4001; ++i) {
        v.push_back(from_ordered(representation(rng)));
        v.push_back(T(std::fmin(xmin + unit(rng) * (xmax - xmin), xmax)));
        T e = T(edge(bin(rng)));
        v.push_back(e);
        for (int s = 0; s < 2; ++s) v.push_back(e = std::nextafter(e, T(INFINITY)));
        v.push_back(std::nextafter(T(edge(bin(rng))), T(-INFINITY)));
      }
      std::shuffle(v.begin(), v.end(), rng);
      std::ostringstream what;
      what.precision(17);
      what << type << " in [" << xmin << ", " << xmax << "), " << nbins << " bins";
      check_histogram<Exec, T, std::int64_t>(v, xmin, xmax, nbins, what.str());
    }
  }
}

// The bin of v among edges e by NumPy's rule for given edges (np.histogram with an array of
// bins): e_k <= v < e_{k+1}, the last bin closed, of equal edges the bin after the last; by
// std::upper_bound, not by the kernel's bisection.
std::int64_t host_edges_bin(double v, const std::vector<double>& e) {
  const std::int64_t nbins = std::int64_t(e.size()) - 1;
  if (!(v >= e[0] && v <= e[nbins])) return -1;
  if (v == e[nbins]) return nbins - 1;
  return std::int64_t(std::upper_bound(e.begin(), e.begin() + nbins, v) - e.begin()) - 1;
}

// A View of the values, contiguous or (strided) every other element of a buffer twice as long.
template <class Mem, class T>
Kokkos::View<T*, Kokkos::LayoutStride, Mem> put(const std::vector<T>& values, bool strided,
                                                Kokkos::View<T*, Mem>& keep) {
  const std::size_t n = values.size(), step = strided ? 2 : 1;
  keep = Kokkos::View<T*, Mem>("unison::test::values", n * step);
  auto h = Kokkos::create_mirror_view(keep);
  for (std::size_t i = 0; i < n; ++i) h(i * step) = values[i];
  Kokkos::deep_copy(keep, h);
  return Kokkos::View<T*, Kokkos::LayoutStride, Mem>(keep.data(), Kokkos::LayoutStride(n, step));
}

template <class Exec, class T, class E, class Count>
void check_edges(const std::vector<T>& values, const std::vector<E>& edges, bool strided,
                 const std::string& what) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<T*, Mem> xbuf;
  Kokkos::View<E*, Mem> ebuf;
  const auto x = put<Mem>(values, strided, xbuf);
  const auto e = put<Mem>(edges, strided, ebuf);
  const std::int64_t nbins = std::int64_t(edges.size()) - 1;
  Kokkos::View<Count*, Mem> counts("counts", nbins);
  Kokkos::deep_copy(counts, Count(7));  // overwritten, not added to
  unison::histogram(exec, x, e, counts);
  exec.fence();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  const std::vector<double> de(edges.begin(), edges.end());
  std::vector<std::int64_t> want(edges.size() > 1 ? edges.size() - 1 : 0, 0);
  for (T v : values) {
    const std::int64_t k = host_edges_bin(double(v), de);
    if (k >= 0) ++want[k];
  }
  int bad = 0;
  for (std::int64_t k = 0; k < nbins; ++k)
    if (std::int64_t(got(k)) != want[k] && ++bad <= 5)
      ADD_FAILURE() << what << (strided ? ", strided" : "") << ": bin " << k << " got "
                    << std::int64_t(got(k)) << ", expected " << want[k];
}

// Histograms over given edges: random sorted edges (some equal: bins of zero width; infinite
// outer edges), values on and beside every edge (float values next to double edges), outside
// them, infinities and NaN; float and double values and edges, 32- and 64-bit counts,
// contiguous and strided Views, odd sizes, the per-team kernel and (more bins than a team's
// scratch holds) the global atomics.
template <class Exec, class T, class E>
void check_edges_of_type(const std::string& type) {
  auto rng = engine();
  std::normal_distribution<double> normal(0, 2);
  for (std::int64_t nbins : {1, 2, 7, 100, 1000, 200003}) {
    std::vector<E> edges(nbins + 1);
    for (auto& v : edges) v = E(normal(rng));
    if (nbins >= 7) {
      edges[3] = edges[4];  // equal edges: a bin of zero width
      edges[5] = edges[4];
    }
    std::sort(edges.begin(), edges.end());
    if (nbins == 100) {
      edges.front() = -std::numeric_limits<E>::infinity();
      edges.back() = std::numeric_limits<E>::infinity();
    }
    // (Sanitised, the largest n is 50,021: still several of the kernels' chunks.)
    const std::size_t large = sanitized ? 50021 : 300007;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1001), large}) {
      if (nbins == 200003 && n < large) continue;
      std::vector<T> values(n);
      for (auto& v : values) v = T(normal(rng) * 1.2);
      // Values on the edges and next to them (in T), outside, infinite and NaN.
      for (std::size_t i = 0; i + 4 < n && i / 4 < std::size_t(nbins + 1); i += 4) {
        const T on = T(edges[i / 4]);
        values[i] = on;
        values[i + 1] = std::nextafter(on, std::numeric_limits<T>::infinity());
        values[i + 2] = std::nextafter(on, -std::numeric_limits<T>::infinity());
      }
      if (n > 8) {
        values[n - 1] = std::numeric_limits<T>::quiet_NaN();
        values[n - 2] = std::numeric_limits<T>::infinity();
        values[n - 3] = -std::numeric_limits<T>::infinity();
        values[n - 4] = T(edges.back());   // the last edge: in the last bin
        values[n - 5] = T(edges.front());  // the first edge: in the first bin
        values[n - 6] = T(1e30);
      }
      const std::string what =
          type + ", " + std::to_string(nbins) + " bins, n = " + std::to_string(n);
      check_edges<Exec, T, E, std::int64_t>(values, edges, false, what);
      check_edges<Exec, T, E, std::int32_t>(values, edges, n == 1001, what + ", int32");
    }
  }
}

template <class Exec>
void test_histogram_edges() {
  check_edges_of_type<Exec, float, double>("float values, double edges");
  check_edges_of_type<Exec, double, double>("double values, double edges");
  check_edges_of_type<Exec, float, float>("float values, float edges");
  check_edges_of_type<Exec, double, float>("double values, float edges");
  // Integer values, compared as doubles (int64 beyond 2^53 rounded first, as NumPy does), with
  // and without weights.
  {
    std::vector<double> e = {-1e18, -5.5, 0, 0, 3, 9007199254740993.0, 1e18};
    std::vector<std::int64_t> v = {-1000000000000000000,
                                   -6,
                                   -5,
                                   0,
                                   1,
                                   2,
                                   3,
                                   4,
                                   9007199254740992,
                                   9007199254740993,
                                   999999999999999999,
                                   1000000000000000000,
                                   std::numeric_limits<std::int64_t>::max()};
    check_edges<Exec, std::int64_t, double, std::int64_t>(v, e, false, "int64 values");
    std::vector<std::int32_t> w = {-7, -6, -5, 0, 1, 2, 3, 4, 2147483647, -2147483647 - 1};
    check_edges<Exec, std::int32_t, double, std::int32_t>(w, {-6, -5, 0, 0, 3, 4}, true,
                                                          "int32 values");
  }
  // Equal bins given as edges count as the equal-bins form, but for the closed last bin.
  std::vector<double> values, edges;
  for (int i = 0; i <= 10; ++i) edges.push_back(i / 10.0);
  for (int i = 0; i <= 1000; ++i) values.push_back(i / 1000.0);
  check_edges<Exec, double, double, std::int32_t>(values, edges, false, "tenths");
}

// Weighted histograms over given edges: the bins as host_edges_bin, each sum against a long
// double reference, and bit for bit against the documented order of additions (chunks of
// weighted_chunk(n, nbins) values added in x's order, then the chunks in order, in double): the
// same bits on every backend and thread count. Float and double values, weights and sums;
// strided Views.
template <class Exec, class T, class W, class S>
void check_weighted(std::size_t n, std::int64_t nbins, bool strided, const std::string& what) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  auto rng = engine();
  std::normal_distribution<double> normal(0, 1.5);
  std::vector<double> edges(nbins + 1);
  for (auto& v : edges) v = normal(rng);
  std::sort(edges.begin(), edges.end());
  std::vector<T> values(n);
  std::vector<W> weights(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = T(normal(rng));
    weights[i] = W(std::ldexp(normal(rng), int(rng() % 20) - 10));  // magnitudes 2^-10 to 2^10
  }
  if (n > 10) values[3] = std::numeric_limits<T>::quiet_NaN(), values[7] = T(edges.back());
  Kokkos::View<T*, Mem> xbuf;
  Kokkos::View<double*, Mem> ebuf;
  Kokkos::View<W*, Mem> wbuf;
  const auto x = put<Mem>(values, strided, xbuf);
  const auto e = put<Mem>(edges, false, ebuf);
  const auto w = put<Mem>(weights, strided, wbuf);
  Kokkos::View<S*, Mem> sums("sums", nbins);
  Kokkos::deep_copy(sums, S(7));
  unison::histogram(exec, x, e, w, sums);
  exec.fence();
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  const std::int64_t chunk = unison::detail::histogram::weighted_chunk(std::int64_t(n), nbins);
  std::vector<double> total(nbins, 0.0);
  std::vector<long double> ref(nbins, 0.0L), mag(nbins, 0.0L);
  for (std::size_t c0 = 0; c0 < n; c0 += std::size_t(chunk)) {
    std::vector<double> part(nbins, 0.0);
    for (std::size_t i = c0; i < std::min(n, c0 + std::size_t(chunk)); ++i) {
      const std::int64_t k = host_edges_bin(double(values[i]), edges);
      if (k < 0) continue;
      part[k] += double(weights[i]);
      ref[k] += (long double)weights[i];
      mag[k] += std::fabs((long double)weights[i]);
    }
    for (std::int64_t k = 0; k < nbins; ++k) total[k] += part[k];
  }
  int bad = 0;
  for (std::int64_t k = 0; k < nbins; ++k) {
    const S want = S(total[k]);
    const S have = got(k);
    const bool same = std::memcmp(&want, &have, sizeof(S)) == 0;
    const double err = std::fabs(double(have) - double(ref[k]));
    const double tol = 4 * std::numeric_limits<S>::epsilon() * double(mag[k]);
    if ((!same || err > tol) && ++bad <= 5)
      ADD_FAILURE() << what << (strided ? ", strided" : "") << ": bin " << k << " got "
                    << double(have) << ", the documented order gives " << double(want)
                    << ", long double " << double(ref[k]);
  }
}

// Integer weights: each bin's sum exact, against the host's sums in 64-bit integers (wrapping
// as NumPy's int64), in sums' type; weights near int64's limits wrap.
template <class Exec, class T, class W, class S>
void check_weighted_integers(std::size_t n, std::int64_t nbins, bool strided, bool huge,
                             const std::string& what) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  auto rng = engine();
  std::normal_distribution<double> normal(0, 1.5);
  std::vector<double> edges(nbins + 1);
  for (auto& v : edges) v = normal(rng);
  std::sort(edges.begin(), edges.end());
  std::vector<T> values(n);
  std::vector<W> weights(n);
  std::uniform_int_distribution<std::int64_t> small(-1000, 1000);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = T(normal(rng));
    weights[i] = huge ? W(std::numeric_limits<W>::max() - W(small(rng) + 1000)) : W(small(rng));
  }
  Kokkos::View<T*, Mem> xbuf;
  Kokkos::View<double*, Mem> ebuf;
  Kokkos::View<W*, Mem> wbuf;
  const auto x = put<Mem>(values, strided, xbuf);
  const auto e = put<Mem>(edges, false, ebuf);
  const auto w = put<Mem>(weights, strided, wbuf);
  Kokkos::View<S*, Mem> sums("sums", nbins);
  Kokkos::deep_copy(sums, S(7));
  unison::histogram(exec, x, e, w, sums);
  exec.fence();
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  std::vector<std::uint64_t> want(nbins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = host_edges_bin(double(values[i]), edges);
    if (k >= 0) want[k] += std::uint64_t(std::int64_t(weights[i]));
  }
  int bad = 0;
  for (std::int64_t k = 0; k < nbins; ++k)
    if (got(k) != S(std::int64_t(want[k])) && ++bad <= 5)
      ADD_FAILURE() << what << (strided ? ", strided" : "") << ": bin " << k << " got "
                    << std::int64_t(got(k)) << ", expected "
                    << std::int64_t(S(std::int64_t(want[k])));
}

template <class Exec>
void test_histogram_weighted() {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1001), std::size_t(50021)}) {
    for (std::int64_t nbins : {1, 7, 100}) {
      const std::string what = "n = " + std::to_string(n) + ", " + std::to_string(nbins) + " bins";
      check_weighted<Exec, float, float, float>(n, nbins, false, what + ", float");
      check_weighted<Exec, double, double, double>(n, nbins, n == 1001, what + ", double");
      check_weighted<Exec, float, double, double>(n, nbins, false, what + ", float x");
    }
  }
  check_weighted<Exec, std::int64_t, double, double>(50021, 7, true, "int64 values");
  for (std::size_t n : {std::size_t(0), std::size_t(1001), std::size_t(50021)}) {
    const std::string what = "n = " + std::to_string(n) + ", integer weights";
    check_weighted_integers<Exec, double, std::int64_t, std::int64_t>(n, 7, n == 1001, false, what);
    check_weighted_integers<Exec, float, std::int32_t, std::int32_t>(n, 100, false, false, what);
    check_weighted_integers<Exec, std::int32_t, std::int32_t, std::int64_t>(n, 7, true, false,
                                                                            what + ", int32 x");
  }
  check_weighted_integers<Exec, double, std::int64_t, std::int64_t>(50021, 5, false, true,
                                                                    "int64 weights that wrap");
  // Many bins (most of each chunk's partial sums stay 0). 50021 values: four chunks, the last
  // one partial.
  check_weighted<Exec, double, double, double>(50021, 2000, false, "2000 bins");
}

TYPED_TEST(Histogram, counts) { test_histogram<TypeParam>(); }
TYPED_TEST(Histogram, weighted) { test_histogram_weighted<TypeParam>(); }
TYPED_TEST(Histogram, edges) { test_histogram_edges<TypeParam>(); }
TYPED_TEST(Histogram, narrow_bins) { test_histogram_narrow_bins<TypeParam>(); }
TYPED_TEST(Histogram, extreme_ranges) {
  check_extreme_ranges<TypeParam, double>("double");
  check_extreme_ranges<TypeParam, float>("float");
}

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// histogram: parameters, empty x, counts' type, and a refused call writes nothing.
template <class Exec>
void test_histogram() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* fn = "unison::histogram";
  Kokkos::View<float*, Mem> x("x", 10), empty("empty", 0);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 4);
  for (const auto& range : {std::pair{nan_d, 1.0}, std::pair{0.0, inf_d}, std::pair{-inf_d, inf_d}})
    EXPECT_TRUE(
        throws_invalid([&] { unison::histogram(exec, x, range.first, range.second, counts); }, fn,
                       {"xmin and xmax must be finite"}));
  // xmax - xmin overflows double.
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, -1e308, 1e308, counts); }, fn,
                             {"the range [-1e+308, 1e+308) is too wide: xmax - xmin overflows"}));
  // Bins too narrow for the inverse of their width to be finite (subnormal or 0): refused, not
  // the width itself. Subnormal widths with a finite inverse are valid (Histogram.*).
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, 0.0, 1e-310, counts); }, fn,
                             {"the range [0, 1e-310) is too narrow for 4 bins",
                              "(xmax - xmin) / 4 = 2.5e-311 must be at least 1 / DBL_MAX"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, -5e-324, 5e-324, counts); }, fn,
                             {"is too narrow for 4 bins", "(xmax - xmin) / 4 = 0 must be"}));
  Kokkos::View<std::int32_t*, Mem> two("two", 2);
  unison::histogram(exec, x, 0.0, 2e-308, two);  // bins of 1e-308: subnormal, inverse finite
  exec.fence();
  auto two_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), two);
  EXPECT_EQ(two_h(0), 10);  // x is 10 zeros
  EXPECT_EQ(two_h(1), 0);
  // 32-bit unsigned counts: x with 2^32 elements is one too many (an unmanaged View, never read).
  Kokkos::View<std::uint32_t*, Mem> ucounts("ucounts", 2);
  Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> huge(
      x.data(), std::size_t(std::numeric_limits<std::uint32_t>::max()) + 1);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, huge, 0.0, 1.0, ucounts); }, fn,
                             {"x has 4294967296 elements", "more than counts' type can count"}));
  // Refused: counts untouched. Empty x: valid, counts zeroed.
  Kokkos::deep_copy(counts, 7);
  EXPECT_ANY_THROW(unison::histogram(exec, x, 1.0, nan_d, counts));
  EXPECT_ANY_THROW(unison::histogram(exec, x, 0.0, 1.0, Kokkos::subview(counts, std::pair(0, 0))));
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 7.0));
  unison::histogram(exec, empty, 0.0, 1.0, counts);
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 0.0));
}

// histogram over given edges: too few edges, counts' extent, NaN and decreasing edges (the first
// named), overlaps; a refused call writes nothing; empty x: counts zeroed.
template <class Exec>
void test_histogram_edges() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* fn = "unison::histogram";
  Kokkos::View<float*, Mem> x("x", 10), empty("empty", 0);
  Kokkos::View<double*, Mem> edges("edges", 5), one("one", 1);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 4), three("three", 3);
  auto h = Kokkos::create_mirror_view(edges);
  const auto set = [&](std::initializer_list<double> e) {
    int k = 0;
    for (double v : e) h(k++) = v;
    Kokkos::deep_copy(edges, h);
  };
  set({0, 1, 2, 3, 4});
  EXPECT_TRUE(throws_invalid(
      [&] { unison::histogram(exec, x, one, Kokkos::subview(counts, std::pair(0, 0))); }, fn,
      {"edges has 1 elements: at least 2 are needed"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, edges, three); }, fn,
                             {"counts has 3 elements, expected 4"}));
  set({0, 1, nan_d, 3, 4});
  EXPECT_TRUE(
      throws_invalid([&] { unison::histogram(exec, x, edges, counts); }, fn, {"edges(2) is NaN"}));
  set({0, 1, 2, 3, nan_d});
  EXPECT_TRUE(
      throws_invalid([&] { unison::histogram(exec, x, edges, counts); }, fn, {"edges(4) is NaN"}));
  set({0, 1, 5, 3, 2});
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, edges, counts); }, fn,
                             {"edges must not decrease: edges(2) = 5 is above edges(3) = 3"}));
  set({0, 1, 2, 3, 4});
  // counts over the edges' own bytes, and over x's
  Kokkos::View<std::int32_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> on_edges(
      reinterpret_cast<std::int32_t*>(edges.data()), 4),
      on_x(reinterpret_cast<std::int32_t*>(x.data()), 4);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, edges, on_edges); }, fn,
                             {"counts", "edges"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::histogram(exec, x, edges, on_x); }, fn, {"counts", "x"}));
  Kokkos::deep_copy(counts, 7);
  set({0, 1, 2, 3, -inf_d});
  EXPECT_ANY_THROW(unison::histogram(exec, x, edges, counts));
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 7.0));
  set({0, 1, 2, 3, 4});
  unison::histogram(exec, empty, edges, counts);
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 0.0));
}

// the weighted histogram: weights' extent, sums' extent, overlaps, the edges' check; a refused
// call writes nothing; empty x: sums zeroed.
template <class Exec>
void test_histogram_weighted() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* fn = "unison::histogram";
  Kokkos::View<float*, Mem> x("x", 10), w("w", 10), w9("w9", 9), empty("empty", 0);
  Kokkos::View<double*, Mem> edges("edges", 5), sums("sums", 4), three("three", 3);
  auto h = Kokkos::create_mirror_view(edges);
  for (int k = 0; k < 5; ++k) h(k) = k;
  Kokkos::deep_copy(edges, h);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, edges, w9, sums); }, fn,
                             {"weights is 9, expected 10"}));
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, edges, w, three); }, fn,
                             {"sums has 3 elements, expected 4"}));
  Kokkos::View<double*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> on_w(
      reinterpret_cast<double*>(w.data()), 4);
  EXPECT_TRUE(
      throws_invalid([&] { unison::histogram(exec, x, edges, w, on_w); }, fn, {"sums", "weights"}));
  Kokkos::deep_copy(sums, 7.0);
  h(2) = nan_d;
  Kokkos::deep_copy(edges, h);
  EXPECT_TRUE(
      throws_invalid([&] { unison::histogram(exec, x, edges, w, sums); }, fn, {"edges(2) is NaN"}));
  exec.fence();
  EXPECT_TRUE(all_equal(sums, 7.0));
  h(2) = 2;
  Kokkos::deep_copy(edges, h);
  unison::histogram(exec, empty, edges, Kokkos::subview(w, std::pair(0, 0)), sums);
  exec.fence();
  EXPECT_TRUE(all_equal(sums, 0.0));
}

}  // namespace preconditions

template <class Exec>
struct HistogramPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(HistogramPreconditions, Backends, BackendName);
TYPED_TEST(HistogramPreconditions, histogram) { preconditions::test_histogram<TypeParam>(); }
TYPED_TEST(HistogramPreconditions, histogram_edges) {
  preconditions::test_histogram_edges<TypeParam>();
}
TYPED_TEST(HistogramPreconditions, histogram_weighted) {
  preconditions::test_histogram_weighted<TypeParam>();
}

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// Integer results: exact.

namespace determinism {

template <class Exec>
void test_histogram() {
  Exec exec;
  // Per-team histograms in scratch: several blocks of x.
  Kokkos::View<float*, Mem<Exec>> x("x", 300007);
  fill(x, uniform<float>(-3.5, 3.5));
  Kokkos::View<std::int32_t*, Mem<Exec>> a("a", 101), b("b", 101);
  twice("101 bins", a, b, [&](const auto& counts) { unison::histogram(exec, x, -3, 3, counts); });
  // Too many bins for a team's scratch: one global atomic per value.
  Kokkos::View<double*, Mem<Exec>> y("y", 200001);
  fill(y, uniform<double>(-3.5, 3.5));
  Kokkos::View<std::int64_t*, Mem<Exec>> c("c", 200003), d("d", 200003);
  twice("200003 bins", c, d,
        [&](const auto& counts) { unison::histogram(exec, y, -3, 3, counts); });
  // Over given edges: per-team histograms, and the global atomics.
  Kokkos::View<double*, Mem<Exec>> edges("edges", 102), many("many", 200004);
  auto h = Kokkos::create_mirror_view(edges);
  for (int k = 0; k < 102; ++k) h(k) = -3 + 6.0 * k / 101;
  Kokkos::deep_copy(edges, h);
  Kokkos::View<std::int32_t*, Mem<Exec>> e("e", 101), f("f", 101);
  twice("101 edges' bins", e, f,
        [&](const auto& counts) { unison::histogram(exec, x, edges, counts); });
  auto hm = Kokkos::create_mirror_view(many);
  for (int k = 0; k < 200004; ++k) hm(k) = -3 + 6.0 * k / 200003;
  Kokkos::deep_copy(many, hm);
  twice("200003 edges' bins", c, d,
        [&](const auto& counts) { unison::histogram(exec, y, many, counts); });
  // Weighted: the documented order of additions (Histogram.weighted checks it bit for bit).
  Kokkos::View<double*, Mem<Exec>> ws("ws", 300007), s("s", 101), t("t", 101);
  fill(ws, uniform<double>(-1, 1));
  twice("101 weighted bins", s, t,
        [&](const auto& sums) { unison::histogram(exec, x, edges, ws, sums); });
}

}  // namespace determinism

template <class Exec>
struct HistogramDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(HistogramDeterminism, Backends, BackendName);
TYPED_TEST(HistogramDeterminism, histogram) { determinism::test_histogram<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

// Both kernels: per-team histograms and the global atomics.
template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float*, Mem> x("x", 1000);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 10), many("many", 1 << 22);
  exec.fence();
  Kokkos::View<double*, Mem> edges("edges", 11), many_edges("many_edges", (1 << 22) + 1);
  Kokkos::deep_copy(exec, edges, 0.5);  // (equal edges: valid, bins of zero width)
  Kokkos::deep_copy(exec, many_edges, 0.5);
  Kokkos::View<double*, Mem> sums("sums", 10);
  exec.fence();
  auto seen = record([&] {
    unison::histogram(exec, x, 0.0, 1.0, counts);
    unison::histogram(exec, x, 0.0, 1.0, many);  // the global-atomics kernel
    unison::histogram(exec, x, edges, counts);
    unison::histogram(exec, x, many_edges, many);  // the global-atomics kernel
    unison::histogram(exec, x, edges, x, sums);    // weighted
    exec.fence();
  });
  expect_on(exec, seen);
  expect_unison_labels(seen.labels);
  expect_calls(
      seen,
      {{"unison::histogram", {"unison::histogram::zero", "unison::histogram::bins"}},
       {"unison::histogram", {"unison::histogram::zero", "unison::histogram::bins"}},
       {"unison::histogram",
        {"unison::histogram::check_edges", "unison::histogram::zero", "unison::histogram::edges"}},
       {"unison::histogram",
        {"unison::histogram::check_edges", "unison::histogram::zero", "unison::histogram::edges"}},
       {"unison::histogram",
        {"unison::histogram::check_edges", "unison::histogram::weighted_chunks",
         "unison::histogram::weighted_sums"}}},
      {"unison::histogram::"});
  for (const char* k :
       {"kernel unison::histogram::zero", "kernel unison::histogram::bins",
        "kernel unison::histogram::check_edges", "kernel unison::histogram::edges",
        "kernel unison::histogram::weighted_chunks", "kernel unison::histogram::weighted_sums"})
    EXPECT_TRUE(has_label(seen, k)) << k;
}

}  // namespace labels

template <class Exec>
struct HistogramLabels : ::testing::Test {};
TYPED_TEST_SUITE(HistogramLabels, Backends, BackendName);
TYPED_TEST(HistogramLabels, histogram) { labels::test_labels(TypeParam()); }

template <class Exec>
struct HistogramInstance : ::testing::Test {};
TYPED_TEST_SUITE(HistogramInstance, Backends, BackendName);
TYPED_TEST(HistogramInstance, histogram) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
