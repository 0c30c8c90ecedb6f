#pragma once
// unison/detail/diffusion/run.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The forms of diffuse and diffuse_history: options resolved and checked, the two buffers, the
// passes one after another.

#include <optional>

#include <unison/detail/diffusion/dispatch.hpp>
#include <unison/detail/diffusion/resident.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

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

template <class F>
using FieldView = Kokkos::View<typename F::non_const_value_type**, diffusion_layout_t<F>,
                               typename F::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class F>
using ConstFieldView =
    Kokkos::View<const typename F::non_const_value_type**, diffusion_layout_t<F>,
                 typename F::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Whether diffuse can step f where it lies, as a FieldView<F> over f.data(): a LayoutLeft or
// LayoutRight field whose span is contiguous, or a LayoutStride field laid out exactly as
// FieldView's LayoutRight (unit column stride, each row right after the one before: what a
// C-ordered NumPy, CuPy or PyTorch array becomes).
template <class F>
bool steps_in_place(const F& f) {
  using Layout = typename F::array_layout;
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutLeft> ||
                std::is_same_v<Layout, Kokkos::LayoutRight>) {
    return f.span_is_contiguous();
  } else if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride> &&
                       std::is_same_v<diffusion_layout_t<F>, Kokkos::LayoutRight>) {
    const std::size_t nx = f.extent(0), ny = f.extent(1);
    return (ny <= 1 || std::size_t(f.stride(1)) == 1) &&
           (nx <= 1 || std::size_t(f.stride(0)) == ny);
  } else {
    return false;
  }
}

// dst = src for two fields of the same extents, one of them a buffer of layout
// diffusion_layout_t (Transposed: LayoutLeft): a team per grid row of the buffer (a row at a
// time, `rows` rows in all), its threads along the row, where the buffer is contiguous. (Kokkos's
// deep_copy between a LayoutStride View and a LayoutRight one runs an MDRange kernel whose threads
// step along the first index: many times the time of a contiguous copy, docs/tuning.md.)
template <bool Transposed, class D, class S>
struct CopyField {
  D dst;
  S src;
  std::int64_t rows, cols;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    for (std::int64_t r = team.league_rank(); r < rows; r += team.league_size())
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cols), [&](std::int64_t c) {
        cell<Transposed>(dst, r, c) = cell<Transposed>(src, r, c);
      });
  }
};

template <class Exec, class D, class S>
void copy_field(const char* label, const Exec& exec, const D& dst, const S& src) {
  constexpr bool tr = transposed_v<D> || transposed_v<S>;
  const std::int64_t rows = tr ? dst.extent(1) : dst.extent(0),
                     cols = tr ? dst.extent(0) : dst.extent(1);
  if (rows == 0 || cols == 0) return;
  const int league = int(rows < (std::int64_t(1) << 20) ? rows : std::int64_t(1) << 20);
  Kokkos::parallel_for(label, Kokkos::TeamPolicy<Exec>(exec, league, Kokkos::AUTO),
                       CopyField<tr, D, S>{dst, src, rows, cols});
}

// Runs run(cur, nxt) on two buffers of f's extents, cur holding f: f itself where it can be
// stepped in place (steps_in_place; otherwise f is copied into a third buffer and back, by
// copy_field) and `buffer` or temporary memory. run steps from cur into nxt and swaps them;
// whichever holds the field at the end is copied to f if it is not f. Asynchronous on exec.
template <class Exec, class F, class Run>
void with_buffers(const char* function, const Exec& exec, const F& f,
                  const DiffusionBuffer<F>* buffer, Run&& run) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  using Buffer = DiffusionBuffer<F>;
  const bool direct = steps_in_place(f);
  std::optional<Temporary<Buffer, Exec>> own_buffer, own_copy;
  if (!buffer)
    own_buffer.emplace(
        temporary<Buffer>(function, "the second field", exec, "unison::diffusion::buffer", nx, ny));
  const Buffer other = buffer ? *buffer : own_buffer->view;
  FieldView<F> cur, nxt(other.data(), nx, ny);
  if (direct) {
    cur = FieldView<F>(f.data(), nx, ny);
  } else {
    own_copy.emplace(temporary<Buffer>(function, "the contiguous copy of f", exec,
                                       "unison::diffusion::field", nx, ny));
    cur = FieldView<F>(own_copy->view.data(), nx, ny);
    copy_field("unison::diffusion::copy_in", exec, cur, f);
  }
  run(cur, nxt);
  if (cur.data() == f.data()) return;
  if (direct) Kokkos::deep_copy(exec, FieldView<F>(f.data(), nx, ny), cur);  // contiguous
  else copy_field("unison::diffusion::copy_out", exec, f, cur);
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

