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

}  // namespace unison::backends
