// The peaks of the machine on every enabled backend: the streams of each level of memory (a copy,
// a read and STREAM's Add, sized from the machine's caches) and the arithmetic ceiling (chains of
// fused multiply-adds), the ceilings of the suite's fractions of the peaks and of its rooflines.
// They are filed in the element-wise section of the report (Case::family "elementwise"), beside
// the cases that stream the most bytes, and always run (Kind::peak). Each is checked: a copy bit
// for bit, a read and an Add within float's rounding, the fma case's sums finite.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <unison/backends/host/pack.hpp>
#include <unison/elementwise.hpp>
#include <unison/transform.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// A stream's case: `name`, or with again ("/again") its measure at the end of the run,
// "<name>/again" (Case::again_of: name).
Case stream(const std::string& function, const std::string& name, const std::string& again) {
  Case c("elementwise", function, name + again, Kind::peak);
  if (!again.empty()) c.again_of = name;
  return c;
}

// The identity, for the copy by unison::transform (on a CPU, of a value or a pack of them).
struct Identity {
  using unison_packs = void;  // packs on CPUs: the kernels' path, streaming stores included
  template <class T>
  KOKKOS_FUNCTION T operator()(const T& a) const {
    return a;
  }
};

// The sum of the n floats of a, read once, on a CPU: a work item sums `chunk` consecutive
// values (8192, 32 KiB; in vectors into four sums, so that an item's final sums and its share of
// the reduction cost little beside its loads), the items' sums in double. The read ceiling of a
// memory level: a case that mostly reads (a reduction) can move its bytes faster than a copy.
template <class V, class A>
struct ReadSum {
  static constexpr std::int64_t chunk = 8192;
  A a;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(std::int64_t item, double& total) const {
    float sum = 0;
    const std::int64_t begin = item * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
#if UNISON_BACKENDS_HOST_VECTORS
    if constexpr (unison::backends::is_pack_v<V>) {
      constexpr int lanes = unison::backends::lanes_v<V>;
      if (end - begin == chunk && chunk % (4 * lanes) == 0) {
        V acc[4] = {};
        for (std::int64_t i = begin; i < end; i += 4 * lanes) {
          unison::backends::prefetch_ahead(a.data() + i, 4 * sizeof(V));  // as the kernels do
          for (int k = 0; k < 4; ++k)
            acc[k] = acc[k] + unison::backends::load<V>(a.data() + i + k * lanes);
        }
        const V all = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        for (int l = 0; l < lanes; ++l) sum += all[l];
        total += sum;
        return;
      }
    }
#endif
    for (std::int64_t i = begin; i < end; ++i) sum += a(i);
    total += sum;
  }
};

// The same sum on a GPU: each team of `team` threads reads blocks of team * loads 16-byte chunks
// (4 floats), blocks league_rank, league_rank + league_size, ...: in a block, thread t reads the
// chunks t, t + team, t + 2 team, ..., so that each of a warp's loads is 512 contiguous bytes,
// and has `loads` of them in flight before it adds. The league is a few teams per
// multiprocessor (teams_for), not a team per block: Kokkos ends each team's share of the
// reduction with a step that teams take one at a time, which tens of thousands of teams made
// slower than the loads (2e8 floats on an H100 with a team per block: 1.5 TB/s from 24,000
// teams, 2.0 TB/s from 12,000 of twice the loads; about 12 ns a team).
// A thread sums a block in float and its blocks in double; Kokkos sums the threads' sums.
template <class A>
struct ReadChunks {
  static constexpr int team = 256, loads = 8, width = 4;
  static constexpr std::int64_t block = std::int64_t(team) * loads * width;  // floats
  using value_type = double;  // (operator() takes any team member)
  A a;
  std::int64_t n;
  template <class Exec>
  static int teams_for(const Exec& exec, std::int64_t n) {
    const std::int64_t resident = std::max<std::int64_t>(1, exec.concurrency() / (4 * team));
    return int(std::max<std::int64_t>(1, std::min((n + block - 1) / block, resident)));
  }
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& m, double& total) const {
    using Chunk = unison::detail::Chunk<float, width>;
    const std::int64_t whole = n / block;
    double sum = 0;
    for (std::int64_t b = m.league_rank(); b < whole; b += m.league_size()) {
      const Chunk* p = reinterpret_cast<const Chunk*>(a.data() + b * block) + m.team_rank();
      Chunk c[loads];
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int j = 0; j < loads; ++j) c[j] = p[j * team];
      float part = 0;
      UNISON_DETAIL_UNROLL_ON_DEVICE
      for (int j = 0; j < loads; ++j) part += (c[j].v[0] + c[j].v[1]) + (c[j].v[2] + c[j].v[3]);
      sum += part;
    }
    if (m.league_rank() == m.league_size() - 1)  // the values past the whole blocks
      for (std::int64_t i = whole * block + m.team_rank(); i < n; i += team) sum += a(i);
    total += sum;
  }
};

