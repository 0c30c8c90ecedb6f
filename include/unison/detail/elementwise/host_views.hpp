#pragma once
// unison/detail/elementwise/host_views.hpp: part of unison/elementwise.hpp (a header of its
// kernels, which compiles on its own: it includes what it uses). make_pulses and hidden_layer with
// host Views on a GPU: the checks, the device copies they work through, and the copy back.

#include <Kokkos_Core.hpp>
#include <type_traits>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/math.hpp>
#include <unison/transform.hpp>

namespace unison::detail::elementwise {

// The rank-1 Views of make_pulses and hidden_layer may live where exec cannot read or write them
// (host memory with a GPU exec): then they must be contiguous, and they travel once each way.
template <class Exec, class V>
void check_transferable(const char* function, const char* name, const V& v) {
  if constexpr (!accessible_v<Exec, V>) {
    require(v.span_is_contiguous(), function, name, " (", extents_of(v),
            ") is not contiguous; a View that the execution space cannot access must be "
            "contiguous to be copied");
  }
}

// v itself if exec can read it, else a copy in exec's memory, enqueued on exec.
template <class Exec, class V>
auto readable_on(const char* function, const Exec& exec, const V& v, const char* label) {
  if constexpr (accessible_v<Exec, V>) {
    return v;
  } else {
    auto copy =
        allocate<Kokkos::View<typename V::non_const_value_type*, typename Exec::memory_space>>(
            function, "the copy of an input", exec, label, v.extent(0));
    Kokkos::deep_copy(exec, copy, v);
    return copy;
  }
}

// Runs `compute(dest)` into out if exec can write it, else into a temporary in exec's memory
// that is then copied into out; in that case waits on exec until out holds the result.
template <class Exec, class Out, class Compute>
void write_through(const char* function, const Exec& exec, const Out& out, const char* label,
                   const Compute& compute) {
  if constexpr (accessible_v<Exec, Out>) {
    compute(out);
  } else {
    auto result =
        allocate<Kokkos::View<typename Out::non_const_value_type*, typename Exec::memory_space>>(
            function, "the result's temporary", exec, label, out.extent(0));
    compute(result);
    Kokkos::deep_copy(exec, out, result);
    exec.fence(label);
  }
}

}  // namespace unison::detail::elementwise
