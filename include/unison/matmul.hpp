#pragma once
/// \file unison/matmul.hpp
/// Matmul-reduce (docs/workloads.md section 5): out[j] = sum_i (A.B)[i, j], for A (m x k) and
/// B (k x n), three ways: the product tiled in team scratch and reduced on the fly, Kokkos
/// Kernels' GEMM followed by a column sum, and the reassociated (1^T A) B.

#include <cstdint>
#include <utility>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host_blas.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison {

/// How matmul_reduce computes out = 1^T (A B):
///  - tiled: A.B one tile at a time in team scratch (MatmulTuning in unison/backends/tuning.hpp),
///    each tile summed over its rows there and added to out atomically; A.B is never stored.
///    2mkn flops. The order of the atomic additions varies from run to run: so do the last bits.
///  - gemm: the library baseline: KokkosBlas::gemm into a temporary m x n matrix, then its
///    column sums. cuBLAS underneath on CUDA; on CPUs the host BLAS that the build found
///    (matmul_gemm_library() says which). 2mkn flops and m*n temporary elements.
///  - reassociated: the column sums s = 1^T A (length k), then out = s B: 2mk + 2kn flops,
///    every element of A and B read once. Rounds differently from the others (other sums).
///  - automatic: reassociated.
enum class MatmulMethod { automatic, tiled, gemm, reassociated };

/// What KokkosBlas::gemm runs on for execution space Exec in this build: "cuBLAS", "host BLAS"
/// (a BLAS library found at configure time, e.g. OpenBLAS) or "Kokkos Kernels" (its own kernel).
template <class Exec>
std::string matmul_gemm_library() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return "cuBLAS";
#endif
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) return "host BLAS";
#endif
  return "Kokkos Kernels";
}

}  // namespace unison

#include <unison/detail/matmul/workspace.hpp>

namespace unison {

/// How many elements of the value type matmul_reduce's `method` needs as temporary memory for A
/// (m x k) and B (k x n) on execution space Exec: 0 for tiled; the column sums of A and the
/// partial sums over blocks of rows for reassociated (and automatic), about k * (m / 64 + 1) +
/// n * k / 64 elements on a GPU; m x n for A.B and its partial column sums for gemm. What a
/// workspace given to matmul_reduce must hold at least. Throws unison::invalid_argument for a
/// negative extent, an unknown method, or a size that does not fit in 64 bits.
template <class Exec>
std::int64_t matmul_reduce_workspace_size(std::int64_t m, std::int64_t k, std::int64_t n,
                                          MatmulMethod method = MatmulMethod::automatic) {
  constexpr const char* fn = "unison::matmul_reduce_workspace_size";
  detail::require(m >= 0 && k >= 0 && n >= 0, fn, "m, k, n are ", m, ", ", k, ", ", n,
                  ", expected 0 or more");
  detail::check_method(fn, method);
  if (m == 0 || k == 0 || n == 0) return 0;
  const auto parts = detail::workspace_parts<Exec>(m, k, n, method);
  // The sum in long double first: every term at most ~2^126, no overflow.
  long double size = 0;
  for (const auto& part : parts) size += (long double)(part.rows) * (long double)(part.cols);
  detail::require(size <= (long double)(std::numeric_limits<std::int64_t>::max()), fn,
                  "m, k, n are ", m, ", ", k, ", ", n, ": the workspace of about ", size,
                  " elements overflows a 64-bit count");
  return detail::workspace_offset(parts, 3);
}

}  // namespace unison

#include <unison/detail/matmul/dispatch.hpp>

