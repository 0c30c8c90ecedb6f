// The element-wise family on every enabled backend at the seed sizes (docs/workloads.md section 1).
// Each function is timed with its data already in the backend's memory ("device") and, on
// backends whose memory is not the host's, including the copies of inputs in and results out
// through pageable host memory ("with_copies"). GB/s counts each input array read once and each
// output written once: the fewest bytes the function must move (the separate hidden layer: what
// its three passes read and write). Every case is checked against the function in double on the
// host (the copy case: bit for bit).
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

// The standard normal density in double.
double ref_gaussian_pdf(double x, double) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }

template <class Exec>
constexpr bool host_memory_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

// The check of an element-wise result: out against ref(a(i), b(i)) in double (b unused by
// functions of one input); the inputs and the result saved as a.npy, b.npy and out.npy.
template <class Out, class A, class B, class O, class Ref>
Check check_elementwise(const A& a, const B& b, const O& out, const Ref& ref, double bytes) {
  auto ha = host_copy(a);
  auto hb = host_copy(b);
  auto ho = host_copy(out);
  const bool two = b.extent(0) > 0;
  Check c;
  c.error = relative_error(
      std::int64_t(out.extent(0)), [&](std::int64_t i) { return double(ho(i)); },
      [&](std::int64_t i) { return ref(double(ha(i)), two ? double(hb(i)) : 0.0); });
  c.tolerance = tolerance<Out>();
  c.bytes = bytes;
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "a", ha);
    if (two) save_npy(folder, "b", hb);
    save_npy(folder, "out", ho);
  };
  return c;
}

// Registers the "device" case of f over `inputs` arrays of type In and one output of type Out,
// and, where the backend's memory is not the host's, the "with_copies" case; both checked
// against ref(a, b), the function in double.
// (`kind`: a seed workload, named "<function>/<n>/...", or a crossover sweep's size,
// "crossover/<function>/<n>/...".)
template <class Exec, class In, class Out = In, class F, class Ref>
void add_elementwise(const std::string& function, const std::string& api, std::size_t n, int inputs,
                     double lo, double hi, F f, Ref ref, Kind kind = Kind::workload,
                     bool headline = false) {
  n = std::size_t(scaled(std::int64_t(n)));
  using Mem = typename Exec::memory_space;
  const double bytes = double(n) * (inputs * sizeof(In) + sizeof(Out));
  const std::string base =
      (kind == Kind::crossover ? "crossover/" : "") + function + "/" + size_tag(n);
  const auto named = [&](const std::string& where) {
    Case info("elementwise", function, base + where, kind);
    info.api = {api};
    info.headline = headline && where == "/device";
    info.with_copies = where == "/with_copies";
    info.sizes = {{"n", double(n)}};
    info.bytes = bytes;
    return info;
  };
  auto make = [=](const Exec& exec) {
    auto a = random_view<In, Mem>(n, lo, hi, "unison::bench::a");
    auto b = random_view<In, Mem>(inputs > 1 ? n : 0, lo, hi, "unison::bench::b");
    Kokkos::View<Out*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
    return std::make_tuple(a, b, out);
  };
  add_case<Exec>(named("/device"), [=](const Exec& exec) -> Call<Exec> {
    auto [a, b, out] = make(exec);
    return {[=, a = a, b = b, out = out](const Exec& e) { f(e, a, b, out); },
            [=, a = a, b = b, out = out](const Exec&) {
              return check_elementwise<Out>(a, b, out, ref, bytes);
            }};
  });
  if constexpr (!host_memory_v<Exec>) {
    add_case<Exec>(named("/with_copies"), [=](const Exec& exec) -> Call<Exec> {
      auto [a, b, out] = make(exec);  // copied into the lambdas below by name
      auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
      auto hout = Kokkos::create_mirror_view(out);
      return {[=, a = a, b = b, out = out](const Exec& e) {
                Kokkos::deep_copy(e, a, ha);
                if (inputs > 1) Kokkos::deep_copy(e, b, hb);
                f(e, a, b, out);
                Kokkos::deep_copy(e, hout, out);
              },
              [=](const Exec&) { return check_elementwise<Out>(ha, hb, hout, ref, bytes); }};
    });
  }
}

