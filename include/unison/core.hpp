#pragma once
/// \file unison/core.hpp
/// What every Unison function shares: the exception it throws for bad input, the version, and
/// the contract about blocking.
///
/// Contract, for every function of the library:
///  - The execution space instance comes first; the work is enqueued on it and the call returns
///    without waiting (no global fence inside the library). The caller fences `exec` before
///    reading results on the host. A function that delivers its result in host memory says so
///    and waits for that result on `exec` only.
///  - Inputs are checked on the host before anything is launched: a bad input throws
///    unison::invalid_argument, whose message names the function and the offending extents, and
///    no output has been written.
///  - Every kernel and every allocation is labelled "unison::<family>::<kernel>", and every call
///    opens a Kokkos Tools region "unison::<function>" around its kernels.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <unison/config.hpp>

namespace unison {

/// \defgroup core Errors, version and temporary memory
/// \{

/// The seed Unison's defaults use, the tutorials' (jagged_field's, and the Python module's
/// monte_carlo_pi's).
inline constexpr std::uint64_t default_seed = 3966789;

/// The one exception type that Unison throws for bad input (mismatched extents, unsupported
/// layouts, aliasing outputs, out-of-range options). what() starts with the function's name,
/// e.g. "unison::add: y is 7, expected 8 (the extent of out)".
class invalid_argument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// What Unison throws when the operating system fails or refuses an operation on a file that a
/// function was given: it cannot be opened, read, written or renamed, or it is a directory. A
/// unison::invalid_argument too, so one handler catches both; what() starts with the function's
/// name, names the path and ends with the system's reason, e.g. "unison::read_npy: data/f.npy:
/// cannot open the file: No such file or directory".
class io_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// The library's version, "MAJOR.MINOR.PATCH".
///
/// \return "MAJOR.MINOR.PATCH".
std::string version();

/// Frees the temporary memory that Unison keeps between calls. The forms of its functions that
/// need memory of their own (matmul_reduce without a workspace, diffuse without a buffer,
/// jagged_field, ...) take it from a pool kept per execution space instance: one buffer an
/// instance and purpose, allocated by the first call that needs it (or a call that needs more),
/// reused by the calls after it on the same instance, so that those calls are as asynchronous as
/// the forms with the caller's memory and allocate nothing. The pool holds at most 16 buffers an
/// execution space type (the least recently used one goes first) and a copy of each instance
/// that took one, so that no new instance can be mistaken for it: a program that destroys a CUDA
/// stream it gave to a Kokkos::Cuda instance calls this first. This waits for the work of every
/// instance (as freeing memory does in Kokkos), then frees the buffers and the copies; a buffer
/// that a call on another host thread is using at that moment stays. Kokkos::finalize calls it.
void release_temporary_memory();

/// The bytes of temporary memory that Unison holds now, in every memory space together.
///
/// \return the bytes held.
std::size_t temporary_memory_bytes();

/// \}

}  // namespace unison
