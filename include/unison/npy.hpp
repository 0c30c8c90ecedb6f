#pragma once
/// \file unison/npy.hpp
/// NumPy's .npy format (little-endian): reading 2-D float32 / float64 arrays (versions 1.0, 2.0
/// and 3.0; C or Fortran order), and writing arrays of rank 1 to 3 (version 1.0, C order), so
/// that a diffusion can start from a user's own field and any result can be read into NumPy.

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/npy_format.hpp>

namespace unison {

/// Reads a 2-D array of T (float: dtype "<f4"; double: "<f8") from a .npy file into a new host
/// View of the file's shape, labelled "unison::npy::array". Fortran-order files are transposed
/// into the View's row-major layout. Copy it to a device with Kokkos::create_mirror_view_and_copy.
/// Throws unison::invalid_argument (naming the path) if the file cannot be opened, is not a .npy
/// file, is truncated, has bytes after the data, is big-endian, has another dtype or another
/// rank than 2. Nothing is allocated or returned then.
template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> read_npy(const std::string& path) {
  auto file = detail::read_npy("unison::read_npy", path, detail::npy_descr<T>(), 2);
  const std::int64_t rows = file.shape[0], cols = file.shape[1];
  const auto out = detail::allocate<Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>>(
      "unison::read_npy", "the array", Kokkos::DefaultHostExecutionSpace(), "unison::npy::array",
      rows, cols);
  const T* data = reinterpret_cast<const T*>(file.data.data());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      out(i, j) = file.fortran_order ? data[j * rows + i] : data[i * cols + j];
  return out;
}

/// Writes v (a View of rank 1 to 3 of float, double, int64, int32, int16 or uint8, any layout,
/// any memory space) to a C-order .npy file (version 1.0) of v's shape. Blocks: waits for v's
/// contents (a copy to the host, fencing). The file appears complete or not at all.
/// Throws unison::invalid_argument (naming the path) if the file cannot be written.
template <class V>
void write_npy(const std::string& path, const V& v) {
  static_assert(Kokkos::is_view_v<V> && V::rank() >= 1 && V::rank() <= 3,
                "unison::write_npy: v must be a View of rank 1 to 3");
  using T = typename V::non_const_value_type;
  constexpr const char* descr = detail::npy_descr<T>();
  constexpr const char* fn = "unison::write_npy";
  using Staged =
      Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, typename V::memory_space>;
  using Host =
      Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, Kokkos::HostSpace>;
  std::array<std::size_t, V::rank()> extents{};
  std::vector<std::int64_t> shape;
  for (std::size_t r = 0; r < V::rank(); ++r) {
    extents[r] = v.extent(r);
    shape.push_back(std::int64_t(v.extent(r)));
  }
  const auto staged = std::apply(
      [&](auto... n) {
        return detail::allocate<Staged>(fn, "the C-order copy", typename V::execution_space(),
                                        "unison::npy::staged", n...);
      },
      extents);
  Kokkos::deep_copy(staged, v);
  Host host;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename V::memory_space>::accessible) {
    host = Host(staged.data(), staged.layout());
  } else {
    host = std::apply(
        [&](auto... n) {
          return detail::allocate<Host>(fn, "the host copy", Kokkos::DefaultHostExecutionSpace(),
                                        "unison::npy::host", n...);
        },
        extents);
    Kokkos::deep_copy(host, staged);
  }
  detail::write_npy(fn, path, descr, shape, reinterpret_cast<const char*>(host.data()),
                    host.size() * sizeof(T));
}

}  // namespace unison
