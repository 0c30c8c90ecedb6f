#pragma once
/// \file unison/backends/memory.hpp
/// Memory access hints that only some backends have.

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// *p = v for data that will not be read again soon: on a CUDA GPU a streaming store
/// (st.global.cs, evict first), so that the arrays that will be read stay in L2 (the diffusion
/// keeps its two fields there while the Laplacian streams out). V is 4, 8 or 16 bytes of
/// floating-point data. Elsewhere a plain store.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(V* p, const V& v) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if constexpr (sizeof(V) == 16) {
    __stcs(reinterpret_cast<float4*>(p), *reinterpret_cast<const float4*>(&v));
  } else if constexpr (sizeof(V) == 8) {
    __stcs(reinterpret_cast<float2*>(p), *reinterpret_cast<const float2*>(&v));
  } else if constexpr (sizeof(V) == 4) {
    __stcs(reinterpret_cast<float*>(p), *reinterpret_cast<const float*>(&v));
  } else {
    *p = v;
  }
#else
  *p = v;
#endif
}

/// *dst = *src, where dst is in a GPU team's shared-memory scratch (level 0) and src in global
/// memory, started without waiting for it: on a CUDA GPU of compute capability 8.0 or more an
/// asynchronous copy (cp.async), which goes straight to shared memory without passing through
/// a register, so a thread can have all of its copies in flight at once (a load followed by a
/// store to scratch would wait for each load in turn). Finish with copy_scratch_wait() before the
/// barrier that makes the data visible to the team. T is 4, 8 or 16 bytes, naturally aligned.
/// Elsewhere (and for scratch that is not a GPU's shared memory) a plain copy.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void copy_to_scratch_async(T* dst, const T* src) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) {
    if (__isShared(dst)) {
      const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(shared), "l"(src),
                   "n"(int(sizeof(T)))
                   : "memory");
      return;
    }
  }
#endif
  *dst = *src;
}

/// Waits for this thread's copy_to_scratch_async copies.
KOKKOS_FORCEINLINE_FUNCTION void copy_scratch_wait() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace unison::backends
