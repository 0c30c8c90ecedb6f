#pragma once
/// \file unison/math.hpp
/// Scalar device functions behind the element-wise family. Each is callable on the host and on
/// every backend's device, so a user can compose them inside their own kernels or pass them to
/// unison::transform. Each is written once for a value type T that is a float or double, or a
/// CPU pack of them (unison/backends/host/pack.hpp), with selects in place of branches: the
/// element-wise functions compute a register of values per call on CPUs.

#include <Kokkos_Core.hpp>

#include <unison/backends/host/pack.hpp>

namespace unison::math {

/// \addtogroup elementwise
/// \{

namespace detail {
/// hypot where the squares would leave the floating-point range: big and small scaled by a power
/// of two (exact) into the range, sqrt(fma(b, b, s²)), scaled back (exact where the result is a
/// normal number), for big >= small >= 0 (or NaN). big infinite gives inf; big 0 or NaN gives
/// big + small (0, or the NaN).
///
/// \param big    the larger magnitude.
/// \param small  the smaller magnitude.
/// \return sqrt(big² + small²).
template <class T>
KOKKOS_INLINE_FUNCTION T hypot_scaled(T big, T small) {
  using S = backends::scalar_of_t<T>;
  constexpr bool single = sizeof(S) == 4;
  // Down for big above 1 (float: (2^48, 2^128) to (2^-32, 2^48)), up below (float: from
  // 2^-149 to at least 2^-49): squares between 2^-98 and 2^96 (double: 2^+-1022 alike).
  constexpr S down = single ? S(0x1p-80f) : S(0x1p-600), up = single ? S(0x1p100f) : S(0x1p700);
  const T scale = big > S(1) ? backends::splat<T>(down) : backends::splat<T>(up);
  const T unscale = big > S(1) ? backends::splat<T>(S(1) / down) : backends::splat<T>(S(1) / up);
  const T b = big * scale, s = small * scale;
  const T r = backends::sqrt(backends::fma(b, b, s * s)) * unscale;
  return backends::isinf(big) ? big : (big > S(0) ? r : big + small);
}
}  // namespace detail

/// sqrt(x² + y²) without overflow or underflow in the intermediate, within 1.25 ulp (float: the
/// largest error over a sample of hard pairs is in docs/workloads.md): sqrt(fma(big, big,
/// small²)) of the larger and smaller magnitudes, with no division (on CPU packs the vector
/// divide and square root share one unit, and polar_distance spent a third of its time there).
/// Where the larger magnitude is beyond 2^+-48 (float; 2^+-384 for double), so that the squares
/// could overflow or lose the result's precision to underflow, both are first scaled by a power
/// of two, which is exact (hypot(3e30f, 4e30f) is 5e30f in float). hypot(0, 0) is 0 and an
/// infinite argument gives +inf; a NaN argument otherwise gives NaN. Scalars (GPUs, and the CPU
/// kernels' strided paths) and CPU packs take the same arithmetic, so a value does not depend on
/// the layout of its operands.
///
/// \param x, y  the legs: values, or CPU packs of values.
/// \return sqrt(x² + y²).
template <class T>
KOKKOS_INLINE_FUNCTION T hypot(T x, T y) {
  using S = backends::scalar_of_t<T>;
  x = backends::abs(x);
  y = backends::abs(y);
  // An infinite magnitude is big even beside a NaN: hypot(inf, NaN) is inf, as in IEEE 754.
  const auto x_first = (x > y) | backends::isinf(x);
  const T big = x_first ? x : y;
  const T small = x_first ? y : x;
  constexpr bool single = sizeof(S) == 4;
  constexpr S low = single ? S(0x1p-48f) : S(0x1p-384), high = S(1) / low;
  const auto plain = ((big >= low) & (big <= high)) | (big == S(0));
  const T r = backends::sqrt(backends::fma(big, big, small * small));
  if constexpr (backends::is_pack_v<T>) {
    if (!backends::any(plain == 0)) return r;
  }
  return plain ? r : detail::hypot_scaled(big, small);
}

/// Density of the normal distribution N(mean, sigma²) at x:
/// exp(-((x - mean) / sigma)² / 2) / (sigma sqrt(2 pi)).
///
/// \param x      where the density is taken.
/// \param mean   the distribution's mean.
/// \param sigma  its standard deviation, positive.
/// \return the density at x.
template <class T>
KOKKOS_INLINE_FUNCTION T gaussian_pdf(T x, T mean, T sigma) {
  using S = backends::scalar_of_t<T>;
  constexpr S inv_sqrt_2pi = S(0.398942280401432677939946059934381868);
  const T z = (x - mean) / sigma;
  return inv_sqrt_2pi / sigma * backends::exp(S(-0.5) * z * z);
}

/// A point in the plane.
template <class T>
struct Cartesian {
  T x;  ///< its abscissa
  T y;  ///< its ordinate
};

/// (rho cos theta, rho sin theta): the polar-to-cartesian step of polar_distance.
///
/// \param rho    the radius.
/// \param theta  the angle, in radians.
/// \return the point (x, y).
template <class T>
KOKKOS_INLINE_FUNCTION Cartesian<T> polar_to_cartesian(T rho, T theta) {
  return {rho * backends::cos(theta), rho * backends::sin(theta)};
}

namespace detail {
/// The distance of the two points' cartesian forms, each from polar_to_cartesian.
///
/// \param rho1, theta1  the first point's radius and angle (radians).
/// \param rho2, theta2  the second point's.
/// \return the distance.
template <class T>
KOKKOS_INLINE_FUNCTION T polar_distance_cartesian(T rho1, T theta1, T rho2, T theta2) {
  const Cartesian<T> a = polar_to_cartesian(rho1, theta1);
  const Cartesian<T> b = polar_to_cartesian(rho2, theta2);
  return math::hypot(a.x - b.x, a.y - b.y);
}

/// The same distance in the frame turned by -theta1, where the first point is (rho1, 0) and the
/// second rho2 (cos d, sin d) with d = theta2 - theta1: one cosine and one sine instead of two
/// of each. d is s + e exactly (s the rounded difference, e its rounding error, Knuth's
/// two-sum), and cos d, sin d are taken as cos s - e sin s, sin s + e cos s: the error left is
/// e^2 / 2, below 2^-27 while both angles are within +-1024 (|e| <= 2^-13 there).
///
/// \param rho1, theta1  the first point's radius and angle (radians).
/// \param rho2, theta2  the second point's.
/// \return the distance.
template <class T>
KOKKOS_INLINE_FUNCTION T polar_distance_rotated(T rho1, T theta1, T rho2, T theta2) {
  const T s = theta2 - theta1;
  const T back = s - theta2;
  const T e = (theta2 - (s - back)) - (theta1 + back);
  const T c = backends::cos(s), sn = backends::sin(s);
  const T cos_d = backends::fma(-e, sn, c), sin_d = backends::fma(e, c, sn);
  return math::hypot(backends::fma(-rho2, cos_d, rho1), rho2 * sin_d);
}
}  // namespace detail

/// Euclidean distance between two points given in polar form, (rho1, theta1) and
/// (rho2, theta2): the distance between their polar_to_cartesian forms. On CPU packs, where
/// both angles of a lane are within +-1024 radians, it is computed in the frame turned by
/// -theta1 (one sine and one cosine instead of two of each, as accurate:
/// detail::polar_distance_rotated), where the vector sine and cosine are what costs; other
/// angles, infinities and NaN included, and every scalar (GPU) call go through the two points'
/// cartesian coordinates (a GPU call is memory-bound: it keeps this form and its results).
/// Each element's form depends on its own angles only.
///
/// \param rho1, theta1  the first point's radius and angle (radians).
/// \param rho2, theta2  the second point's.
/// \return the distance.
template <class T>
KOKKOS_INLINE_FUNCTION T polar_distance(T rho1, T theta1, T rho2, T theta2) {
  if constexpr (backends::is_pack_v<T>) {
    using S = backends::scalar_of_t<T>;
    constexpr S limit = S(1024);  // the rotated form's range (see polar_distance_rotated)
    const auto near = (backends::abs(theta1) <= limit) & (backends::abs(theta2) <= limit);
    const T rotated = detail::polar_distance_rotated(rho1, theta1, rho2, theta2);
    if (!backends::any(near == 0)) return rotated;
    return near ? rotated : detail::polar_distance_cartesian(rho1, theta1, rho2, theta2);
  } else {
    return detail::polar_distance_cartesian(rho1, theta1, rho2, theta2);
  }
}

/// v below threshold becomes 0; v otherwise.
///
/// \param v          the value.
/// \param threshold  the least value kept.
/// \return 0 if v < threshold, else v.
template <class T>
KOKKOS_INLINE_FUNCTION T zero_suppress(T v, T threshold) {
  return v < threshold ? T{} : v;
}

/// x limited to [lo, hi]: lo where x < lo, hi where x > hi, x otherwise. A NaN in x, lo or hi
/// gives NaN, and where lo > hi, hi: NumPy's clip, minimum(maximum(x, lo), hi), whose maximum
/// and minimum pass a NaN of either operand on.
///
/// \param x       the value.
/// \param lo, hi  the bounds.
/// \return x limited to [lo, hi].
template <class T>
KOKKOS_INLINE_FUNCTION T clip(T x, T lo, T hi) {
  // (x < lo) | (lo != lo): lo where it is NaN too (a comparison with NaN is false). On packs,
  // both are lane masks and `?:` selects lane by lane.
  const T above = ((x < lo) | (lo != lo)) ? lo : x;
  return ((above > hi) | (hi != hi)) ? hi : above;
}

/// max(sin(t / period) - 0.3, 0) * amplitude.
///
/// \param t          the time.
/// \param period     the period, non-zero.
/// \param amplitude  the pulse's height.
/// \return max(sin(t / period) - 0.3, 0) * amplitude.
template <class T>
KOKKOS_INLINE_FUNCTION T pulse(T t, T period, T amplitude) {
  using S = backends::scalar_of_t<T>;
  const T s = backends::sin(t / period) - S(0.3);
  return (s > S(0) ? s : T{}) * amplitude;
}

/// The hidden layer's first step: a greyscale value in [0, 255] taken to [0, 1].
///
/// \param grey  the greyscale value.
/// \return grey / 255.
template <class T>
KOKKOS_INLINE_FUNCTION T normalize(T grey) {
  return grey / backends::scalar_of_t<T>(255);
}

/// The hidden layer's activation: (e^v - e^-v) / (e^v + e^-v), evaluated as tanh(v), which
/// equals it and, unlike the quotient of exponentials, does not overflow to NaN for |v| > 88 in
/// float.
///
/// \param v  the weighted value.
/// \return tanh(v).
template <class T>
KOKKOS_INLINE_FUNCTION T activate(T v) {
  return backends::tanh(v);
}

/// One neuron of the tutorial's hidden layer: activate(normalize(grey) * weight).
///
/// \param grey    the greyscale value, in [0, 255].
/// \param weight  its weight.
/// \return tanh(grey / 255 * weight).
template <class T>
KOKKOS_INLINE_FUNCTION T hidden_neuron(T grey, T weight) {
  return activate(normalize(grey) * weight);
}

/// \}

}  // namespace unison::math
