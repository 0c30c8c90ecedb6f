#pragma once
/// \file unison/backends/cuda/memory.hpp
/// The CUDA forms behind unison/backends/memory.hpp (which includes this file in CUDA builds).

#include <cstddef>

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_CUDA

namespace unison::backends::cuda {

/// *p = v by streaming stores (st.global.cs, evict first) of 4, 8 or 16 bytes each, for V of 4,
/// 8 or a multiple of 16 bytes; a plain store otherwise. Device code only.
template <class V>
__device__ __forceinline__ void store_streaming(V* p, const V& v) {
  if constexpr (sizeof(V) % 16 == 0) {  // 16 bytes at a time
    for (std::size_t b = 0; b < sizeof(V) / 16; ++b)
      __stcs(reinterpret_cast<float4*>(p) + b, reinterpret_cast<const float4*>(&v)[b]);
  } else if constexpr (sizeof(V) == 8) {
    __stcs(reinterpret_cast<float2*>(p), *reinterpret_cast<const float2*>(&v));
  } else if constexpr (sizeof(V) == 4) {
    __stcs(reinterpret_cast<float*>(p), *reinterpret_cast<const float*>(&v));
  } else {
    *p = v;
  }
}

/// ++*p, atomic among the threads of a block, where p points into the block's shared memory
/// (team scratch): CUDA's own atomicAdd, whose shared-memory address the compiler sees, so that it
/// becomes one shared-memory atomic (ATOMS) on a 32-bit address. (Kokkos::atomic_add reaches
/// the same memory by inline assembly on a generic 64-bit address, device-scoped.) Device code
/// only.
__device__ __forceinline__ void scratch_increment(unsigned int* p) { atomicAdd(p, 1u); }

/// *dst = *src started without waiting, where dst is in the block's shared memory and src in
/// global memory: an asynchronous copy (cp.async, compute capability 8.0 or more) for T of 4, 8
/// or 16 bytes, naturally aligned; a plain copy otherwise. Device code only.
template <class T>
__device__ __forceinline__ void copy_to_scratch_async(T* dst, const T* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
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

/// Waits for this thread's copy_to_scratch_async copies. Device code only.
__device__ __forceinline__ void copy_scratch_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace unison::backends::cuda
#endif  // KOKKOS_ENABLE_CUDA
