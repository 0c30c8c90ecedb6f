#pragma once
/// \file unison/backends/memory.hpp
/// Memory access hints that only some backends have: the interface the algorithms call, each
/// backend's form in its folder (host/memory.hpp, cuda/memory.hpp).

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

// The CPU forms (non-temporal stores, prefetches, the host vectors), the CUDA forms (streaming
// stores, shared-memory atomics and asynchronous copies) and the HIP forms (shared-memory
// atomics). Which pass of a GPU build is compiling: unison/backends/pass.hpp.
#include <unison/backends/host/memory.hpp>
#include <unison/backends/pass.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <unison/backends/cuda/memory.hpp>
#endif
#ifdef KOKKOS_ENABLE_HIP
#include <unison/backends/hip/memory.hpp>
#endif

namespace unison::backends {

/// *p = v for data that will not be read again soon, so that the arrays that will be read stay
/// in the caches (the diffusion keeps its two fields there while the Laplacian streams out).
/// V is floating-point data: on a GPU 4, 8 or a multiple of 16 bytes, on a CPU host_stream_bytes.
/// - CUDA GPU: streaming stores (st.global.cs, evict first) of 4, 8 or 16 bytes each, for V of
///   4, 8 or a multiple of 16 bytes.
/// - AMD GPU (HIP): a plain store (no form of its own yet: unmeasured).
/// - x86 CPU: a non-temporal store (past the caches, straight to memory) when V is 16, 32 or 64
///   bytes and the instruction set has it; p must then be aligned to sizeof(V). Such stores are
///   weakly ordered: a thread calls store_streaming_fence() before its work item ends.
/// - Otherwise (ARM CPUs among them) a plain store.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(V* p, const V& v) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  cuda::store_streaming(p, v);
#elif UNISON_BACKENDS_DEVICE_PASS
  *p = v;
#else
  host::store_streaming(p, v);
#endif
}

/// How far ahead, in bytes, a CPU loop that reads arrays front to back asks for them with
/// prefetch_ahead. One core's hardware prefetchers do not keep enough lines in flight for a loop
/// with arithmetic between its loads; 4 KiB ahead measured best on one core of a recent Xeon
/// (docs/tuning.md has the figures).
inline constexpr std::uintptr_t host_prefetch_bytes = 4096;

/// Asks a CPU to bring the cache line host_prefetch_bytes past p into its L1 cache (x86:
/// prefetcht0); nothing on a GPU or without SSE. A hint: the address is formed as an integer and
/// may lie past the end of p's array (a prefetch never faults), so a loop calls it at every
/// step without a bound check.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_ahead(const T* p) {
#if UNISON_BACKENDS_DEVICE_PASS
  (void)p;
#else
  host::prefetch(
      reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + host_prefetch_bytes));
#endif
}

/// prefetch_ahead for each 64-byte line of [p, p + bytes): for a loop step that reads `bytes`
/// from p onwards.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_ahead(const T* p, std::size_t bytes) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  for (std::uintptr_t b = 0; b < bytes; b += 64)
    prefetch_ahead(reinterpret_cast<const char*>(at + b));
}

/// Orders this thread's store_streaming stores before its later stores (x86 CPUs: sfence), so
/// that whoever synchronizes with the thread afterwards sees them. Nothing elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void store_streaming_fence() {
#if !UNISON_BACKENDS_DEVICE_PASS
  host::store_streaming_fence();
#endif
}

/// ++*p for a counter in team scratch, atomic among the threads of the team (a GPU's shared
/// memory: one shared-memory atomic instruction, CUDA's or HIP's atomicAdd; elsewhere
/// Kokkos::atomic_add).
KOKKOS_FORCEINLINE_FUNCTION void scratch_increment(std::uint32_t* p) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  static_assert(sizeof(unsigned int) == sizeof(std::uint32_t));
  cuda::scratch_increment(reinterpret_cast<unsigned int*>(p));
#elif defined(KOKKOS_ENABLE_HIP) && defined(__HIP_DEVICE_COMPILE__)
  static_assert(sizeof(unsigned int) == sizeof(std::uint32_t));
  hip::scratch_increment(reinterpret_cast<unsigned int*>(p));
#else
  Kokkos::atomic_add(p, std::uint32_t(1));
#endif
}

/// *dst = *src, where dst is in a GPU team's shared-memory scratch (level 0) and src in global
/// memory, started without waiting for it: on a CUDA GPU of compute capability 8.0 or more an
/// asynchronous copy (cp.async), which goes straight to shared memory without passing through
/// a register, so a thread can have all of its copies in flight at once (a load followed by a
/// store to scratch would wait for each load in turn). Finish with copy_scratch_wait() before the
/// barrier that makes the data visible to the team. T is 4, 8 or 16 bytes, naturally aligned.
/// Elsewhere (AMD GPUs, where Unison has no asynchronous form; CPUs; scratch that is not a GPU's
/// shared memory) a plain copy.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void copy_to_scratch_async(T* dst, const T* src) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  cuda::copy_to_scratch_async(dst, src);
#else
  *dst = *src;
#endif
}

/// Waits for this thread's copy_to_scratch_async copies.
KOKKOS_FORCEINLINE_FUNCTION void copy_scratch_wait() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  cuda::copy_scratch_wait();
#endif
}

}  // namespace unison::backends
