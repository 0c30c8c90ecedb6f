#pragma once
/// \file unison/elementwise.hpp
/// The element-wise family (docs/workloads.md section 1): add, hypot, gaussian_pdf, polar_distance,
/// zero_suppress, clip, make_pulses and hidden_layer, built on unison::transform.
///
/// Common contract (see unison/core.hpp): the execution space instance comes first, the work is
/// enqueued on it and the call returns without waiting, except where a function says it
/// delivers its result in host memory. Operands are Views of out's rank and extents (rank 1 or
/// 2, any layout) or arithmetic scalars standing for an array of that value. Arithmetic is done
/// in out's value type. out may be the very same View as an input (in place); any other overlap
/// with an input throws unison::invalid_argument, as do mismatched extents. Empty Views do
/// nothing. Kernels are labelled "unison::elementwise::<name>".
///
/// Each function also has an overload without the execution space, which uses out's default
/// execution space.

#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/elementwise/host_views.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/math.hpp>
#include <unison/transform.hpp>

// The compile-time checks shared by the element-wise functions; `fname` is a string literal
// naming the function, so that every message names it.
#define UNISON_DETAIL_CHECK_ELEMENTWISE(fname, Exec, Out, ...)                               \
  static_assert(Kokkos::is_execution_space_v<Exec>,                                          \
                fname ": the first argument must be a Kokkos execution space instance");     \
  static_assert(::unison::detail::is_writable_view_v<Out>,                                   \
                fname ": out must be a rank-1 or rank-2 View with a non-const value type");  \
  static_assert(::unison::detail::accessible_v<Exec, Out>,                                   \
                fname ": out must be accessible from the execution space");                  \
  static_assert(::unison::detail::all_operands_v<Exec, int(Out::rank()), __VA_ARGS__>, fname \
                ": every input must be an arithmetic scalar or a View of out's rank "        \
                "accessible from the execution space")

