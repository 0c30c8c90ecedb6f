// Unison::mpi on every enabled backend, under mpiexec with any number of ranks: the distributed
// diffusion bitwise equal to unison::diffuse on the whole field (every layout, Laplacian
// choice, overlap and transport, decompositions that do not divide the field), the distributed
// jagged field equal to the whole one, the distributed matmul-reduce against a float64 host
// reference and equal on every rank, and every refusal agreed by all ranks.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <unison/mpi.hpp>

#include "plan_access.hpp"

#include "labels.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
namespace umpi = unison::mpi;
using unison::Laplacian;
using unison::MatmulMethod;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// n values uniform in [lo, hi), the same on every rank (rank 0 draws the seed), fresh per call.
std::vector<double> shared_random(std::int64_t n, double lo, double hi) {
  std::uint64_t seed = engine()();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = u(rng);
  return v;
}

// Writes rows [x0, x0 + v.extent(0)) x columns [y0, y0 + v.extent(1)) of a row-major matrix of
// `cols` columns into the rank-2 View v (any layout, any memory space).
template <class V>
void load(const V& v, const std::vector<double>& whole, std::int64_t cols, std::int64_t x0 = 0,
          std::int64_t y0 = 0) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> h("load", v.extent(0), v.extent(1));
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j)
      h(i, j) =
          static_cast<T>(whole[std::size_t((x0 + std::int64_t(i)) * cols + y0 + std::int64_t(j))]);
  auto staged = Kokkos::create_mirror_view_and_copy(typename V::memory_space(), h);
  Kokkos::deep_copy(v, staged);
}

// The block [x0, x0 + nx) x [y0, y0 + ny) of a row-major matrix of `cols` columns.
std::vector<double> block(const std::vector<double>& whole, std::int64_t cols, std::int64_t x0,
                          std::int64_t y0, std::int64_t nx, std::int64_t ny) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < nx; ++i)
    for (std::int64_t j = 0; j < ny; ++j)
      out.push_back(whole[std::size_t((x0 + i) * cols + y0 + j)]);
  return out;
}

// The float64 host reference of `steps` diffusion steps (0 outside the field).
std::vector<double> host_diffusion(std::vector<double> f, std::int64_t nx, std::int64_t ny,
                                   std::int64_t steps, double coeff) {
  std::vector<double> next(f.size());
  const auto at = [&](std::int64_t i, std::int64_t j) {
    return i < 0 || j < 0 || i >= nx || j >= ny ? 0.0 : f[std::size_t(i * ny + j)];
  };
  for (std::int64_t s = 0; s < steps; ++s) {
    for (std::int64_t i = 0; i < nx; ++i)
      for (std::int64_t j = 0; j < ny; ++j) {
        const double lap = 4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
        next[std::size_t(i * ny + j)] = at(i, j) - coeff * lap;
      }
    std::swap(f, next);
  }
  return f;
}