// make_pulses and hidden_layer take host Views themselves: their "with_copies" case passes host
// inputs and a host output, and the function does the one copy in and the one copy out.
// `words`: the values per element that the function's kernels read and write in all (3: two
// inputs and the output, in one pass), the case's bytes.
template <class Exec, class F, class Ref>
void add_host_capable(const std::string& function, const std::string& api, std::size_t n,
                      double lo_a, double hi_a, double lo_b, double hi_b, F f, Ref ref,
                      int words = 3) {
  n = std::size_t(scaled(std::int64_t(n)));
  const double bytes = double(n) * words * sizeof(float);
  const double saved = double(n) * 3 * sizeof(float);  // a, b and out
  // (with the host copies: the bytes copied in and out, a, b and out, as for every function)
  auto add = [&](auto mem, const std::string& where, double moved) {
    using Mem = decltype(mem);
    Case info("elementwise", function, function + "/" + size_tag(n) + where);
    info.api = {api};
    info.with_copies = where == "/with_copies";
    info.sizes = {{"n", double(n)}};
    info.bytes = moved;
    add_case<Exec>(info, [=](const Exec&) -> Call<Exec> {
      auto a = random_view<float, Mem>(n, lo_a, hi_a, "unison::bench::a");
      auto b = random_view<float, Mem>(n, lo_b, hi_b, "unison::bench::b");
      Kokkos::View<float*, Mem> out("unison::bench::out", n);
      return {[=](const Exec& e) { f(e, a, b, out); },
              [=](const Exec&) { return check_elementwise<float>(a, b, out, ref, saved); }};
    });
  };
  add(typename Exec::memory_space{}, "/device", bytes);
  if constexpr (!host_memory_v<Exec>) add(Kokkos::HostSpace{}, "/with_copies", saved);
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
  Case peak("elementwise", "read", "read/" + tag + "/device" + again, Kind::peak);
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
  Case peak("elementwise", "add", "add/" + tag + "/transform" + again, Kind::peak);
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
          Check c = check_elementwise<float>(
              a, b, out, [](double x, double y) { return x + y; }, 0);
          c.save = nullptr;
          return c;
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
    Case peak("elementwise", "copy", "copy/" + tag + "/" + how + again, Kind::peak);
    if (how == "transform") peak.api = {"transform"};
    peak.sizes = {{"n", double(n)}};
    peak.bytes = 2.0 * n * sizeof(float);
    add_case<Exec>(peak, [=](const Exec& exec) -> Call<Exec> {
      auto a = random_view<float, Mem>(n, 0, 1, "unison::bench::a");
      Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
      Call<Exec> call{[=](const Exec& e) { copy(e, out, a); },
                      [=](const Exec&) {  // bit for bit
                        Check c = check_elementwise<float>(
                            a, decltype(a)(), out, [](double x, double) { return x; }, 0);
                        c.tolerance = 0;
                        c.save = nullptr;
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

// Probes for tuning, GPU only: gaussian_pdf and fused hidden_layer at 1e8 with a fixed chunk
// shape (K consecutive elements read at once, U chunks per work item), against the backend's
// default (backends/include/unison/backends/tuning.hpp).
template <class Exec, int K, int U>
void add_chunk_probe() {
  using Mem = typename Exec::memory_space;
  const std::size_t n = 100'000'000;
  const std::string shape = "_K" + std::to_string(K) + "_U" + std::to_string(U) + "/1e8/device";
  Case pdf("elementwise", "gaussian_pdf", "probe/gaussian_pdf" + shape, Kind::probe);
  pdf.api = {"transform"};
  pdf.sizes = {{"n", double(n)}};
  pdf.bytes = 2.0 * n * sizeof(float);
  add_case<Exec>(pdf, [=](const Exec&) -> std::function<void(const Exec&)> {
    auto x = random_view<float, Mem>(n, -5, 5, "unison::bench::a");
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc("unison::bench::out"), n);
    return [=](const Exec& e) {
      unison::transform(unison::TransformShape<K, U>{}, e, out, unison::ops::GaussianPdf<float>{},
                        x, 0.f, 1.f);
    };
  });
  Case hidden("elementwise", "hidden_layer_fused", "probe/hidden_layer_fused" + shape, Kind::probe);
  hidden.api = {"transform"};
  hidden.sizes = {{"n", double(n)}};
  hidden.bytes = 3.0 * n * sizeof(float);
  add_case<Exec>(hidden, [=](const Exec&) -> std::function<void(const Exec&)> {
    auto g = random_view<float, Mem>(n, 0, 255, "unison::bench::a");
    auto w = random_view<float, Mem>(n, 0.3, 0.7, "unison::bench::b");
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc("unison::bench::out"), n);
    return [=](const Exec& e) {
      unison::transform(unison::TransformShape<K, U>{}, e, out, unison::ops::HiddenNeuron<float>{},
                        g, w);
    };
  });
}

template <class Exec>
void register_backend() {
  add_level_copies<Exec>();
  add_copy<Exec>(100'000'000);
  add_fma_peak<Exec>();
  if constexpr (!host_memory_v<Exec>) {
    add_chunk_probe<Exec, 1, 1>();
    add_chunk_probe<Exec, 1, 4>();
    add_chunk_probe<Exec, 4, 1>();
    add_chunk_probe<Exec, 4, 2>();
    add_chunk_probe<Exec, 8, 1>();
  }
  const auto sum = [](double x, double y) { return x + y; };
  add_elementwise<Exec, std::int64_t>(
      "add_int64", "add", 100'000, 2, -1e12, 1e12,
      [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); }, sum);
  add_elementwise<Exec, float>(
      "add_float32", "add", 100'000, 2, -1e3, 1e3,
      [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); }, sum);
  add_elementwise<Exec, float>(
      "hypot", "hypot", 1'000'000, 2, -1e3, 1e3,
      [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); },
      [](double x, double y) { return std::hypot(x, y); });
  for (std::size_t n : {std::size_t(1'000'000), std::size_t(100'000'000)})
    add_elementwise<Exec, float>(
        "gaussian_pdf", "gaussian_pdf", n, 1, -5, 5,
        [](auto& e, auto& x, auto&, auto& o) { unison::gaussian_pdf(e, x, 0.f, 1.f, o); },
        ref_gaussian_pdf, Kind::workload, n == 100'000'000);  // the headline: the tutorial's 1e8
  // polar_distance has four inputs; the two radii and the two angles share arrays here, which
  // reads half the bytes of four distinct arrays: counted as two inputs.
  add_elementwise<Exec, float>(
      "polar_distance", "polar_distance", 1'000'000, 2, 0, 3,
      [](auto& e, auto& r, auto& t, auto& o) { unison::polar_distance(e, r, t, t, r, o); },
      [](double r, double t) {  // the points (r, t) and (t, r)
        const double dx = r * std::cos(t) - t * std::cos(r), dy = r * std::sin(t) - t * std::sin(r);
        return std::sqrt(dx * dx + dy * dy);
      });
  add_elementwise<Exec, std::int16_t>(
      "zero_suppress", "zero_suppress", 100'000, 1, -100, 100,
      [](auto& e, auto& w, auto&, auto& o) { unison::zero_suppress(e, w, std::int16_t(15), o); },
      [](double v, double) { return v < 15 ? 0.0 : v; });
  add_elementwise<Exec, float>(
      "clip", "clip", 100'000'000, 1, -3, 3,
      [](auto& e, auto& x, auto&, auto& o) { unison::clip(e, x, -1.f, 1.f, o); },
      [](double x, double) { return std::min(std::max(x, -1.0), 1.0); });
  const float period = float(100'000) / 23;
  add_host_capable<Exec>(
      "make_pulses", "make_pulses", 100'000, 0, 255, 0.3, 0.7,
      [=](auto& e, auto& t, auto& noise, auto& o) {
        unison::make_pulses(e, t, noise, period, 100.f, o);
      },
      [=](double t, double noise) {
        return std::max(std::sin(t / period) - 0.3, 0.0) * 100 + noise;
      });
  const auto hidden = [](double g, double w) { return std::tanh(g / 255 * w); };
  for (std::size_t n : {std::size_t(1'000'000), std::size_t(100'000'000)}) {
    add_host_capable<Exec>(
        "hidden_layer_fused", "hidden_layer", n, 0, 255, 0.3, 0.7,
        [](auto& e, auto& g, auto& w, auto& o) {
          unison::hidden_layer(e, g, w, o, unison::Fusion::fused);
        },
        hidden);
    add_host_capable<Exec>(
        "hidden_layer_separate", "hidden_layer", n, 0, 255, 0.3, 0.7,
        [](auto& e, auto& g, auto& w, auto& o) {
          unison::hidden_layer(e, g, w, o, unison::Fusion::separate);
        },
        // The three passes read and write 7 values an element: greyscales in and out's
        // normalised values out; those and the weights in, the products out; those in, the
        // activations out (the bytes they must move, as the fused form's 3 are its own).
        hidden, 7);
  }
}

}  // namespace

void register_elementwise() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

// This file's families in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_elementwise =
    add_registration("elementwise", register_elementwise);
}  // namespace

void register_crossover_elementwise() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (std::size_t n = 1000; n <= 100'000'000; n *= 10)
      add_elementwise<Exec, float>(
          "gaussian_pdf", "gaussian_pdf", n, 1, -5, 5,
          [](auto& e, auto& x, auto&, auto& o) { unison::gaussian_pdf(e, x, 0.f, 1.f, o); },
          ref_gaussian_pdf, Kind::crossover);
  });
}

void register_streams_again() {
  for_each_backend(
      [](auto backend) { add_level_copies<typename decltype(backend)::type>("/again"); });
}

void register_copy() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    add_level_copies<Exec>();
    add_copy<Exec>(100'000'000);
    add_fma_peak<Exec>();
  });
}

}  // namespace unison::bench
