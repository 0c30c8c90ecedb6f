// Python arrays as Kokkos Views, without a copy.
//
// An argument is taken through the first protocol it offers, in this order:
//   1. DLPack: __dlpack__(stream=..., max_version=(1, 0)), a versioned capsule; producers that
//      predate the versioned form (NumPy before 2.1, for one) get the call without max_version
//      and hand an unversioned capsule. A producer that refuses (NumPy for a read-only array)
//      leads to the next protocol.
//   2. The CUDA Array Interface, version 3 (Numba's device arrays): the call's stream waits on
//      the producer's stream, where it names one.
//   3. The buffer protocol (NumPy arrays, memoryview, array.array, bytes).
// The memory is described as an ArrayRef (data, shape, strides in elements, dtype, device,
// read-only); views.hpp turns it into an unmanaged Kokkos View. Nothing is copied or converted:
// an array that does not fit (dtype, rank, a negative or fractional stride, a misaligned
// pointer, a device the build has no backend for, a read-only output) is refused with a
// ValueError or TypeError that names the argument and describes the array.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace unison::python {

namespace py = pybind11;

/// The element types an array may hold.
enum class Dtype { float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 };

const char* dtype_name(Dtype d);
int dtype_size(Dtype d);

/// Where an array's memory is: the host, or one CUDA device (its ordinal).
struct Device {
  enum Kind { host, cuda } kind = host;
  int id = 0;
  bool operator==(const Device& o) const { return kind == o.kind && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

std::string device_name(const Device& d);

/// An array's memory as Unison sees it. Strides are in elements (never negative). `keep` holds
/// what must stay alive while the memory is used (the DLPack capsule's owner, the buffer).
struct ArrayRef {
  std::string name;  // the argument's name, for messages
  void* data = nullptr;
  int ndim = 0;
  std::array<std::int64_t, 4> shape{};
  std::array<std::int64_t, 4> strides{};
  Dtype dtype = Dtype::float32;
  Device device;
  bool readonly = false;
  const char* protocol = "";  // "DLPack 1.0", "DLPack (unversioned)", ...
  std::shared_ptr<void> keep;

  std::int64_t size() const;
  /// "x (float32, shape (3, 4), strides (4, 1) elements, host)"
  std::string describe() const;
};

/// What the call needs of an argument.
enum class Role { input, output };

/// The stream (a cudaStream_t, as an integer) that device work of the call is enqueued on, or
/// 0: DLPack producers and CUDA Array Interface streams are synchronised with it.
struct StreamRequest {
  std::uintptr_t stream = 0;
  bool given = false;  // the caller chose it (or it is the array library's current stream)
};

/// True when obj offers one of the three protocols (a Python scalar does not).
bool is_array(py::handle obj);

/// obj as an ArrayRef, or a ValueError / TypeError naming `fn` and `name`.
ArrayRef as_array(py::handle obj, const std::string& fn, const std::string& name, Role role,
                  const StreamRequest& stream);

/// Raise ValueError("fn: message").
[[noreturn]] void refuse(const std::string& fn, const std::string& message);
/// Raise TypeError("fn: message").
[[noreturn]] void refuse_type(const std::string& fn, const std::string& message);

}  // namespace unison::python
