#pragma once
// The .npy format itself, without Kokkos: the parser behind unison::read_npy and the writer
// behind unison::write_npy (src/npy.cpp). Kept apart so that the fuzz target
// (tests/fuzz/npy_fuzz.cpp) can build the parser alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <unison/core.hpp>

namespace unison::detail {

// A validated .npy file of the expected dtype and rank, its data as raw bytes.
struct NpyArray {
  std::vector<std::int64_t> shape;
  bool fortran_order = false;
  std::vector<char> data;
};

// Checks the bytes of a whole .npy file; throws unison::invalid_argument naming `function` and
// `name` (the path) if they are not a well-formed .npy file, are truncated or have trailing
// bytes, or do not hold `rank` dimensions of dtype `descr` ("<f4" or "<f8"). Any byte string
// either parses or throws that exception: nothing else (the fuzz target's property).
NpyArray parse_npy(const char* function, const std::string& name, const std::string& bytes,
                   const char* descr, int rank);

// Reads the whole file and parses it; also throws if the file cannot be read.
NpyArray read_npy(const char* function, const std::string& path, const char* descr, int rank);

// Writes a C-order array to path + ".tmp", then renames it to path: a failed write leaves no
// file behind and an existing file untouched. Throws unison::invalid_argument on failure.
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
