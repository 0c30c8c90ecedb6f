#pragma once
/// \file unison/backends/hip/memory.hpp
/// The HIP forms behind unison/backends/memory.hpp (which includes this file in HIP builds). AMD
/// GPUs take the portable forms for the other hints: plain stores for store_streaming and plain
/// copies for copy_to_scratch_async (unmeasured: no AMD GPU has run them, docs/tuning.md).

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_HIP
#include <hip/hip_runtime.h>

namespace unison::backends::hip {

/// ++*p, atomic among the threads of a work-group, where p points into the work-group's LDS
/// (team scratch): HIP's own atomicAdd, which the compiler turns into one LDS atomic where it
/// sees the address space (Kokkos::atomic_add is device-scoped). Device code only.
__device__ __forceinline__ void scratch_increment(unsigned int* p) { atomicAdd(p, 1u); }

}  // namespace unison::backends::hip
#endif  // KOKKOS_ENABLE_HIP