// That `call` throws unison::invalid_argument on this rank, whose message has `mine` (when
// this rank is at fault) or `others` (the agreement's message on the other ranks).
template <class Call>
::testing::AssertionResult refused(Call&& call, const std::string& mine, const std::string& others,
                                   bool at_fault) {
  try {
    call();
  } catch (const unison::invalid_argument& e) {
    const std::string want = at_fault ? mine : others, what = e.what();
    if (what.find(want) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message \"" << what << "\" lacks \"" << want << "\"";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

std::string describe(const umpi::Decomposition& d) {
  std::ostringstream s;
  s << "rank " << d.rank << " of " << d.size << ", field " << d.nx << "x" << d.ny << ", dims "
    << d.dims[0] << "x" << d.dims[1] << ", block " << d.local_nx << "x" << d.local_ny << " at ("
    << d.x0 << ", " << d.y0 << ")";
  return s.str();
}

// The deepest halo d allows: the thinnest block's extent along each split axis.
int deepest(const umpi::Decomposition& d) {
  std::int64_t k = 1 << 30;
  if (d.dims[0] > 1) k = std::min(k, d.nx / d.dims[0]);
  if (d.dims[1] > 1) k = std::min(k, d.ny / d.dims[1]);
  return int(k);
}

template <class Exec>
class Mpi : public ::testing::Test {};
TYPED_TEST_SUITE(Mpi, Backends, BackendName);

// ---------------------------------------------------------------------------------------------
// decompose: the blocks tile the field, differ by at most one row or column, and name their
// neighbours consistently.

void check_tiling(const umpi::Decomposition& d) {
  const int size = d.size;
  std::vector<long long> mine = {d.x0,        d.y0,    d.local_nx, d.local_ny, d.coords[0],
                                 d.coords[1], d.north, d.south,    d.west,     d.east};
  std::vector<long long> all(mine.size() * std::size_t(size));
  MPI_Allgather(mine.data(), int(mine.size()), MPI_LONG_LONG, all.data(), int(mine.size()),
                MPI_LONG_LONG, MPI_COMM_WORLD);
  std::vector<int> owner(std::size_t(d.nx * d.ny), -1);
  long long min_x = d.nx, max_x = 0, min_y = d.ny, max_y = 0;
  for (int r = 0; r < size; ++r) {
    const long long* b = &all[std::size_t(r) * mine.size()];
    ASSERT_GE(b[2], 1) << describe(d) << ": rank " << r << " has no rows";
    ASSERT_GE(b[3], 1) << describe(d) << ": rank " << r << " has no columns";
    min_x = std::min(min_x, b[2]), max_x = std::max(max_x, b[2]);
    min_y = std::min(min_y, b[3]), max_y = std::max(max_y, b[3]);
    EXPECT_EQ(b[4] * d.dims[1] + b[5], r) << describe(d);
    for (long long i = b[0]; i < b[0] + b[2]; ++i)
      for (long long j = b[1]; j < b[1] + b[3]; ++j) {
        auto& o = owner[std::size_t(i * d.ny + j)];
        ASSERT_EQ(o, -1) << describe(d) << ": cell (" << i << ", " << j << ") in two blocks";
        o = r;
      }
    // Each neighbour's block is adjacent: shares the edge exactly.
    const auto at = [&](long long rank, int k) { return all[std::size_t(rank) * mine.size() + k]; };
    if (b[6] != MPI_PROC_NULL) EXPECT_EQ(at(b[6], 0) + at(b[6], 2), b[0]) << describe(d);
    else EXPECT_EQ(b[0], 0) << describe(d);
    if (b[7] != MPI_PROC_NULL) EXPECT_EQ(at(b[7], 0), b[0] + b[2]) << describe(d);
    else EXPECT_EQ(b[0] + b[2], d.nx) << describe(d);
    if (b[8] != MPI_PROC_NULL) EXPECT_EQ(at(b[8], 1) + at(b[8], 3), b[1]) << describe(d);
    else EXPECT_EQ(b[1], 0) << describe(d);
    if (b[9] != MPI_PROC_NULL) EXPECT_EQ(at(b[9], 1), b[1] + b[3]) << describe(d);
    else EXPECT_EQ(b[1] + b[3], d.ny) << describe(d);
  }
  EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0) << describe(d) << ": cells in no block";
  EXPECT_LE(max_x - min_x, 1) << describe(d);
  EXPECT_LE(max_y - min_y, 1) << describe(d);
}

TEST(MpiHost, decompose) {
  const int size = world_size();
  for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{37, 53},
                        {53, 37},
                        {4, 4},
                        {1, 13},
                        {13, 1},
                        {100, 7},
                        {8, 8}}) {
    for (std::array<int, 2> dims : {std::array<int, 2>{0, 0}, {size, 1}, {1, size}, {0, 1}}) {
      if (dims[0] > nx || dims[1] > ny || (dims[0] == 0 && dims[1] == 1 && size > nx)) continue;
      if ((dims[0] == 0 && dims[1] == 0) && nx * ny < size) continue;
      if (dims[0] == 0 && dims[1] == 0 && (nx == 1 || ny == 1) && std::max(nx, ny) < size) continue;
      const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
      if (dims[0]) {
        EXPECT_EQ(d.dims[0], dims[0]);
      }
      if (dims[1]) {
        EXPECT_EQ(d.dims[1], dims[1]);
      }
      EXPECT_EQ(d.dims[0] * d.dims[1], size);
      check_tiling(d);
    }
  }
  // The automatic grid has the shortest halo: 4 ranks on a square field make 2x2, on a field
  // four times as tall as wide 4x1.
  if (size == 4) {
    EXPECT_EQ(umpi::decompose(MPI_COMM_WORLD, 64, 64).dims, (std::array<int, 2>{2, 2}));
    EXPECT_EQ(umpi::decompose(MPI_COMM_WORLD, 256, 16).dims, (std::array<int, 2>{4, 1}));
  }
  if (size == 2) {
    EXPECT_EQ(umpi::decompose(MPI_COMM_WORLD, 16, 32).dims, (std::array<int, 2>{1, 2}));
  }
}

