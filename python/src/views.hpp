// From ArrayRefs to the Kokkos Views and execution space instance of one call.
//
// A Call gathers a function's array arguments (all on one device), picks the backend (host
// memory: OpenMP, or Serial on request; CUDA memory: Cuda, on the call's stream) and runs the
// C++ function there with the GIL released. Host calls wait until the result is in memory;
// device calls are enqueued on the stream and return at once.
#pragma once

#include "arrays.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace unison::python {

/// The backends the module runs on, by the names backend= takes, whether or not this build has
/// them (unison.backends() lists those it has); Python's checks read this list
/// (_unison.choices["backend"]).
inline constexpr std::array<const char*, 3> known_backends{"openmp", "serial", "cuda"};

/// The backend a caller asks for: "" (by the arrays' memory), or one of known_backends.
struct CallOptions {
  std::string backend;
  StreamRequest stream;
};

#if defined(KOKKOS_ENABLE_CUDA)
/// The Kokkos::Cuda instance of a stream (made once per stream and kept until exit).
Kokkos::Cuda cuda_instance(std::uintptr_t stream);
#endif

/// Drops the cached instances (before Kokkos is finalised).
void release_instances();

/// Called in a child process forked after import (os.register_at_fork): OpenMP's threads did
/// not survive the fork, and neither did the CUDA context. From then on the host calls that
/// would run on OpenMP run on Serial (with one RuntimeWarning), and device calls are refused.
void after_fork_in_child();
bool in_forked_child();

/// The work (cell updates, samples) a long host call does between two checks for a pending
/// signal (Ctrl-C), and, with the GIL released, the check: raises the signal's exception
/// (KeyboardInterrupt) as a C++ exception carrying the Python error.
std::int64_t interrupt_work();
void set_interrupt_work(std::int64_t work);
void raise_pending_signal();

/// Host calls on the default backend whose largest array has fewer elements than this run on
/// Serial, one thread: no fork-join, no wait for a descheduled thread (unison.serial_below).
std::int64_t serial_below();
void set_serial_below(std::int64_t elements);

/// Unmanaged Views over an ArrayRef's memory.
template <class T, int Rank, class Space>
using ViewOf = Kokkos::View<
    typename std::conditional_t<Rank == 1, T*, std::conditional_t<Rank == 2, T**, T***>>,
    Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, int Rank, class Space>
ViewOf<T, Rank, Space> view_of(const ArrayRef& a) {
  static_assert(Rank >= 1 && Rank <= 3);
  Kokkos::LayoutStride layout;
  for (int i = 0; i < Rank; ++i) {
    layout.dimension[i] = static_cast<std::size_t>(a.shape[i]);
    layout.stride[i] = static_cast<std::size_t>(a.strides[i]);
  }
  using V = ViewOf<T, Rank, Space>;
  return V(static_cast<typename V::pointer_type>(a.data), layout);
}

/// The element type T of a Dtype, as a value of it: f(T{}).
template <class F>
decltype(auto) on_float(const std::string& fn, const ArrayRef& a, F&& f) {
  if (a.dtype == Dtype::float32) return f(float{});
  if (a.dtype == Dtype::float64) return f(double{});
  refuse_type(fn, a.describe() + ": expected float32 or float64");
}

template <int R>
using rank_c = std::integral_constant<int, R>;

class Call {
 public:
  Call(std::string fn, CallOptions options) : fn_(std::move(fn)), options_(std::move(options)) {}

  const std::string& fn() const { return fn_; }

  /// An array argument, refused unless on the device of the call's other arrays.
  const ArrayRef& array(py::handle obj, const std::string& name, Role role);
  /// The same, also refused unless its dtype is that of `like` (an array of the call taken
  /// before, whose name the message gives: the arrays of a call share one dtype).
  const ArrayRef& array(py::handle obj, const std::string& name, Role role, const ArrayRef& like);
  /// The same, also refused unless it has `rank` dimensions.
  const ArrayRef& array(py::handle obj, const std::string& name, Role role, const ArrayRef& like,
                        int rank);

  /// Refuses an array whose rank is not `rank`.
  void require_rank(const ArrayRef& a, int rank) const;
  void require_rank(const ArrayRef& a, int lo, int hi) const;

  /// Runs f(exec) on the call's backend: f(Kokkos::OpenMP), f(Kokkos::Serial), f(Kokkos::Cuda).
  /// The GIL is released around f; a host backend is fenced before returning.
  template <class F>
  void run(F&& f) {
    if (!Kokkos::is_initialized())
      throw std::runtime_error(fn_ + ": Kokkos has been finalised (unison.finalize())");
    const std::string backend = resolve_backend();
#if defined(KOKKOS_ENABLE_CUDA)
    if (backend == "cuda") {
      auto exec = cuda_instance(options_.stream.stream);
      py::gil_scoped_release nogil;
      f(exec);
      return;
    }
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    if (backend == "serial") {
      Kokkos::Serial exec;
      py::gil_scoped_release nogil;
      f(exec);
      exec.fence("unison.python: the call's result");
      return;
    }
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    if (backend == "openmp") {
      Kokkos::OpenMP exec;
      py::gil_scoped_release nogil;
      f(exec);
      exec.fence("unison.python: the call's result");
      return;
    }
#endif
    refuse(fn_, "backend '" + backend + "' is not in this build");
  }

  /// The device of the call's arrays (host when it has none).
  Device device() const { return device_ ? *device_ : Device{}; }

 private:
  std::string resolve_backend() const;
  std::string resolve_backend_in_parent() const;

  std::string fn_;
  CallOptions options_;
  std::optional<Device> device_;
  std::deque<ArrayRef> arrays_;  // kept alive (and their exporters) until the call ends
};

/// The Python-side options every function takes: backend= and stream=.
CallOptions call_options(const std::string& backend, py::object stream);

}  // namespace unison::python
