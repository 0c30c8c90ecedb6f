#pragma once
// Every allocation a Unison function makes for itself goes through allocate(): a request larger
// than the memory free in its space, or one the space refuses, becomes unison::invalid_argument
// naming the function, with nothing allocated and the space usable by the next call.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/memory.hpp>
#include <unison/detail/checks.hpp>

namespace unison::detail {

/// A new View (WithoutInitializing) labelled `label`, for `function`'s `what` ("the temporary
/// field"). Allocated on `exec` when exec can reach the View's memory space (asynchronous there),
/// else on the space's default instance.
/// Throws unison::invalid_argument before allocating when the bytes exceed what the space says is
/// free (backends::free_memory_bytes: the host's available memory, a GPU's free memory), and when
/// the space's allocator fails anyway (Kokkos' std::runtime_error, the CUDA error cleared by
/// Kokkos): "unison::diffuse: the temporary field needs 8589934592 bytes, more than the ... bytes
/// free in the Cuda memory space".
template <class View, class Exec, class... Extents>
View allocate(const char* function, const char* what, const Exec& exec, const std::string& label,
              Extents... extents) {
  using Space = typename View::memory_space;
  long double bytes = sizeof(typename View::non_const_value_type);
  ((bytes *= (long double)extents), ...);
  const long long free = backends::free_memory_bytes(Space::name());
  require(free < 0 || bytes <= (long double)free, function, what, " needs ",
          (unsigned long long)bytes, " bytes, more than the ", free, " bytes free in the ",
          Space::name(), " memory space");
  try {
    View view;
    if constexpr (Kokkos::SpaceAccessibility<Exec, Space>::accessible)
      view = View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), extents...);
    else view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), extents...);
    if constexpr (std::is_same_v<Space, Kokkos::HostSpace>)
      backends::advise_huge_pages(view.data(),
                                  view.span() * sizeof(typename View::non_const_value_type));
    return view;
  } catch (const std::runtime_error& e) {
    fail(function, what, " (", (unsigned long long)bytes, " bytes) could not be allocated in the ",
         Space::name(), " memory space: ", e.what());
  }
}

}  // namespace unison::detail