namespace unison {

/// \defgroup elementwise Element-wise functions
/// \{

/// The element-wise operations as device functors. Each is written once for a value type V:
/// out's value type T on GPUs (and for integers), a pack of T's on CPUs (unison::transform calls
/// them a vector register of elements at a time); T names the value type they are used with.
namespace ops {
/// The functor of add: x + y.
template <class T>
struct Add {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param x, y  values, or CPU packs of values.
  /// \return x + y.
  template <class V>
  KOKKOS_FUNCTION V operator()(V x, V y) const {
    return x + y;
  }
};
/// The functor of hypot: math::hypot(x, y).
template <class T>
struct Hypot {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param x, y  values, or CPU packs of values.
  /// \return math::hypot(x, y).
  template <class V>
  KOKKOS_FUNCTION V operator()(V x, V y) const {
    return math::hypot(x, y);
  }
};
/// The functor of gaussian_pdf: math::gaussian_pdf(x, mean, sigma).
template <class T>
struct GaussianPdf {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param x, mean, sigma  values, or CPU packs of values.
  /// \return math::gaussian_pdf(x, mean, sigma).
  template <class V>
  KOKKOS_FUNCTION V operator()(V x, V mean, V sigma) const {
    return math::gaussian_pdf(x, mean, sigma);
  }
};
/// The functor of polar_distance: math::polar_distance(r1, t1, r2, t2).
template <class T>
struct PolarDistance {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param r1, t1, r2, t2  values, or CPU packs of values.
  /// \return math::polar_distance(r1, t1, r2, t2).
  template <class V>
  KOKKOS_FUNCTION V operator()(V r1, V t1, V r2, V t2) const {
    return math::polar_distance(r1, t1, r2, t2);
  }
};
/// The functor of zero_suppress: math::zero_suppress(v, threshold).
template <class T>
struct ZeroSuppress {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param v, threshold  values, or CPU packs of values.
  /// \return math::zero_suppress(v, threshold).
  template <class V>
  KOKKOS_FUNCTION V operator()(V v, V threshold) const {
    return math::zero_suppress(v, threshold);
  }
};
/// The functor of clip: math::clip(x, lo, hi).
template <class T>
struct Clip {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param x, lo, hi  values, or CPU packs of values.
  /// \return math::clip(x, lo, hi).
  template <class V>
  KOKKOS_FUNCTION V operator()(V x, V lo, V hi) const {
    return math::clip(x, lo, hi);
  }
};
/// The functor of make_pulses' first kernel: math::pulse(t, period, amplitude).
template <class T>
struct Pulse {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param t, period, amplitude  values, or CPU packs of values.
  /// \return math::pulse(t, period, amplitude).
  template <class V>
  KOKKOS_FUNCTION V operator()(V t, V period, V amplitude) const {
    return math::pulse(t, period, amplitude);
  }
};
/// The functor of hidden_layer's first separate pass: math::normalize(g).
template <class T>
struct Normalize {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param g  values, or CPU packs of values.
  /// \return math::normalize(g).
  template <class V>
  KOKKOS_FUNCTION V operator()(V g) const {
    return math::normalize(g);
  }
};
/// The functor of hidden_layer's second separate pass: x * y.
template <class T>
struct Multiply {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param x, y  values, or CPU packs of values.
  /// \return x* y.
  template <class V>
  KOKKOS_FUNCTION V operator()(V x, V y) const {
    return x * y;
  }
};
/// The functor of hidden_layer's third separate pass: math::activate(v).
template <class T>
struct Activate {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param v  values, or CPU packs of values.
  /// \return math::activate(v).
  template <class V>
  KOKKOS_FUNCTION V operator()(V v) const {
    return math::activate(v);
  }
};
/// The functor of hidden_layer's fused kernel: math::hidden_neuron(g, w).
template <class T>
struct HiddenNeuron {
  using unison_packs = void;  ///< it takes packs of values on CPUs
  /// \param g, w  values, or CPU packs of values.
  /// \return math::hidden_neuron(g, w).
  template <class V>
  KOKKOS_FUNCTION V operator()(V g, V w) const {
    return math::hidden_neuron(g, w);
  }
};
}  // namespace ops

namespace detail {
// The value type of an output View.
template <class Out>
using value_t = typename Out::non_const_value_type;
}  // namespace detail

/// out = x + y, element by element (any arithmetic type: int64 and float32 in the benchmarks).
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param x, y  Views of out's rank and extents, any layout, accessible from exec, or arithmetic
///              scalars. A scalar is converted to out's value type, so it must be a value of that
///              type: for an integer out, a whole number within its range (not 0.5, 1e30 or
///              NaN); for a floating-point out, NaN, an infinity or a number within its range
///              (NaN and infinities are data: they propagate).
/// \param out   the result: a rank-1 or rank-2 View of arithmetic values, any layout, accessible
///              from exec; it may be an input itself (in place).
/// \throws unison::invalid_argument if a scalar is not a value of out's value type, a View's
///         extents differ from out's, or a View overlaps out other than being it; nothing is
///         written then.
///
/// Kernel "unison::elementwise::add"; temporary memory: none.
template <class Exec, class X, class Y, class Out>
void add(const Exec& exec, const X& x, const Y& y, const Out& out) {
  const detail::Region region("unison::add");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::add", Exec, Out, X, Y);
  static_assert(std::is_arithmetic_v<detail::value_t<Out>>,
                "unison::add: out must hold arithmetic values");
  if constexpr (std::is_arithmetic_v<X>)
    detail::require(detail::fits_in<detail::value_t<Out>>(x), "unison::add", "x is ", x,
                    ", not a value of out's value type");
  if constexpr (std::is_arithmetic_v<Y>)
    detail::require(detail::fits_in<detail::value_t<Out>>(y), "unison::add", "y is ", y,
                    ", not a value of out's value type");
  detail::elementwise::transform({"unison::add", "unison::elementwise::add"}, {"x", "y"}, exec, out,
                                 ops::Add<detail::value_t<Out>>{}, x, y);
}

/// out = sqrt(x² + y²), element by element, computed without overflow (unison::math::hypot).
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param x, y  Views of out's rank and extents, accessible from exec, or scalars.
/// \param out   the result: a rank-1 or rank-2 View of floating-point values, accessible from
///              exec; it may be an input itself.
/// \throws unison::invalid_argument if a View's extents differ from out's or a View overlaps out
///         other than being it.
///
/// Kernel "unison::elementwise::hypot"; temporary memory: none.
template <class Exec, class X, class Y, class Out>
void hypot(const Exec& exec, const X& x, const Y& y, const Out& out) {
  const detail::Region region("unison::hypot");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::hypot", Exec, Out, X, Y);
  static_assert(std::is_floating_point_v<detail::value_t<Out>>,
                "unison::hypot: out must hold floating-point values");
  detail::elementwise::transform({"unison::hypot", "unison::elementwise::hypot"}, {"x", "y"}, exec,
                                 out, ops::Hypot<detail::value_t<Out>>{}, x, y);
}

/// out = the normal density with the given mean and sigma at x, element by element
/// (unison::math::gaussian_pdf).
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param x      a View of out's rank and extents, accessible from exec, or a scalar.
/// \param mean   a scalar, finite in out's value type, or a View like x.
/// \param sigma  a scalar, positive and finite in out's value type (1e300 or 1e-300 for a float
///               out is not), or a View like x.
/// \param out    the result: a rank-1 or rank-2 View of floating-point values, accessible from
///               exec; it may be an input itself.
/// \throws unison::invalid_argument if a scalar mean or sigma is out of those bounds, a View's
///         extents differ from out's, or a View overlaps out other than being it. Values of
///         Views are data: NaN propagates element by element.
///
/// Kernel "unison::elementwise::gaussian_pdf"; temporary memory: none.
template <class Exec, class X, class M, class S, class Out>
void gaussian_pdf(const Exec& exec, const X& x, const M& mean, const S& sigma, const Out& out) {
  const detail::Region region("unison::gaussian_pdf");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::gaussian_pdf", Exec, Out, X, M, S);
  using T = detail::value_t<Out>;
  static_assert(std::is_floating_point_v<T>,
                "unison::gaussian_pdf: out must hold floating-point values");
  if constexpr (std::is_arithmetic_v<S>) {
    detail::require(sigma > S(0) && detail::finite(sigma) && detail::fits_in<T>(sigma) &&
                        static_cast<T>(sigma) > T(0),
                    "unison::gaussian_pdf", "sigma is ", sigma,
                    ", expected a positive finite value (in out's value type)");
  }
  if constexpr (std::is_arithmetic_v<M>) {
    detail::require(detail::finite(mean) && detail::fits_in<T>(mean), "unison::gaussian_pdf",
                    "mean is ", mean, ", expected a finite value (in out's value type)");
  }
  detail::elementwise::transform({"unison::gaussian_pdf", "unison::elementwise::gaussian_pdf"},
                                 {"x", "mean", "sigma"}, exec, out,
                                 ops::GaussianPdf<detail::value_t<Out>>{}, x, mean, sigma);
}

/// out = distance between the points (rho1, theta1) and (rho2, theta2) given in polar form
/// (unison::math::polar_distance: on CPUs, for angles within +-1024 radians, one sine and one
/// cosine of the angles' difference per element; else the two points' cartesian forms).
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param rho1, theta1  the first point's radius and angle (radians): Views of out's rank and
///                      extents, accessible from exec, or scalars.
/// \param rho2, theta2  the second point's, likewise.
/// \param out           the result: a rank-1 or rank-2 View of floating-point values; it may be
///                      an input itself.
/// \throws unison::invalid_argument if a View's extents differ from out's or a View overlaps out
///         other than being it.
///
/// Kernel "unison::elementwise::polar_distance"; temporary memory: none.
template <class Exec, class R1, class T1, class R2, class T2, class Out>
void polar_distance(const Exec& exec, const R1& rho1, const T1& theta1, const R2& rho2,
                    const T2& theta2, const Out& out) {
  const detail::Region region("unison::polar_distance");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::polar_distance", Exec, Out, R1, T1, R2, T2);
  static_assert(std::is_floating_point_v<detail::value_t<Out>>,
                "unison::polar_distance: out must hold floating-point values");
  detail::elementwise::transform({"unison::polar_distance", "unison::elementwise::polar_distance"},
                                 {"rho1", "theta1", "rho2", "theta2"}, exec, out,
                                 ops::PolarDistance<detail::value_t<Out>>{}, rho1, theta1, rho2,
                                 theta2);
}

/// out = waveform < threshold ? 0 : waveform (int16 waveforms in the benchmarks). The
/// comparison is made in out's value type, so a scalar threshold must be a value of that type:
/// not NaN (every comparison would be false: nothing suppressed); for an integer out, a whole
/// number within its range (2.5 or 1e9 for int16 would be truncated or undefined); for a
/// floating-point out, an infinity is fine (-inf keeps everything, +inf suppresses every finite
/// value). Else unison::invalid_argument. A waveform given as a scalar is data.
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param waveform   a View of out's rank and extents, accessible from exec, or a scalar.
/// \param threshold  a scalar value of out's value type, or a View like waveform.
/// \param out        the result: a rank-1 or rank-2 View of arithmetic values; it may be an
///                   input itself.
/// \throws unison::invalid_argument if a scalar threshold is NaN or not a value of out's value
///         type, a View's extents differ from out's, or a View overlaps out other than being it.
///
/// Kernel "unison::elementwise::zero_suppress"; temporary memory: none.
template <class Exec, class W, class T, class Out>
void zero_suppress(const Exec& exec, const W& waveform, const T& threshold, const Out& out) {
  const detail::Region region("unison::zero_suppress");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::zero_suppress", Exec, Out, W, T);
  static_assert(std::is_arithmetic_v<detail::value_t<Out>>,
                "unison::zero_suppress: out must hold arithmetic values");
  if constexpr (std::is_arithmetic_v<T>) {
    detail::require(!detail::is_nan(threshold) && detail::fits_in<detail::value_t<Out>>(threshold),
                    "unison::zero_suppress", "threshold is ", threshold,
                    ", not a value of out's value type (NaN, or a fraction or out of range for an "
                    "integer out)");
  }
  detail::elementwise::transform({"unison::zero_suppress", "unison::elementwise::zero_suppress"},
                                 {"waveform", "threshold"}, exec, out,
                                 ops::ZeroSuppress<detail::value_t<Out>>{}, waveform, threshold);
}

/// out = x limited to [lo, hi] (NumPy's clip): lo where x < lo, hi where x > hi, x otherwise; a
/// NaN in x or in a bound (scalar or View) gives NaN there, as NumPy (since 1.25). lo and hi are
/// scalars or Views like x. Scalar bounds must be values of out's value type (for an integer out,
/// whole numbers within its range; for a floating-point out, NaN is one), and not lo > hi when both
/// are scalars; else unison::invalid_argument. Where View bounds give lo > hi, hi (as NumPy).
///
/// \param exec  the execution space instance the kernel runs on; the call returns without
///              waiting.
/// \param x       a View of out's rank and extents, accessible from exec, or a scalar.
/// \param lo, hi  the bounds: scalars or Views like x.
/// \param out     the result: a rank-1 or rank-2 View of arithmetic values; it may be an input
///                itself.
/// \throws unison::invalid_argument if a scalar bound is not a value of out's value type (NaN
///         for an integer out), lo > hi as scalars, a View's extents differ from out's, or a View
///         overlaps out other than being it.
///
/// Kernel "unison::elementwise::clip"; temporary memory: none.
template <class Exec, class X, class Lo, class Hi, class Out>
void clip(const Exec& exec, const X& x, const Lo& lo, const Hi& hi, const Out& out) {
  const detail::Region region("unison::clip");
  UNISON_DETAIL_CHECK_ELEMENTWISE("unison::clip", Exec, Out, X, Lo, Hi);
  using T = detail::value_t<Out>;
  static_assert(std::is_arithmetic_v<T>, "unison::clip: out must hold arithmetic values");
  const auto check_bound = [](const char* name, const auto& bound) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(bound)>>)
      detail::require(detail::fits_in<T>(bound), "unison::clip", name, " is ", bound,
                      ", not a value of out's value type");
  };
  check_bound("lo", lo);
  check_bound("hi", hi);
  if constexpr (std::is_arithmetic_v<Lo> && std::is_arithmetic_v<Hi>)
    detail::require(!(T(hi) < T(lo)), "unison::clip", "lo (", lo, ") is greater than hi (", hi,
                    ")");
  detail::elementwise::transform({"unison::clip", "unison::elementwise::clip"}, {"x", "lo", "hi"},
                                 exec, out, ops::Clip<T>{}, x, lo, hi);
}

