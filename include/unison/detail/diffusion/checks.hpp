#pragma once
// unison/detail/diffusion/checks.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses). The checks of the diffusion family's arguments
// and options, each public form's (called first, by unison/diffusion.hpp, before the schedule is
// made). What depends on a decision (a tile that does not fit, too many steps a pass for the
// algorithm chosen) is refused by schedule.hpp, which makes the decision. Nothing here reads the
// backend's tuning.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/detail/diffusion/stencil.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

template <class V>
inline constexpr bool is_float_matrix_v =
    Kokkos::is_view_v<V>&& V::rank() == 2 &&
    std::is_floating_point_v<typename V::non_const_value_type>;

template <class Exec, class... V>
constexpr void static_checks() {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::diffusion: the first argument must be a Kokkos execution space");
  static_assert((is_float_matrix_v<V> && ...),
                "unison::diffusion: fields and Laplacians must be rank-2 Views of float or double");
  static_assert((accessible_v<Exec, V> && ...),
                "unison::diffusion: every View must be accessible from the execution space");
}

// static_checks for a field f advanced in place and its Laplacian lapl.
template <class Exec, class F, class L>
constexpr void static_checks_field_lapl() {
  static_checks<Exec, F, L>();
  static_assert(std::is_same_v<typename L::non_const_value_type, typename F::non_const_value_type>,
                "unison::diffusion: f and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename F::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::diffusion: f and lapl must have a non-const value type");
}

inline bool known_algorithm(StencilAlgorithm a) {
  return a == StencilAlgorithm::automatic || a == StencilAlgorithm::plain ||
         a == StencilAlgorithm::tiled || a == StencilAlgorithm::streaming ||
         a == StencilAlgorithm::wavefront || a == StencilAlgorithm::resident;
}

inline void check_laplacian(const char* fn, Laplacian which) {
  require(which == Laplacian::every_step || which == Laplacian::final_only, fn,
          "unknown Laplacian choice ", int(which));
}

template <class Exec, class F>
void check_coeff(const char* fn, double coeff) {
  require(std::isfinite(coeff), fn, "coeff is ", coeff, ", must be finite");
  using T = typename F::non_const_value_type;
  require(std::isfinite(static_cast<T>(coeff)), fn, "coeff ", coeff,
          " is not finite in the field's value type");
}

template <class Exec, class F, class L>
void check_field(const char* fn, const F& f, const L& lapl, double coeff) {
  check_extents(fn, "lapl", lapl, f, "f");
  check_coeff<Exec, F>(fn, coeff);
}

// The checks of DiffusionOptions that every form of diffuse shares.
inline void check_options(const char* fn, const DiffusionOptions& options) {
  require(known_algorithm(options.algorithm), fn, "unknown algorithm ", int(options.algorithm));
  require(options.tile_rows >= 0 && options.tile_cols >= 0 && options.steps_per_pass >= 0 &&
              options.strip_rows >= 0,
          fn, "tile ", options.tile_rows, "x", options.tile_cols, ", steps_per_pass ",
          options.steps_per_pass, " and strip_rows ", options.strip_rows, " must not be negative");
  require(options.strip_prefetch >= 0 && options.strip_prefetch <= 4, fn, "strip_prefetch is ",
          options.strip_prefetch, ", must be 0 (the backend's choice) to 4");
}

// A caller's buffer (none: nullptr) must have f's extents and overlap neither f nor `out` (the
// Laplacian or the history).
template <class F, class O>
void check_buffer(const char* fn, const DiffusionBuffer<F>* buffer, const F& f, const char* name,
                  const O& out) {
  if (!buffer) return;
  check_extents(fn, "buffer", *buffer, f, "f");
  check_disjoint(fn, "buffer", *buffer, "f", f);
  check_disjoint(fn, "buffer", *buffer, name, out);
}

// ---- The arguments of each public form (before anything is decided) ----

