#pragma once
// unison/detail/matmul/interface.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// What the matmul-reduce family lends other components (the MPI component's distributed
// matmul_reduce): the checks of its arguments. Everything else in unison/detail/matmul/ is the
// family's own and may change without notice to them: other components name only
// unison::detail::matmul::interface.

#include <unison/detail/matmul/checks.hpp>
#include <unison/detail/matmul/schedule.hpp>
#include <unison/matmul_types.hpp>

namespace unison::detail::matmul::interface {

// The compile-time checks of the execution space and of A, B and out.
template <class Exec, class AV, class BV, class OV>
constexpr void check_types() {
  detail::matmul::check_matmul_reduce_types<Exec, AV, BV, OV>();
}

// The run-time checks of unison::matmul_reduce's arguments (extents, aliasing, the method);
// returns the method that will run. Throws unison::invalid_argument.
template <class AV, class BV, class OV>
MatmulMethod check_arguments(const AV& A, const BV& B, const OV& out, MatmulMethod method) {
  detail::matmul::check_matmul_reduce(A, B, out, method);
  return detail::matmul::resolved(method);
}

}  // namespace unison::detail::matmul::interface
