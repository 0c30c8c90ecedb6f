#pragma once
// unison/detail/diffusion/interface.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). What the diffusion family lends other
// components (the MPI component's distributed diffuse): the step's arithmetic on one cell, the cell
// addressing of either layout, the field layout its buffers take, and the checks of a field, its
// Laplacian and the Laplacian choice. Everything else in unison/detail/diffusion/ is the family's
// own and may change without notice to them: other components name only
// unison::detail::diffusion::interface.

#include <unison/detail/diffusion/checks.hpp>
#include <unison/detail/diffusion/run.hpp>

namespace unison::detail::diffusion::interface {

// True where a field's rows run along its first index (LayoutLeft): the kernels then read the
// field transposed, rows along its contiguous axis.
template <class F>
inline constexpr bool transposed_v = detail::diffusion::transposed_v<F>;

// The layout of the buffers diffuse() keeps for a field of type F.
template <class F>
using layout_t = diffusion_layout_t<F>;

// Element (r, c) of v in the kernels' orientation (row r across the contiguous axis).
template <bool Transposed, class V>
KOKKOS_FORCEINLINE_FUNCTION auto& at(const V& v, std::int64_t r, std::int64_t c) {
  return detail::diffusion::cell<Transposed>(v, r, c);
}

// One step of one cell from its value and its four neighbours: the Laplacian and the next
// value, with exactly the operations of every single-rank kernel (unison/diffusion.hpp).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void step(T mid, T up, T down, T left, T right, T coeff, T& lapl,
                                      T& next) {
  detail::diffusion::stencil<T>(mid, up, down, left, right, coeff, lapl, next);
}

// CPU code: n consecutive cells of a grid row from the rows up, mid and down, all of unit
// column stride, the left neighbour of the first cell read at mid[-1] and the right neighbour of
// the last at mid[n] (cells of a padded array: no edge of the field among them): the new values
// to out (column stride out_stride) and, if Lapl, the Laplacian to lout (lapl_stride), by the
// single-rank CPU kernels' row code (host vectors where out and lout are contiguous, the
// Laplacian then stored non-temporally) with step()'s values to the bit. The caller's work item
// ends with end_of_rows().
template <class T, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void row_cells(const T* up, const T* mid, const T* down, T* out,
                                           std::int64_t out_stride, T* lout,
                                           std::int64_t lapl_stride, std::int64_t n, T coeff) {
  stencil_cells<T, host_chunk_v<T>, true, true, Lapl>(up, mid, down, 1, out, out_stride, lout,
                                                      lapl_stride, n, false, false, coeff);
}
// Orders a work item's non-temporal stores of row_cells before its end.
KOKKOS_FORCEINLINE_FUNCTION void end_of_rows() { backends::store_streaming_fence(); }

// The compile-time checks of the execution space, a field f advanced in place and its
// Laplacian lapl.
template <class Exec, class F, class L>
constexpr void check_types() {
  detail::diffusion::static_checks_field_lapl<Exec, F, L>();
}

// The run-time checks of a field advanced in place and its Laplacian: equal extents, each one's
// elements distinct, disjoint, a coeff finite in the field's value type. Throws
// unison::invalid_argument naming fn.
template <class Exec, class F, class L>
void check_arguments(const char* fn, const F& f, const L& lapl, double coeff) {
  detail::diffusion::check_field<Exec>(fn, f, lapl, coeff);
  detail::check_output(fn, "f", f);
  detail::check_disjoint(fn, "lapl", lapl, "f", f);
}

// Throws unison::invalid_argument naming fn unless which is a Laplacian choice.
inline void check_laplacian(const char* fn, Laplacian which) {
  detail::diffusion::check_laplacian(fn, which);
}

}  // namespace unison::detail::diffusion::interface