// The on_step of the forms of diffuse without a callback: nothing to call between steps, which
// lets every step run in one launch (the resident algorithm).
struct NoStep {
  template <class... A>
  void operator()(const A&...) const {}
};

// Whether diffuse runs the resident kernel on a field of nx x ny of T: where the caller asks for it
// (then it must apply: no tile or pass options, no callback between steps, and a CUDA GPU that
// holds the field; else invalid_argument), or for `automatic` without such options where it fits.
template <class Exec, class T>
bool use_resident(const char* fn, const Exec& exec, const DiffusionOptions& options, bool callback,
                  std::int64_t rows, std::int64_t cols) {
  const bool asked = options.algorithm == StencilAlgorithm::resident;
  const bool shaped = options.tile_rows > 0 || options.tile_cols > 0 ||
                      options.steps_per_pass > 0 || options.strip_rows > 0 ||
                      options.strip_prefetch > 0;
  if (!asked) {
    return options.algorithm == StencilAlgorithm::automatic && !shaped && !callback &&
           rows * cols > 0 && resident_fits<Exec, T>(exec, rows, cols, rows * cols);
  }
  require(!shaped, fn,
          "tile_rows, tile_cols, steps_per_pass, strip_rows and strip_prefetch do not apply to "
          "the resident algorithm (it runs every step in one launch)");
  require(!callback, fn,
          "the resident algorithm runs every step in one launch: a callback after each step needs "
          "another algorithm");
  require(resident_available_v<Exec>, fn,
          "the resident algorithm needs a CUDA GPU; this backend has no resident kernel");
  require(rows * cols == 0 || resident_fits<Exec, T>(exec, rows, cols, rows * cols), fn,
          "the resident algorithm: a field of ", rows, "x", cols,
          " grid rows and columns does not fit in this GPU's registers at once");
  return true;
}

