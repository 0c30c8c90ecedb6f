#pragma once
// unison/detail/convolve/launch.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The launch of convolve: it takes the call's Schedule (schedule.hpp), decided and checked
// before, and the Views, and only launches.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <unison/detail/convolve/direct.hpp>
#include <unison/detail/convolve/host.hpp>
#include <unison/detail/convolve/schedule.hpp>
#include <unison/detail/convolve/tiled.hpp>

namespace unison::detail::convolve {

// The direct algorithm, in the form the schedule chose.
template <class Exec, class X, class K, class Y>
void launch_direct(const Exec& exec, const Schedule& s, const X& x, const K& k, const Y& y) {
  using T = typename Y::non_const_value_type;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  if constexpr (blocks_v<Exec, T>) {
    if (s.launch == Launch::blocks) {
      using Host = typename KernelShape<Exec>::Host;
      Kokkos::parallel_for("unison::convolve::direct",
                           Range(exec, 0, (s.shape.out + s.block - 1) / s.block),
                           ConvolveBlocks<Host, X, K, Y>{x, k, y, s.shape, s.block, s.streaming});
      return;
    }
  }
  constexpr int V = window_width_v<Exec, T>;
  if constexpr (V == 2 || V == 4) {
    if (s.launch == Launch::windowed) {
      using Kernel = ConvolveWindowed<X, K, Y, V, window_taps_v<Exec>>;
      Kokkos::parallel_for("unison::convolve::direct",
                           Range(exec, 0, Kernel::items(s.head, s.shape.out)),
                           Kernel{x, k, y, s.shape, s.head, s.shift});
      return;
    }
  }
  Kokkos::parallel_for("unison::convolve::direct", Range(exec, 0, s.shape.out),
                       ConvolveDirect<X, K, Y>{x, k, y, s.shape});
}

// The tiled algorithm. The schedule's tile, chunk, team size and scratch level are the backend's
// compile-time values (KernelShape): given here as the constants they are, which the compiler
// carries into the kernel.
template <class Exec, class X, class K, class Y>
void launch_tiled(const Exec& exec, const Schedule& s, const X& x, const K& k, const Y& y) {
  using Kernel = ConvolveTiled<Exec, X, K, Y>;
  using Shape = KernelShape<Exec>;
  Kokkos::TeamPolicy<Exec> policy(exec, int(s.league), Shape::team_size);
  policy.set_scratch_size(Shape::scratch_level,
                          Kokkos::PerTeam(Kernel::scratch_bytes(Shape::tile, Shape::chunk)));
  Kokkos::parallel_for(
      "unison::convolve::tiled", policy,
      Kernel{x, k, y, s.shape, Shape::tile, Shape::chunk, Shape::scratch_level, s.streaming});
}

// Enqueues y = x * k on exec as scheduled.
template <class Exec, class X, class K, class Y>
void launch(const Exec& exec, const Schedule& s, const X& x, const K& k, const Y& y) {
  if (s.launch != Launch::tiled) launch_direct(exec, s, x, k, y);
  else launch_tiled(exec, s, x, k, y);
}

}  // namespace unison::detail::convolve
