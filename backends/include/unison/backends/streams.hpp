#pragma once
/// \file unison/backends/streams.hpp
/// Two instances of one execution space whose work can overlap, and ordering between them
/// without stopping the host where the backend allows: what overlapping communication with
/// computation needs (unison::mpi::diffuse's halo exchange).

#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

// Each backend's own forms, which call into its runtime (a priority stream, events).
#ifdef KOKKOS_ENABLE_CUDA
#include <unison/backends/cuda/streams.hpp>
#endif
#ifdef KOKKOS_ENABLE_HIP
#include <unison/backends/hip/streams.hpp>
#endif

namespace unison::backends {

/// Whether Exec's kernels may still run when the call that enqueued them returns (a GPU
/// stream). On the host backends a kernel has finished when its parallel_for returns.
template <class Exec>
inline constexpr bool asynchronous_v =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

/// An instance of exec's execution space for short work that should overlap with exec's long
/// kernels (a halo exchange beside an interior update): on Cuda a new stream of the highest
/// priority, owned by the returned instance, so that its kernels start as soon as an SM frees
/// up instead of after every block of the kernel already running (with equal priorities the
/// halo's packing waited for the interior update to be nearly done: overlap cost more than it
/// hid); on HIP the same (a stream of HIP's highest priority); on other GPU backends a new
/// instance; exec itself on the host backends, whose kernels
/// occupy the calling thread anyway.
template <class Exec>
Exec side_instance(const Exec& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return cuda::priority_instance(exec);
#endif
#ifdef KOKKOS_ENABLE_HIP
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) return hip::priority_instance(exec);
#endif
  if constexpr (asynchronous_v<Exec>) return Kokkos::Experimental::partition_space(exec, 1)[0];
  else return exec;
}

/// Orders one instance after another: after(waiter, waited) makes the work enqueued on
/// `waiter` from now on start only once all the work enqueued on `waited` so far is done. On Cuda
/// and HIP an event recorded on waited's stream that waiter's stream waits for (the host does not
/// wait); elsewhere waited.fence(). One object serves any number of calls (one event).
/// record(waited) and, later, wait(waiter) split after() in two: waiter's work enqueued after
/// wait() starts once the work enqueued on `waited` before record() is done (the last record()
/// counts).
template <class Exec>
class StreamOrder {
 public:
  StreamOrder() = default;
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;
  void after(const Exec& waiter, const Exec& waited) {
    (void)waiter;
    waited.fence("unison::backends::StreamOrder");
  }
  void record(const Exec& waited) { waited.fence("unison::backends::StreamOrder"); }
  void wait(const Exec&) {}
};

}  // namespace unison::backends
