// diffusion_step on every enabled backend: one step a call on the seed's 2000 x 2000 float32
// jagged field, f and f_next apart (an exploration probe of unison-bench-cases, not in
// unison-bench's table: the suite's diffusion rows time diffuse, whose steps run the same kernels).
// GB/s counts f read and f_next and lapl written once; Gcells/s the cells updated.
// diffusion_schedule on the same field: what diffuse decides before it launches (host work only,
// no kernel: the cost a call's decision adds, per call, in microseconds).
#include <cstdint>
#include <functional>
#include <string>

#include <unison/diffusion.hpp>
#include <unison/field.hpp>

#include "common.hpp"

namespace unison::bench {

void register_diffusion_step() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    using Mem = typename Exec::memory_space;
    const long n = long(scaled(2000, 3, 2));
    Case info("diffusion", "diffusion_step", "diffusion/probe/diffusion_step", Kind::probe);
    info.api = {"diffusion_step"};
    info.sizes = {{"rows", double(n)}, {"cols", double(n)}};
    info.bytes = double(n) * n * sizeof(float) * 3;
    info.cells = double(n) * n;
    info.time_unit = benchmark::kMicrosecond;
    add_case<Exec>(info, [=](const Exec& exec) -> std::function<void(const Exec&)> {
      using V = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
      V f(Kokkos::view_alloc(exec, std::string("unison::bench::field")), n, n),
          f_next(Kokkos::view_alloc(exec, std::string("unison::bench::next")), n, n),
          lapl(Kokkos::view_alloc(exec, std::string("unison::bench::lapl")), n, n);
      unison::jagged_field(exec, f);
      return [=](const Exec& e) { unison::diffusion_step(e, f, f_next, lapl, 0.25); };
    });
    Case decision("diffusion", "diffusion_schedule", "diffusion/probe/diffusion_schedule",
                  Kind::probe);
    decision.api = {"diffusion_schedule"};
    decision.sizes = {{"rows", double(n)}, {"cols", double(n)}};
    decision.time_unit = benchmark::kMicrosecond;
    add_case<Exec>(decision, [=](const Exec& exec) -> std::function<void(const Exec&)> {
      using V = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
      V f(Kokkos::view_alloc(exec, std::string("unison::bench::field")), n, n);
      return [=](const Exec& e) {
        unison::DiffusionSchedule s =
            unison::diffusion_schedule(e, f, unison::Laplacian::final_only);
        benchmark::DoNotOptimize(s);
      };
    });
  });
}

}  // namespace unison::bench
