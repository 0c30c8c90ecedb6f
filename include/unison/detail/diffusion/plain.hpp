#pragma once
// unison/detail/diffusion/plain.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The reference kernel: one cell per index, neighbours read with bounds checks; on a CPU the
// same cells a block of whole rows per thread.

#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail::diffusion {

// The reference: one cell per index, neighbours read from f with bounds checks.
template <class F, class FN, class L>
struct DiffusionPlain {
  using T = typename FN::non_const_value_type;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;

  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const std::int64_t nx = f.extent(0), ny = f.extent(1);
    T lap, v;
    stencil<T>(f(i, j), i > 0 ? f(i - 1, j) : T(0), i + 1 < nx ? f(i + 1, j) : T(0),
               j > 0 ? f(i, j - 1) : T(0), j + 1 < ny ? f(i, j + 1) : T(0), coeff, lap, v);
    next(i, j) = v;
    if (write_lapl) lapl(i, j) = lap;
  }
};

// The reference on a CPU with threads (StaticSchedule::plain_row_blocks): DiffusionPlain's cells,
// `per_item` whole grid rows a work item (one item a thread), each row along the View's contiguous
// axis. Kokkos's MDRangePolicy on OpenMP deals tiles of two rows out round-robin and reaches the
// functor through a pointer, so GCC reloads the coefficient after every store (a float store could
// change it, as far as the compiler knows) and leaves the cells scalar: 16 threads were barely
// faster than one. Here each item walks its rows through stencil_cells (ordinary stores): the
// values of stencil() per cell, in host vectors where the row is contiguous, whose VectorStep
// keeps fused multiply-adds off subnormal numbers (a diffusion front's cells, docs/tuning.md).
template <bool Transposed, class F, class FN, class L>
struct DiffusionPlainRows {
  DiffusionPlain<F, FN, L> plain;
  std::int64_t rows, cols, per_item;

  template <bool Lapl>
  KOKKOS_FORCEINLINE_FUNCTION void walk(std::int64_t begin, std::int64_t end) const {
    using T = typename FN::non_const_value_type;
    const F& f = plain.f;
    const std::int64_t is = column_stride<Transposed>(f),
                       os = column_stride<Transposed>(plain.next);
    const std::int64_t ls = Lapl ? column_stride<Transposed>(plain.lapl) : 0;
    for (std::int64_t r = begin; r < end; ++r) {
      const T* mid = &cell<Transposed>(f, r, 0);
      const T* up = r > 0 ? &cell<Transposed>(f, r - 1, 0) : mid;
      const T* down = r + 1 < rows ? &cell<Transposed>(f, r + 1, 0) : mid;
      T* lout = nullptr;
      if constexpr (Lapl) lout = &cell<Transposed>(plain.lapl, r, 0);
      stencil_cells<T, host_chunk_v<T>, Lapl, false>(r > 0, r + 1 < rows, up, mid, down, is,
                                                     &cell<Transposed>(plain.next, r, 0), os, lout,
                                                     ls, cols, true, true, plain.coeff);
    }
  }

  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    std::int64_t r0, r1;
    owned_rows(item, per_item, rows, r0, r1);
    if (plain.write_lapl) walk<true>(r0, r1);
    else walk<false>(r0, r1);
  }
};

}  // namespace unison::detail::diffusion
