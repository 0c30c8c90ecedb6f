#pragma once
/// \file unison/rowwise.hpp
/// The row-wise family (docs/workloads.md section 2, the tutorials' `\@guvectorize` gufuncs):
/// l2_norm over the last axis of a matrix, and matmul_core, a batch of small matrix products.
///
/// Common contract (see unison/core.hpp): the execution space instance comes first, the work is
/// enqueued on it and the call returns without waiting; inputs are checked on the host before
/// anything runs, and a refused call writes nothing. Both functions are deterministic: the
/// same inputs on the same backend give bitwise the same outputs on every run. Kernels are
/// labelled "unison::rowwise::<name>".

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/detail/rowwise/dispatch.hpp>

namespace unison {

/// \defgroup rowwise Row-wise functions
/// \{

/// out(i) = sqrt(sum over j of V(i, j)^2) for every row i of V (n x k): the Euclidean norm of
/// each row. V: a rank-2 View of float or double, any layout; out: a rank-1 View of the same
/// value type, length n, overwritten. Both accessible from `exec`. float rows are summed in
/// double (exact squares, no overflow); double rows too, and a row whose sum of squares
/// overflows or underflows is summed again scaled by its largest magnitude (so the norm is
/// right for elements from about 1e-300 to 1e300; all-zero rows are read twice). A row with a
/// NaN gives NaN; one with an infinity (and no NaN) gives inf; k = 0 gives zeros, like NumPy.
/// Asynchronous on `exec`; deterministic.
/// \throws unison::invalid_argument when out's length is
/// not V's rows or out overlaps V. Kernel: "unison::rowwise::l2_norm".
///
/// \param exec  the execution space instance the kernels run on.
/// \param V     the rows: a rank-2 View of float or double, any layout.
/// \param out   the norms: a rank-1 View of V's value type, one element a row.
///
/// Temporary memory: none.
template <class Exec, class VV, class OV>
void l2_norm(const Exec& exec, const VV& V, const OV& out) {
  const detail::Region region("unison::l2_norm");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::l2_norm: the first argument must be a Kokkos execution space");
  static_assert(Kokkos::is_view_v<VV> && VV::rank() == 2,
                "unison::l2_norm: V must be a rank-2 View (rows x their elements)");
  static_assert(
      Kokkos::is_view_v<OV> && OV::rank() == 1 && !std::is_const_v<typename OV::value_type>,
      "unison::l2_norm: out must be a rank-1 View with a non-const value type");
  using T = typename OV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> && std::is_same_v<typename VV::non_const_value_type, T>,
                "unison::l2_norm: V and out must hold the same floating-point type");
  static_assert(detail::accessible_v<Exec, VV> && detail::accessible_v<Exec, OV>,
                "unison::l2_norm: V and out must be accessible from the execution space");
  constexpr const char* fn = "unison::l2_norm";
  const std::int64_t rows = V.extent(0);
  detail::require(std::int64_t(out.extent(0)) == rows, fn, "out is ", out.extent(0), ", expected ",
                  rows, " (V's rows; V is ", detail::extents_of(V), ")");
  detail::check_disjoint(fn, "out", out, "V", V);
  if (rows == 0) return;

  detail::rowwise::l2_norm_launch(fn, exec, V, out);
}

/// l2_norm on out's default execution space instance.
///
/// \param V, out  as l2_norm(exec, V, out).
/// \throws unison::invalid_argument as that form.
template <class VV, class OV>
void l2_norm(const VV& V, const OV& out) {
  l2_norm(typename OV::execution_space(), V, out);
}

/// C(q) = A(q) B(q) for every q < b: a batch of small matrix products, A (b x m x n), B
/// (b x n x p), C (b x m x p), each product's terms added in ascending order in the value type.
/// A, B, C: rank-3 Views of float or double, any layout, accessible from `exec`; C is
/// overwritten (zeros when n = 0). Asynchronous on `exec`; deterministic. One work item per
/// row of each product, reading A(q)'s row and B(q) through the caches: made for the
/// small products of the tutorials' gufunc (4 x 4), not for large ones (matmul_reduce's tiled
/// kernel and KokkosBlas::gemm are).
/// \throws unison::invalid_argument when the batch extents
/// differ, A's columns are not B's rows, C is not b x m x p, or C overlaps A or B. Kernel:
/// "unison::rowwise::matmul_core".
///
/// \param exec  the execution space instance the kernels run on.
/// \param A     the left factors: a rank-3 View (batch, m, n) of float or double.
/// \param B     the right factors: a rank-3 View (batch, n, p) of A's value type.
/// \param C     the products: a rank-3 View (batch, m, p) of A's value type.
///
/// Temporary memory: none.
template <class Exec, class AV, class BV, class CV>
void matmul_core(const Exec& exec, const AV& A, const BV& B, const CV& C) {
  const detail::Region region("unison::matmul_core");
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::matmul_core: the first argument must be a Kokkos execution space");
  static_assert(
      Kokkos::is_view_v<AV> && Kokkos::is_view_v<BV> && AV::rank() == 3 && BV::rank() == 3,
      "unison::matmul_core: A and B must be rank-3 Views (batch x rows x columns)");
  static_assert(
      Kokkos::is_view_v<CV> && CV::rank() == 3 && !std::is_const_v<typename CV::value_type>,
      "unison::matmul_core: C must be a rank-3 View with a non-const value type");
  using T = typename CV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> &&
                    std::is_same_v<typename AV::non_const_value_type, T> &&
                    std::is_same_v<typename BV::non_const_value_type, T>,
                "unison::matmul_core: A, B and C must hold the same floating-point type");
  static_assert(detail::accessible_v<Exec, AV> && detail::accessible_v<Exec, BV> &&
                    detail::accessible_v<Exec, CV>,
                "unison::matmul_core: A, B and C must be accessible from the execution space");
  constexpr const char* fn = "unison::matmul_core";
  const std::int64_t batch = A.extent(0), m = A.extent(1), p = B.extent(2);
  detail::require(B.extent(0) == A.extent(0), fn, "A is ", detail::extents_of(A), " and B is ",
                  detail::extents_of(B), ": the batch extents differ");
  detail::require(B.extent(1) == A.extent(2), fn, "A is ", detail::extents_of(A), " and B is ",
                  detail::extents_of(B), ": A's columns must be B's rows");
  detail::require(std::int64_t(C.extent(0)) == batch && std::int64_t(C.extent(1)) == m &&
                      std::int64_t(C.extent(2)) == p,
                  fn, "C is ", detail::extents_of(C), ", expected ", batch, "x", m, "x", p);
  detail::check_disjoint(fn, "C", C, "A", A);
  detail::check_disjoint(fn, "C", C, "B", B);
  const std::int64_t total = batch * m;
  if (total == 0 || p == 0) return;
  detail::rowwise::matmul_core_launch(exec, A, B, C);
}

/// matmul_core on C's default execution space instance.
///
/// \param A, B, C  as matmul_core(exec, A, B, C).
/// \throws unison::invalid_argument as that form.
template <class AV, class BV, class CV>
void matmul_core(const AV& A, const BV& B, const CV& C) {
  matmul_core(typename CV::execution_space(), A, B, C);
}

/// \}

}  // namespace unison
