// The row-wise family (docs/workloads.md section 2) on every enabled backend at the seed sizes:
// l2_norm of 1e6 rows of 2 and of 1e4 rows of 1e3, and matmul_core of 1e5 products of 4 x 4 by
// 4 x 4, float32, LayoutRight (rows contiguous, as NumPy's arrays). GB/s count every input read
// once and every output written once. Each case is checked against a float64 host reference; on
// a GPU each also has a "with_copies" twin (inputs in from host memory, results out).
#include <cmath>
#include <cstdint>
#include <string>

#include <unison/rowwise.hpp>

#include "common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
void add_l2_norm(std::int64_t rows, std::int64_t cols) {
  using Mem = typename Exec::memory_space;
  rows = scaled(rows);
  const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
  Case info("rowwise", "l2_norm", "l2_norm/f32/" + size);
  info.api = {"l2_norm"};
  info.sizes = {{"rows", double(rows)}, {"cols", double(cols)}};
  info.bytes = double(rows * cols + rows) * sizeof(float);
  info.flops = 2.0 * double(rows * cols);
  info.time_unit = benchmark::kMicrosecond;
  add_case_and_copies<Exec>(info, [=](const Exec& exec) -> Call<Exec> {
    auto v = random_view<float, Mem>(std::size_t(rows * cols), -1, 1, "unison::bench::V");
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> V(v.data(), rows, cols);
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc(exec, std::string("unison::bench::out")),
                                  rows);
    Call<Exec> call{[=](const Exec& e) {
                      (void)v;  // keeps the allocation alive
                      unison::l2_norm(e, V, out);
                    },
                    [=](const Exec&) {
                      auto hv = host_copy(V);
                      auto ho = host_copy(out);
                      Check c;
                      c.error = relative_error(
                          rows, [&](std::int64_t i) { return double(ho(i)); },
                          [&](std::int64_t i) {
                            double s = 0;
                            for (std::int64_t j = 0; j < cols; ++j)
                              s += double(hv(i, j)) * hv(i, j);
                            return std::sqrt(s);
                          });
                      c.tolerance = tolerance<float>();
                      c.bytes = double(rows * cols + rows) * sizeof(float);
                      c.save = [=](const std::filesystem::path& folder) {
                        save_npy(folder, "v", hv);
                        save_npy(folder, "out", ho);
                      };
                      return c;
                    }};
    copy_in(call, V);
    copy_out(call, out);
    return call;
  });
}

template <class Exec>
void add_matmul_core(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t p) {
  using Mem = typename Exec::memory_space;
  batch = scaled(batch);
  const std::string size = std::to_string(batch) + "x" + std::to_string(m) + "x" +
                           std::to_string(n) + "x" + std::to_string(p);
  Case info("rowwise", "matmul_core", "matmul_core/f32/" + size);
  info.api = {"matmul_core"};
  info.headline = true;
  info.sizes = {{"batch", double(batch)}, {"m", double(m)}, {"n", double(n)}, {"p", double(p)}};
  info.bytes = double(batch * (m * n + n * p + m * p)) * sizeof(float);
  info.flops = 2.0 * double(batch * m * n * p);
  info.time_unit = benchmark::kMicrosecond;
  add_case_and_copies<Exec>(info, [=](const Exec& exec) -> Call<Exec> {
    auto a = random_view<float, Mem>(std::size_t(batch * m * n), -1, 1, "unison::bench::A");
    auto b = random_view<float, Mem>(std::size_t(batch * n * p), -1, 1, "unison::bench::B");
    Kokkos::View<float***, Kokkos::LayoutRight, Mem> A(a.data(), batch, m, n),
        B(b.data(), batch, n, p);
    Kokkos::View<float***, Kokkos::LayoutRight, Mem> C(
        Kokkos::view_alloc(exec, std::string("unison::bench::C")), batch, m, p);
    Call<Exec> call{[=](const Exec& e) {
                      (void)a;
                      (void)b;
                      unison::matmul_core(e, A, B, C);
                    },
                    [=](const Exec&) {
                      auto ha = host_copy(A);
                      auto hb = host_copy(B);
                      auto hc = host_copy(C);
                      Check c;
                      // Element i of C, flattened: product q, row r, column s.
                      c.error = relative_error(
                          batch * m * p, [&](std::int64_t i) { return double(hc.data()[i]); },
                          [&](std::int64_t i) {
                            const std::int64_t q = i / (m * p), r = i / p % m, s = i % p;
                            double sum = 0;
                            for (std::int64_t t = 0; t < n; ++t)
                              sum += double(ha(q, r, t)) * hb(q, t, s);
                            return sum;
                          });
                      c.tolerance = tolerance<float>();
                      c.bytes = double(batch * (m * n + n * p + m * p)) * sizeof(float);
                      c.save = [=](const std::filesystem::path& folder) {
                        save_npy(folder, "a", ha);
                        save_npy(folder, "b", hb);
                        save_npy(folder, "out", hc);
                      };
                      return c;
                    }};
    copy_in(call, A);
    copy_in(call, B);
    copy_out(call, C);
    return call;
  });
}

template <class Exec>
void register_backend() {
  add_l2_norm<Exec>(1000000, 2);
  add_l2_norm<Exec>(10000, 1000);
  add_matmul_core<Exec>(100000, 4, 4, 4);
}

}  // namespace

void register_rowwise() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

// This file's families in the workload registry (benchmarks/harness/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered_rowwise = add_registration("rowwise", register_rowwise);
}  // namespace

}  // namespace unison::bench