TEST(MpiHost, decompose_errors) {
  const int size = world_size(), rank = world_rank();
  const char* fn = "unison::mpi::decompose: ";
  EXPECT_TRUE(refused([] { umpi::decompose(MPI_COMM_NULL, 8, 8); }, "MPI_COMM_NULL", "", true));
  EXPECT_TRUE(refused([] { umpi::decompose(MPI_COMM_WORLD, -1, 8); },
                      std::string(fn) + "the field is -1x8", "", true));
  EXPECT_TRUE(refused(
      [] {
        umpi::decompose(MPI_COMM_WORLD, 8, 8, {-1, 0});
      },
      "must not be negative", "", true));
  EXPECT_TRUE(refused(
      [&] {
        umpi::decompose(MPI_COMM_WORLD, 64, 64, {size + 1, 0});
      },
      "must divide", "", true));
  EXPECT_TRUE(refused(
      [&] {
        umpi::decompose(MPI_COMM_WORLD, 64, 64, {size, 2});
      },
      "whose product is not", "", true));
  EXPECT_TRUE(refused([&] { umpi::decompose(MPI_COMM_WORLD, 0, 8); }, "cannot be split", "", true));
  if (size > 1) {
    EXPECT_TRUE(refused(
        [&] {
          umpi::decompose(MPI_COMM_WORLD, size - 1, 64, {size, 1});
        },
        "cannot be split", "", true));
    // Arguments that differ between ranks: every rank throws.
    EXPECT_TRUE(refused([&] { umpi::decompose(MPI_COMM_WORLD, 64 + rank, 64); },
                        "nx differs between ranks", "", true));
  }
  // The communicator still works: a good call after the refusals.
  check_tiling(umpi::decompose(MPI_COMM_WORLD, 33, 17));
}

// ---------------------------------------------------------------------------------------------
// diffuse: bitwise the single-rank result.

struct DiffusionCase {
  std::int64_t nx, ny;
  std::array<int, 2> dims;
  std::int64_t steps;
  Laplacian which;
  umpi::ExchangeOptions options;
};

std::string describe(const DiffusionCase& c) {
  std::ostringstream s;
  s << c.nx << "x" << c.ny << ", dims " << c.dims[0] << "x" << c.dims[1] << ", " << c.steps
    << " steps, " << (c.which == Laplacian::every_step ? "every_step" : "final_only") << ", "
    << (c.options.overlap ? "overlap" : "no overlap") << ", transport " << int(c.options.transport)
    << ", halo depth " << c.options.halo_depth;
  return s.str();
}

// The whole field diffused by unison::diffuse on this backend: the field and the last Laplacian.
template <class Exec, class T, class Layout>
std::pair<std::vector<double>, std::vector<double>> single_rank(const std::vector<double>& init,
                                                                std::int64_t nx, std::int64_t ny,
                                                                std::int64_t steps) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<T**, Layout, Mem> f("whole", nx, ny), lapl("whole_lapl", nx, ny);
  load(f, init, ny);
  poison_fill(lapl);
  Exec exec;
  unison::diffuse(exec, f, steps, 0.25, lapl);
  exec.fence();
  return {to_host(f), to_host(lapl)};
}

// LaplLayout: the Laplacian's layout (the field's unless given).
template <class Exec, class T, class Layout, bool Strided = false, class LaplLayout = Layout>
void check_diffusion(const DiffusionCase& c) {
  using Mem = typename Exec::memory_space;
  const auto init = shared_random(c.nx * c.ny, 0, 1);
  const auto [ref_f, ref_l] = single_rank<Exec, T, Layout>(init, c.nx, c.ny, c.steps);
  const auto d = umpi::decompose(MPI_COMM_WORLD, c.nx, c.ny, c.dims);
  const std::string what =
      describe(c) + "; " + describe(d) + (Strided ? ", strided views" : "") +
      (std::is_same_v<Layout, LaplLayout> ? "" : ", the Laplacian's own layout");
  Kokkos::View<T**, Layout, Mem> fa("f", d.local_nx, Strided ? 2 * d.local_ny : d.local_ny);
  Kokkos::View<T**, LaplLayout, Mem> la("lapl", d.local_nx, Strided ? 2 * d.local_ny : d.local_ny);
  // Strided: columns [first, first + local_ny) of arrays twice as wide (LayoutStride Views).
  const auto part = [&](const auto& v, std::int64_t first) {
    (void)first;
    if constexpr (Strided)
      return Kokkos::subview(v, Kokkos::ALL, std::make_pair(first, first + d.local_ny));
    else return v;
  };
  const auto f = part(fa, d.local_ny);
  const auto lapl = part(la, 1);
  load(f, init, c.ny, d.x0, d.y0);
  poison_fill(la);
  Exec exec;
  umpi::diffuse(exec, d, f, c.steps, 0.25, lapl, c.which, c.options);
  EXPECT_TRUE(close(to_host(f), block(ref_f, c.ny, d.x0, d.y0, d.local_nx, d.local_ny), 0)) << what;
  if (c.steps > 0)
    EXPECT_TRUE(close(to_host(lapl), block(ref_l, c.ny, d.x0, d.y0, d.local_nx, d.local_ny), 0))
        << what << " (Laplacian)";
  else
    for (double x : to_host(lapl))
      ASSERT_TRUE(std::isnan(x)) << what << ": lapl written for 0 steps";
}

