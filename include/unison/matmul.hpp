#pragma once
/// \file unison/matmul.hpp
/// Matmul-reduce (docs/workloads.md section 5): out[j] = sum_i (A.B)[i, j], for A (m x k) and
/// B (k x n), three ways: the product tiled in team scratch and reduced on the fly, Kokkos
/// Kernels' GEMM followed by a column sum, and the reassociated (1^T A) B.

#include <cstdint>
#include <string>
#include <type_traits>

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/detail/matmul/checks.hpp>
#include <unison/detail/matmul/interface.hpp>
#include <unison/detail/matmul/launch.hpp>
#include <unison/detail/matmul/schedule.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/matmul_types.hpp>

namespace unison {

/// \addtogroup matmul
/// \{

/// What KokkosBlas::gemm runs on for execution space Exec in this build: "cuBLAS", "rocBLAS" (a
/// Kokkos Kernels built with it, on HIP), "host BLAS" (a BLAS library found at configure time,
/// e.g. OpenBLAS) or "Kokkos Kernels" (its own kernel).
///
/// \return "cuBLAS", "rocBLAS", "host BLAS" or "Kokkos Kernels".
template <class Exec>
std::string matmul_gemm_library() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return "cuBLAS";
#endif
#if defined(KOKKOS_ENABLE_HIP) && defined(KOKKOSKERNELS_ENABLE_TPL_ROCBLAS)
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) return "rocBLAS";
#endif
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) return "host BLAS";
#endif
  return "Kokkos Kernels";
}

/// How many elements of value type T (float or double) matmul_reduce's `method` needs as
/// temporary memory for A (m x k) and B (k x n) on execution space Exec: 0 for tiled; for
/// reassociated (and automatic) the column sums of A and the partial sums over blocks of rows,
/// about k * (m / 64 + 1) + n * k / 64 elements on a GPU, and 2k doubles (the column sums of A
/// that overflowed, summed again); for gemm A.B (m x n) and its partial column sums. What a
/// workspace given to matmul_reduce must hold at least. T = float, the default, gives a size
/// that serves double too (at most twice what double needs).
/// \throws unison::invalid_argument
/// for a negative extent, an unknown method, or a size in bytes that does not fit in 63 bits.
///
/// \param m, k, n  the extents: A is m x k, B is k x n.
/// \param method   the method (MatmulMethod).
/// \return the elements of T the workspace must hold.
template <class Exec, class T = float>
std::int64_t matmul_reduce_workspace_size(std::int64_t m, std::int64_t k, std::int64_t n,
                                          MatmulMethod method = MatmulMethod::automatic) {
  static_assert(std::is_floating_point_v<T>,
                "unison::matmul_reduce_workspace_size: T must be a floating-point type");
  constexpr const char* fn = "unison::matmul_reduce_workspace_size";
  detail::matmul::check_sizes(fn, m, k, n, method);
  return detail::matmul::make_schedule<Exec, T>(fn, "", m, k, n, method, false).workspace_elements;
}

