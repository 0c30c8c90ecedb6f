#pragma once
// unison/detail/matmul/dispatch.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The checks every form shares, the method that `automatic` stands for, and each method's
// launches in a workspace.

#include <unison/detail/matmul/workspace.hpp>
#include <unison/matmul_types.hpp>

namespace unison::detail::matmul {

template <class Exec, class AV, class BV, class OV>
void check_matmul_reduce_types() {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::matmul_reduce: the first argument must be a Kokkos execution space");
  static_assert(
      Kokkos::is_view_v<AV> && Kokkos::is_view_v<BV> && AV::rank() == 2 && BV::rank() == 2,
      "unison::matmul_reduce: A and B must be rank-2 Views");
  static_assert(
      Kokkos::is_view_v<OV> && OV::rank() == 1 && !std::is_const_v<typename OV::value_type>,
      "unison::matmul_reduce: out must be a rank-1 View with a non-const value type");
  using T = typename OV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> &&
                    std::is_same_v<typename AV::non_const_value_type, T> &&
                    std::is_same_v<typename BV::non_const_value_type, T>,
                "unison::matmul_reduce: A, B and out must hold the same floating-point type");
  static_assert(detail::accessible_v<Exec, AV> && detail::accessible_v<Exec, BV> &&
                    detail::accessible_v<Exec, OV>,
                "unison::matmul_reduce: A, B and out must be accessible from the execution space");
}

// The run-time checks shared by both forms; returns the method that will run.
template <class AV, class BV, class OV>
MatmulMethod check_matmul_reduce(const AV& A, const BV& B, const OV& out, MatmulMethod method) {
  constexpr const char* fn = "unison::matmul_reduce";
  detail::require(B.extent(0) == A.extent(1), fn, "A is ", detail::extents_of(A), " and B is ",
                  detail::extents_of(B), ": A's columns must be B's rows");
  detail::require(out.extent(0) == B.extent(1), fn, "out is ", out.extent(0), ", expected ",
                  B.extent(1), " (B's columns)");
  detail::check_disjoint(fn, "out", out, "A", A);
  detail::check_disjoint(fn, "out", out, "B", B);
  detail::matmul::check_method(fn, method);
  if (method == MatmulMethod::gemm) {
    constexpr bool same = std::is_same_v<typename AV::array_layout, typename BV::array_layout> &&
                          detail::matmul::blas_layout_v<typename AV::array_layout>;
    detail::require(
        same, fn,
        "the gemm method takes A and B both LayoutLeft or both LayoutRight (KokkosBlas::"
        "gemm); use the tiled or reassociated method for other layouts");
  }
  return method == MatmulMethod::automatic ? MatmulMethod::reassociated : method;
}

// The (TM x TN) tiles of the m x n product A.B for Kernel, by rows and columns of tiles;
// refuses a count that one launch cannot hold.
template <class Kernel>
std::pair<std::int64_t, std::int64_t> tiles_of(std::int64_t m, std::int64_t n) {
  const std::int64_t tiles_m = (m + Kernel::TM - 1) / Kernel::TM;
  const std::int64_t tiles_n = (n + Kernel::TN - 1) / Kernel::TN;
  require(tiles_m * tiles_n <= std::int64_t(INT32_MAX), "unison::matmul_reduce", "A.B (", m, "x", n,
          ") has ", tiles_m * tiles_n, " tiles of ", Kernel::TM, "x", Kernel::TN,
          ", more than 2^31 - 1 for one launch of the tiled method");
  return {tiles_m, tiles_n};
}

