#pragma once
// unison/detail/rowwise/dispatch.hpp: part of unison/rowwise.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The choice of kernel and launch shape for l2_norm and matmul_core, once their arguments are
// checked.

#include <unison/backends/device_info.hpp>
#include <unison/detail/rowwise/matmul_core.hpp>

namespace unison::detail::rowwise {

// Enqueues out(i) = ||V(i, :)|| on exec; fn names the public function in errors.
template <class Exec, class VV, class OV>
void l2_norm_launch(const char* fn, const Exec& exec, const VV& V, const OV& out) {
  using T = typename OV::non_const_value_type;
  const std::int64_t rows = V.extent(0), cols = V.extent(1);
  using Tuning = backends::RowwiseTuning<Exec>;
  if constexpr (Tuning::packs && backends::has_pack_v<T> && std::is_same_v<T, float>) {
    if (V.stride(1) == 1 && cols > 0 && L2NormFloatRows<VV, OV>::fits(V)) {
      const std::int64_t per = items_of(rows, exec.concurrency(), 64);
      Kokkos::parallel_for("unison::rowwise::l2_norm",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec, 0, (rows + per - 1) / per),
                           L2NormFloatRows<VV, OV>{V, out, rows, cols, per});
      return;
    }
  }
  // Lanes per row: a power of two, at most one per 16-byte chunk of the row, when the rows are
  // contiguous; else one (consecutive threads take consecutive rows).
  constexpr int per_chunk = L2Norm<VV, OV>::K;
  int lanes = 1;
  if (V.stride(1) == 1)
    while (lanes * 2 <= Tuning::max_vector_length && lanes * 2 * per_chunk <= cols) lanes *= 2;
  const int threads = Tuning::team_lanes / lanes > 0 ? Tuning::team_lanes / lanes : 1;
  const int rows_per_team = threads * Tuning::rows_per_thread;
  const std::int64_t league = (rows + rows_per_team - 1) / rows_per_team;
  require(league <= std::int64_t(INT32_MAX), fn, "V has ", rows,
          " rows, more than this backend's launch can cover");
  Kokkos::parallel_for("unison::rowwise::l2_norm",
                       Kokkos::TeamPolicy<Exec>(exec, int(league), threads, lanes),
                       L2Norm<VV, OV>{V, out, rows, cols, rows_per_team, lanes, V.stride(1) == 1});
}

// Enqueues C(q) = A(q) B(q) for every q on exec.
template <class Exec, class AV, class BV, class CV>
void matmul_core_launch(const Exec& exec, const AV& A, const BV& B, const CV& C) {
  using T = typename CV::non_const_value_type;
  const std::int64_t batch = A.extent(0), m = A.extent(1), n = A.extent(2), p = B.extent(2);
  const std::int64_t total = batch * m;
  using Tuning = backends::RowwiseTuning<Exec>;
  if constexpr (Tuning::packs && backends::has_pack_v<T>) {
    using Batches = MatmulCoreBatches<AV, BV, CV>;
    if (Batches::fits(A, B, C)) {
      const std::int64_t per = items_of(batch, exec.concurrency(), 64);
      const std::int64_t bytes = std::int64_t(sizeof(T)) * batch * (m * n + n * p + m * p);
      Kokkos::parallel_for("unison::rowwise::matmul_core",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec, 0, (batch + per - 1) / per),
                           Batches{A, B, C, batch, m, n, p, per, Batches::group_of(A, B, C),
                                   backends::host_streams(bytes)});
      return;
    }
  }
  const bool batch_fastest = C.stride(0) == 1 && batch > 1;
  if (total < std::int64_t(INT32_MAX) && n < std::int64_t(INT32_MAX) &&
      p < std::int64_t(INT32_MAX)) {
    Kokkos::parallel_for(
        "unison::rowwise::matmul_core", Kokkos::RangePolicy<Exec>(exec, 0, total),
        MatmulCore<int, AV, BV, CV>{A, B, C, int(batch), int(m), int(n), int(p), batch_fastest});
  } else {
    Kokkos::parallel_for(
        "unison::rowwise::matmul_core",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, total),
        MatmulCore<std::int64_t, AV, BV, CV>{A, B, C, batch, m, n, p, batch_fastest});
  }
}

}  // namespace unison::detail::rowwise