// The read ceiling: "read/<tag>/device", the sum of n floats (the bytes read) by ReadSum.
template <class Exec>
void add_read(std::size_t n, const std::string& tag, const std::string& again = "") {
  using Mem = typename Exec::memory_space;
#if UNISON_BACKENDS_HOST_VECTORS
  using V = std::conditional_t<host_memory_v<Exec>, unison::backends::Pack<float>, float>;
#else
  using V = float;
#endif
  Case peak = stream("read", "read/" + tag + "/device", again);
  peak.sizes = {{"n", double(n)}};
  peak.bytes = double(n) * sizeof(float);
  add_case<Exec>(peak, [=](const Exec& exec) -> Call<Exec> {
    auto a = random_view<float, Mem>(n, 0, 1, "unison::bench::a");
    Kokkos::View<double, Mem> total(Kokkos::view_alloc(exec, "unison::bench::out"));
    return {[=](const Exec& e) {
              if constexpr (host_memory_v<Exec>) {
                using Read = ReadSum<V, decltype(a)>;
                const std::int64_t items = (std::int64_t(n) + Read::chunk - 1) / Read::chunk;
                Kokkos::parallel_reduce(
                    "unison::bench::read",
                    Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(e, 0, items),
                    Read{a, std::int64_t(n)}, total);
              } else {
                using Read = ReadChunks<decltype(a)>;
                const int teams = Read::teams_for(e, std::int64_t(n));
                Kokkos::parallel_reduce("unison::bench::read",
                                        Kokkos::TeamPolicy<Exec>(e, teams, Read::team),
                                        Read{a, std::int64_t(n)}, total);
              }
            },
            [=](const Exec&) {  // the sum within float's relative rounding of each chunk
              auto ha = host_copy(a);
              double ref = 0;
              for (std::size_t i = 0; i < n; ++i) ref += ha(i);
              double got = 0;
              Kokkos::deep_copy(got, total);
              Check c;
              c.error = ref > 0 ? std::abs(got - ref) / ref : std::abs(got);
              c.tolerance = 1e-5;
              return c;
            }};
  });
}

// STREAM's Add, out = a + b, by unison::transform over the same bytes as the copy of n floats
// (three arrays of 2n/3): "add/<tag>/transform". A case that reads two arrays for each one it
// writes can move its bytes faster than a copy: a GPU's memory serves reads faster than writes.
// Its CPU kernels store past the caches as the copy's do.
template <class Exec>
void add_add(std::size_t n, const std::string& tag, const std::string& again) {
  using Mem = typename Exec::memory_space;
  const std::size_t m = 2 * n / 3;
  Case peak = stream("add", "add/" + tag + "/transform", again);
  peak.api = {"transform"};
  peak.sizes = {{"n", double(m)}};
  peak.bytes = 3.0 * m * sizeof(float);
  add_case<Exec>(peak, [=](const Exec& exec) -> Call<Exec> {
    auto a = random_view<float, Mem>(m, 0, 1, "unison::bench::a");
    auto b = random_view<float, Mem>(m, 0, 1, "unison::bench::b");
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), m);
    Call<Exec> call{
        [=](const Exec& e) { unison::transform(e, out, unison::ops::Add<float>{}, a, b); },
        [=](const Exec&) {
          return check_elementwise<float>(a, b, out, [](double x, double y) { return x + y; });
        }};
    call.out_bytes = streamed_out<Exec>(3.0 * m * sizeof(float), double(m) * sizeof(float));
    return call;
  });
}

