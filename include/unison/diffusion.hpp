#pragma once
/// \file unison/diffusion.hpp
/// 2-D diffusion with the 5-point Laplacian (docs/workloads.md section 4): one step, or many steps
/// with two buffers, tiled in team scratch memory and, when only the final Laplacian is wanted,
/// temporally blocked (several steps per pass over the field).
///
/// One step on a field f of nx x ny cells:
///   lapl[i, j] = 4 f[i, j] - ((f[i-1, j] + f[i+1, j]) + (f[i, j-1] + f[i, j+1]))
///   f_next[i, j] = f[i, j] - coeff * lapl[i, j]
/// where a neighbour outside the field counts as 0. The sums are grouped in pairs as written, so
/// the arithmetic is symmetric in the two axes and every variant (plain, streaming, tiled,
/// temporally blocked, diffuse_history's; LayoutRight or LayoutLeft) does exactly the same
/// operations per cell: on one backend of one build all give bitwise the same result, on every
/// run, whatever the compiler flags (-ffp-contract=fast or off, -O2 or -O3, any -march; not
/// -ffast-math). On GPUs each line is one fused multiply-add, rounded once: lapl = fma(4, f, -sum),
/// f_next = fma(-coeff, lapl, f), written so explicitly. On CPUs 4 f - sum is computed by
/// additions (4 f is exact) and coeff * lapl is rounded on its own before the subtraction, behind
/// a barrier that keeps any compiler from fusing it (no instruction: the product stays in its
/// register), so no floating-point instruction but additions meets a subnormal number there and
/// -ffp-contract cannot change a bit. A CPU and a GPU may therefore differ in the last bit of
/// f_next (the lapl values agree, 4 f not overflowing).

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/detail/diffusion/checks.hpp>
#include <unison/detail/diffusion/interface.hpp>
#include <unison/detail/diffusion/run.hpp>
#include <unison/detail/diffusion/schedule.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/diffusion_types.hpp>