/// The tutorial's chained pulse generator: out = pulse(t, period, amplitude) + noise, with
/// pulse = max(sin(t / period) - 0.3, 0) * amplitude, as two kernels ("make_pulses" then "add")
/// on exec. t, noise and out are rank-1 Views of equal extent in any memory space: what exec
/// cannot access is copied in once (t, noise) or out once (out), with nothing going back and
/// forth between the two kernels; out may be t or noise itself (in place). If out is not
/// accessible from exec the call waits until out holds the result; otherwise it is
/// asynchronous. period must be non-zero and finite, amplitude finite (NaN or an infinity would
/// make every element NaN): else unison::invalid_argument.
///
/// \param exec       the execution space instance the kernels run on.
/// \param t          the times: a rank-1 View of out's extent, any memory space.
/// \param noise      the noise added: a rank-1 View of out's extent, any memory space.
/// \param period     non-zero and finite.
/// \param amplitude  finite.
/// \param out        the result: a rank-1 View of floating-point values, any memory space; it may
///                   be t or noise itself.
/// \throws unison::invalid_argument if the extents differ, period or amplitude is out of bounds,
///         or out overlaps an input other than being it; unison::allocation_error if a copy or
///         the temporary cannot be allocated.
///
/// Kernels "unison::elementwise::make_pulses" and "unison::elementwise::add"; temporary memory:
/// the copies of what exec cannot access, and out's length where out is noise itself.
template <class Exec, class TV, class NV, class Out>
void make_pulses(const Exec& exec, const TV& t, const NV& noise,
                 typename Out::non_const_value_type period,
                 typename Out::non_const_value_type amplitude, const Out& out) {
  const detail::Region region("unison::make_pulses");
  using T = detail::value_t<Out>;
  static_assert(
      Kokkos::is_execution_space_v<Exec>,
      "unison::make_pulses: the first argument must be a Kokkos execution space instance");
  static_assert(Kokkos::is_view_v<TV> && Kokkos::is_view_v<NV> && Kokkos::is_view_v<Out> &&
                    TV::rank() == 1 && NV::rank() == 1 && Out::rank() == 1,
                "unison::make_pulses: t, noise and out must be rank-1 Views");
  static_assert(!std::is_const_v<typename Out::value_type>,
                "unison::make_pulses: out must not be const");
  static_assert(std::is_floating_point_v<T>,
                "unison::make_pulses: out must hold floating-point values");
  constexpr const char* fn = "unison::make_pulses";
  detail::require(t.extent(0) == out.extent(0) && noise.extent(0) == out.extent(0), fn, "t is ",
                  t.extent(0), ", noise is ", noise.extent(0), ", out is ", out.extent(0),
                  "; expected equal extents");
  // (period and amplitude arrive as out's value type: a double beyond float's range has become
  // an infinity on the way, which the message says.)
  detail::require(period != T(0) && Kokkos::isfinite(period), fn, "period is ", period,
                  " as out's value type, expected a non-zero finite value (of magnitude at most ",
                  std::numeric_limits<T>::max(), ")");
  detail::require(Kokkos::isfinite(amplitude), fn, "amplitude is ", amplitude,
                  " as out's value type, expected a finite value (of magnitude at most ",
                  std::numeric_limits<T>::max(), ")");
  detail::check_output(fn, "out", out);
  detail::check_no_partial_alias(fn, "t", t, out);
  detail::check_no_partial_alias(fn, "noise", noise, out);
  detail::elementwise::check_transferable<Exec>(fn, "t", t);
  detail::elementwise::check_transferable<Exec>(fn, "noise", noise);
  detail::elementwise::check_transferable<Exec>(fn, "out", out);
  if (out.extent(0) == 0) return;

  auto t_in = detail::elementwise::readable_on(fn, exec, t, "unison::elementwise::make_pulses::t");
  auto noise_in =
      detail::elementwise::readable_on(fn, exec, noise, "unison::elementwise::make_pulses::noise");
  detail::elementwise::write_through(
      fn, exec, out, "unison::elementwise::make_pulses::out", [&](const auto& dest) {
        auto chain = [&](const auto& pulses) {
          detail::elementwise::transform({fn, "unison::elementwise::make_pulses"},
                                         {"t", "period", "amplitude"}, exec, pulses,
                                         ops::Pulse<T>{}, t_in, period, amplitude);
          detail::elementwise::transform({fn, "unison::elementwise::add"}, {"pulses", "noise"},
                                         exec, dest, ops::Add<T>{}, pulses, noise_in);
        };
        // The pulses go into dest, unless dest is the noise array itself (the first kernel would
        // overwrite the noise before the second reads it): then into a temporary.
        if (static_cast<const void*>(dest.data()) != static_cast<const void*>(noise_in.data())) {
          chain(dest);
        } else {
          chain(detail::temporary<Kokkos::View<T*, typename Exec::memory_space>>(
                    fn, "the temporary of the pulses", exec,
                    "unison::elementwise::make_pulses::pulses", dest.extent(0))
                    .view);
        }
      });
}

