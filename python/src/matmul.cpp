// The matmul-reduce (unison/matmul.hpp): matmul_reduce.
#include "bindings.hpp"
#include "choices.hpp"

#include <unison/matmul.hpp>

namespace unison::python {
namespace {

constexpr Choices<MatmulMethod, 4> matmul_methods{{{"automatic", MatmulMethod::automatic},
                                                   {"tiled", MatmulMethod::tiled},
                                                   {"gemm", MatmulMethod::gemm},
                                                   {"reassociated", MatmulMethod::reassociated}}};

using std::string;

// A rank-2 array in the contiguous layout it has: row-major (C order), column-major (Fortran
// order), either (no elements, or a single row or column), or neither. (An extent of 0 or 1 is
// never stepped over, so its stride does not matter.)
enum class Order { c, f, any, strided };

Order order_of(const ArrayRef& a) {
  const std::int64_t r = a.shape[0], c = a.shape[1];
  if (r == 0 || c == 0) return Order::any;
  const bool row_major = (c == 1 || a.strides[1] == 1) && (r == 1 || a.strides[0] == c);
  const bool col_major = (r == 1 || a.strides[0] == 1) && (c == 1 || a.strides[1] == r);
  return row_major && col_major ? Order::any
         : row_major            ? Order::c
         : col_major            ? Order::f
                                : Order::strided;
}

// The layout A and B can share: C order, Fortran order, or none.
Order common_order(Order a, Order b) {
  if (a == Order::any) return b == Order::any ? Order::c : b;
  if (b == Order::any) return a;
  return a == b ? a : Order::strided;
}

template <class T, class Layout, class S>
Kokkos::View<T**, Layout, S, Kokkos::MemoryTraits<Kokkos::Unmanaged>> contiguous_view(
    const ArrayRef& a) {
  using V = Kokkos::View<T**, Layout, S, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return V(static_cast<T*>(a.data), std::size_t(a.shape[0]), std::size_t(a.shape[1]));
}

void matmul_reduce(py::object a, py::object b, py::object out, const string& method,
                   const string& backend, py::object stream) {
  Call call("unison.matmul_reduce", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  call.require_rank(o, 1);
  const ArrayRef& aa = call.array(a, "A", Role::input, o, 2);
  const ArrayRef& ba = call.array(b, "B", Role::input, o, 2);
  const MatmulMethod m = choose(call.fn(), "method", matmul_methods, method);
  // The gemm method takes A and B in one contiguous layout (Kokkos Kernels' GEMM): they are
  // passed so where both are C-ordered or both Fortran-ordered.
  const Order both = common_order(order_of(aa), order_of(ba));
  on_float(call.fn(), o, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      auto ov = view_of<T, 1, S>(o);
      if (both == Order::c)
        unison::matmul_reduce(exec, contiguous_view<const T, Kokkos::LayoutRight, S>(aa),
                              contiguous_view<const T, Kokkos::LayoutRight, S>(ba), ov, m);
      else if (both == Order::f)
        unison::matmul_reduce(exec, contiguous_view<const T, Kokkos::LayoutLeft, S>(aa),
                              contiguous_view<const T, Kokkos::LayoutLeft, S>(ba), ov, m);
      else
        unison::matmul_reduce(exec, view_of<const T, 2, S>(aa), view_of<const T, 2, S>(ba), ov, m);
    });
  });
}

}  // namespace

void bind_matmul(py::module_& m) {
  using py::arg;
  m.def("matmul_reduce", &matmul_reduce, arg("A"), arg("B"), arg("out"), arg("method"),
        arg("backend"), arg("stream"));
  export_choices(m, "matmul_method", matmul_methods);
}

}  // namespace unison::python
