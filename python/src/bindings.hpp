// What the families' binding files share: the registration functions and the operands that
// may be scalars.
#pragma once

#include "views.hpp"

namespace unison::python {

// One a family, in the binding file named after its public header (elementwise.cpp binds
// unison/elementwise.hpp's functions).
void bind_elementwise(py::module_& m);
void bind_rowwise(py::module_& m);
void bind_histogram(py::module_& m);
void bind_random(py::module_& m);
void bind_convolve(py::module_& m);
void bind_matmul(py::module_& m);
void bind_diffusion(py::module_& m);
void bind_field(py::module_& m);

/// A Python float or int (a scalar operand), as a double.
bool is_scalar(py::handle obj);
double scalar_value(const std::string& fn, const std::string& name, py::handle obj);

/// An element-wise operand: an array of the output's dtype and rank, or a scalar.
struct Operand {
  const ArrayRef* array = nullptr;
  double scalar = 0;
};

Operand operand(Call& call, py::handle obj, const std::string& name, const ArrayRef& out);

/// f(View or double): the operand as a View of T (rank R, memory space Space) or as its value.
template <class T, int R, class Space, class F>
decltype(auto) with_operand(const Operand& op, F&& f) {
  if (op.array) return f(view_of<const T, R, Space>(*op.array));
  return f(op.scalar);
}

/// f(exec, T{}, rank_c<R>{}) for out's dtype among the floating-point types and rank 1 or 2.
template <class F>
void on_float_rank12(Call& call, const ArrayRef& out, F&& f) {
  call.require_rank(out, 1, 2);
  on_float(call.fn(), out, [&](auto t) {
    call.run([&](const auto& exec) {
      if (out.ndim == 1) f(exec, t, rank_c<1>{});
      else f(exec, t, rank_c<2>{});
    });
  });
}

template <class Exec>
using space_of = typename Exec::memory_space;

}  // namespace unison::python