namespace unison {

/// \addtogroup diffusion
/// \{

/// One diffusion step: f_next = f - coeff * lapl, lapl = the Laplacian of f (header comment).
/// f, f_next, lapl: rank-2 Views of one floating-point type and equal extents, accessible from
/// `exec`, any layout (tiles run along LayoutRight's rows or LayoutLeft's columns). f_next and
/// lapl are only written. Asynchronous on `exec`.
/// \throws unison::invalid_argument for unequal extents, f_next or lapl overlapping f or each
/// other (f is read by neighbouring cells while the step runs: it is never updated in place),
/// or a coeff that is not finite.
///
/// Kernels: "unison::diffusion::streaming", "unison::diffusion::tiled" or
/// "unison::diffusion::plain", by algorithm (StencilAlgorithm).
///
/// \param exec       the execution space instance the kernels run on.
/// \param f          the field: a rank-2 View of float or double.
/// \param f_next     the field after the step: f's value type and extents.
/// \param lapl       the step's Laplacian: f's value type and extents.
/// \param coeff      the diffusion coefficient, finite.
/// \param algorithm  the kernel (StencilAlgorithm); all give bitwise the same result.
///
/// Temporary memory: none.
template <class Exec, class F, class FN, class L>
void diffusion_step(const Exec& exec, const F& f, const FN& f_next, const L& lapl, double coeff,
                    StencilAlgorithm algorithm = StencilAlgorithm::automatic) {
  const detail::Region region("unison::diffusion_step");
  constexpr const char* fn = "unison::diffusion_step";
  detail::diffusion::check_step<Exec>(fn, f, f_next, lapl, coeff, algorithm);
  DiffusionOptions options;
  options.algorithm = algorithm;
  const detail::diffusion::Schedule schedule = detail::diffusion::make_schedule(
      fn, exec, f, detail::diffusion::Form::step, Laplacian::every_step, options);
  detail::diffusion::step(exec, schedule, f, f_next, lapl, coeff);
}

/// diffusion_step on f_next's default execution space instance.
///
/// \param f, f_next, lapl, coeff, algorithm  as diffusion_step(exec, f, f_next, lapl, coeff,
///                                          algorithm).
/// \throws unison::invalid_argument as that form.
template <class F, class FN, class L>
void diffusion_step(const F& f, const FN& f_next, const L& lapl, double coeff,
                    StencilAlgorithm algorithm = StencilAlgorithm::automatic) {
  diffusion_step(typename FN::execution_space(), f, f_next, lapl, coeff, algorithm);
}

/// Advances f by `steps` diffusion steps (see diffusion_step), in place, with one internal
/// buffer of f's size ("unison::diffusion::buffer"). lapl receives the Laplacian of each step
/// (Laplacian::every_step) or of the last step only (Laplacian::final_only, which lets several
/// steps run per pass: options.steps_per_pass, any number for the tiled algorithm and for the
/// streaming one in row blocks (CPUs), 1 or 2 in strips (GPUs); the backend's choice by default,
/// more steps per pass for a field past the last-level cache). Either way, lapl ends holding the
/// Laplacian of the field before the last step.
/// steps == 0 changes nothing.
/// f is stepped where it lies when it is contiguous: LayoutLeft or LayoutRight without padding,
/// or LayoutStride with the strides of a LayoutRight array (a C-ordered array from Python). Any
/// other f is copied into a contiguous buffer ("unison::diffusion::field") and back, by the kernels
/// "unison::diffusion::copy_in" and "unison::diffusion::copy_out".
/// Asynchronous on `exec`. The buffer (and the contiguous copy of an f that needs one) comes
/// from the temporary memory Unison keeps for `exec`
/// (release_temporary_memory): only the first call on an instance, or one with a larger field,
/// allocates (a larger field first waits for the work on `exec` and frees the smaller buffer).
/// \throws unison::invalid_argument for unequal extents, lapl overlapping f, negative steps, a
/// coeff that is not finite, or options that do not apply (steps_per_pass > 1 with every_step
/// or with the plain algorithm, > 2 with the streaming one in strips, a tile that does not fit in
/// the backend's team scratch, negative extents or strip rows, strip_prefetch outside 0 to 4;
/// resident with any of those options, a per-step callback, another backend than CUDA or a field
/// the GPU cannot hold at once).
///
/// Kernels: "unison::diffusion::streaming" (two steps per pass: "unison::diffusion::streaming2"),
/// "unison::diffusion::tiled", "unison::diffusion::blocked" (tiled, several steps per pass),
/// "unison::diffusion::plain", "unison::diffusion::wavefront", "unison::diffusion::resident" (CUDA
/// GPUs: every step in one launch, the field in registers; `automatic` where the field fits and
/// no option shapes the passes).
///
/// \param exec       the execution space instance the kernels run on.
/// \param f          the field: a rank-2 View of float or double, advanced in place.
/// \param steps      the number of steps, at least 0.
/// \param coeff      the diffusion coefficient, finite.
/// \param lapl       the Laplacian: f's value type and extents, not overlapping f.
/// \param which      every step's Laplacian, or the last step's only.
/// \param options    the algorithm, tile, steps per pass and strip settings (DiffusionOptions).
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const F& f, std::int64_t steps, double coeff, const L& lapl,
             Laplacian which = Laplacian::every_step, const DiffusionOptions& options = {}) {
  const detail::Region region("unison::diffuse");
  constexpr const char* fn = "unison::diffuse";
  detail::diffusion::check_diffuse<Exec>(fn, f, steps, coeff, lapl, which, options, nullptr);
  const detail::diffusion::Schedule schedule = detail::diffusion::make_schedule(
      fn, exec, f, detail::diffusion::Form::diffuse, which, options);
  detail::diffusion::diffuse(fn, exec, schedule, f, steps, coeff, lapl, which,
                             detail::diffusion::NoStep{}, nullptr);
}

/// diffuse with a caller's buffer of f's extents (a contiguous View of f's layout,
/// LayoutRight for a strided f, in f's memory space; type unison::DiffusionBuffer<F>), for
/// control of the memory: when f is contiguous this takes no temporary memory (asynchronous on
/// exec, like every other call). The buffer's contents on return are unspecified.
/// \throws as diffuse does, and if the buffer's extents differ from f's or it overlaps f or lapl.
///
/// \param exec       the execution space instance the kernels run on.
/// \param f          the field, advanced in place.
/// \param buffer     the caller's buffer: a contiguous View of f's extents and layout.
/// \param steps, coeff, lapl, which, options  as diffuse(exec, f, steps, coeff, lapl, which,
///                                          options).
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const F& f, const DiffusionBuffer<F>& buffer, std::int64_t steps,
             double coeff, const L& lapl, Laplacian which = Laplacian::every_step,
             const DiffusionOptions& options = {}) {
  const detail::Region region("unison::diffuse");
  constexpr const char* fn = "unison::diffuse";
  detail::diffusion::check_diffuse<Exec>(fn, f, steps, coeff, lapl, which, options, &buffer);
  const detail::diffusion::Schedule schedule = detail::diffusion::make_schedule(
      fn, exec, f, detail::diffusion::Form::diffuse, which, options);
  detail::diffusion::diffuse(fn, exec, schedule, f, steps, coeff, lapl, which,
                             detail::diffusion::NoStep{}, &buffer);
}