template <class Exec, class F, class L, class OnStep>
void diffuse(const char* fn, const Exec& exec, const F& f, std::int64_t steps, double coeff,
             const L& lapl, Laplacian which, const DiffusionOptions& options, OnStep&& on_step,
             const DiffusionBuffer<F>* buffer) {
  static_checks_field_lapl<Exec, F, L>();
  using T = typename F::non_const_value_type;
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
  const std::int64_t field_bytes = std::int64_t(f.size() * sizeof(T)),
                     row_bytes =
                         std::int64_t((transposed_v<F> ? f.extent(0) : f.extent(1)) * sizeof(T));
  const StencilAlgorithm algorithm =
      resolve_algorithm<Exec>(options.algorithm, which, options, field_bytes);
  require(options.steps_per_pass <= 1 || algorithm != StencilAlgorithm::plain, fn,
          "steps_per_pass ", options.steps_per_pass,
          " needs the tiled, streaming or wavefront algorithm");
  // The streaming algorithm runs several steps per pass: on a CPU in blocks of rows, any number
  // (unless strips are asked for); in strips (GPUs) 1 or 2.
  const bool row_passes = algorithm == StencilAlgorithm::streaming &&
                          streaming_row_blocks_v<Exec> && options.strip_rows == 0;
  require(options.steps_per_pass <= 2 || algorithm != StencilAlgorithm::streaming || row_passes, fn,
          "steps_per_pass ", options.steps_per_pass,
          " with the streaming algorithm in strips: it runs 1 or 2");

  const PassShape shape =
      pass_shape<Exec, T>(fn, algorithm, options,
                          steps_per_pass<Exec>(algorithm, which, options, field_bytes, row_bytes),
                          f.extent(0), f.extent(1));
  constexpr bool tr = transposed_v<F>;
  const bool resident = use_resident<Exec, T>(
      fn, exec, options, !std::is_same_v<std::decay_t<OnStep>, NoStep>,
      std::int64_t(tr ? f.extent(1) : f.extent(0)), std::int64_t(tr ? f.extent(0) : f.extent(1)));
  if (steps == 0 || f.size() == 0) return;

  const T c = T(coeff);
  with_buffers(fn, exec, f, buffer, [&](FieldView<F>& cur, FieldView<F>& nxt) {
    if (resident) {
      // In place in cur, nxt lending the memory for the edges; at most 2^30 steps a launch.
      for (std::int64_t done = 0; done < steps;) {
        const std::int64_t n = steps - done < (1 << 30) ? steps - done : (1 << 30);
        resident_pass(exec, cur, nxt, lapl, 0, n, c, which == Laplacian::every_step);
        done += n;
        on_step(done, ConstFieldView<F>(cur), lapl);
      }
      return;
    }
    for (std::int64_t done = 0; done < steps;) {
      const int n = int(steps - done < shape.steps ? steps - done : shape.steps);
      const bool final_pass = done + n == steps;
      PassShape pass = shape;
      pass.steps = n;
      const bool write = which == Laplacian::every_step || final_pass,
                 reverse = (done / shape.steps) % 2 == 1;
      if (row_passes && n > 1) {
        rows_pass("unison::diffusion::streaming", exec, ConstFieldView<F>(cur), nxt,
                  LastLaplacian<transposed_v<F>, L>{lapl, write}, n, c, reverse);
      } else {
        // rows, rows ahead
        const std::pair<int, int> strip = strip_shape<Exec>(options, n, field_bytes);
        diffusion_pass(exec, algorithm, pass, ConstFieldView<F>(cur), nxt, lapl, c, write, reverse,
                       strip.first, strip.second);
      }
      done += n;
      std::swap(cur, nxt);
      on_step(done, ConstFieldView<F>(cur), lapl);
    }
  });
}

// Enqueues `n` steps from f into next by DiffusionRowsPasses (where streaming_row_blocks_v), the
// Laplacians that `sink` asks for written.
template <class Exec, class F, class FN, class Sink>
void rows_pass(const char* label, const Exec& exec, const F& f, const FN& next, const Sink& sink,
               int n, typename FN::non_const_value_type coeff, bool reverse) {
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (nx == 0 || ny == 0) return;
  if constexpr (streaming_row_blocks_v<Exec>) {
    using Tuning = backends::DiffusionTuning<Exec>;
    constexpr bool tr = transposed_v<F>;
    const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;
    const RowBlocks blocks = row_blocks(exec, rows);
    using Kernel = DiffusionRowsPasses<Exec, tr, F, FN, Sink>;
    const std::int64_t pitch = Kernel::ring_pitch(cols);
    Kokkos::TeamPolicy<Exec, Kokkos::Schedule<Kokkos::Static>> policy(exec, int(blocks.items), 1);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Kernel::scratch_bytes(n, pitch)));
    Kokkos::parallel_for(label, policy,
                         Kernel{f, next, sink, coeff, rows, cols, blocks.per_item, pitch, n,
                                Tuning::scratch_level, reverse});
  }
}

