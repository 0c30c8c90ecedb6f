#include "arrays.hpp"
#include "protocols.hpp"

#include "dlpack.hpp"

#include <Kokkos_Macros.hpp>
#include "dlpack.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace unison::python {

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::float32:
      return "float32";
    case Dtype::float64:
      return "float64";
    case Dtype::int8:
      return "int8";
    case Dtype::int16:
      return "int16";
    case Dtype::int32:
      return "int32";
    case Dtype::int64:
      return "int64";
    case Dtype::uint8:
      return "uint8";
    case Dtype::uint16:
      return "uint16";
    case Dtype::uint32:
      return "uint32";
    case Dtype::uint64:
      return "uint64";
  }
  return "?";
}

int dtype_size(Dtype d) {
  switch (d) {
    case Dtype::int8:
    case Dtype::uint8:
      return 1;
    case Dtype::int16:
    case Dtype::uint16:
      return 2;
    case Dtype::float32:
    case Dtype::int32:
    case Dtype::uint32:
      return 4;
    default:
      return 8;
  }
}

std::string device_name(const Device& d) {
  return d.kind == Device::host ? std::string("host") : "cuda:" + std::to_string(d.id);
}

std::int64_t ArrayRef::size() const {
  std::int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

namespace {
std::string tuple_of(const std::array<std::int64_t, 4>& v, int n) {
  std::ostringstream s;
  s << '(';
  for (int i = 0; i < n; ++i) s << (i ? ", " : "") << v[i];
  s << (n == 1 ? ",)" : ")");
  return s.str();
}
}  // namespace

std::string ArrayRef::describe() const {
  std::ostringstream s;
  s << name << " (" << dtype_name(dtype) << ", shape " << tuple_of(shape, ndim) << ", strides "
    << tuple_of(strides, ndim) << " elements, " << device_name(device)
    << (readonly ? ", read-only" : "") << ")";
  return s.str();
}

void refuse(const std::string& fn, const std::string& message) {
  throw py::value_error(fn + ": " + message);
}

void refuse_type(const std::string& fn, const std::string& message) {
  throw py::type_error(fn + ": " + message);
}

// Fills shape and strides (in elements) from a shape and byte or element strides; refuses
// what a View cannot describe.
void set_layout(ArrayRef& a, const std::string& fn, int ndim, const std::int64_t* shape,
                const std::int64_t* strides, bool strides_in_bytes) {
  if (ndim > max_rank)
    refuse(fn, a.name + " has " + std::to_string(ndim) + " dimensions; Unison takes at most " +
                   std::to_string(max_rank));
  a.ndim = ndim;
  const std::int64_t item = dtype_size(a.dtype);
  std::int64_t compact = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    a.shape[i] = shape[i];
    if (shape[i] < 0) refuse(fn, a.name + " has a negative extent");
    if (!strides) {
      a.strides[i] = compact;
    } else if (strides_in_bytes) {
      if (strides[i] % item != 0) {
        a.strides[i] = 0;
        refuse(fn, a.describe() + ": a stride of " + std::to_string(strides[i]) +
                       " bytes is not a whole number of elements");
      }
      a.strides[i] = strides[i] / item;
    } else {
      a.strides[i] = strides[i];
    }
    compact *= shape[i];
  }
  // A dimension of extent 0 or 1 is never stepped over: its stride does not matter.
  for (int i = 0; i < ndim; ++i)
    if (a.shape[i] <= 1 && a.strides[i] < 0) a.strides[i] = 0;
  for (int i = 0; i < ndim; ++i)
    if (a.strides[i] < 0)
      refuse(fn,
             a.describe() + ": negative strides are not supported (a reversed view); pass a copy");
  // The bytes from the first element to the last must be a number (an empty array spans none):
  // a producer that writes a negative stride as an unsigned one (CuPy's DLPack export of a
  // reversed view, before its fix) gives a stride near 2^62 that wraps back to the right
  // addresses in 64-bit arithmetic; it is refused here as the negative stride it is.
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  bool empty = false;
  for (int i = 0; i < ndim; ++i) empty = empty || a.shape[i] == 0;
  std::int64_t span = 0;
  for (int i = 0; i < ndim && !empty; ++i) {
    const std::int64_t steps = a.shape[i] - 1, stride = a.strides[i];
    if (stride != 0 && (steps > most / stride || steps * stride > (most - span) / item))
      refuse(fn, a.describe() +
                     ": its strides span more bytes than a 64-bit address (negative strides "
                     "written as unsigned numbers? negative strides are not supported; pass a "
                     "copy)");
    span += steps * stride * item;
  }
  if (reinterpret_cast<std::uintptr_t>(a.data) % item != 0)
    refuse(fn, a.describe() + ": the data pointer is not aligned to its element size");
}

