// The element-wise family: add, hypot, gaussian_pdf, polar_distance, zero_suppress, clip,
// make_pulses, hidden_layer. Arrays of rank 1 or 2 in any layout; the operands that C++ takes
// as scalars may be Python numbers.
#include "bindings.hpp"
#include "choices.hpp"

#include <unison/elementwise.hpp>

namespace unison::python {

bool is_scalar(py::handle obj) { return PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()); }

double scalar_value(const std::string& fn, const std::string& name, py::handle obj) {
  if (PyLong_Check(obj.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    const double d = static_cast<double>(v);
    if (overflow || static_cast<long long>(d) != v || d == 9223372036854775808.0)
      refuse(fn, name + " is " + std::string(py::str(obj)) +
                     ", an integer a double cannot hold exactly");
    return d;
  }
  return PyFloat_AsDouble(obj.ptr());
}

Operand operand(Call& call, py::handle obj, const std::string& name, const ArrayRef& out) {
  Operand op;
  if (is_scalar(obj)) {
    op.scalar = scalar_value(call.fn(), name, obj);
    return op;
  }
  op.array = &call.array(obj, name, Role::input, out);
  if (op.array->ndim != out.ndim)
    refuse(call.fn(),
           op.array->describe() + ": expected the rank of out (" + std::to_string(out.ndim) + ")");
  return op;
}

namespace {

constexpr Choices<unison::Fusion, 2> fusions{
    {{"fused", unison::Fusion::fused}, {"separate", unison::Fusion::separate}}};

using std::string;

// f(exec, T{}, rank) for out's dtype among float32, float64, int32, int64.
template <class F>
void on_arith_rank12(Call& call, const ArrayRef& out, F&& f) {
  call.require_rank(out, 1, 2);
  auto go = [&](auto t) {
    call.run([&](const auto& exec) {
      if (out.ndim == 1) f(exec, t, rank_c<1>{});
      else f(exec, t, rank_c<2>{});
    });
  };
  switch (out.dtype) {
    case Dtype::float32:
      return go(float{});
    case Dtype::float64:
      return go(double{});
    case Dtype::int32:
      return go(std::int32_t{});
    case Dtype::int64:
      return go(std::int64_t{});
    default:
      refuse_type(call.fn(), out.describe() + ": expected float32, float64, int32 or int64");
  }
}

void add(py::object x, py::object y, py::object out, const string& backend, py::object stream) {
  Call call("unison.add", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  Operand a = operand(call, x, "x", o), b = operand(call, y, "y", o);
  on_arith_rank12(call, o, [&](const auto& exec, auto t, auto r) {
    using T = decltype(t);
    constexpr int R = decltype(r)::value;
    using S = space_of<std::decay_t<decltype(exec)>>;
    auto ov = view_of<T, R, S>(o);
    with_operand<T, R, S>(a, [&](const auto& xv) {
      with_operand<T, R, S>(b, [&](const auto& yv) { unison::add(exec, xv, yv, ov); });
    });
  });
}

void hypot(py::object x, py::object y, py::object out, const string& backend, py::object stream) {
  Call call("unison.hypot", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  Operand a = operand(call, x, "x", o), b = operand(call, y, "y", o);
  on_float_rank12(call, o, [&](const auto& exec, auto t, auto r) {
    using T = decltype(t);
    constexpr int R = decltype(r)::value;
    using S = space_of<std::decay_t<decltype(exec)>>;
    auto ov = view_of<T, R, S>(o);
    with_operand<T, R, S>(a, [&](const auto& xv) {
      with_operand<T, R, S>(b, [&](const auto& yv) { unison::hypot(exec, xv, yv, ov); });
    });
  });
}

// out = f(exec, x, a, b, out) for an array x and two operands a and b (arrays like x, or
// numbers): gaussian_pdf's mean and sigma, clip's bounds.
// (with_integers: int32 and int64 as well as the floating-point types)
template <bool with_integers = false, class F>
void array_and_two_operands(const char* fn, py::object x, py::object a, const char* a_name,
                            py::object b, const char* b_name, py::object out, const string& backend,
                            py::object stream, F&& f) {
  Call call(fn, call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  const ArrayRef& xa = call.array(x, "x", Role::input, o);
  Operand oa = operand(call, a, a_name, o), ob = operand(call, b, b_name, o);
  auto body = [&](const auto& exec, auto t, auto r) {
    using T = decltype(t);
    constexpr int R = decltype(r)::value;
    using S = space_of<std::decay_t<decltype(exec)>>;
    call.require_rank(xa, R);
    auto xv = view_of<const T, R, S>(xa);
    auto ov = view_of<T, R, S>(o);
    with_operand<T, R, S>(oa, [&](const auto& av) {
      with_operand<T, R, S>(ob, [&](const auto& bv) { f(exec, xv, av, bv, ov); });
    });
  };
  if constexpr (with_integers) on_arith_rank12(call, o, body);
  else on_float_rank12(call, o, body);
}

void gaussian_pdf(py::object x, py::object mean, py::object sigma, py::object out,
                  const string& backend, py::object stream) {
  array_and_two_operands("unison.gaussian_pdf", x, mean, "mean", sigma, "sigma", out, backend,
                         stream,
                         [](const auto& exec, const auto& xv, const auto& mv, const auto& sv,
                            const auto& ov) { unison::gaussian_pdf(exec, xv, mv, sv, ov); });
}

void polar_distance(py::object r1, py::object t1, py::object r2, py::object t2, py::object out,
                    const string& backend, py::object stream) {
  Call call("unison.polar_distance", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  const ArrayRef& a = call.array(r1, "rho1", Role::input, o);
  const ArrayRef& b = call.array(t1, "theta1", Role::input, o);
  const ArrayRef& c = call.array(r2, "rho2", Role::input, o);
  const ArrayRef& d = call.array(t2, "theta2", Role::input, o);
  on_float_rank12(call, o, [&](const auto& exec, auto t, auto r) {
    using T = decltype(t);
    constexpr int R = decltype(r)::value;
    using S = space_of<std::decay_t<decltype(exec)>>;
    for (const ArrayRef* in : {&a, &b, &c, &d}) call.require_rank(*in, R);
    unison::polar_distance(exec, view_of<const T, R, S>(a), view_of<const T, R, S>(b),
                           view_of<const T, R, S>(c), view_of<const T, R, S>(d),
                           view_of<T, R, S>(o));
  });
}

void zero_suppress(py::object w, py::object threshold, py::object out, const string& backend,
                   py::object stream) {
  Call call("unison.zero_suppress", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  const ArrayRef& wa = call.array(w, "waveform", Role::input, o);
  Operand th = operand(call, threshold, "threshold", o);
  call.require_rank(o, 1, 2);
  auto go = [&](auto t) {
    call.run([&](const auto& exec) {
      using T = decltype(t);
      using S = space_of<std::decay_t<decltype(exec)>>;
      auto body = [&](auto r) {
        constexpr int R = decltype(r)::value;
        call.require_rank(wa, R);
        with_operand<T, R, S>(th, [&](const auto& tv) {
          unison::zero_suppress(exec, view_of<const T, R, S>(wa), tv, view_of<T, R, S>(o));
        });
      };
      if (o.ndim == 1) body(rank_c<1>{});
      else body(rank_c<2>{});
    });
  };
  switch (o.dtype) {
    case Dtype::int16:
      return go(std::int16_t{});
    case Dtype::float32:
      return go(float{});
    case Dtype::float64:
      return go(double{});
    default:
      refuse_type(call.fn(), o.describe() + ": expected int16, float32 or float64");
  }
}

void clip(py::object x, py::object lo, py::object hi, py::object out, const string& backend,
          py::object stream) {
  array_and_two_operands<true>("unison.clip", x, lo, "lo", hi, "hi", out, backend, stream,
                               [](const auto& exec, const auto& xv, const auto& lv, const auto& hv,
                                  const auto& ov) { unison::clip(exec, xv, lv, hv, ov); });
}

void make_pulses(py::object t, py::object noise, double period, double amplitude, py::object out,
                 const string& backend, py::object stream) {
  Call call("unison.make_pulses", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  call.require_rank(o, 1);
  const ArrayRef& ta = call.array(t, "t", Role::input, o, 1);
  const ArrayRef& na = call.array(noise, "noise", Role::input, o, 1);
  on_float(call.fn(), o, [&](auto z) {
    using T = decltype(z);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::make_pulses(exec, view_of<const T, 1, S>(ta), view_of<const T, 1, S>(na),
                          static_cast<T>(period), static_cast<T>(amplitude), view_of<T, 1, S>(o));
    });
  });
}

void hidden_layer(py::object g, py::object w, py::object out, const string& fusion,
                  const string& backend, py::object stream) {
  Call call("unison.hidden_layer", call_options(backend, stream));
  const unison::Fusion how = choose(call.fn(), "fusion", fusions, fusion);
  const ArrayRef& o = call.array(out, "out", Role::output);
  call.require_rank(o, 1);
  const ArrayRef& ga = call.array(g, "greyscales", Role::input, o, 1);
  const ArrayRef& wa = call.array(w, "weights", Role::input, o, 1);
  on_float(call.fn(), o, [&](auto z) {
    using T = decltype(z);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::hidden_layer(exec, view_of<const T, 1, S>(ga), view_of<const T, 1, S>(wa),
                           view_of<T, 1, S>(o), how);
    });
  });
}

}  // namespace

void bind_elementwise(py::module_& m) {
  using py::arg;
  m.def("add", &add, arg("x"), arg("y"), arg("out"), arg("backend"), arg("stream"));
  m.def("hypot", &hypot, arg("x"), arg("y"), arg("out"), arg("backend"), arg("stream"));
  m.def("gaussian_pdf", &gaussian_pdf, arg("x"), arg("mean"), arg("sigma"), arg("out"),
        arg("backend"), arg("stream"));
  m.def("polar_distance", &polar_distance, arg("rho1"), arg("theta1"), arg("rho2"), arg("theta2"),
        arg("out"), arg("backend"), arg("stream"));
  m.def("zero_suppress", &zero_suppress, arg("waveform"), arg("threshold"), arg("out"),
        arg("backend"), arg("stream"));
  m.def("clip", &clip, arg("x"), arg("lo"), arg("hi"), arg("out"), arg("backend"), arg("stream"));
  m.def("make_pulses", &make_pulses, arg("t"), arg("noise"), arg("period"), arg("amplitude"),
        arg("out"), arg("backend"), arg("stream"));
  m.def("hidden_layer", &hidden_layer, arg("greyscales"), arg("weights"), arg("out"), arg("fusion"),
        arg("backend"), arg("stream"));
  export_choices(m, "fusion", fusions);
}

}  // namespace unison::python