/// How hidden_layer runs.
enum class Fusion {
  fused,    ///< one fused kernel: one pass over memory
  separate  ///< the tutorial's three kernels normalize, weigh, activate: three passes over out
};

namespace detail::elementwise {
// hidden_layer's work (the public forms open its region).
template <class Exec, class G, class W, class Out>
void hidden_layer(const Exec& exec, const G& greyscales, const W& weights, const Out& out,
                  Fusion fusion) {
  using T = detail::value_t<Out>;
  static_assert(
      Kokkos::is_execution_space_v<Exec>,
      "unison::hidden_layer: the first argument must be a Kokkos execution space instance");
  static_assert(Kokkos::is_view_v<G> && Kokkos::is_view_v<W> && Kokkos::is_view_v<Out> &&
                    G::rank() == 1 && W::rank() == 1 && Out::rank() == 1,
                "unison::hidden_layer: greyscales, weights and out must be rank-1 Views");
  static_assert(!std::is_const_v<typename Out::value_type>,
                "unison::hidden_layer: out must not be const");
  static_assert(std::is_floating_point_v<T>,
                "unison::hidden_layer: out must hold floating-point values");
  constexpr const char* fn = "unison::hidden_layer";
  detail::require(greyscales.extent(0) == out.extent(0) && weights.extent(0) == out.extent(0), fn,
                  "greyscales is ", greyscales.extent(0), ", weights is ", weights.extent(0),
                  ", out is ", out.extent(0), "; expected equal extents");
  detail::require(fusion == Fusion::fused || fusion == Fusion::separate, fn,
                  "fusion is not Fusion::fused or Fusion::separate");
  detail::check_output(fn, "out", out);
  detail::check_no_partial_alias(fn, "greyscales", greyscales, out);
  detail::check_no_partial_alias(fn, "weights", weights, out);
  detail::elementwise::check_transferable<Exec>(fn, "greyscales", greyscales);
  detail::elementwise::check_transferable<Exec>(fn, "weights", weights);
  detail::elementwise::check_transferable<Exec>(fn, "out", out);
  if (out.extent(0) == 0) return;

  auto g = detail::elementwise::readable_on(fn, exec, greyscales,
                                            "unison::elementwise::hidden_layer::greyscales");
  auto w = detail::elementwise::readable_on(fn, exec, weights,
                                            "unison::elementwise::hidden_layer::weights");
  detail::elementwise::write_through(
      fn, exec, out, "unison::elementwise::hidden_layer::out", [&](const auto& dest) {
        if (fusion == Fusion::fused) {
          detail::elementwise::transform({fn, "unison::elementwise::hidden_layer"},
                                         {"greyscales", "weights"}, exec, dest,
                                         ops::HiddenNeuron<T>{}, g, w);
        } else {
          // The tutorial's three passes, in place in dest. Only when dest is the weights array
          // itself would the first pass overwrite weights before the second reads them: then the
          // intermediate values go to a temporary.
          auto passes = [&](const auto& tmp) {
            detail::elementwise::transform({fn, "unison::elementwise::normalize"}, {"greyscales"},
                                           exec, tmp, ops::Normalize<T>{}, g);
            detail::elementwise::transform({fn, "unison::elementwise::weigh"},
                                           {"normalized", "weights"}, exec, tmp, ops::Multiply<T>{},
                                           tmp, w);
            detail::elementwise::transform({fn, "unison::elementwise::activate"}, {"weighted"},
                                           exec, dest, ops::Activate<T>{}, tmp);
          };
          if (static_cast<const void*>(dest.data()) != static_cast<const void*>(w.data())) {
            passes(dest);
          } else {
            passes(detail::temporary<Kokkos::View<T*, typename Exec::memory_space>>(
                       fn, "the temporary of the separate passes", exec,
                       "unison::elementwise::hidden_layer::weighted", dest.extent(0))
                       .view);
          }
        }
      });
}
}  // namespace detail::elementwise

