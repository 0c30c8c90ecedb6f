#pragma once
// The .npy format itself, without Kokkos: the parser behind unison::read_npy and the writer
// behind unison::write_npy (src/npy.cpp). Kept apart so that the fuzz target
// (tests/fuzz/npy_fuzz.cpp) can build the parser alone. POSIX only (open, fstat, rename).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <unison/core.hpp>

namespace unison::detail {

// The most header bytes a .npy file may announce: NumPy writes about 128 for the arrays read
// here; a longer header (up to 4 GiB in versions 2 and 3) is refused before it is read.
inline constexpr std::size_t npy_max_header_bytes = 65536;

// The most elements a shape may describe, counting only its nonzero extents (so that a zero
// cannot hide a huge extent), and the largest extent.
inline constexpr std::int64_t npy_max_elements = std::int64_t(1) << 50;

// A .npy file opened for reading, its magic string and header read and checked: the dtype is
// `descr` ("<f4" or "<f8"), there are `rank` extents, and, for a regular file, its size is
// exactly the header and the data the shape promises, so nothing is allocated for a file whose
// header lies. Only the header's bytes are read at construction (at most npy_max_header_bytes),
// the data then by read() in the order of the file. Every error throws
// unison::invalid_argument, or unison::io_error when the system fails (cannot open, read error,
// a directory); the message starts with `function`, then the path.
class NpyReader {
 public:
  // Where the bytes come from (defined in src/npy.cpp): an open file or a string.
  struct Source;

  // Opens the file at path (following symbolic links; a pipe is read as a stream).
  NpyReader(const char* function, const std::string& path, const char* descr, int rank);
  // Reads from source, `name` standing for its path in messages.
  NpyReader(const char* function, const std::string& name, std::unique_ptr<Source> source,
            const char* descr, int rank);
  ~NpyReader();
  NpyReader(const NpyReader&) = delete;
  NpyReader& operator=(const NpyReader&) = delete;

  const std::vector<std::int64_t>& shape() const { return shape_; }
  bool fortran_order() const { return fortran_order_; }
  // The element count times the dtype's size: what read() delivers in all.
  std::size_t data_bytes() const { return data_bytes_; }
  // The next n bytes of the data (at most what remains); throws "truncated data" if the file
  // ends first.
  void read(char* out, std::size_t n);
  // After all the data: throws if the file holds more bytes (reads at most one more).
  void finish();

 private:
  void read_header(const char* descr, int rank);

  const char* function_;
  std::string name_;
  std::unique_ptr<Source> source_;
  std::vector<std::int64_t> shape_;
  bool fortran_order_ = false;
  std::size_t data_bytes_ = 0, done_ = 0;
};

// A validated .npy file of the expected dtype and rank, its data as raw bytes.
struct NpyArray {
  std::vector<std::int64_t> shape;
  bool fortran_order = false;
  std::vector<char> data;
};

// NpyReader's checks over the bytes of a whole .npy file (`name` standing for its path), the
// data then copied out: any byte string either parses or throws unison::invalid_argument,
// nothing else (the fuzz target's property); nothing is allocated beyond the input's size.
NpyArray parse_npy(const char* function, const std::string& name, const std::string& bytes,
                   const char* descr, int rank);

// Writes a C-order array to the file at path: to a new temporary file (a name no other file
// has, created exclusively) in the same directory, then renamed onto it, so that the file
// appears complete or not at all and a failure leaves no temporary file behind. A symbolic link
// at path is followed: its target is written and the link kept. Refuses an empty path, a path
// ending in '/', and an existing file that is not a regular file (a directory, a device).
// Throws unison::invalid_argument, or unison::io_error when the system fails.
void write_npy(const char* function, const std::string& path, const char* descr,
               const std::vector<std::int64_t>& shape, const char* data, std::size_t bytes);

// The dtype of T's values: what read_npy reads (float32, float64) and what write_npy writes
// (those and the integers the benchmarks save: int64, int32, int16, uint8).
template <class T>
constexpr const char* npy_descr() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t> ||
                    std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint8_t>,
                "unison::npy: arrays of float, double, int64, int32, int16 or uint8 only");
  return std::is_same_v<T, float>          ? "<f4"
         : std::is_same_v<T, double>       ? "<f8"
         : std::is_same_v<T, std::int64_t> ? "<i8"
         : std::is_same_v<T, std::int32_t> ? "<i4"
         : std::is_same_v<T, std::int16_t> ? "<i2"
                                           : "|u1";
}

}  // namespace unison::detail