/// out[j] = sum over i of (A B)[i, j], for j < n: the column sums of the product of A (m x k)
/// and B (k x n), computed by `method` (MatmulMethod, which says the range of values each
/// handles). A, B: rank-2 Views of float or double, any layout (the gemm method: both
/// LayoutLeft or both LayoutRight); out: a rank-1 View of the same value type, length n,
/// overwritten whatever it held (zeros when m or k is 0). All accessible from `exec`. Every
/// method is asynchronous on `exec`. The gemm and reassociated methods take their temporary
/// memory ("unison::matmul_reduce::work", matmul_reduce_workspace_size<Exec, T> elements) from
/// the memory Unison keeps for `exec` (release_temporary_memory): only the first call on an
/// instance, or one that needs more than the last, allocates (a larger size first waits for the
/// work on `exec` and frees the smaller); the overload with a workspace uses the caller's.
/// NaN and infinities in A or B are data: they propagate as IEEE arithmetic does, to the
/// elements of out whose terms they enter (NaN, or +-inf where no inf - inf or 0 * inf meets
/// them; which of the two can differ between methods, whose sums differ).
/// \throws unison::invalid_argument before anything runs when A's columns are not B's rows,
/// out's length is not B's columns, out overlaps A or B, the gemm method is asked for with
/// layouts it does not take, or the temporary memory would not fit in the memory free in exec's
/// memory space (or its size in bytes would not fit in 63 bits).
///
/// Kernels: "unison::matmul_reduce::tiled" (tiled), "unison::matmul_reduce::{a,b}_{partials,sum}"
/// (reassociated), KokkosBlas::gemm's and "unison::matmul_reduce::product_{partials,sum}" (gemm),
/// "unison::matmul_reduce::fill".
///
/// \param exec       the execution space instance the kernels run on.
/// \param A          the left factor: a rank-2 View (m x k) of float or double.
/// \param B          the right factor: a rank-2 View (k x n) of A's value type.
/// \param out        the column sums: a rank-1 View of length n, overwritten.
/// \param method     the method (MatmulMethod).
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  const detail::Region region("unison::matmul_reduce");
  detail::matmul::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  constexpr const char* fn = "unison::matmul_reduce";
  detail::matmul::check_matmul_reduce(A, B, out, method);
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  const std::string what = method == MatmulMethod::gemm
                               ? "the gemm method's temporary A.B (" + std::to_string(m) + "x" +
                                     std::to_string(n) + ") with its partial column sums"
                               : std::string("the reassociated method's temporary column sums");
  const auto schedule =
      detail::matmul::make_schedule<Exec, T>(fn, what, m, k, n, method, B.stride(1) == 1);
  if (schedule.workspace_elements == 0) {
    detail::matmul::launch(exec, schedule, A, B, out, static_cast<T*>(nullptr));
    return;
  }
  const auto work = detail::temporary<Kokkos::View<T*, Mem>>(
      fn, what.c_str(), exec, "unison::matmul_reduce::work", schedule.workspace_elements);
  detail::matmul::launch(exec, schedule, A, B, out, work.view.data());
}

/// matmul_reduce with the caller's temporary memory: `workspace`, a rank-1 View of the value
/// type accessible from `exec`, with at least matmul_reduce_workspace_size<Exec, T>(m, k, n,
/// method) elements (the default T, float, gives enough for double too) (its contents are
/// overwritten). Every method is then asynchronous on `exec` and allocates nothing: what a loop
/// that calls matmul_reduce many times wants (each allocation and free of GPU memory synchronizes
/// the device). The workspace must not be used by anything else until the work on `exec` is done.
/// \throws unison::invalid_argument as the other form does, and when the workspace is too small or
/// overlaps A, B or out.
///
/// \param exec       the execution space instance the kernels run on.
/// \param A, B, out, method  as matmul_reduce(exec, A, B, out, method).
/// \param workspace  the caller's temporary memory: a contiguous rank-1 View of out's value
///                   type, of at least matmul_reduce_workspace_size elements.
template <class Exec, class AV, class BV, class OV, class WV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out, MatmulMethod method,
                   const WV& workspace) {
  const detail::Region region("unison::matmul_reduce");
  detail::matmul::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  detail::matmul::check_workspace_type<Exec, T, WV>();
  constexpr const char* fn = "unison::matmul_reduce";
  detail::matmul::check_matmul_reduce(A, B, out, method);
  detail::matmul::check_workspace_disjoint(fn, workspace, A, B, out);
  const auto schedule =
      detail::matmul::make_schedule<Exec, T>(fn, "the method's workspace", A.extent(0), A.extent(1),
                                             B.extent(1), method, B.stride(1) == 1);
  detail::matmul::check_workspace_size(fn, std::int64_t(workspace.extent(0)), schedule);
  detail::matmul::launch(exec, schedule, A, B, out, workspace.data());
}

/// matmul_reduce on out's default execution space instance.
///
/// \param A, B, out, method  as matmul_reduce(exec, A, B, out, method).
/// \throws unison::invalid_argument as that form.
template <class AV, class BV, class OV>
void matmul_reduce(const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  matmul_reduce(typename OV::execution_space(), A, B, out, method);
}

/// \}

}  // namespace unison