/// The tutorial's hidden layer: out = tanh((greyscales / 255) * weights), see
/// unison::math::hidden_neuron. Rank-1 Views of equal extent in any memory space, like
/// make_pulses: inputs exec cannot read are copied in once, and an out that exec cannot write
/// (the result "in host memory") receives one copy, the call then waiting until it holds the
/// result.
///
/// \param exec        the execution space instance the kernels run on.
/// \param greyscales  rank-1 View of out's extent, any memory space.
/// \param weights     rank-1 View of out's extent, any memory space.
/// \param out         the result: a rank-1 View of floating-point values, any memory space; it
///                    may be an input itself.
/// \param fusion      one fused kernel or the tutorial's three.
/// \throws unison::invalid_argument if the extents differ, fusion is unknown, or out overlaps an
///         input other than being it; unison::allocation_error if a copy or the temporary cannot
///         be allocated.
///
/// Kernels "unison::elementwise::hidden_layer" (fused) or
/// "unison::elementwise::{normalize,weigh,activate}" (separate); temporary memory: the copies
/// of what exec cannot access, and out's length where out is weights itself (separate).
///
/// Asynchronous on exec where out is accessible from it; otherwise the call waits until out
/// holds the result.
template <class Exec, class G, class W, class Out>
void hidden_layer(const Exec& exec, const G& greyscales, const W& weights, const Out& out,
                  Fusion fusion = Fusion::fused) {
  const detail::Region region("unison::hidden_layer");
  detail::elementwise::hidden_layer(exec, greyscales, weights, out, fusion);
}

