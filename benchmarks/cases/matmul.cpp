// Matmul-reduce (docs/workloads.md section 5) on every enabled backend, every method, at the seed
// size m, k, n = 10000, 5000, 7000 float32 (Serial: 1000, 500, 700). TFLOP/s count 2mkn flops
// for the tiled and gemm methods; GB/s count A and B read once (and out written) for all.
// ".../workspace/...": the same with a workspace allocated once by the caller.
// The JSON context names the library under KokkosBlas::gemm for each backend
// ("gemm_library_<backend>").
// Each case is checked against (1^T A) B in double (check_matmul); on a GPU each also has a
// "with_copies" twin (A and B in from host memory, out back).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <unison/matmul.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

// out against (1^T A) B in double. The measure: the largest over the columns j of
// |out[j] - ref[j]| / (1^T |A| |B|)[j], the error relative to the size of the column's terms
// (signed data cancels: a column's sum can be far smaller than its terms, and no float32 method
// can match such a sum to 1e-5 of itself); tolerance 1e-5.
template <class HA, class HB, class HO>
Check check_matmul(const HA& A, const HB& B, const HO& out) {
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  std::vector<double> sum(std::size_t(k), 0.0), abs_sum(std::size_t(k), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t t = 0; t < k; ++t) {
      sum[std::size_t(t)] += A(i, t);
      abs_sum[std::size_t(t)] += std::abs(double(A(i, t)));
    }
  Check c;
  for (std::int64_t j = 0; j < n; ++j) {
    double ref = 0, scale = 0;
    for (std::int64_t t = 0; t < k; ++t) {
      ref += sum[std::size_t(t)] * B(t, j);
      scale += abs_sum[std::size_t(t)] * std::abs(double(B(t, j)));
    }
    const double err = std::abs(double(out(j)) - ref) / (scale > 0 ? scale : 1);
    c.error = std::isnan(err) ? std::numeric_limits<double>::infinity() : std::max(c.error, err);
  }
  c.tolerance = tolerance<float>();
  c.bytes = double(m * k + k * n + n) * sizeof(float);
  c.save = [=](const std::filesystem::path& folder) {
    save_npy(folder, "a", A);
    save_npy(folder, "b", B);
    save_npy(folder, "out", out);
  };
  return c;
}

// `workspace`: the call takes a workspace allocated once by the caller instead of the temporary
// memory Unison keeps for the instance (both asynchronous; the first call allocates the latter).
template <class Exec>
void add_matmul(MatmulMethod method, const char* method_name, bool workspace = false) {
  using Mem = typename Exec::memory_space;
  std::int64_t m = 10000, k = 5000, n = 7000;
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) m = 1000, k = 500, n = 700;
#endif
  // The headline: the library GEMM at the tutorial's size (not Serial's smaller one).
  const bool headline = method == MatmulMethod::gemm && !workspace && m == 10000;
  m = scaled(m, 1, 3), k = scaled(k, 1, 3), n = scaled(n, 1, 3);
  const std::string size = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  const double bytes = double(m * k + k * n + n) * sizeof(float);
  const double flops =
      method == MatmulMethod::reassociated ? 2.0 * (m * k + k * n) : 2.0 * double(m) * k * n;
  Case info("matmul", "matmul_reduce",
            std::string("matmul_reduce/") + method_name + (workspace ? "/workspace" : "") +
                "/f32/" + size);
  info.api = {"matmul_reduce"};
  info.headline = headline;
  info.sizes = {{"m", double(m)}, {"k", double(k)}, {"n", double(n)}};
  info.bytes = bytes;
  info.flops = flops;
  add_case_and_copies<Exec>(info, [=](const Exec& exec) -> Call<Exec> {
    auto a = random_view<float, Mem>(std::size_t(m * k), -1, 1, "unison::bench::A");
    auto b = random_view<float, Mem>(std::size_t(k * n), -1, 1, "unison::bench::B");
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> A(a.data(), m, k), B(b.data(), k, n);
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, std::string("unison::bench::out")), n);
    Kokkos::View<float*, Mem> work(
        Kokkos::view_alloc(exec, std::string("unison::bench::work")),
        workspace ? matmul_reduce_workspace_size<Exec>(m, k, n, method) : 0);
    Call<Exec> call{
        [=](const Exec& e) {
          (void)a;  // keeps the allocations alive
          (void)b;
          if (workspace) unison::matmul_reduce(e, A, B, out, method, work);
          else unison::matmul_reduce(e, A, B, out, method);
        },
        [=](const Exec&) { return check_matmul(host_copy(A), host_copy(B), host_copy(out)); }};
    copy_in(call, A);
    copy_in(call, B);
    copy_out(call, out);
    return call;
  });
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
  register_overlap_matmul();
}

// This file's families in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_matmul = add_registration("matmul", register_matmul);
}  // namespace

}  // namespace unison::bench