bool dtype_from_dlpack(DLDataType t, Dtype& d) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat && t.bits == 32) return d = Dtype::float32, true;
  if (t.code == kDLFloat && t.bits == 64) return d = Dtype::float64, true;
  if (t.code == kDLInt && t.bits == 8) return d = Dtype::int8, true;
  if (t.code == kDLInt && t.bits == 16) return d = Dtype::int16, true;
  if (t.code == kDLInt && t.bits == 32) return d = Dtype::int32, true;
  if (t.code == kDLInt && t.bits == 64) return d = Dtype::int64, true;
  if (t.code == kDLUInt && t.bits == 8) return d = Dtype::uint8, true;
  if (t.code == kDLUInt && t.bits == 16) return d = Dtype::uint16, true;
  if (t.code == kDLUInt && t.bits == 32) return d = Dtype::uint32, true;
  if (t.code == kDLUInt && t.bits == 64) return d = Dtype::uint64, true;
  return false;
}

// NumPy's array-interface type strings ("<f4") and the buffer protocol's formats ("f", "<d").
bool dtype_from_typestr(std::string s, std::int64_t itemsize, Dtype& d) {
  if (s.empty()) return false;
  char order = s[0];
  if (order == '<' || order == '=' || order == '@' || order == '|') s.erase(0, 1);
  else if (order == '>' || order == '!') return false;  // big-endian
  if (s.size() >= 2) {                                  // array interface: kind and bytes
    const char kind = s[0];
    const int bytes = std::atoi(s.c_str() + 1);
    if (kind == 'f' && bytes == 4) return d = Dtype::float32, true;
    if (kind == 'f' && bytes == 8) return d = Dtype::float64, true;
    if (kind == 'i' && bytes == 1) return d = Dtype::int8, true;
    if (kind == 'i' && bytes == 2) return d = Dtype::int16, true;
    if (kind == 'i' && bytes == 4) return d = Dtype::int32, true;
    if (kind == 'i' && bytes == 8) return d = Dtype::int64, true;
    if (kind == 'u' && bytes == 1) return d = Dtype::uint8, true;
    if (kind == 'u' && bytes == 2) return d = Dtype::uint16, true;
    if (kind == 'u' && bytes == 4) return d = Dtype::uint32, true;
    if (kind == 'u' && bytes == 8) return d = Dtype::uint64, true;
    return false;
  }
  // struct-module format characters; the item size decides between C's integer widths
  const char c = s[0];
  const bool is_signed = c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n';
  const bool is_unsigned = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N';
  if (c == 'f' && itemsize == 4) return d = Dtype::float32, true;
  if (c == 'd' && itemsize == 8) return d = Dtype::float64, true;
  if (is_signed || is_unsigned) {
    switch (itemsize) {
      case 1:
        return d = is_signed ? Dtype::int8 : Dtype::uint8, true;
      case 2:
        return d = is_signed ? Dtype::int16 : Dtype::uint16, true;
      case 4:
        return d = is_signed ? Dtype::int32 : Dtype::uint32, true;
      case 8:
        return d = is_signed ? Dtype::int64 : Dtype::uint64, true;
      default:
        return false;
    }
  }
  return false;
}

// The consumer's stream as DLPack and the CUDA Array Interface write it: 1 is the legacy default
// stream (0 is not allowed).
std::uintptr_t protocol_stream(const StreamRequest& s) { return s.stream == 0 ? 1 : s.stream; }

bool is_array(py::handle obj) {
  return py::hasattr(obj, "__dlpack__") || py::hasattr(obj, "__cuda_array_interface__") ||
         PyObject_CheckBuffer(obj.ptr());
}

ArrayRef as_array(py::handle obj, const std::string& fn, const std::string& name, Role role,
                  const StreamRequest& stream) {
  ArrayRef a;
  a.name = name;
  if (!from_dlpack(obj, fn, a, stream) && !from_cuda_array_interface(obj, fn, a, stream) &&
      !from_buffer(obj, fn, a))
    refuse_type(fn, name + " is a " + type_name(obj) +
                        ", not an array (DLPack, the CUDA Array Interface or the buffer "
                        "protocol)");
  if (role == Role::output && a.readonly)
    refuse(fn, a.describe() + " is read-only and cannot be an output");
  return a;
}

}  // namespace unison::python
