// The element-wise family on every enabled backend at the seed sizes (WORKLOADS.md section 1).
// Each function is timed with its data already in the backend's memory ("device") and, on
// backends whose memory is not the host's, including the copies of inputs in and results out
// through pageable host memory ("with_copies"). GB/s counts each input array read once and each
// output written once: the fewest bytes the function must move.
#include <cstdint>
#include <string>

#include <unison/elementwise.hpp>

#include "bench_common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
constexpr bool host_memory_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

// Registers the "device" case of f over `inputs` arrays of type In and one output of type Out,
// and, where the backend's memory is not the host's, the "with_copies" case.
template <class Exec, class In, class Out = In, class F>
void add_elementwise(const std::string& name, std::size_t n, int inputs, double lo, double hi,
                     F f) {
  n = std::size_t(scaled(std::int64_t(n)));
  using Mem = typename Exec::memory_space;
  const double bytes = double(n) * (inputs * sizeof(In) + sizeof(Out));
  const std::string base = name + "/" + size_tag(n);
  auto make = [=](const Exec& exec) {
    auto a = random_view<In, Mem>(n, lo, hi, "unison::bench::a");
    auto b = random_view<In, Mem>(inputs > 1 ? n : 0, lo, hi, "unison::bench::b");
    Kokkos::View<Out*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
    return std::make_tuple(a, b, out);
  };
  add_case<Exec>(base + "/device", [=](const Exec& exec) -> std::function<void(const Exec&)> {
    auto v = make(exec);
    return [=](const Exec& e) { f(e, std::get<0>(v), std::get<1>(v), std::get<2>(v)); };
  }, bytes);
  if constexpr (!host_memory_v<Exec>) {
    add_case<Exec>(base + "/with_copies", [=](const Exec& exec) -> std::function<void(const Exec&)> {
      auto [a, b, out] = make(exec);  // copied into the lambda below by name
      auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
      auto hout = Kokkos::create_mirror_view(out);
      return [=, a = a, b = b, out = out](const Exec& e) {
        Kokkos::deep_copy(e, a, ha);
        if (inputs > 1) Kokkos::deep_copy(e, b, hb);
        f(e, a, b, out);
        Kokkos::deep_copy(e, hout, out);
      };
    }, bytes);
  }
}

// make_pulses and hidden_layer take host Views themselves: their "with_copies" case passes host
// inputs and a host output, and the function does the one copy in and the one copy out.
template <class Exec, class F>
void add_host_capable(const std::string& name, std::size_t n, F f) {
  n = std::size_t(scaled(std::int64_t(n)));
  using Mem = typename Exec::memory_space;
  const double bytes = double(n) * 3 * sizeof(float);
  const std::string base = name + "/" + size_tag(n);
  add_case<Exec>(base + "/device", [=](const Exec& exec) -> std::function<void(const Exec&)> {
    auto a = random_view<float, Mem>(n, 0, 255, "unison::bench::a");
    auto b = random_view<float, Mem>(n, 0.3, 0.7, "unison::bench::b");
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
    return [=](const Exec& e) { f(e, a, b, out); };
  }, bytes);
  if constexpr (!host_memory_v<Exec>) {
    add_case<Exec>(base + "/with_copies", [=](const Exec&) -> std::function<void(const Exec&)> {
      auto a = random_view<float, Kokkos::HostSpace>(n, 0, 255, "unison::bench::a");
      auto b = random_view<float, Kokkos::HostSpace>(n, 0.3, 0.7, "unison::bench::b");
      Kokkos::View<float*, Kokkos::HostSpace> out("unison::bench::out", n);
      return [=](const Exec& e) { f(e, a, b, out); };
    }, bytes);
  }
}

// The measured ceiling: a device-to-device copy (bytes read + bytes written).
template <class Exec>
void add_copy(std::size_t n) {
  n = std::size_t(scaled(std::int64_t(n)));
  using Mem = typename Exec::memory_space;
  add_case<Exec>("copy/" + size_tag(n) + "/device",
                 [=](const Exec& exec) -> std::function<void(const Exec&)> {
                   auto a = random_view<float, Mem>(n, 0, 1, "unison::bench::a");
                   Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, "unison::bench::out"), n);
                   return [=](const Exec& e) { Kokkos::deep_copy(e, out, a); };
                 },
                 2.0 * n * sizeof(float));
}