// The measured ceiling: a device-to-device copy (bytes read + bytes written) of n floats, named
// "copy/<tag>/device" (tag: the size, "1e8", or the memory level it is sized for, "L2"), by
// Kokkos::deep_copy; with `streams` (a level's streams), "copy/<tag>/transform", by
// unison::transform, whose CPU kernels store past the caches where the arrays span half the
// last-level cache or more (as every CPU kernel of Unison does: its out_bytes, so that its
// working set is its input alone), where deep_copy's stores first read each line they write;
// and always the read of the same 2n floats (add_read) and the Add of the same bytes (add_add).
// The peak of a level is the fastest.
template <class Exec>
void add_copy(std::size_t n, std::string tag = "", bool streams = false,
              const std::string& again = "") {
  if (tag.empty()) {
    n = std::size_t(scaled(std::int64_t(n)));
    tag = size_tag(std::int64_t(n));
  }
  using Mem = typename Exec::memory_space;
  auto add = [&](const std::string& how, double out_bytes, auto copy) {
    Case peak = stream("copy", "copy/" + tag + "/" + how, again);
    if (how == "transform") peak.api = {"transform"};
    peak.sizes = {{"n", double(n)}};
    peak.bytes = 2.0 * n * sizeof(float);
    add_case<Exec>(peak, [=](const Exec& exec) -> Call<Exec> {
      auto a = random_view<float, Mem>(n, 0, 1, "unison::bench::a");
      Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
      Call<Exec> call{[=](const Exec& e) { copy(e, out, a); },
                      [=](const Exec&) {  // bit for bit
                        Check c = check_elementwise<float>(a, decltype(a)(), out,
                                                           [](double x, double) { return x; });
                        c.tolerance = 0;
                        return c;
                      }};
      call.out_bytes = out_bytes;
      return call;
    });
  };
  add("device", 0,
      [](const Exec& e, const auto& out, const auto& a) { Kokkos::deep_copy(e, out, a); });
  if (streams)
    add("transform", streamed_out<Exec>(2.0 * n * sizeof(float), double(n) * sizeof(float)),
        [](const Exec& e, const auto& out, const auto& a) {
          unison::transform(e, out, Identity{}, a);
        });
  add_read<Exec>(2 * n, tag, again);  // the copy's footprint
  add_add<Exec>(n, tag, again);
}

// The streams of each level of memory_levels (copy/<level>/device and /transform,
// read/<level>/device and add/<level>/transform), sized from the machine (not scaled): at L2 the
// arrays fill half of the L2s (a thread's share of them in its own); at each level beyond, 1.25
// times the capacity of the level before it (at most half its own): the fastest working set that
// the inner level cannot hold, so that no case whose data outgrow the inner level moves them
// faster. At DRAM, each array alone is 1.25 times the caches: a copy whose results are stored past
// them keeps only its input there, and a smaller one reads it from the last-level cache. again: ""
// or "/again", the same streams once more at the end of the run (unison-bench keeps the faster of
// the two measures: the machine's load varies during a run).
template <class Exec>
void add_level_copies(const std::string& again = "") {
  double inner = 0;
  for (const auto& level : memory_levels(Exec::name())) {
    double bytes = level.name == "L2" ? 0.5 * level.bytes : 1.25 * inner;
    if (std::isfinite(level.bytes)) bytes = std::min(bytes, 0.5 * level.bytes);
    else bytes *= 2;  // (DRAM)
    inner = level.bytes;
    if (bytes > 0)
      add_copy<Exec>(std::size_t(bytes / (2 * sizeof(float))), level.name, true, again);
  }
}

