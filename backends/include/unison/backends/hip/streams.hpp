#pragma once
/// \file unison/backends/hip/streams.hpp
/// The HIP runtime calls behind unison/backends/streams.hpp (which includes this file in HIP
/// builds): a stream of the highest priority, and stream ordering by an event. The same calls as
/// CUDA's (unison/backends/cuda/streams.hpp) under HIP's names; compiled, never run here (no AMD
/// GPU).

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_HIP
#include <hip/hip_runtime_api.h>

namespace unison::backends {

template <class Exec>
class StreamOrder;

namespace hip {

/// A new Kokkos::HIP instance on a stream of the device's highest priority, owned by the
/// instance, on exec's device.
inline Kokkos::HIP priority_instance(const Kokkos::HIP& exec) {
  const auto check = [](hipError_t e, const char* what) {
    if (e != hipSuccess)
      throw std::runtime_error(std::string("unison::backends::side_instance: ") + what + ": " +
                               hipGetErrorString(e));
  };
  int current = 0, least = 0, greatest = 0;
  check(hipGetDevice(&current), "hipGetDevice");
  check(hipSetDevice(exec.hip_device()), "hipSetDevice");
  check(hipDeviceGetStreamPriorityRange(&least, &greatest), "hipDeviceGetStreamPriorityRange");
  hipStream_t stream = nullptr;
  check(hipStreamCreateWithPriority(&stream, hipStreamNonBlocking, greatest),
        "hipStreamCreateWithPriority");
  check(hipSetDevice(current), "hipSetDevice");
  return Kokkos::HIP(stream, Kokkos::Impl::ManageStream::yes);
}

}  // namespace hip

template <>
class StreamOrder<Kokkos::HIP> {
 public:
  StreamOrder() { check(hipEventCreateWithFlags(&event_, hipEventDisableTiming), "create"); }
  ~StreamOrder() { (void)hipEventDestroy(event_); }
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;
  void after(const Kokkos::HIP& waiter, const Kokkos::HIP& waited) {
    if (waiter.hip_stream() == waited.hip_stream()) return;
    check(hipEventRecord(event_, waited.hip_stream()), "record");
    check(hipStreamWaitEvent(waiter.hip_stream(), event_, 0), "wait for");
  }
  void record(const Kokkos::HIP& waited) {
    check(hipEventRecord(event_, waited.hip_stream()), "record");
  }
  void wait(const Kokkos::HIP& waiter) {
    check(hipStreamWaitEvent(waiter.hip_stream(), event_, 0), "wait for");
  }

 private:
  static void check(hipError_t e, const char* what) {
    if (e != hipSuccess)
      throw std::runtime_error(std::string("unison::backends::StreamOrder: could not ") + what +
                               " a HIP event: " + hipGetErrorString(e));
  }
  hipEvent_t event_ = nullptr;
};

}  // namespace unison::backends
#endif  // KOKKOS_ENABLE_HIP
