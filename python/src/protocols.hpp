// The protocols as_array takes an array through (arrays.hpp lists them in its order): each
// fills `a` from obj, refusing (naming fn) what a View cannot describe, or returns false where obj
// does not offer the protocol.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "arrays.hpp"
#include "dlpack.hpp"

namespace unison::python {

/// The name of obj's type, for messages.
std::string type_name(py::handle obj);

// What the protocols share (arrays.cpp).
/// The rank Unison's functions take at most (diffuse_history's planes x rows x columns).
constexpr int max_rank = 3;
/// Fills a's shape and strides (in elements) from a shape and byte or element strides;
/// refuses what a View cannot describe.
void set_layout(ArrayRef& a, const std::string& fn, int ndim, const std::int64_t* shape,
                const std::int64_t* strides, bool strides_in_bytes);
/// DLPack's data type as a Dtype; false for one Unison does not take.
bool dtype_from_dlpack(DLDataType t, Dtype& d);
/// NumPy's array-interface type strings ("<f4") and the buffer protocol's formats ("f", "<d").
bool dtype_from_typestr(std::string s, std::int64_t itemsize, Dtype& d);
/// The consumer's stream as DLPack and the CUDA Array Interface write it (1: the legacy default).
std::uintptr_t protocol_stream(const StreamRequest& s);

/// DLPack's __dlpack__, versioned where the producer has it.
bool from_dlpack(py::handle obj, const std::string& fn, ArrayRef& a, const StreamRequest& stream);
/// The CUDA Array Interface, version 3; the call's stream waits on the producer's.
bool from_cuda_array_interface(py::handle obj, const std::string& fn, ArrayRef& a,
                               const StreamRequest& stream);
/// The buffer protocol.
bool from_buffer(py::handle obj, const std::string& fn, ArrayRef& a);

}  // namespace unison::python