// The measured arithmetic ceiling: each work item runs kFmaChains independent chains of fused
// multiply-adds in registers (a value per chain on a GPU thread, a pack of them on a CPU:
// unison/backends/host/pack.hpp), `iters` steps each, and writes one sum. GFLOP/s count 2 flops per
// fused multiply-add of each lane.
constexpr int kFmaChains = 12;
template <class V, class Out>
struct FmaChains {
  using T = typename Out::non_const_value_type;
  Out out;
  T a, b;
  int iters;
  template <std::size_t... C>
  KOKKOS_FORCEINLINE_FUNCTION static void step(V (&acc)[kFmaChains], const V& x, const V& y,
                                               std::index_sequence<C...>) {
    ((acc[C] = unison::backends::fma(acc[C], x, y)), ...);
  }
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const V x = unison::backends::splat<V>(a), y = unison::backends::splat<V>(b);
    V acc[kFmaChains];
    for (int c = 0; c < kFmaChains; ++c) acc[c] = unison::backends::splat<V>(T(i % 7 + c));
    for (int it = 0; it < iters; ++it) step(acc, x, y, std::make_index_sequence<kFmaChains>{});
    // The chains added as whole values, then the lanes of a copy: no lane of acc is addressed,
    // so that the compiler keeps acc in registers through the loop (where a lane of acc[c] was
    // read here, g++ through nvcc kept acc in memory once the call was inlined into Serial's
    // loop, and stored all 12 packs on every step: a third of the FMA rate).
    V total = acc[0];
    for (int c = 1; c < kFmaChains; ++c) total = total + acc[c];
    T sum = 0;
    if constexpr (unison::backends::is_pack_v<V>) {
      for (int l = 0; l < unison::backends::lanes_v<V>; ++l) sum += total[l];
    } else {
      sum = total;
    }
    out(i) = sum;
  }
};

template <class Exec>
void add_fma_peak() {
  using Mem = typename Exec::memory_space;
  using T = float;
#if UNISON_BACKENDS_HOST_VECTORS
  using V = std::conditional_t<host_memory_v<Exec>, unison::backends::Pack<T>, T>;
#else
  using V = T;
#endif
  constexpr int lanes = unison::backends::lanes_v<V>;
  // (On a CPU, 64 items a thread taken as threads come free: a core slowed by other work
  // delays the call by an item's time, not by its share.)
  const std::int64_t items = std::int64_t(Exec().concurrency()) * (host_memory_v<Exec> ? 64 : 4);
  const int iters = host_memory_v<Exec> ? 1 << 14 : 1 << 12;
  const double flops = 2.0 * double(items) * iters * kFmaChains * lanes;
  Case peak("elementwise", "fma", "fma/f32/device", Kind::peak);
  peak.sizes = {{"items", double(items)}, {"iterations", double(iters)}};
  peak.flops = flops;
  add_case<Exec>(peak, [=](const Exec& exec) -> Call<Exec> {
    Kokkos::View<T*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), items);
    return {[=](const Exec& e) {
              Kokkos::parallel_for(
                  "unison::bench::fma",
                  Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>,
                                      Kokkos::IndexType<std::int64_t>>(e, 0, items),
                  FmaChains<V, decltype(out)>{out, T(0.999999), T(1e-7), iters});
            },
            [=](const Exec&) {  // every item's chains: finite sums
              auto h = host_copy(out);
              Check c;
              for (std::int64_t i = 0; i < items; ++i) c.error += std::isfinite(h(i)) ? 0 : 1;
              return c;
            }};
  });
}

}  // namespace

void register_copy() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_level_copies<Exec>();
    add_copy<Exec>(100'000'000);
    add_fma_peak<Exec>();
  });
}

void register_streams_again() {
  for_each_backend(
      [](auto backend) { add_level_copies<typename decltype(backend)::type>("/again"); });
}

}  // namespace unison::bench
