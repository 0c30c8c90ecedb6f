#pragma once
/// \file unison/backends/cuda/streams.hpp
/// The CUDA runtime calls behind unison/backends/streams.hpp (which includes this file in CUDA
/// builds): a stream of the highest priority, and stream ordering by an event.

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>

namespace unison::backends {

template <class Exec>
class StreamOrder;

namespace cuda {

/// A new Kokkos::Cuda instance on a stream of the device's highest priority, owned by the
/// instance, on exec's device.
inline Kokkos::Cuda priority_instance(const Kokkos::Cuda& exec) {
  const auto check = [](cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("unison::backends::side_instance: ") + what + ": " +
                               cudaGetErrorString(e));
  };
  int current = 0, least = 0, greatest = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  check(cudaSetDevice(exec.cuda_device()), "cudaSetDevice");
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest),
        "cudaStreamCreateWithPriority");
  check(cudaSetDevice(current), "cudaSetDevice");
  return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::yes);
}

}  // namespace cuda

template <>
class StreamOrder<Kokkos::Cuda> {
 public:
  StreamOrder() { check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "create"); }
  ~StreamOrder() { cudaEventDestroy(event_); }
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;
  void after(const Kokkos::Cuda& waiter, const Kokkos::Cuda& waited) {
    if (waiter.cuda_stream() == waited.cuda_stream()) return;
    check(cudaEventRecord(event_, waited.cuda_stream()), "record");
    check(cudaStreamWaitEvent(waiter.cuda_stream(), event_, 0), "wait for");
  }
  void record(const Kokkos::Cuda& waited) {
    check(cudaEventRecord(event_, waited.cuda_stream()), "record");
  }
  void wait(const Kokkos::Cuda& waiter) {
    check(cudaStreamWaitEvent(waiter.cuda_stream(), event_, 0), "wait for");
  }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("unison::backends::StreamOrder: could not ") + what +
                               " a CUDA event: " + cudaGetErrorString(e));
  }
  cudaEvent_t event_ = nullptr;
};

}  // namespace unison::backends
#endif  // KOKKOS_ENABLE_CUDA