template <class Exec>
void test_diffusion_bitwise() {
  const int size = world_size();
  using umpi::Transport;
  std::vector<DiffusionCase> cases;
  for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{37, 53},
                        {53, 6},
                        {9, 64},
                        {1, 13},
                        {64, 1},
                        {5, 5}}) {
    for (std::array<int, 2> dims : {std::array<int, 2>{0, 0}, {size, 1}, {1, size}}) {
      if (dims[0] > nx || dims[1] > ny) continue;
      if (dims[0] == 0 && ((nx == 1 && ny < size) || (ny == 1 && nx < size))) continue;
      for (std::int64_t steps : {0, 1, 4}) {
        cases.push_back({nx, ny, dims, steps, Laplacian::every_step, {}});
        if (steps == 4) {
          cases.push_back({nx, ny, dims, steps, Laplacian::final_only, {}});
          cases.push_back({nx, ny, dims, steps, Laplacian::every_step, {Transport::host, false}});
          cases.push_back({nx, ny, dims, steps, Laplacian::final_only, {Transport::host, true}});
        }
      }
    }
  }
  // Halos 2 and 3 cells deep (the decompositions whose blocks are that thick along the split
  // axes), with and without the overlap, through either transport.
  for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{37, 53}, {53, 6}, {9, 64}}) {
    for (std::array<int, 2> dims : {std::array<int, 2>{0, 0}, {size, 1}, {1, size}}) {
      if (dims[0] > nx || dims[1] > ny) continue;
      const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
      for (int depth : {2, 3})
        if (depth <= deepest(d)) {
          cases.push_back(
              {nx, ny, dims, 7, Laplacian::every_step, {Transport::automatic, true, depth}});
          cases.push_back(
              {nx, ny, dims, 5, Laplacian::final_only, {Transport::host, false, depth}});
        }
    }
  }
  for (const auto& c : cases) {
    check_diffusion<Exec, float, Kokkos::LayoutRight>(c);
    if (c.options.halo_depth > 1) check_diffusion<Exec, double, Kokkos::LayoutLeft>(c);
    if (c.steps == 4 && c.which == Laplacian::every_step && c.options.overlap) {
      check_diffusion<Exec, float, Kokkos::LayoutLeft>(c);
      check_diffusion<Exec, double, Kokkos::LayoutRight>(c);
      check_diffusion<Exec, double, Kokkos::LayoutRight, true>(c);
      check_diffusion<Exec, float, Kokkos::LayoutLeft, true>(c);
      check_diffusion<Exec, float, Kokkos::LayoutRight, false, Kokkos::LayoutLeft>(c);
      check_diffusion<Exec, float, Kokkos::LayoutLeft, false, Kokkos::LayoutRight>(c);
    }
  }
  // A longer run, and the float64 host reference of the same steps.
  const DiffusionCase c{61, 47, {0, 0}, 25, Laplacian::every_step, {}};
  check_diffusion<Exec, float, Kokkos::LayoutLeft>(c);
  const auto init = shared_random(c.nx * c.ny, 0, 1);
  const auto d = umpi::decompose(MPI_COMM_WORLD, c.nx, c.ny);
  Kokkos::View<double**, typename Exec::memory_space> f("f", d.local_nx, d.local_ny),
      lapl("lapl", d.local_nx, d.local_ny);
  load(f, init, c.ny, d.x0, d.y0);
  umpi::diffuse(Exec(), d, f, c.steps, 0.25, lapl);
  const auto ref = host_diffusion(init, c.nx, c.ny, c.steps, 0.25);
  EXPECT_TRUE(close(to_host(f), block(ref, c.ny, d.x0, d.y0, d.local_nx, d.local_ny), 1e-13))
      << describe(d);
}

