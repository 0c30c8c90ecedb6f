#pragma once
// unison/detail/matmul/checks.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The checks of matmul_reduce's arguments, the same for every backend: what the public functions
// call before anything is decided (schedule.hpp) or run (launch.hpp).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/matmul_types.hpp>

namespace unison::detail::matmul {

// The layouts a BLAS takes.
template <class Layout>
inline constexpr bool blas_layout_v =
    std::is_same_v<Layout, Kokkos::LayoutLeft> || std::is_same_v<Layout, Kokkos::LayoutRight>;

// Throws unison::invalid_argument naming fn unless method is a MatmulMethod.
inline void check_method(const char* fn, MatmulMethod method) {
  require(method == MatmulMethod::automatic || method == MatmulMethod::tiled ||
              method == MatmulMethod::gemm || method == MatmulMethod::reassociated,
          fn, "unknown method ", int(method));
}

// matmul_reduce_workspace_size's extents and method.
inline void check_sizes(const char* fn, std::int64_t m, std::int64_t k, std::int64_t n,
                        MatmulMethod method) {
  require(m >= 0 && k >= 0 && n >= 0, fn, "m, k, n are ", m, ", ", k, ", ", n,
          ", expected 0 or more");
  check_method(fn, method);
}

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

// The run-time checks of matmul_reduce's arguments, shared by both forms (and lent to the MPI
// component through interface.hpp).
template <class AV, class BV, class OV>
void check_matmul_reduce(const AV& A, const BV& B, const OV& out, MatmulMethod method) {
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
}

// The caller's workspace of the second form: its type, and that it overlaps none of the
// arguments (its size is the schedule's to check: check_workspace_size in schedule.hpp).
template <class Exec, class T, class WV>
constexpr void check_workspace_type() {
  static_assert(Kokkos::is_view_v<WV> && WV::rank() == 1 &&
                    std::is_same_v<typename WV::value_type, T> &&
                    detail::matmul::blas_layout_v<typename WV::array_layout>,
                "unison::matmul_reduce: workspace must be a contiguous rank-1 View of out's "
                "value type");
  static_assert(detail::accessible_v<Exec, WV>,
                "unison::matmul_reduce: workspace must be accessible from the execution space");
}
template <class WV, class AV, class BV, class OV>
void check_workspace_disjoint(const char* fn, const WV& workspace, const AV& A, const BV& B,
                              const OV& out) {
  detail::check_disjoint(fn, "workspace", workspace, "A", A);
  detail::check_disjoint(fn, "workspace", workspace, "B", B);
  detail::check_disjoint(fn, "workspace", workspace, "out", out);
}

}  // namespace unison::detail::matmul
