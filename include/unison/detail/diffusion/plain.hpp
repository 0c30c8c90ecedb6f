#pragma once
// unison/detail/diffusion/plain.hpp: part of unison/diffusion.hpp, which includes it after the
// family's public types (not a header to include on its own).
// The reference kernel: one cell per index, neighbours read with bounds checks.

#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail {

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

}  // namespace unison::detail