/// add on out's default execution space instance.
///
/// \param x, y, out  as add(exec, x, y, out).
/// \throws unison::invalid_argument as that form.
template <class X, class Y, class Out>
void add(const X& x, const Y& y, const Out& out) {
  add(typename Out::execution_space{}, x, y, out);
}
/// hypot on out's default execution space instance.
///
/// \param x, y, out  as hypot(exec, x, y, out).
/// \throws unison::invalid_argument as that form.
template <class X, class Y, class Out>
void hypot(const X& x, const Y& y, const Out& out) {
  hypot(typename Out::execution_space{}, x, y, out);
}
/// gaussian_pdf on out's default execution space instance.
///
/// \param x, mean, sigma, out  as gaussian_pdf(exec, x, mean, sigma, out).
/// \throws unison::invalid_argument as that form.
template <class X, class M, class S, class Out>
void gaussian_pdf(const X& x, const M& mean, const S& sigma, const Out& out) {
  gaussian_pdf(typename Out::execution_space{}, x, mean, sigma, out);
}
/// polar_distance on out's default execution space instance.
///
/// \param rho1, theta1, rho2, theta2, out  as polar_distance(exec, rho1, theta1, rho2, theta2,
/// out). \throws unison::invalid_argument as that form.
template <class R1, class T1, class R2, class T2, class Out>
void polar_distance(const R1& rho1, const T1& theta1, const R2& rho2, const T2& theta2,
                    const Out& out) {
  polar_distance(typename Out::execution_space{}, rho1, theta1, rho2, theta2, out);
}
/// zero_suppress on out's default execution space instance.
///
/// \param waveform, threshold, out  as zero_suppress(exec, waveform, threshold, out).
/// \throws unison::invalid_argument as that form.
template <class W, class T, class Out>
void zero_suppress(const W& waveform, const T& threshold, const Out& out) {
  zero_suppress(typename Out::execution_space{}, waveform, threshold, out);
}
/// clip on out's default execution space instance.
///
/// \param x, lo, hi, out  as clip(exec, x, lo, hi, out).
/// \throws unison::invalid_argument as that form.
template <class X, class Lo, class Hi, class Out>
void clip(const X& x, const Lo& lo, const Hi& hi, const Out& out) {
  clip(typename Out::execution_space{}, x, lo, hi, out);
}