/// diffuse with the Laplacian of every step, calling on_step(step, field, lapl) after each step
/// is enqueued: step counts from 1; field (a const View) holds the field after `step` steps and
/// lapl that step's Laplacian, both valid in stream order on `exec` until the next step. The
/// callback runs on the host and may enqueue work of its own on exec (copy lapl out, say).
///
/// \param exec       the execution space instance the kernels run on.
/// \param f, steps, coeff, lapl  as diffuse(exec, f, steps, coeff, lapl, which, options).
/// \param on_step    the host callable on_step(step, field, lapl) called after each step.
/// \param options    as diffuse's.
/// \throws unison::invalid_argument as diffuse does.
///
/// Asynchronous on exec, with temporary memory as diffuse's; kernels as diffuse's.
template <class Exec, class F, class L, class OnStep,
          class = std::enable_if_t<!std::is_same_v<std::decay_t<OnStep>, Laplacian>>>
void diffuse(const Exec& exec, const F& f, std::int64_t steps, double coeff, const L& lapl,
             OnStep&& on_step, const DiffusionOptions& options = {}) {
  const detail::Region region("unison::diffuse");
  constexpr const char* fn = "unison::diffuse";
  detail::diffusion::check_diffuse<Exec>(fn, f, steps, coeff, lapl, Laplacian::every_step, options,
                                         nullptr);
  const detail::diffusion::Schedule schedule = detail::diffusion::make_schedule(
      fn, exec, f, detail::diffusion::Form::callback, Laplacian::every_step, options);
  detail::diffusion::diffuse(fn, exec, schedule, f, steps, coeff, lapl, Laplacian::every_step,
                             std::forward<OnStep>(on_step), nullptr);
}

/// diffuse keeping the Laplacian of every step, a group of steps at a time: history is a
/// rank-3 View (planes, nx, ny) of f's value type. The steps run in groups of
/// history.extent(0) (the last group may be shorter); after the group of steps first ..
/// first + count - 1 (steps count from 1) is enqueued, on_history(first, count, field, history)
/// is called on the host: history(k, :, :) for k < count holds the Laplacian of step first + k
/// (that of the field after first + k - 1 steps) and field (a const View) the field after
/// first + count - 1 steps, both valid in stream order on exec until the next group starts.
/// The callback may enqueue work of its own on exec (copy the planes out, reduce them, ...).
/// The `streaming` algorithm then runs several steps per pass (options.steps_per_pass, default
/// DiffusionTuning::history_steps_per_pass, at most the planes; in strips at most 2), writing each
/// step's Laplacian to its plane but reading and writing the field once per pass; `plain` and
/// `tiled` one step per pass. Every step's arithmetic is that of diffusion_step: the
/// results are bitwise those of diffuse with Laplacian::every_step on the same backend, whatever
/// the compiler flags (header comment).
/// The planes are fastest in f's layout along their rows (history(k, i, :) contiguous for a
/// LayoutRight f): a LayoutRight history for a LayoutRight field.
/// Asynchronous on `exec`, with temporary memory as diffuse's; f ends holding the field after
/// `steps` steps. steps == 0 changes nothing and calls nothing.
/// \throws unison::invalid_argument as diffuse does, and for a history whose planes are not f's
/// extents or that has none, a history overlapping f, or steps_per_pass > 1 where the
/// algorithm runs one step per pass (> 2 in strips).
///
/// Kernels: "unison::diffusion::history" (the CPU streaming form in row blocks), else diffuse's
/// ("unison::diffusion::resident": a launch a group of planes).
///
/// \param exec       the execution space instance the kernels run on.
/// \param f           the field, advanced in place.
/// \param steps       the number of steps, at least 0.
/// \param coeff       the diffusion coefficient, finite.
/// \param history     the planes: a rank-3 View (planes, nx, ny) of f's value type.
/// \param on_history  the host callable on_history(first, count, field, history) called after
///                    each group of steps.
/// \param options     as diffuse's.
template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const Exec& exec, const F& f, std::int64_t steps, double coeff,
                     const H& history, OnHistory&& on_history,
                     const DiffusionOptions& options = {}) {
  const detail::Region region("unison::diffuse_history");
  constexpr const char* fn = "unison::diffuse_history";
  detail::diffusion::check_history<Exec>(fn, f, steps, coeff, history, options, nullptr);
  const detail::diffusion::Schedule schedule =
      detail::diffusion::make_schedule(fn, exec, f, detail::diffusion::Form::history,
                                       Laplacian::every_step, options, history.extent(0));
  detail::diffusion::diffuse_history(fn, exec, schedule, f, steps, coeff, history,
                                     std::forward<OnHistory>(on_history), nullptr);
}

