// The column sums of a matrix product, out[j] = sum_i (A B)[i, j], by the three methods of
// unison::matmul_reduce: the library GEMM then the sums, a tiled kernel that never stores A B,
// and the reassociated form (1^T A) B. Each is checked against double on the host and timed.
//
//   ./03_matmul_reduce [m [k [n]]]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <Kokkos_Core.hpp>
#include <unison/unison.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long m = argc > 1 ? std::atol(argv[1]) : 500, k = argc > 2 ? std::atol(argv[2]) : 300,
             n = argc > 3 ? std::atol(argv[3]) : 400;
  using Matrix = Kokkos::View<float**, Kokkos::LayoutRight>;
  Kokkos::DefaultExecutionSpace exec;
  Matrix A("A", m, k), B("B", k, n);
  Kokkos::View<float*> out("out", n);
  auto hA = Kokkos::create_mirror_view(A);
  auto hB = Kokkos::create_mirror_view(B);
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < k; ++j) hA(i, j) = float((i * 31 + j * 17) % 13) / 13.f - 0.5f;
  for (long i = 0; i < k; ++i)
    for (long j = 0; j < n; ++j) hB(i, j) = float((i * 7 + j * 29) % 11) / 11.f - 0.5f;
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(B, hB);

  // The reference in double: the column sums of A, then times B.
  std::vector<double> colsum(std::size_t(k), 0.0), expected(std::size_t(n), 0.0);
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < k; ++j) colsum[std::size_t(j)] += hA(i, j);
  for (long j = 0; j < k; ++j)
    for (long c = 0; c < n; ++c) expected[std::size_t(c)] += colsum[std::size_t(j)] * hB(j, c);

  bool ok = true;
  const struct {
    unison::MatmulMethod method;
    const char* name;
  } methods[] = {{unison::MatmulMethod::gemm, "gemm"},
                 {unison::MatmulMethod::tiled, "tiled"},
                 {unison::MatmulMethod::reassociated, "reassociated"}};
  std::printf("A %ld x %ld, B %ld x %ld on %s (GEMM by %s)\n", m, k, k, n, exec.name(),
              unison::matmul_gemm_library<Kokkos::DefaultExecutionSpace>().c_str());
  for (const auto& [method, name] : methods) {
    unison::matmul_reduce(exec, A, B, out, method);  // once to warm up
    exec.fence();
    Kokkos::Timer timer;
    unison::matmul_reduce(exec, A, B, out, method);
    exec.fence();
    const double seconds = timer.seconds();
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    double worst = 0, scale = 0;
    for (long c = 0; c < n; ++c) {
      worst = std::fmax(worst, std::fabs(got(c) - expected[std::size_t(c)]));
      scale = std::fmax(scale, std::fabs(expected[std::size_t(c)]));
    }
    const double relative = worst / (scale > 0 ? scale : 1);
    ok = ok && relative < 1e-4;
    std::printf("  %-13s %9.3f ms   max error %.2g of the largest sum\n", name, seconds * 1e3,
                relative);
  }
  return ok ? 0 : 1;
}
