// Matmul-reduce (WORKLOADS.md section 5) on every enabled backend, every method, at the seed
// size m, k, n = 10000, 5000, 7000 float32 (Serial: 1000, 500, 700). TFLOP/s count 2mkn flops
// for the tiled and gemm methods; GB/s count A and B read once (and out written) for all.
// ".../workspace/...": the same with a workspace allocated once by the caller.
// The JSON context names the library under KokkosBlas::gemm for each backend
// ("gemm_library_<backend>").
#include <cstdint>
#include <string>

#include <unison/matmul.hpp>

#include "bench_common.hpp"

namespace unison::bench {
namespace {

// `workspace`: the call takes a workspace allocated once (asynchronous, nothing allocated per
// call) instead of allocating and freeing its temporaries (which synchronizes).
template <class Exec>
void add_matmul(MatmulMethod method, const char* method_name, bool workspace = false) {
  using Mem = typename Exec::memory_space;
  std::int64_t m = 10000, k = 5000, n = 7000;
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) m = 1000, k = 500, n = 700;
#endif
  m = scaled(m, 1, 3), k = scaled(k, 1, 3), n = scaled(n, 1, 3);
  const std::string size = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  const double bytes = double(m * k + k * n + n) * sizeof(float);
  const double flops = method == MatmulMethod::reassociated ? 2.0 * (m * k + k * n)
                                                            : 2.0 * double(m) * k * n;
  add_case<Exec>(
      std::string("matmul_reduce/") + method_name + (workspace ? "/workspace" : "") + "/f32/" +
          size,
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        auto a = random_view<float, Mem>(std::size_t(m * k), -1, 1, "unison::bench::A");
        auto b = random_view<float, Mem>(std::size_t(k * n), -1, 1, "unison::bench::B");
        Kokkos::View<float**, Kokkos::LayoutRight, Mem> A(a.data(), m, k), B(b.data(), k, n);
        Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, std::string("unison::bench::out")),
                                      n);
        Kokkos::View<float*, Mem> work(
            Kokkos::view_alloc(exec, std::string("unison::bench::work")),
            workspace ? matmul_reduce_workspace_size<Exec>(m, k, n, method) : 0);
        return [=](const Exec& e) {
          (void)a;  // keeps the allocations alive
          (void)b;
          if (workspace) unison::matmul_reduce(e, A, B, out, method, work);
          else unison::matmul_reduce(e, A, B, out, method);
        };
      },
      bytes, flops);
}

template <class Exec>
void register_backend() {
  benchmark::AddCustomContext(std::string("gemm_library_") + Exec::name(),
                              matmul_gemm_library<Exec>());
  add_matmul<Exec>(MatmulMethod::tiled, "tiled");
  add_matmul<Exec>(MatmulMethod::gemm, "gemm");
  add_matmul<Exec>(MatmulMethod::reassociated, "reassociated");
  add_matmul<Exec>(MatmulMethod::gemm, "gemm", true);
  add_matmul<Exec>(MatmulMethod::reassociated, "reassociated", true);
}

}  // namespace

void register_matmul() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

}  // namespace unison::bench