TYPED_TEST(Mpi, diffusion_bitwise) { test_diffusion_bitwise<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// DiffusionPlan: calls of a few steps on one plan, and on two fields, are bitwise the single-rank
// run of all their steps, at every halo depth; the depth chosen by timing is one the
// decomposition allows.

// use > 0: the plan then runs halos of that depth, shallower than its padded copies (as the
// depth a plan chooses may be).
template <class Exec, class T, class Layout>
void check_plan(std::int64_t nx, std::int64_t ny, std::array<int, 2> dims,
                const umpi::ExchangeOptions& options, Laplacian which, int use = 0) {
  using Mem = typename Exec::memory_space;
  using F = Kokkos::View<T**, Layout, Mem>;
  const std::vector<std::int64_t> calls = {3, 1, 5, 2};
  std::int64_t total = 0;
  for (auto s : calls) total += s;
  const auto init = shared_random(nx * ny, 0, 1), other = shared_random(nx * ny, -1, 1);
  const auto [ref_f, ref_l] = single_rank<Exec, T, Layout>(init, nx, ny, total);
  const auto [ref_g, ref_m] = single_rank<Exec, T, Layout>(other, nx, ny, 2);
  const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
  std::ostringstream what;
  what << describe(d) << ", halo depth asked " << options.halo_depth << ", "
       << (options.overlap ? "overlap" : "no overlap") << ", transport " << int(options.transport)
       << (which == Laplacian::every_step ? ", every_step" : ", final_only");
  F f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny),
      g("g", d.local_nx, d.local_ny);
  load(f, init, ny, d.x0, d.y0);
  load(g, other, ny, d.x0, d.y0);
  Exec exec;
  umpi::DiffusionPlan plan(exec, d, f, options);
  static_assert(std::is_same_v<decltype(plan), umpi::DiffusionPlan<Exec, F>>);
  const int k = plan.halo_depth();
  if (!d.has_neighbours()) {
    EXPECT_EQ(k, 1) << what.str();
  } else if (options.halo_depth > 0) {
    EXPECT_EQ(k, options.halo_depth) << what.str();
  } else {
    EXPECT_GE(k, 1) << what.str();
    EXPECT_LE(k, std::min(16, deepest(d))) << what.str();
    EXPECT_GT(plan.measured().exchange_one, 0) << what.str();
    EXPECT_GT(plan.measured().launch, 0) << what.str();
  }
  if (is_host_v<Exec>) {
    EXPECT_EQ(plan.transport(), umpi::Transport::device) << what.str();
  }
  // The halo depth agreed: every rank has the same.
  int lo = k, hi = k;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi) << what.str();
  what << ", depth " << k;
  if (use > 0 && d.has_neighbours()) {
    unison::detail::mpi::PlanAccess::use_depth(plan, use);
    EXPECT_EQ(plan.halo_depth(), use) << what.str();
    what << ", then " << use << " in copies of depth " << k;
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    poison_fill(lapl);
    plan.diffuse(f, calls[i], 0.25, lapl, which);
    if (i == 1) plan.diffuse(g, 2, 0.25, lapl, which);  // another field on the same plan
  }
  const auto mine = [&](const std::vector<double>& whole) {
    return block(whole, ny, d.x0, d.y0, d.local_nx, d.local_ny);
  };
  EXPECT_TRUE(close(to_host(f), mine(ref_f), 0)) << what.str();
  EXPECT_TRUE(close(to_host(lapl), mine(ref_l), 0)) << what.str() << " (Laplacian)";
  EXPECT_TRUE(close(to_host(g), mine(ref_g), 0)) << what.str() << " (the second field)";
}

template <class Exec>
void test_plan() {
  const int size = world_size();
  using umpi::Transport;
  for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{37, 53}, {61, 8}, {6, 70}}) {
    for (std::array<int, 2> dims : {std::array<int, 2>{0, 0}, {size, 1}, {1, size}}) {
      if (dims[0] > nx || dims[1] > ny) continue;
      const int deep = deepest(umpi::decompose(MPI_COMM_WORLD, nx, ny, dims));
      std::vector<int> depths = {0, 1, 2, 3, std::min(deep, 16)};
      for (int depth : depths) {
        if (depth > deep) continue;
        check_plan<Exec, float, Kokkos::LayoutRight>(
            nx, ny, dims, {Transport::automatic, true, depth}, Laplacian::every_step);
        check_plan<Exec, float, Kokkos::LayoutLeft>(nx, ny, dims, {Transport::host, false, depth},
                                                    Laplacian::final_only);
      }
      check_plan<Exec, double, Kokkos::LayoutRight>(nx, ny, dims, {Transport::host, true, 0},
                                                    Laplacian::final_only);
      // Halos shallower than the padded copies: 1 and 2 in copies 3 deep, both layouts.
      if (deep >= 3)
        for (int use : {1, 2}) {
          check_plan<Exec, float, Kokkos::LayoutRight>(
              nx, ny, dims, {Transport::automatic, true, 3}, Laplacian::every_step, use);
          check_plan<Exec, float, Kokkos::LayoutLeft>(nx, ny, dims, {Transport::host, false, 3},
                                                      Laplacian::final_only, use);
        }
    }
  }
}

