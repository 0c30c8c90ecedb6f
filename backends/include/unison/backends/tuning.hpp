#pragma once
/// \file unison/backends/tuning.hpp
/// Launch parameters that differ between backends, in one place. The algorithms read them;
/// none is written twice.

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// Element-wise kernels: a work item handles `unroll` chunks of `vector` consecutive elements.
/// A GPU thread that loads one 4-byte element at a time keeps too few bytes in flight to
/// saturate HBM (measured on an H200: 1.7 of 4.2 TB/s); chunks of 4 floats are one 16-byte load
/// each, and with unroll > 1 all loads of a thread are issued before its first store. Arrays that
/// are strided or misaligned take one element at a time, vector * unroll per work item. CPU
/// threads already stream through contiguous ranges: 1 and 1.
template <class Exec>
struct ElementwiseTuning {
  static constexpr int vector = 1;
  static constexpr int unroll = 1;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct ElementwiseTuning<Kokkos::Cuda> {
  static constexpr int vector = 4;
  static constexpr int unroll = 1;
};
#endif

}  // namespace unison::backends
