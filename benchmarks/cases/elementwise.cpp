// The element-wise family on every enabled backend at the seed sizes (docs/workloads.md section 1).
// Each function is timed with its data already in the backend's memory ("device") and, on
// backends whose memory is not the host's, including the copies of inputs in and results out
// through pageable host memory ("with_copies"). GB/s counts each input array read once and each
// output written once: the fewest bytes the function must move (the separate hidden layer: what
// its three passes read and write). Every case is checked against the function in double on the
// host. (The peaks of the machine, filed in this family's section of the report, are peak.cpp's.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include <unison/elementwise.hpp>
#include <unison/transform.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// The standard normal density in double.
double ref_gaussian_pdf(double x, double) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }

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
              return check_elementwise<Out>(a, b, out, ref, true, bytes);
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
              [=](const Exec&) { return check_elementwise<Out>(ha, hb, hout, ref, true, bytes); }};
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
              [=](const Exec&) { return check_elementwise<float>(a, b, out, ref, true, saved); }};
    });
  };
  add(typename Exec::memory_space{}, "/device", bytes);
  if constexpr (!host_memory_v<Exec>) add(Kokkos::HostSpace{}, "/with_copies", saved);
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

}  // namespace unison::bench
