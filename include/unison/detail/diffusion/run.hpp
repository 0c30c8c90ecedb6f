#pragma once
// unison/detail/diffusion/run.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The runs of diffusion_step, diffuse and diffuse_history as their Schedule (schedule.hpp) says:
// the two buffers, the passes one after another (launch.hpp). Nothing here decides or checks
// anything.

#include <optional>

#include <unison/detail/diffusion/launch.hpp>
#include <unison/detail/diffusion/resident.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/diffusion_types.hpp>

namespace unison::detail::diffusion {

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

// The on_step of the forms of diffuse without a callback: nothing to call between steps, which
// lets every step run in one launch (the resident algorithm).
struct NoStep {
  template <class... A>
  void operator()(const A&...) const {}
};

// diffusion_step: one pass of the schedule's algorithm from f to f_next, its Laplacian to lapl.
template <class Exec, class F, class FN, class L>
void step(const Exec& exec, const Schedule& schedule, const F& f, const FN& f_next, const L& lapl,
          double coeff) {
  using T = typename F::non_const_value_type;
  diffusion_pass(exec, schedule, 1, f, f_next, lapl, T(coeff), true, false);
}

// diffuse: `steps` steps of f in place as the schedule says, calling on_step after each pass.
template <class Exec, class F, class L, class OnStep>
void diffuse(const char* fn, const Exec& exec, const Schedule& schedule, const F& f,
             std::int64_t steps, double coeff, const L& lapl, Laplacian which, OnStep&& on_step,
             const DiffusionBuffer<F>* buffer) {
  using T = typename F::non_const_value_type;
  if (steps == 0 || f.size() == 0) return;
  const T c = T(coeff);
  const bool resident = schedule.algorithm == StencilAlgorithm::resident;
  const int per_pass = schedule.steps_per_pass;
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
      const int n = int(steps - done < per_pass ? steps - done : per_pass);
      const bool final_pass = done + n == steps;
      const bool write = which == Laplacian::every_step || final_pass,
                 reverse = (done / per_pass) % 2 == 1;
      if (schedule.row_passes && n > 1) {
        rows_pass("unison::diffusion::streaming", exec, ConstFieldView<F>(cur), nxt,
                  LastLaplacian<transposed_v<F>, L>{lapl, write}, n, c, reverse);
      } else {
        diffusion_pass(exec, schedule, n, ConstFieldView<F>(cur), nxt, lapl, c, write, reverse);
      }
      done += n;
      std::swap(cur, nxt);
      on_step(done, ConstFieldView<F>(cur), lapl);
    }
  });
}

// diffuse_history: `steps` steps of f in place as the schedule says, in groups of the history's
// planes, calling on_history after each group.
template <class Exec, class F, class H, class OnHistory>
void diffuse_history(const char* fn, const Exec& exec, const Schedule& schedule, const F& f,
                     std::int64_t steps, double coeff, const H& history, OnHistory&& on_history,
                     const DiffusionBuffer<F>* buffer) {
  using T = typename F::non_const_value_type;
  if (steps == 0 || f.size() == 0) return;
  const T c = T(coeff);
  const bool resident = schedule.algorithm == StencilAlgorithm::resident,
             streaming = schedule.algorithm == StencilAlgorithm::streaming;
  const std::int64_t depth = std::int64_t(history.extent(0)), per_pass = schedule.steps_per_pass;
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
        if (schedule.strips) {
          Plane planes[2];
          for (int s = 0; s < n; ++s)
            planes[s] = Kokkos::subview(history, k + s, Kokkos::ALL, Kokkos::ALL);
          strips_pass(exec, schedule, n, ConstFieldView<F>(cur), nxt, planes, (1u << n) - 1u, c);
        } else if (streaming) {
          rows_pass("unison::diffusion::history", exec, ConstFieldView<F>(cur), nxt,
                    HistoryPlanes<transposed_v<F>, H>{history, int(k)}, n, c, reverse);
        } else {
          diffusion_pass(exec, schedule, 1, ConstFieldView<F>(cur), nxt,
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