/// diffuse_history with a caller's buffer (as diffuse's buffer form): when f is contiguous this
/// takes no temporary memory. Throws as diffuse_history does,
/// and if the buffer's extents differ from f's or it overlaps f or history.
///
/// \param exec       the execution space instance the kernels run on.
/// \param f           the field, advanced in place.
/// \param buffer      the caller's buffer, as diffuse's buffer form.
/// \param steps, coeff, history, on_history, options  as diffuse_history(exec, f, steps,
///                                                   coeff, history, on_history, options).
///
/// Asynchronous on exec; kernels as diffuse_history's.
template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const Exec& exec, const F& f, const DiffusionBuffer<F>& buffer,
                     std::int64_t steps, double coeff, const H& history, OnHistory&& on_history,
                     const DiffusionOptions& options = {}) {
  const detail::Region region("unison::diffuse_history");
  constexpr const char* fn = "unison::diffuse_history";
  detail::diffusion::check_history<Exec>(fn, f, steps, coeff, history, options, &buffer);
  const detail::diffusion::Schedule schedule =
      detail::diffusion::make_schedule(fn, exec, f, detail::diffusion::Form::history,
                                       Laplacian::every_step, options, history.extent(0));
  detail::diffusion::diffuse_history(fn, exec, schedule, f, steps, coeff, history,
                                     std::forward<OnHistory>(on_history), &buffer);
}

/// What diffuse (without a per-step callback) or, with history_planes > 0, diffuse_history
/// decides for field f on exec with these options before it launches anything: the kernel, the
/// steps a pass and the tile or strip shape (DiffusionSchedule), exactly as such a call decides
/// them (diffuse with a per-step callback decides the same, but never `resident`). The number of
/// steps does not change the decision (a call's last pass may run fewer steps). Reads only f's
/// extents, value type and layout: launches nothing and allocates nothing.
/// \throws unison::invalid_argument for options that such a call refuses (as diffuse, or
/// diffuse_history with history_planes planes), an unknown Laplacian choice, negative
/// history_planes, or history_planes > 0 with Laplacian::final_only.
///
/// \param exec            the execution space instance the call would run on.
/// \param f               the field: a rank-2 View of float or double.
/// \param which           every step's Laplacian, or the last step's only (diffuse's).
/// \param options         as diffuse's.
/// \param history_planes  0: diffuse's schedule; else diffuse_history's with a history of this
///                        many planes.
/// \return the decision: the algorithm, the kernel's label, the steps a pass and the tile or
///         strip shape (DiffusionSchedule).
template <class Exec, class F>
DiffusionSchedule diffusion_schedule(const Exec& exec, const F& f,
                                     Laplacian which = Laplacian::every_step,
                                     const DiffusionOptions& options = {},
                                     std::int64_t history_planes = 0) {
  const detail::Region region("unison::diffusion_schedule");
  constexpr const char* fn = "unison::diffusion_schedule";
  detail::diffusion::check_schedule_arguments<Exec, F>(fn, which, options, history_planes);
  const detail::diffusion::Form form =
      history_planes > 0 ? detail::diffusion::Form::history : detail::diffusion::Form::diffuse;
  return detail::diffusion::public_schedule(
      detail::diffusion::make_schedule(fn, exec, f, form, which, options, history_planes));
}

/// Whether Exec's `streaming` algorithm gives each thread a block of whole rows (true on the CPU
/// backends) rather than strips of rows (GPUs; on any backend with DiffusionOptions::strip_rows).
/// Row blocks run any number of steps per pass (diffuse_history, and diffuse with
/// Laplacian::final_only), strips 1 or 2.
template <class Exec>
inline constexpr bool streaming_row_blocks_v =
    detail::diffusion::StaticSchedule<Exec>::streaming_row_blocks;

/// \}

}  // namespace unison