// Probes for tuning, GPU only: gaussian_pdf and fused hidden_layer at 1e8 with a fixed chunk
// shape (K consecutive elements read at once, U chunks per work item), against the backend's
// default (backends/include/unison/backends/tuning.hpp).
template <class Exec, int K, int U>
void add_chunk_probe() {
  using Mem = typename Exec::memory_space;
  const std::size_t n = 100'000'000;
  const std::string shape = "_K" + std::to_string(K) + "_U" + std::to_string(U) + "/1e8/device";
  add_case<Exec>("probe/gaussian_pdf" + shape,
                 [=](const Exec&) -> std::function<void(const Exec&)> {
                   auto x = random_view<float, Mem>(n, -5, 5, "unison::bench::a");
                   Kokkos::View<float*, Mem> out(Kokkos::view_alloc("unison::bench::out"), n);
                   return [=](const Exec& e) {
                     unison::impl::transform<K, U>({"probe", "unison::bench::probe"},
                                                   {"x", "mean", "sigma"}, e, out,
                                                   unison::ops::GaussianPdf<float>{}, x, 0.f, 1.f);
                   };
                 },
                 2.0 * n * sizeof(float));
  add_case<Exec>("probe/hidden_layer_fused" + shape,
                 [=](const Exec&) -> std::function<void(const Exec&)> {
                   auto g = random_view<float, Mem>(n, 0, 255, "unison::bench::a");
                   auto w = random_view<float, Mem>(n, 0.3, 0.7, "unison::bench::b");
                   Kokkos::View<float*, Mem> out(Kokkos::view_alloc("unison::bench::out"), n);
                   return [=](const Exec& e) {
                     unison::impl::transform<K, U>({"probe", "unison::bench::probe"},
                                                   {"g", "w"}, e, out,
                                                   unison::ops::HiddenNeuron<float>{}, g, w);
                   };
                 },
                 3.0 * n * sizeof(float));
}

template <class Exec>
void register_backend() {
  add_copy<Exec>(100'000'000);
  if constexpr (!host_memory_v<Exec>) {
    add_chunk_probe<Exec, 1, 1>();
    add_chunk_probe<Exec, 1, 4>();
    add_chunk_probe<Exec, 4, 1>();
    add_chunk_probe<Exec, 4, 2>();
    add_chunk_probe<Exec, 8, 1>();
  }
  add_elementwise<Exec, std::int64_t>("add_int64", 100'000, 2, -1e12, 1e12,
                                      [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); });
  add_elementwise<Exec, float>("add_float32", 100'000, 2, -1e3, 1e3,
                               [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); });
  add_elementwise<Exec, float>("hypot", 1'000'000, 2, -1e3, 1e3,
                               [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); });
  for (std::size_t n : {std::size_t(1'000'000), std::size_t(100'000'000)})
    add_elementwise<Exec, float>("gaussian_pdf", n, 1, -5, 5, [](auto& e, auto& x, auto&, auto& o) {
      unison::gaussian_pdf(e, x, 0.f, 1.f, o);
    });
  // polar_distance has four inputs; the two radii and the two angles share arrays here, which
  // reads half the bytes of four distinct arrays: counted as two inputs.
  add_elementwise<Exec, float>("polar_distance", 1'000'000, 2, 0, 3, [](auto& e, auto& r, auto& t, auto& o) {
    unison::polar_distance(e, r, t, t, r, o);
  });
  add_elementwise<Exec, std::int16_t>("zero_suppress", 100'000, 1, -100, 100,
                                      [](auto& e, auto& w, auto&, auto& o) {
                                        unison::zero_suppress(e, w, std::int16_t(15), o);
                                      });
  add_host_capable<Exec>("make_pulses", 100'000, [](auto& e, auto& t, auto& noise, auto& o) {
    unison::make_pulses(e, t, noise, float(100'000) / 23, 100.f, o);
  });
  for (std::size_t n : {std::size_t(1'000'000), std::size_t(100'000'000)}) {
    add_host_capable<Exec>("hidden_layer_fused", n, [](auto& e, auto& g, auto& w, auto& o) {
      unison::hidden_layer(e, g, w, o, unison::Fusion::fused);
    });
    add_host_capable<Exec>("hidden_layer_separate", n, [](auto& e, auto& g, auto& w, auto& o) {
      unison::hidden_layer(e, g, w, o, unison::Fusion::separate);
    });
  }
}

}  // namespace

void register_elementwise() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

void register_crossover_elementwise() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (std::size_t n = 1000; n <= 100'000'000; n *= 10)
      add_elementwise<Exec, float>("crossover/gaussian_pdf", n, 1, -5, 5, [](auto& e, auto& x, auto&, auto& o) {
        unison::gaussian_pdf(e, x, 0.f, 1.f, o);
      });
  });
}

void register_copy() {
  for_each_backend([](auto backend) { add_copy<typename decltype(backend)::type>(100'000'000); });
}

}  // namespace unison::bench
