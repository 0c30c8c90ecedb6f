// Independent work overlapped on several execution-space instances (the asynchronous promise of
// docs/api.md): N small diffusions from N jagged fields, each on its own instance, against the
// same N one after another on one instance. On a GPU the instances are new streams
// (partition_space), all fed by the calling thread; on the host, partitions of the OpenMP threads
// or new Serial instances, each driven by a host thread of its own. A field of 256 x 256 is far too
// small to fill an H100 or 16 cores on its own, which is where overlap pays. The case's check:
// every field bitwise equal to the one-instance run made in its setup.
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

#include "bench_common.hpp"

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

template <class Exec>
void add_overlap(int count, std::int64_t side, std::int64_t steps, bool separate) {
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, typename Exec::memory_space>;
  using HostField = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  const int n = overlap_instances<Exec>(count);
  const std::string name = "diffusion/overlap/" + std::to_string(n) + "x" + std::to_string(side) +
                           "x" + std::to_string(side) + "/steps" + std::to_string(steps) +
                           (separate ? "/instances" : "/one_instance");
  struct Data {
    std::vector<Exec> instances;
    std::vector<Field> start, f, lapl;
    std::vector<unison::DiffusionBuffer<Field>> buffer;
    std::vector<HostField> expected;
  };
  // One diffusion, enqueued on e.
  const auto diffuse = [steps](const Data& d, int i, const Exec& e) {
    Kokkos::deep_copy(e, d.f[i], d.start[i]);
    unison::diffuse(e, d.f[i], d.buffer[i], steps, 0.2, d.lapl[i], unison::Laplacian::final_only);
  };
  add_case<Exec>(
      name,
      [=](const Exec& exec) -> Call<Exec> {
        auto d = std::make_shared<Data>();
        d->instances = separate
                           ? Kokkos::Experimental::partition_space(exec, std::vector<int>(n, 1))
                           : std::vector<Exec>(n, exec);
        for (int i = 0; i < n; ++i) {
          const auto alloc = [&](const char* label) {
            return Field(Kokkos::view_alloc(exec, std::string(label)), side, side);
          };
          d->start.push_back(alloc("unison::bench::start"));
          d->f.push_back(alloc("unison::bench::f"));
          d->lapl.push_back(alloc("unison::bench::lapl"));
          d->buffer.emplace_back("unison::bench::buffer", side, side);
          unison::jagged_field(exec, d->start[i], 17 + i);
        }
        // The reference: one after another on exec.
        for (int i = 0; i < n; ++i) {
          diffuse(*d, i, exec);
          d->expected.push_back(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d->f[i]));
        }
        return Call<Exec>(
            [d, diffuse, n, separate](const Exec& e) {
              if (!separate) {
                for (int i = 0; i < n; ++i) diffuse(*d, i, e);
                return;
              }
              if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                        typename Exec::memory_space>::accessible) {
                // A GPU's streams, all fed by the calling thread (host threads of their own,
                // created for each call, measured slower).
                for (int i = 0; i < n; ++i) diffuse(*d, i, d->instances[i]);
                for (int i = 0; i < n; ++i) d->instances[i].fence();
                return;
              }
              // Host instances run their work in the calling thread: a thread for each.
              std::vector<std::thread> threads;
              for (int i = 0; i < n; ++i)
                threads.emplace_back([&, i] {
                  diffuse(*d, i, d->instances[i]);
                  d->instances[i].fence();
                });
              for (auto& t : threads) t.join();
            },
            [d, n](const Exec&) {
              Check c;  // error: the fields that differ from the reference in any bit
              for (int i = 0; i < n; ++i) {
                auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d->f[i]);
                c.error +=
                    std::equal(got.data(), got.data() + got.span(), d->expected[i].data(),
                               [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; })
                        ? 0
                        : 1;
              }
              c.tolerance = 0;
              return c;
            });
      },
      0, 0, 1, 0, benchmark::kMicrosecond);
}

}  // namespace

void register_overlap() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (bool separate : {false, true}) {
      add_overlap<Exec>(8, 256, 50, separate);
      add_overlap<Exec>(8, 1024, 20, separate);
    }
  });
}

}  // namespace unison::bench