TYPED_TEST(Mpi, plan) { test_plan<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// jagged_field: each block is the whole image's block, bit for bit.

template <class Exec>
void test_jagged() {
  using Mem = typename Exec::memory_space;
  for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{37, 53}, {130, 9}, {16, 16}}) {
    const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny);
    for (double zeros : {0.7, 0.0, 1.0}) {
      Kokkos::View<float**, Mem> whole("whole", nx, ny), f("f", d.local_nx, d.local_ny);
      Exec exec;
      unison::jagged_field(exec, whole, 1234567, zeros);
      umpi::jagged_field(exec, d, f, 1234567, zeros);
      EXPECT_TRUE(
          close(to_host(f), block(to_host(whole), ny, d.x0, d.y0, d.local_nx, d.local_ny), 0))
          << describe(d) << ", zero fraction " << zeros;
    }
  }
}

TYPED_TEST(Mpi, jagged_field) { test_jagged<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// matmul_reduce: A split by rows (uneven, some ranks without rows), against a float64 host
// reference, and the same out on every rank.

template <class Exec, class T, class Layout>
void check_matmul(std::int64_t m, std::int64_t k, std::int64_t n, MatmulMethod method,
                  umpi::Transport transport, bool strided_out) {
  using Mem = typename Exec::memory_space;
  const int size = world_size(), rank = world_rank();
  const auto a = shared_random(m * k, -1, 1), b = shared_random(k * n, -1, 1);
  std::vector<double> ref(std::size_t(n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l)
      for (std::int64_t j = 0; j < n; ++j)
        ref[std::size_t(j)] +=
            double(T(a[std::size_t(i * k + l)])) * double(T(b[std::size_t(l * n + j)]));
  const std::int64_t r0 = umpi::block_begin(m, size, rank),
                     r1 = umpi::block_begin(m, size, rank + 1);
  Kokkos::View<T**, Layout, Mem> A("A", r1 - r0, k), B("B", k, n);
  load(A, a, k, r0, 0);
  load(B, b, n);
  Kokkos::View<T**, Kokkos::LayoutRight, Mem> out2("out2", n, 2);
  Kokkos::View<T*, Mem> out1("out", n);
  poison_fill(out2);
  poison_fill(out1);
  const auto strided = Kokkos::subview(out2, Kokkos::ALL, 1);
  if (strided_out) umpi::matmul_reduce(Exec(), MPI_COMM_WORLD, A, B, strided, method, transport);
  else umpi::matmul_reduce(Exec(), MPI_COMM_WORLD, A, B, out1, method, transport);
  const auto got = strided_out ? to_host(strided) : to_host(out1);
  std::ostringstream what;
  what << "m " << m << " (rows " << r0 << ".." << r1 << " here), k " << k << ", n " << n
       << ", method " << int(method) << ", transport " << int(transport)
       << (strided_out ? ", strided out" : "") << ", rank " << rank << " of " << size;
  EXPECT_TRUE(close(got, ref, std::is_same_v<T, float> ? 2e-5 : 1e-12)) << what.str();
  // Every rank holds the same sums, bit for bit.
  std::vector<double> hi(got.size()), lo(got.size());
  MPI_Allreduce(got.data(), hi.data(), int(got.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(got.data(), lo.data(), int(got.size()), MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_TRUE(close(got, hi, 0) && close(got, lo, 0)) << what.str() << ": ranks differ";
}

template <class Exec>
void test_matmul() {
  using umpi::Transport;
  for (std::int64_t m : {3, 17, 130}) {
    for (MatmulMethod method : {MatmulMethod::automatic, MatmulMethod::tiled, MatmulMethod::gemm,
                                MatmulMethod::reassociated}) {
      check_matmul<Exec, float, Kokkos::LayoutRight>(m, 33, 29, method, Transport::automatic,
                                                     false);
      check_matmul<Exec, double, Kokkos::LayoutLeft>(m, 33, 29, method, Transport::host, m == 17);
    }
  }
  check_matmul<Exec, float, Kokkos::LayoutRight>(0, 5, 7, MatmulMethod::tiled, Transport::automatic,
                                                 false);
}

TYPED_TEST(Mpi, matmul_reduce) { test_matmul<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Kokkos Tools regions (tests/labels.hpp): every call of the component opens its region
// "unison::mpi::<function>", with its kernels (and the single-rank calls it makes) inside it.

template <class Exec>
void test_regions() {
  using Mem = typename Exec::memory_space;
  const auto d = umpi::decompose(MPI_COMM_WORLD, 37, 53);
  using Field = Kokkos::View<float**, Mem>;
  Field f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", 5, 4), B("B", 4, 3);
  Kokkos::View<float*, Mem> out("out", 3);
  Exec exec;
  umpi::DiffusionPlan<Exec, Field> plan(exec, d, f, {umpi::Transport::automatic, true, 1});
  exec.fence();
  const auto seen = record([&] {
    umpi::jagged_field(exec, d, f, 5);
    umpi::diffuse(exec, d, f, 3, 0.2, lapl);
    plan.diffuse(f, 2, 0.2, lapl);
    umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, out);
    exec.fence();
  });
  expect_calls(seen,
               {{"unison::mpi::jagged_field", {"unison::field::jagged_noise"}},
                {"unison::mpi::diffuse", {}},
                {"unison::mpi::DiffusionPlan::diffuse", {}},
                {"unison::mpi::matmul_reduce", {}}},
               {"unison::mpi::", "unison::field::", "unison::diffusion::",
                "unison::matmul_reduce::", "KokkosBlas::"});
}

TYPED_TEST(Mpi, regions) { test_regions<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Refusals: every rank throws, the rank at fault with its own message, and nothing was written.

template <class Exec>
void test_errors() {
  using Mem = typename Exec::memory_space;
  using umpi::Transport;
  const int size = world_size(), rank = world_rank();
  const auto d = umpi::decompose(MPI_COMM_WORLD, 23, 19);
  Kokkos::View<float**, Mem> f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
  Kokkos::deep_copy(f, 1.0f);
  Exec exec;
  const std::string fn = "unison::mpi::diffuse: ";
  const std::string others = "rank 0 refused its arguments";
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, umpi::Decomposition{}, f, 1, 0.25, lapl); },
                      fn + "the Decomposition has no communicator", "", true));
  // Rank 0's block has the wrong extents; the others' are right.
  Kokkos::View<float**, Mem> wrong("wrong", d.local_nx + (rank == 0), d.local_ny);
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, rank == 0 ? wrong : f, 1, 0.25, lapl); },
                      "expected this rank's block", others, rank == 0));
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, f, 1, 0.25, rank == 0 ? f : lapl); }, "lapl",
                      others, rank == 0));
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, f, -1, 0.25, lapl); }, "steps is -1", "", true));
  EXPECT_TRUE(
      refused([&] { umpi::diffuse(exec, d, f, 1, std::nan(""), lapl); }, "coeff", "", true));
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, f, 1, 0.25, lapl, Laplacian(7)); },
                      "unknown Laplacian choice 7", "", true));
  EXPECT_TRUE(refused(
      [&] {
        umpi::diffuse(exec, d, f, 1, 0.25, lapl, Laplacian::every_step, {Transport(9), true});
      },
      "unknown transport 9", "", true));
  if (!is_host_v<Exec> && !umpi::gpu_aware()) {
    EXPECT_TRUE(refused(
        [&] {
          umpi::diffuse(exec, d, f, 1, 0.25, lapl, Laplacian::every_step,
                        {Transport::device, true});
        },
        "UNISON_MPI_GPU_AWARE", "", true));
  }
  if (size > 1) {
    EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, f, 1 + rank, 0.25, lapl); },
                        "steps differs between ranks", "", true));
    EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, f, 1, 0.25 + rank, lapl); },
                        "coeff differs between ranks", "", true));
    EXPECT_TRUE(refused(
        [&] {
          umpi::diffuse(exec, d, f, 1, 0.25, lapl, Laplacian::every_step,
                        {Transport::automatic, rank == 0});
        },
        "options.overlap differs", "", true));
  }
  // The plan's own refusals: the halo depth, and options that differ between ranks.
  const std::string pfn = "unison::mpi::DiffusionPlan: ";
  using Plan = umpi::DiffusionPlan<Exec, decltype(f)>;
  EXPECT_TRUE(refused(
      [&] {
        Plan(exec, d, f, {Transport::automatic, true, -1});
      },
      pfn + "options.halo_depth is -1, must be >= 0", "", true));
  EXPECT_TRUE(refused([&] { Plan(exec, d, rank == 0 ? wrong : f); }, "expected this rank's block",
                      others, rank == 0));
  EXPECT_TRUE(refused([&] { Plan(exec, umpi::Decomposition{}, f); },
                      pfn + "the Decomposition has no communicator", "", true));
  if (size > 1) {
    const int too_deep = deepest(d) + 1;
    EXPECT_TRUE(refused(
        [&] {
          Plan(exec, d, f, {Transport::automatic, true, too_deep});
        },
        "options.halo_depth is " + std::to_string(too_deep) + ", deeper than the thinnest block's",
        "", true));
    EXPECT_TRUE(refused(
        [&] {
          Plan(exec, d, f, {Transport::automatic, true, 1 + rank % 2});
        },
        "options.halo_depth differs between ranks", "", true));
    EXPECT_TRUE(refused(
        [&] {
          Plan(exec, d, f, {Transport::automatic, rank == 0, 1});
        },
        "options.overlap differs between ranks", "", true));
  } else {
    // A single block has no neighbours: any depth is accepted, and 1 is used.
    EXPECT_EQ(Plan(exec, d, f, {Transport::automatic, true, 1000}).halo_depth(), 1);
  }
  {
    Plan plan(exec, d, f, {Transport::automatic, true, 1});
    EXPECT_TRUE(refused([&] { plan.diffuse(rank == 0 ? wrong : f, 1, 0.25, lapl); },
                        "expected this rank's block", others, rank == 0));
    EXPECT_TRUE(refused([&] { plan.diffuse(f, 1, 0.25, f); }, "lapl", "", true));
    EXPECT_TRUE(refused([&] { plan.diffuse(f, -2, 0.25, lapl); }, "steps is -2", "", true));
    EXPECT_TRUE(refused([&] { plan.diffuse(f, 1, 0.25, lapl, Laplacian(9)); },
                        "unknown Laplacian choice 9", "", true));
    if (size > 1) {
      EXPECT_TRUE(refused([&] { plan.diffuse(f, 1, 0.25 * (1 + rank), lapl); },
                          "coeff differs between ranks", "", true));
    }
    for (double x : to_host(f)) ASSERT_EQ(x, 1.0);
  }

  // Rank 0's field has rows that are the same memory (stride 0 along them): every rank refuses,
  // before any waits for another (the check is part of the agreement).
  using Strided = Kokkos::View<float**, Kokkos::LayoutStride, Mem>;
  const Strided shared(f.data(), Kokkos::LayoutStride(d.local_nx, 0, d.local_ny, 1)),
      whole(f.data(), Kokkos::LayoutStride(d.local_nx, d.local_ny, d.local_ny, 1));
  const std::string same = "has elements that are the same memory";
  EXPECT_TRUE(refused([&] { umpi::diffuse(exec, d, rank == 0 ? shared : whole, 1, 0.25, lapl); },
                      same, others, rank == 0));
  // Nothing was written by the refused calls.
  for (double x : to_host(f)) ASSERT_EQ(x, 1.0);
  EXPECT_TRUE(refused([&] { umpi::jagged_field(exec, d, rank == 0 ? shared : whole); }, same,
                      others, rank == 0));
  for (double x : to_host(f)) ASSERT_EQ(x, 1.0);

  const std::string jfn = "unison::mpi::jagged_field: ";
  EXPECT_TRUE(
      refused([&] { umpi::jagged_field(exec, d, f, 1, 1.5); }, "zero_fraction is 1.5", "", true));
  EXPECT_TRUE(refused([&] { umpi::jagged_field(exec, d, rank == 0 ? wrong : f); },
                      "expected this rank's block", others, rank == 0));
  if (size > 1) {
    EXPECT_TRUE(refused([&] { umpi::jagged_field(exec, d, f, 7 + rank); },
                        "seed differs between ranks", "", true));
  }

  Kokkos::View<float**, Mem> A("A", 3, 5), B("B", 5, 4), B6("B6", 6, 4);
  Kokkos::View<float*, Mem> out("out", 4), out5("out5", 5);
  EXPECT_TRUE(refused([&] { umpi::matmul_reduce(exec, MPI_COMM_NULL, A, B, out); }, "MPI_COMM_NULL",
                      "", true));
  EXPECT_TRUE(
      refused([&] { umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, rank == 0 ? out5 : out); },
              "out is 5, expected 4", others, rank == 0));
  EXPECT_TRUE(refused([&] { umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B6, out); },
                      "A's columns must be B's rows", "", true));
  EXPECT_TRUE(
      refused([&] { umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, out, MatmulMethod(5)); },
              "unknown method 5", "", true));
  EXPECT_TRUE(refused(
      [&] {
        umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, out, MatmulMethod::automatic, Transport(4));
      },
      "unknown transport 4", "", true));
  if (size > 1) {
    Kokkos::View<float**, Mem> Ak("Ak", 3, 5 + rank), Bk("Bk", 5 + rank, 4);
    EXPECT_TRUE(refused([&] { umpi::matmul_reduce(exec, MPI_COMM_WORLD, Ak, Bk, out); },
                        "k (A's columns) differs between ranks", "", true));
  }

  // After every refusal the ranks still talk: a good run gives the single-rank result.
  check_diffusion<Exec, float, Kokkos::LayoutRight>({23, 19, {0, 0}, 3, Laplacian::every_step, {}});
  check_matmul<Exec, float, Kokkos::LayoutRight>(10, 5, 4, MatmulMethod::tiled,
                                                 Transport::automatic, false);
}

TYPED_TEST(Mpi, errors) { test_errors<TypeParam>(); }

}  // namespace