template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const char* fn, const Exec& exec, const F& f, std::int64_t steps, double coeff,
                     const H& history, const DiffusionOptions& options, OnHistory&& on_history,
                     const DiffusionBuffer<F>* buffer) {
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
  constexpr bool tr = transposed_v<F>;
  // resident: a launch a group of planes (the callback between groups)
  const bool resident =
      use_resident<Exec, T>(fn, exec, options, false, std::int64_t(tr ? f.extent(1) : f.extent(0)),
                            std::int64_t(tr ? f.extent(0) : f.extent(1)));
  DiffusionOptions shape_options = options;
  shape_options.steps_per_pass = 0;  // here: steps per pass of the streaming kernels only
  const StencilAlgorithm algorithm =
      resolve_algorithm<Exec>(options.algorithm, Laplacian::every_step, shape_options);
  // The streaming algorithm runs several steps per pass: on a CPU in blocks of rows (unless
  // strips are asked for), in strips (GPUs) 1 or 2.
  const bool streaming = algorithm == StencilAlgorithm::streaming;
  const bool strips = streaming && (!streaming_row_blocks_v<Exec> || options.strip_rows > 0);
  require(options.steps_per_pass <= 1 || streaming, fn, "steps_per_pass ", options.steps_per_pass,
          " needs the streaming algorithm");
  require(options.steps_per_pass <= 2 || !strips, fn, "steps_per_pass ", options.steps_per_pass,
          " with the streaming algorithm in strips: it runs 1 or 2");
  using Tuning = backends::DiffusionTuning<Exec>;
  const std::int64_t depth = std::int64_t(history.extent(0));
  std::int64_t per_pass = !streaming                   ? 1
                          : options.steps_per_pass > 0 ? options.steps_per_pass
                                                       : Tuning::history_steps_per_pass;
  if (per_pass > depth) per_pass = depth;
  const PassShape shape = pass_shape<Exec, T>(fn, algorithm, options, 1, f.extent(0), f.extent(1));
  if (steps == 0 || f.size() == 0) return;

  const T c = T(coeff);
  const std::int64_t field_bytes = std::int64_t(f.size() * sizeof(T));
  using Plane = decltype(Kokkos::subview(history, 0, Kokkos::ALL, Kokkos::ALL));
  with_buffers(fn, exec, f, buffer, [&](FieldView<F>& cur, FieldView<F>& nxt) {
    std::int64_t pass = 0;
    for (std::int64_t done = 0; done < steps;) {
      const std::int64_t group = steps - done < depth ? steps - done : depth;
      if (resident) {
        // In place in cur, nxt lending the memory for the edges: step k + 1's Laplacian to plane k.
        for (std::int64_t k = 0; k < group;) {
          const std::int64_t n = group - k < (1 << 30) ? group - k : (1 << 30);
          resident_pass(exec, cur, nxt, Kokkos::subview(history, k, Kokkos::ALL, Kokkos::ALL),
                        std::int64_t(history.stride(0)), n, c, true);
          k += n;
        }
        on_history(done + 1, group, ConstFieldView<F>(cur), history);
        done += group;
        continue;
      }
      for (std::int64_t k = 0; k < group; ++pass) {
        const int n = int(group - k < per_pass ? group - k : per_pass);
        const bool reverse = pass % 2 == 1;
        if (strips) {
          // rows, rows ahead
          const std::pair<int, int> strip = strip_shape<Exec>(options, n, field_bytes);
          Plane planes[2];
          for (int s = 0; s < n; ++s)
            planes[s] = Kokkos::subview(history, k + s, Kokkos::ALL, Kokkos::ALL);
          strips_pass(exec, n, ConstFieldView<F>(cur), nxt, planes, (1u << n) - 1u, c,
                      strip.first > 0 ? strip.first : Tuning::strip_rows_two_steps, strip.second);
        } else if (streaming) {
          rows_pass("unison::diffusion::history", exec, ConstFieldView<F>(cur), nxt,
                    HistoryPlanes<transposed_v<F>, H>{history, int(k)}, n, c, reverse);
        } else {
          diffusion_pass(exec, algorithm, shape, ConstFieldView<F>(cur), nxt,
                         Kokkos::subview(history, k, Kokkos::ALL, Kokkos::ALL), c, true, reverse);
        }
        k += n;
        std::swap(cur, nxt);
      }
      on_history(done + 1, group, ConstFieldView<F>(cur), history);
      done += group;
    }
  });
}

}  // namespace unison::detail::diffusion