// The work, once checked: `work` holds matmul_reduce_workspace_size<Exec, T> elements (unused by
// tiled).
template <class Exec, class AV, class BV, class OV>
void matmul_reduce_run(const Exec& exec, const AV& A, const BV& B, const OV& out,
                       MatmulMethod method, typename OV::non_const_value_type* work) {
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  if (n == 0) return;
  if (m == 0 || k == 0) {
    detail::matmul::fill_output(exec, out, T(0));
    return;
  }
  if (method == MatmulMethod::tiled) {
    using Tuning = backends::MatmulTuning<Exec>;
    if constexpr (Tuning::packs && backends::has_pack_v<T>) {
      // CPUs, rows of A and B with contiguous elements: register micro-tiles.
      if (B.stride(1) == 1) {
        using Kernel = detail::matmul::MatmulReduceTiledHost<Exec, AV, BV, OV>;
        const auto [tiles_m, tiles_n] = detail::matmul::tiles_of<Kernel>(m, n);
        detail::matmul::fill_output(exec, out, T(0));
        Kokkos::TeamPolicy<Exec> policy(exec, int(tiles_m * tiles_n), 1);
        policy.set_scratch_size(1, Kokkos::PerTeam(Kernel::scratch_bytes()));
        Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                             Kernel{A, B, out, m, k, n, tiles_n});
        return;
      }
    }
    using Kernel = detail::matmul::MatmulReduceTiled<Exec, AV, BV, OV>;
    const auto [tiles_m, tiles_n] = detail::matmul::tiles_of<Kernel>(m, n);
    detail::matmul::fill_output(exec, out, T(0));
    Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<Tuning::team_size, Tuning::min_teams>> policy(
        exec, int(tiles_m * tiles_n), Tuning::team_size, 1);
    policy.set_scratch_size(Tuning::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
    Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                         Kernel{A, B, out, m, k, n, tiles_n, Kernel::wide_loads(A, B)});
    return;
  }
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const auto parts = workspace_parts<Exec, T>(m, k, n, method);
  const auto part = [&](int i) { return workspace_part<T, Mem>(work, parts, i); };
  if (method == MatmulMethod::reassociated) {
    const auto s = Kokkos::subview(part(0), 0, Kokkos::ALL);
    if constexpr (rescued_v<T>) {
      const auto ext = workspace_part<double, Mem>(work, parts, 3);
      detail::matmul::weighted_column_sums(exec, "a", A, s, false, part(1), s,
                                           RescueColumn<AV, decltype(ext)>{A, ext, true});
      detail::matmul::weighted_column_sums(
          exec, "b", B, s, true, part(2), out,
          RescueWeighted<BV, decltype(s), decltype(ext)>{B, s, ext});
    } else {
      detail::matmul::weighted_column_sums(exec, "a", A, s, false, part(1), s, NoRescue{});
      detail::matmul::weighted_column_sums(exec, "b", B, s, true, part(2), out, NoRescue{});
    }
    return;
  }
  // gemm: C = A B in the workspace, in A's layout, then its column sums.
  if constexpr (std::is_same_v<typename AV::array_layout, typename BV::array_layout> &&
                detail::matmul::blas_layout_v<typename AV::array_layout>) {
    // Views of exec's own device type: Kokkos Kernels hands a call to the vendor BLAS only when
    // the Views' execution space is exec's (a HostSpace View's is the default host space, so a
    // Serial call on it would otherwise run Kokkos Kernels' own kernel).
    using Layout = typename AV::array_layout;
    const Kokkos::View<const T**, Layout, Kokkos::Device<Exec, typename AV::memory_space>,
                       Unmanaged>
        a(A);
    const Kokkos::View<const T**, Layout, Kokkos::Device<Exec, typename BV::memory_space>,
                       Unmanaged>
        b(B);
    const Kokkos::View<T**, Layout, Kokkos::Device<Exec, Mem>, Unmanaged> C(
        workspace_part<T, Mem>(work, parts, 0).data(), m, n);
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
    // The host BLAS on the cores exec runs on (its threads could be bound to one).
    if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible)
      backends::host_blas_for(exec);
#endif
    KokkosBlas::gemm(exec, "N", "N", T(1), a, b, T(0), C);
    if constexpr (rescued_v<T>)
      detail::matmul::weighted_column_sums(
          exec, "product", C, out, false, part(1), out,
          RescueColumn<decltype(C), WorkspaceView<double, Mem>>{C, {}, false});
    else
      detail::matmul::weighted_column_sums(exec, "product", C, out, false, part(1), out,
                                           NoRescue{});
  }
}

}  // namespace unison::detail::matmul
