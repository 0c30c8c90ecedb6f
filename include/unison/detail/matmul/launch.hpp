#pragma once
// unison/detail/matmul/launch.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The launches of matmul_reduce: each takes the call's Schedule (schedule.hpp), decided and
// checked before, and the Views, and only launches.

#include <KokkosKernels_config.h>
#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>
#include <unison/backends/host/blas.hpp>
#include <unison/detail/matmul/checks.hpp>
#include <unison/detail/matmul/column_sums.hpp>
#include <unison/detail/matmul/fill.hpp>
#include <unison/detail/matmul/schedule.hpp>
#include <unison/detail/matmul/tiled.hpp>
#include <unison/detail/matmul/tiled_host.hpp>
#include <unison/detail/matmul/workspace.hpp>

namespace unison::detail::matmul {

// The tiled method, either form: out set to zeros, then every tile's column sums added to it.
template <class Exec, class AV, class BV, class OV>
void launch_tiled(const Exec& exec, const Schedule& s, const AV& A, const BV& B, const OV& out) {
  using T = typename OV::non_const_value_type;
  const int league = int(s.tiles_m * s.tiles_n);
  if constexpr (host_tiles_v<Exec, T>) {
    // (The schedule takes this form for every B of LayoutRight: said here at compile time too,
    // so that the teams' form is not compiled for such a B.)
    if (s.launch == Launch::tiled_host ||
        std::is_same_v<typename BV::array_layout, Kokkos::LayoutRight>) {
      using Kernel = MatmulReduceTiledHost<Exec, AV, BV, OV>;
      fill_output(exec, out, T(0));
      Kokkos::TeamPolicy<Exec> policy(exec, league, s.team_size);
      policy.set_scratch_size(s.scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
      Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                           Kernel{A, B, out, s.m, s.k, s.n, s.tiles_n});
      return;
    }
  }
  using Kernel = MatmulReduceTiled<Exec, AV, BV, OV>;
  using Shape = KernelShape<Exec>;
  fill_output(exec, out, T(0));
  Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<Shape::team_size, Shape::min_teams>> policy(
      exec, league, s.team_size, 1);
  policy.set_scratch_size(s.scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                       Kernel{A, B, out, s.m, s.k, s.n, s.tiles_n, Kernel::wide_loads(A, B)});
}

// The reassociated method: s = 1^T A, then out = s B, each as column sums in the workspace
// `work`.
template <class Exec, class AV, class BV, class OV>
void launch_reassociated(const Exec& exec, const Schedule& sc, const AV& A, const BV& B,
                         const OV& out, typename OV::non_const_value_type* work) {
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  constexpr int W = KernelShape<Exec>::column_chunk;
  const auto part = [&](int i) { return workspace_part<T, Mem>(work, sc.parts, i); };
  const auto s = Kokkos::subview(part(0), 0, Kokkos::ALL);
  if constexpr (rescued_v<T>) {
    const auto ext = workspace_part<double, Mem>(work, sc.parts, 3);
    weighted_column_sums<W>(exec, "a", A, s, false, part(1), s,
                            RescueColumn<AV, decltype(ext)>{A, ext, true}, sc.column_rows);
    weighted_column_sums<W>(exec, "b", B, s, true, part(2), out,
                            RescueWeighted<BV, decltype(s), decltype(ext)>{B, s, ext},
                            sc.column_rows);
  } else {
    weighted_column_sums<W>(exec, "a", A, s, false, part(1), s, NoRescue{}, sc.column_rows);
    weighted_column_sums<W>(exec, "b", B, s, true, part(2), out, NoRescue{}, sc.column_rows);
  }
}

// The gemm method: C = A B in the workspace, in A's layout, then its column sums.
template <class Exec, class AV, class BV, class OV>
void launch_gemm(const Exec& exec, const Schedule& sc, const AV& A, const BV& B, const OV& out,
                 typename OV::non_const_value_type* work) {
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  constexpr int W = KernelShape<Exec>::column_chunk;
  if constexpr (std::is_same_v<typename AV::array_layout, typename BV::array_layout> &&
                blas_layout_v<typename AV::array_layout>) {
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
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
        workspace_part<T, Mem>(work, sc.parts, 0).data(), sc.m, sc.n);
    const auto partial = workspace_part<T, Mem>(work, sc.parts, 1);
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
    // The host BLAS on the cores exec runs on (its threads could be bound to one).
    if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible)
      backends::host_blas_for(exec);
#endif
    KokkosBlas::gemm(exec, "N", "N", T(1), a, b, T(0), C);
    if constexpr (rescued_v<T>)
      weighted_column_sums<W>(exec, "product", C, out, false, partial, out,
                              RescueColumn<decltype(C), WorkspaceView<double, Mem>>{C, {}, false},
                              sc.column_rows);
    else
      weighted_column_sums<W>(exec, "product", C, out, false, partial, out, NoRescue{},
                              sc.column_rows);
  }
}

// The call, as scheduled: `work` holds the schedule's workspace_elements elements (none for the
// tiled method).
template <class Exec, class AV, class BV, class OV>
void launch(const Exec& exec, const Schedule& s, const AV& A, const BV& B, const OV& out,
            typename OV::non_const_value_type* work) {
  using T = typename OV::non_const_value_type;
  switch (s.launch) {
    case Launch::nothing:
      return;
    case Launch::zeros:
      fill_output(exec, out, T(0));
      return;
    case Launch::tiled_host:
    case Launch::tiled:
      launch_tiled(exec, s, A, B, out);
      return;
    case Launch::reassociated:
      launch_reassociated(exec, s, A, B, out, work);
      return;
    case Launch::gemm:
      launch_gemm(exec, s, A, B, out, work);
      return;
  }
}

}  // namespace unison::detail::matmul