/// hidden_layer returning a new host View with the result (the tutorial's "return a host
/// array"); waits until it holds the result. On a GPU it frees a device temporary at the end
/// (Kokkos then fences every instance of the backend).
///
/// \param exec, greyscales, weights, fusion  as hidden_layer(exec, greyscales, weights, out,
///                                           fusion).
/// \return a new host View of weights' extent holding the result.
/// \throws unison::invalid_argument as that form; unison::allocation_error if the result
///         cannot be allocated.
///
/// Kernels as hidden_layer(exec, greyscales, weights, out, fusion)'s; memory: the returned View,
/// and the copies that form makes.
template <class Exec, class G, class W>
Kokkos::View<typename W::non_const_value_type*, Kokkos::HostSpace> hidden_layer(
    const Exec& exec, const G& greyscales, const W& weights, Fusion fusion = Fusion::fused) {
  const detail::Region region("unison::hidden_layer");
  auto out = detail::allocate<Kokkos::View<typename W::non_const_value_type*, Kokkos::HostSpace>>(
      "unison::hidden_layer", "the host result", exec, "unison::elementwise::hidden_layer::host",
      weights.extent(0));
  detail::elementwise::hidden_layer(exec, greyscales, weights, out, fusion);
  exec.fence("unison::elementwise::hidden_layer: result in host memory");
  return out;
}

/// \}

}  // namespace unison