namespace unison {

/// out[j] = sum over i of (A B)[i, j], for j < n: the column sums of the product of A (m x k)
/// and B (k x n), computed by `method` (MatmulMethod). A, B: rank-2 Views of float or double,
/// any layout (the gemm method: both LayoutLeft or both LayoutRight); out: a rank-1 View of the
/// same value type, length n, overwritten whatever it held (zeros when m or k is 0). All
/// accessible from `exec`. The tiled method is asynchronous on `exec`. The gemm and
/// reassociated methods allocate their temporary memory ("unison::matmul_reduce::work",
/// matmul_reduce_workspace_size elements) and return once the work on `exec` is done, having
/// freed it (Kokkos then fences every instance of the backend); the overload with a workspace
/// does neither.
/// Throws unison::invalid_argument, before anything runs, when A's columns are not B's rows,
/// out's length is not B's columns, out overlaps A or B, the gemm method is asked for with
/// layouts it does not take, or the temporary memory would not fit in the memory free in exec's
/// memory space.
/// Kernels: "unison::matmul_reduce::tiled" (tiled), "unison::matmul_reduce::{a,b}_{partials,sum}"
/// (reassociated), KokkosBlas::gemm's and "unison::matmul_reduce::product_{partials,sum}" (gemm),
/// "unison::matmul_reduce::fill".
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  detail::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  constexpr const char* fn = "unison::matmul_reduce";
  method = detail::check_matmul_reduce(A, B, out, method);
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  const std::int64_t elements = matmul_reduce_workspace_size<Exec>(m, k, n, method);
  if (elements == 0) {
    detail::matmul_reduce_run(exec, A, B, out, method, static_cast<T*>(nullptr));
    return;
  }
  const std::string what = method == MatmulMethod::gemm
                               ? "the gemm method's temporary A.B (" + std::to_string(m) + "x" +
                                     std::to_string(n) + ") with its partial column sums"
                               : std::string("the reassociated method's temporary column sums");
  const auto work = detail::allocate<Kokkos::View<T*, Mem>>(
      fn, what.c_str(), exec, "unison::matmul_reduce::work", elements);
  detail::matmul_reduce_run(exec, A, B, out, method, work.data());
  exec.fence("unison::matmul_reduce: free the temporary memory");
}

/// matmul_reduce with the caller's temporary memory: `workspace`, a rank-1 View of the value
/// type accessible from `exec`, with at least matmul_reduce_workspace_size<Exec>(m, k, n,
/// method) elements (its contents are overwritten). Every method is then asynchronous on `exec`
/// and allocates nothing: what a loop that calls matmul_reduce many times wants (each
/// allocation and free of GPU memory synchronizes the device). The workspace must not be used
/// by anything else until the work on `exec` is done. Throws unison::invalid_argument as the
/// other form does, and when the workspace is too small or overlaps A, B or out.
template <class Exec, class AV, class BV, class OV, class WV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out, MatmulMethod method,
                   const WV& workspace) {
  detail::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  static_assert(Kokkos::is_view_v<WV> && WV::rank() == 1 &&
                    std::is_same_v<typename WV::value_type, T> &&
                    detail::blas_layout_v<typename WV::array_layout>,
                "unison::matmul_reduce: workspace must be a contiguous rank-1 View of out's "
                "value type");
  static_assert(detail::accessible_v<Exec, WV>,
                "unison::matmul_reduce: workspace must be accessible from the execution space");
  constexpr const char* fn = "unison::matmul_reduce";
  method = detail::check_matmul_reduce(A, B, out, method);
  const std::int64_t elements =
      matmul_reduce_workspace_size<Exec>(A.extent(0), A.extent(1), B.extent(1), method);
  detail::require(std::int64_t(workspace.extent(0)) >= elements, fn, "workspace has ",
                  workspace.extent(0), " elements, the method needs ", elements,
                  " (matmul_reduce_workspace_size)");
  detail::check_disjoint(fn, "workspace", workspace, "A", A);
  detail::check_disjoint(fn, "workspace", workspace, "B", B);
  detail::check_disjoint(fn, "workspace", workspace, "out", out);
  detail::matmul_reduce_run(exec, A, B, out, method, workspace.data());
}

/// matmul_reduce on out's default execution space instance.
template <class AV, class BV, class OV>
void matmul_reduce(const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  matmul_reduce(typename OV::execution_space(), A, B, out, method);
}

}  // namespace unison