// diffusion_step(exec, f, f_next, lapl, coeff, algorithm).
template <class Exec, class F, class FN, class L>
void check_step(const char* fn, const F& f, const FN& f_next, const L& lapl, double coeff,
                StencilAlgorithm algorithm) {
  static_checks<Exec, F, FN, L>();
  using T = typename F::non_const_value_type;
  static_assert(std::is_same_v<typename FN::non_const_value_type, T> &&
                    std::is_same_v<typename L::non_const_value_type, T>,
                "unison::diffusion_step: f, f_next and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename FN::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::diffusion_step: f_next and lapl must have a non-const value type");
  check_extents(fn, "f_next", f_next, f, "f");
  check_field<Exec>(fn, f, lapl, coeff);
  check_disjoint(fn, "f_next", f_next, "f", f);
  check_disjoint(fn, "lapl", lapl, "f", f);
  check_disjoint(fn, "lapl", lapl, "f_next", f_next);
  require(known_algorithm(algorithm), fn, "unknown algorithm ", int(algorithm));
  require(algorithm != StencilAlgorithm::resident, fn,
          "the resident algorithm runs diffuse's steps in one launch; diffusion_step takes "
          "plain, tiled, streaming or wavefront");
}

// The field and options of diffusion_schedule (and of every diffuse form).
template <class Exec, class F>
void check_schedule_arguments(const char* fn, Laplacian which, const DiffusionOptions& options,
                              std::int64_t planes) {
  static_checks<Exec, F>();
  check_laplacian(fn, which);
  check_options(fn, options);
  require(planes >= 0, fn, "history_planes is ", planes, ", must be >= 0");
  require(planes == 0 || which == Laplacian::every_step, fn,
          "diffuse_history writes every step's Laplacian: history_planes > 0 needs "
          "Laplacian::every_step");
  require(options.steps_per_pass <= 1 || which == Laplacian::final_only || planes > 0, fn,
          "steps_per_pass ", options.steps_per_pass,
          " needs Laplacian::final_only (every step's Laplacian is written otherwise)");
}

// diffuse(exec, f, [buffer,] steps, coeff, lapl, which | on_step, options).
template <class Exec, class F, class L>
void check_diffuse(const char* fn, const F& f, std::int64_t steps, double coeff, const L& lapl,
                   Laplacian which, const DiffusionOptions& options,
                   const DiffusionBuffer<F>* buffer) {
  static_checks_field_lapl<Exec, F, L>();
  check_field<Exec>(fn, f, lapl, coeff);
  check_output(fn, "f", f);  // advanced in place: its elements must be distinct
  check_disjoint(fn, "lapl", lapl, "f", f);
  require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
  check_buffer(fn, buffer, f, "lapl", lapl);
  check_laplacian(fn, which);
  check_options(fn, options);
  require(options.steps_per_pass <= 1 || which == Laplacian::final_only, fn, "steps_per_pass ",
          options.steps_per_pass,
          " needs Laplacian::final_only (every step's Laplacian is written otherwise)");
}

// diffuse_history(exec, f, [buffer,] steps, coeff, history, on_history, options).
template <class Exec, class F, class H>
void check_history(const char* fn, const F& f, std::int64_t steps, double coeff, const H& history,
                   const DiffusionOptions& options, const DiffusionBuffer<F>* buffer) {
  static_checks<Exec, F>();
  using T = typename F::non_const_value_type;
  static_assert(Kokkos::is_view_v<H> && H::rank() == 3,
                "unison::diffuse_history: history must be a rank-3 View (planes, nx, ny)");
  static_assert(
      std::is_same_v<typename H::value_type, T> && !std::is_const_v<typename F::value_type>,
      "unison::diffuse_history: f and history must have the same non-const value type");
  static_assert(accessible_v<Exec, H>,
                "unison::diffuse_history: history must be accessible from the execution space");
  require(history.extent(0) >= 1 && history.extent(1) == f.extent(0) &&
              history.extent(2) == f.extent(1),
          fn, "history is ", history.extent(0), "x", history.extent(1), "x", history.extent(2),
          ", expected (planes)x", f.extent(0), "x", f.extent(1), " with at least one plane");
  check_coeff<Exec, F>(fn, coeff);
  check_output(fn, "f", f);  // advanced in place: its elements must be distinct
  check_disjoint(fn, "history", history, "f", f);
  require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
  check_buffer(fn, buffer, f, "history", history);
  check_options(fn, options);
}

}  // namespace unison::detail::diffusion
