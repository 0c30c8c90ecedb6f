#pragma once
/// \file unison/npy.hpp
/// NumPy's .npy format (little-endian): reading 2-D float32 / float64 arrays (versions 1.0, 2.0
/// and 3.0; C or Fortran order), and writing arrays of rank 1 to 3 (version 1.0, C order), so
/// that a diffusion can start from a user's own field and any result can be read into NumPy.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/npy_format.hpp>

namespace unison {

/// \defgroup npy .npy files
/// \{

/// Reads a 2-D array of T (float: dtype "<f4"; double: "<f8") from a .npy file into a new host
/// View of the file's shape, labelled "unison::npy::array". Fortran-order files are transposed
/// into the View's row-major layout. Copy it to a device with Kokkos::create_mirror_view_and_copy.
/// Symbolic links are followed; a pipe is read as a stream.
///
/// The work is bounded by the file: the magic string and the header (at most 65536 bytes) are
/// read first; for a regular file, its size must be exactly the header plus the data the shape
/// promises before the array is allocated (a huge shape in a small file, or a huge file that is
/// not a .npy file, is refused after reading its first bytes); at most the promised data and one
/// more byte are read. Each extent and the product of the nonzero extents are at most 2^50; a
/// shape with a zero extent, such as (2^50, 0), is an empty View of that shape, made without
/// walking its rows.
///
/// \throws unison::invalid_argument whose message starts with "unison::read_npy: " and names the
/// path, if the path is empty, the file is not a .npy file, its header is longer than 65536 bytes
/// or malformed, it is truncated, has bytes after the data, is big-endian, has another dtype or
/// another rank than 2; throws unison::io_error (an unison::invalid_argument) if the file cannot
/// be opened or read or is a directory. Nothing is returned then.
///
/// \param path  the file.
/// \return a new host View holding the array.
template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> read_npy(const std::string& path) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "unison::read_npy: only float32 and float64 arrays are read");
  detail::NpyReader file("unison::read_npy", path, detail::npy_descr<T>(), 2);
  const std::int64_t rows = file.shape()[0], cols = file.shape()[1];
  // Allocated once the header is checked (and a regular file's size with it).
  const std::string what = path + ": the array";
  const auto out = detail::allocate<Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>>(
      "unison::read_npy", what.c_str(), Kokkos::DefaultHostExecutionSpace(), "unison::npy::array",
      rows, cols);
  // Loops run over the file's elements only: none for an empty array, whatever its extents.
  const std::size_t count = file.data_bytes() / sizeof(T);
  if (!file.fortran_order()) {
    file.read(reinterpret_cast<char*>(out.data()), count * sizeof(T));
  } else {
    // Column after column, in blocks, into the row-major View.
    std::vector<T> block(std::min<std::size_t>(count, std::size_t(1) << 16));
    std::int64_t i = 0, j = 0;
    for (std::size_t done = 0; done < count;) {
      const std::size_t n = std::min(block.size(), count - done);
      file.read(reinterpret_cast<char*>(block.data()), n * sizeof(T));
      for (std::size_t k = 0; k < n; ++k) {
        out(i, j) = block[k];
        if (++i == rows) i = 0, ++j;
      }
      done += n;
    }
  }
  file.finish();
  return out;
}

/// Writes v (a View of rank 1 to 3 of float, double, int64, int32, int16 or uint8, any layout,
/// any memory space) to a C-order .npy file (version 1.0) of v's shape. Blocks: waits for v's
/// contents (a copy to the host, fencing).
///
/// The file appears complete or not at all: the data go to a new temporary file in the same
/// directory, under a name no existing file has (created exclusively: a file of yours such as
/// "<path>.tmp" is never touched), which is then renamed onto path; on any error the temporary
/// file is removed and an existing file at path is left as it was. A replaced file keeps its
/// permissions. A symbolic link at path is followed: its target is replaced (or created) and the
/// link kept.
///
/// \throws unison::invalid_argument whose message starts with "unison::write_npy: " and names the
/// path, if the path is empty or ends in '/', or names (through links) a directory or another
/// file that is not a regular file (a device, a pipe); throws unison::io_error (an
/// unison::invalid_argument) if the file cannot be written.
///
/// \param path  the file, replaced if it exists.
/// \param v     the array: a rank-1 or rank-2 View of a supported value type.
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
        return detail::allocate<Staged>(fn, (path + ": the C-order copy").c_str(),
                                        typename V::execution_space(), "unison::npy::staged", n...);
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
          return detail::allocate<Host>(fn, (path + ": the host copy").c_str(),
                                        Kokkos::DefaultHostExecutionSpace(), "unison::npy::host",
                                        n...);
        },
        extents);
    Kokkos::deep_copy(host, staged);
  }
  detail::write_npy(fn, path, descr, shape, reinterpret_cast<const char*>(host.data()),
                    host.size() * sizeof(T));
}

/// \}

}  // namespace unison
