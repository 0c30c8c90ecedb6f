#pragma once
// unison/detail/mpi/agreement.hpp: part of unison/mpi.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// Checks every rank agrees on: MPI's errors, one rank's refusal made every rank's, a call's
// scalar arguments compared across ranks, the block and the transport.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/backends/streams.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/matmul.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

template <class T>
MPI_Datatype datatype() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "unison::mpi: values must be float or double");
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else return MPI_DOUBLE;
}

/// Throws std::runtime_error naming fn and the MPI call when an MPI call failed (only reached
/// when the communicator's error handler returns errors instead of aborting).
void check_mpi(int code, const char* fn, const char* call);

/// The check of Decomposition objects that precedes any collective use: a communicator to agree on.
void check_decomposition(const unison::mpi::Decomposition& d, const char* fn);

/// Every rank runs check() (its own arguments' checks); then the ranks agree over comm: if a rank's
/// check threw unison::invalid_argument, or a value in `same` differs between ranks, every rank
/// throws. `same` holds (name, value) pairs that every rank must pass alike.
void agree_on(MPI_Comm comm, const char* fn, const std::string& local_error,
              const std::vector<std::pair<const char*, long long>>& same);

template <class Check>
void agree(MPI_Comm comm, const char* fn, Check&& check,
           const std::vector<std::pair<const char*, long long>>& same = {}) {
  std::string error;
  try {
    check();
  } catch (const unison::invalid_argument& e) {
    error = e.what();
    if (error.empty()) error = std::string(fn) + ": invalid argument";
  }
  agree_on(comm, fn, error, same);
}

/// A double's bits, for agreement on floating-point arguments (NaN and -0.0 included).
inline long long bits(double x) {
  long long b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// Whether buffers of exec's memory go to MPI as they are.
template <class Exec>
bool transport_is_direct(unison::mpi::Transport t) {
  if constexpr (!backends::asynchronous_v<Exec>) return true;
  else
    return t == unison::mpi::Transport::device ||
           (t == unison::mpi::Transport::automatic && unison::mpi::gpu_aware());
}

/// f has the extents of this rank's block of d.
template <class F>
void check_block(const char* fn, const unison::mpi::Decomposition& d, const F& f) {
  require(std::int64_t(f.extent(0)) == d.local_nx && std::int64_t(f.extent(1)) == d.local_ny, fn,
          "f is ", f.extent(0), "x", f.extent(1), ", expected this rank's block, ", d.local_nx, "x",
          d.local_ny);
}

template <class Exec>
void check_transport(const char* fn, unison::mpi::Transport t) {
  require(t == unison::mpi::Transport::automatic || t == unison::mpi::Transport::device ||
              t == unison::mpi::Transport::host,
          fn, "unknown transport ", int(t));
  if constexpr (backends::asynchronous_v<Exec>)
    require(t != unison::mpi::Transport::device || unison::mpi::gpu_aware(), fn,
            "Transport::device needs an MPI that takes GPU pointers, and this one does not say so "
            "(set UNISON_MPI_GPU_AWARE=1 if it does)");
}

}  // namespace unison::detail::mpi
