// Independent work overlapped on several execution-space instances (the asynchronous promise of
// docs/api.md): N small independent problems, each on its own instance, against the same N one
// after another on one instance. On a GPU the instances are new streams (partition_space), all fed
// by the calling thread; on the host, partitions of the OpenMP threads or new Serial instances,
// each driven by a host thread of its own. Two kinds of problem:
//  - diffusions of small jagged fields (256 x 256 or 1024 x 1024): each pass is a short kernel, so
//    on a GPU the launches, not the work, are the bound;
//  - matmul-reduces of 128 x 2048 by 2048 x 1024 (tiled method): on a GPU 8 teams of 256 threads,
//    each busy for a long time, 8 of the H100's 132 multiprocessors; on the host 4 of the 256 x 256
//    tiles, 4 threads' work. Where one problem leaves most of the machine idle, 8 at once can fill
//    it.
// The case's check: every result bitwise equal to the one-instance run made in its setup (the tiled
// method adds each output once, as A has a single tile of rows: the result is deterministic).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/matmul.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
int overlap_instances(int want) {
#ifdef KOKKOS_ENABLE_OPENMP
  // A partition needs a thread of its own.
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) return std::min(want, Exec().concurrency());
#endif
  return want;
}

// One diffusion of a side x side jagged field, `steps` steps.
template <class Exec>
struct DiffusionProblem {
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, typename Exec::memory_space>;
  Field start, f, lapl;
  unison::DiffusionBuffer<Field> buffer;
  std::int64_t steps;
  DiffusionProblem(const Exec& exec, int i, std::int64_t side, std::int64_t steps)
      : start(Kokkos::view_alloc(exec, std::string("unison::bench::start")), side, side),
        f(Kokkos::view_alloc(exec, std::string("unison::bench::f")), side, side),
        lapl(Kokkos::view_alloc(exec, std::string("unison::bench::lapl")), side, side),
        buffer("unison::bench::buffer", side, side),
        steps(steps) {
    unison::jagged_field(exec, start, 17 + i);
  }
  void run(const Exec& e) const {
    Kokkos::deep_copy(e, f, start);
    unison::diffuse(e, f, buffer, steps, 0.2, lapl, unison::Laplacian::final_only);
  }
  const Field& result() const { return f; }
};

// One matmul-reduce of A (m x k) by B (k x n), tiled.
template <class Exec>
struct MatmulProblem {
  using Matrix = Kokkos::View<float**, Kokkos::LayoutRight, typename Exec::memory_space>;
  using Vector = Kokkos::View<float*, typename Exec::memory_space>;
  Matrix a, b;
  Vector out;
  MatmulProblem(const Exec& exec, int i, std::int64_t m, std::int64_t k, std::int64_t n)
      : a(Kokkos::view_alloc(exec, std::string("unison::bench::a")), m, k),
        b(Kokkos::view_alloc(exec, std::string("unison::bench::b")), k, n),
        out(Kokkos::view_alloc(exec, std::string("unison::bench::out")), n) {
    Kokkos::Random_XorShift64_Pool<Exec> pool(4242 + i);
    Kokkos::fill_random(exec, a, pool, -1.0f, 1.0f);
    Kokkos::fill_random(exec, b, pool, -1.0f, 1.0f);
  }
  void run(const Exec& e) const {
    unison::matmul_reduce(e, a, b, out, unison::MatmulMethod::tiled);
  }
  const Vector& result() const { return out; }
};

// `count` problems made by make(exec, i), one after another on one instance or each on its own.
// The case is named <function>/overlap/<count>x<shape>/<instances or one_instance>; `api` is the
// public function a problem runs.
template <class Exec, class Make>
void add_overlap(const std::string& family, const std::string& function, const std::string& api,
                 const std::string& shape, int count, bool separate, Make make) {
  using Problem = decltype(make(std::declval<const Exec&>(), 0));
  using Expected = decltype(Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), std::declval<const Problem&>().result()));
  const int n = overlap_instances<Exec>(count);
  const std::string name = function + "/overlap/" + std::to_string(n) + "x" + shape +
                           (separate ? "/instances" : "/one_instance");
  struct Data {
    std::vector<Exec> instances;
    std::vector<Problem> problems;
    std::vector<Expected> expected;
  };
  Case info(family, function, name);
  info.api = {api};
  info.sizes = {{"problems", double(n)}};
  info.time_unit = benchmark::kMicrosecond;
  add_case<Exec>(info, [=](const Exec& exec) -> Call<Exec> {
    auto d = std::make_shared<Data>();
    d->instances = separate ? Kokkos::Experimental::partition_space(exec, std::vector<int>(n, 1))
                            : std::vector<Exec>(n, exec);
    for (int i = 0; i < n; ++i) d->problems.push_back(make(exec, i));
    // The reference: one after another on exec.
    for (int i = 0; i < n; ++i) {
      d->problems[i].run(exec);
      d->expected.push_back(
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d->problems[i].result()));
    }
    return Call<Exec>(
        [d, n, separate](const Exec& e) {
          if (!separate) {
            for (int i = 0; i < n; ++i) d->problems[i].run(e);
            return;
          }
          if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                    typename Exec::memory_space>::accessible) {
            // A GPU's streams, all fed by the calling thread (host threads of their own,
            // created for each call, measured slower).
            for (int i = 0; i < n; ++i) d->problems[i].run(d->instances[i]);
            for (int i = 0; i < n; ++i) d->instances[i].fence();
            return;
          }
          // Host instances run their work in the calling thread: a thread for each.
          std::vector<std::thread> threads;
          for (int i = 0; i < n; ++i)
            threads.emplace_back([&, i] {
              d->problems[i].run(d->instances[i]);
              d->instances[i].fence();
            });
          for (auto& t : threads) t.join();
        },
        [d, n](const Exec&) {
          Check c;  // error: the results that differ from the reference in any bit
          for (int i = 0; i < n; ++i) {
            auto got =
                Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d->problems[i].result());
            using T = typename Expected::value_type;
            c.error += std::equal(got.data(), got.data() + got.span(), d->expected[i].data(),
                                  [](T a, T b) { return std::memcmp(&a, &b, sizeof a) == 0; })
                           ? 0
                           : 1;
          }
          c.tolerance = 0;
          return c;
        });
  });
}

}  // namespace

void register_overlap_diffusion() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (bool separate : {false, true})
      for (auto [side, steps] : {std::pair<std::int64_t, std::int64_t>{256, 50}, {1024, 20}})
        add_overlap<Exec>(
            "diffusion", "diffusion", "diffuse",
            std::to_string(side) + "x" + std::to_string(side) + "/steps" + std::to_string(steps), 8,
            separate, [side = side, steps = steps](const Exec& exec, int i) {
              return DiffusionProblem<Exec>(exec, i, side, steps);
            });
  });
}

void register_overlap_matmul() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (bool separate : {false, true})
      add_overlap<Exec>(
          "matmul", "matmul_reduce", "matmul_reduce", "128x2048x1024/tiled", 8, separate,
          [](const Exec& exec, int i) { return MatmulProblem<Exec>(exec, i, 128, 2048, 1024); });
  });
}

}  // namespace unison::bench
