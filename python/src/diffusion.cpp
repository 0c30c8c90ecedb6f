// The diffusion (unison/diffusion.hpp): diffusion_step, diffuse, diffuse_history. Fields are
// rank-2 float32 or float64 arrays of any layout.
#include "bindings.hpp"
#include "choices.hpp"

#include <unison/diffusion.hpp>

#include <algorithm>

namespace unison::python {
namespace {

using std::string;

constexpr Choices<StencilAlgorithm, 6> stencil_algorithms{
    {{"automatic", StencilAlgorithm::automatic},
     {"plain", StencilAlgorithm::plain},
     {"tiled", StencilAlgorithm::tiled},
     {"streaming", StencilAlgorithm::streaming},
     {"wavefront", StencilAlgorithm::wavefront},
     {"resident", StencilAlgorithm::resident}}};
constexpr Choices<Laplacian, 2> laplacians{
    {{"every_step", Laplacian::every_step}, {"final_only", Laplacian::final_only}}};

StencilAlgorithm algorithm_of(const string& fn, const string& a) {
  return choose(fn, "algorithm", stencil_algorithms, a);
}

DiffusionOptions options_of(const string& fn, const string& algorithm, int tile_rows, int tile_cols,
                            int steps_per_pass) {
  DiffusionOptions o;
  o.algorithm = algorithm_of(fn, algorithm);
  o.tile_rows = tile_rows;
  o.tile_cols = tile_cols;
  o.steps_per_pass = steps_per_pass;
  return o;
}

void diffusion_step(py::object f, py::object f_next, py::object lapl, double coeff,
                    const string& algorithm, const string& backend, py::object stream) {
  Call call("unison.diffusion_step", call_options(backend, stream));
  const ArrayRef& fa = call.array(f, "f", Role::input);
  call.require_rank(fa, 2);
  const ArrayRef& na = call.array(f_next, "f_next", Role::output, fa, 2);
  const ArrayRef& la = call.array(lapl, "lapl", Role::output, fa, 2);
  const StencilAlgorithm alg = algorithm_of(call.fn(), algorithm);
  on_float(call.fn(), fa, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::diffusion_step(exec, view_of<const T, 2, S>(fa), view_of<T, 2, S>(na),
                             view_of<T, 2, S>(la), coeff, alg);
    });
  });
}

void diffuse(py::object f, std::int64_t steps, double coeff, py::object lapl,
             const string& laplacian, const string& algorithm, int tile_rows, int tile_cols,
             int steps_per_pass, const string& backend, py::object stream) {
  Call call("unison.diffuse", call_options(backend, stream));
  const ArrayRef& fa = call.array(f, "f", Role::output);
  call.require_rank(fa, 2);
  const ArrayRef& la = call.array(lapl, "lapl", Role::output, fa, 2);
  const Laplacian which = choose(call.fn(), "laplacian", laplacians, laplacian);
  const DiffusionOptions o = options_of(call.fn(), algorithm, tile_rows, tile_cols, steps_per_pass);
  // On a host backend the steps run in chunks of about interrupt_work() cell updates (whole
  // passes: a multiple of 8 steps, and of steps_per_pass), with a check for a pending signal
  // (Ctrl-C) between them; every step is computed as in one call, so the bits are the same.
  const std::int64_t interrupt_cells = interrupt_work();
  const std::int64_t cells = std::max<std::int64_t>(1, fa.size());
  const std::int64_t unit = 8 * std::max(1, steps_per_pass);
  const std::int64_t chunk = std::max<std::int64_t>(1, interrupt_cells / cells / unit) * unit;
  on_float(call.fn(), fa, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using Exec = std::decay_t<decltype(exec)>;
      using S = space_of<Exec>;
      const auto fv = view_of<T, 2, S>(fa);
      const auto lv = view_of<T, 2, S>(la);
      if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, S>::accessible || steps <= chunk) {
        unison::diffuse(exec, fv, steps, coeff, lv, which, o);
        return;
      }
      for (std::int64_t done = 0; done < steps;) {
        const std::int64_t now = std::min(chunk, steps - done);
        unison::diffuse(exec, fv, now, coeff, lv, which, o);
        done += now;
        if (done < steps) {
          exec.fence("unison.diffuse: a chunk of steps, before the check for a signal");
          raise_pending_signal();
        }
      }
    });
  });
}

void diffuse_history(py::object f, std::int64_t steps, double coeff, py::object history,
                     py::object on_history, int steps_per_pass, const string& backend,
                     py::object stream) {
  Call call("unison.diffuse_history", call_options(backend, stream));
  const ArrayRef& fa = call.array(f, "f", Role::output);
  call.require_rank(fa, 2);
  const ArrayRef& ha = call.array(history, "history", Role::output, fa, 3);
  DiffusionOptions o;
  o.steps_per_pass = steps_per_pass;
  const bool host = call.device().kind == Device::host;
  on_float(call.fn(), fa, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::diffuse_history(
          exec, view_of<T, 2, S>(fa), steps, coeff, view_of<T, 3, S>(ha),
          [&](std::int64_t first, std::int64_t count, const auto&, const auto&) {
            // On a host backend the planes are in memory when Python reads them; on a GPU they
            // are in stream order on the call's stream, which the callback's own work joins.
            if (host) exec.fence("unison.diffuse_history: the planes for the callback");
            if (!on_history.is_none()) {
              py::gil_scoped_acquire gil;
              on_history(first, count);
            }
            if (host) raise_pending_signal();  // (Ctrl-C between groups)
          },
          o);
    });
  });
}

}  // namespace

void bind_diffusion(py::module_& m) {
  using py::arg;
  m.def("diffusion_step", &diffusion_step, arg("f"), arg("f_next"), arg("lapl"), arg("coeff"),
        arg("algorithm"), arg("backend"), arg("stream"));
  m.def("diffuse", &diffuse, arg("f"), arg("steps"), arg("coeff"), arg("lapl"), arg("laplacian"),
        arg("algorithm"), arg("tile_rows"), arg("tile_cols"), arg("steps_per_pass"), arg("backend"),
        arg("stream"));
  m.def("diffuse_history", &diffuse_history, arg("f"), arg("steps"), arg("coeff"), arg("history"),
        arg("on_history"), arg("steps_per_pass"), arg("backend"), arg("stream"));
  export_choices(m, "stencil_algorithm", stencil_algorithms);
  export_choices(m, "laplacian", laplacians);
}

}  // namespace unison::python
