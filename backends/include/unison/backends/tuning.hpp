#pragma once
/// \file unison/backends/tuning.hpp
/// Launch parameters that differ between backends, in one place. The algorithms read them;
/// none is written twice.

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// Element-wise kernels: how many elements one work item handles. A GPU thread that loads one
/// 4-byte element at a time keeps too few bytes in flight to saturate HBM; with `unroll`
/// elements (a warp reading `unroll` coalesced 128-byte lines) it issues all its loads before
/// the first store. CPU threads already stream through contiguous chunks: 1.
template <class Exec>
struct ElementwiseTuning {
  static constexpr int unroll = 1;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct ElementwiseTuning<Kokkos::Cuda> {
  static constexpr int unroll = 4;
};
#endif

}  // namespace unison::backends
