#pragma once
/// \file unison/backends/memory.hpp
/// Memory access hints that only some backends have.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#endif

// The CUDA forms (streaming stores).
#ifdef KOKKOS_ENABLE_CUDA
#include <unison/backends/cuda/memory.hpp>
#endif

namespace unison::backends {

/// The width of the host's vectors, which is also the widest non-temporal store this host
/// compiler may emit on x86 (64 bytes with AVX-512, 32 with AVX, 16 with SSE2; 16 on 64-bit ARM,
/// NEON), 0 where there are none. What a CPU kernel should give store_streaming at once.
#if defined(__AVX512F__)
inline constexpr int host_stream_bytes = 64;
#elif defined(__AVX__)
inline constexpr int host_stream_bytes = 32;
#elif defined(__SSE2__)
inline constexpr int host_stream_bytes = 16;
#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(__CUDA_ARCH__)
inline constexpr int host_stream_bytes = 16;
#else
inline constexpr int host_stream_bytes = 0;
#endif

/// *p = v for data that will not be read again soon, so that the arrays that will be read stay
/// in the caches (the diffusion keeps its two fields there while the Laplacian streams out).
/// V is floating-point data: on a GPU 4, 8 or a multiple of 16 bytes, on a CPU host_stream_bytes.
/// - CUDA GPU: streaming stores (st.global.cs, evict first) of 4, 8 or 16 bytes each, for V of
///   4, 8 or a multiple of 16 bytes.
/// - x86 CPU: a non-temporal store (past the caches, straight to memory) when V is 16, 32 or 64
///   bytes and the instruction set has it; p must then be aligned to sizeof(V). Such stores are
///   weakly ordered: a thread calls store_streaming_fence() before its work item ends.
/// - Otherwise (ARM CPUs among them) a plain store.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(V* p, const V& v) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  cuda::store_streaming(p, v);
#elif defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)
  if constexpr (sizeof(V) == 64 && host_stream_bytes >= 64) {
#if defined(__AVX512F__)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), _mm512_loadu_si512(&v));
#endif
  } else if constexpr (sizeof(V) == 32 && host_stream_bytes >= 32) {
#if defined(__AVX__)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&v)));
#endif
  } else if constexpr (sizeof(V) == 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(&v)));
  } else {
    *p = v;
  }
#else
  *p = v;
#endif
}

/// Host vectors of host_stream_bytes (GCC and Clang vector extensions), for CPU loops that must
/// work in vectors of that width: left to itself, GCC vectorizes at the target's preferred width
/// (256 bits on Intel AVX-512 CPUs), and a 64-byte non-temporal store of two 32-byte halves goes
/// through the stack (a store-forwarding stall per chunk, docs/tuning.md).
/// UNISON_BACKENDS_HOST_VECTORS is 1 where CPU kernels use them (host code of a GCC-compatible
/// compiler with host_stream_bytes > 0), else 0. The types exist in every compilation (16 bytes
/// where there are no host vectors, the device pass of a CUDA build among them), so that the CPU
/// kernels' code is parsed there too; they are then not used.
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__SSE2__) || defined(__AVX__) || defined(__AVX512F__) ||       \
     (defined(__aarch64__) && defined(__ARM_NEON)))
#define UNISON_BACKENDS_HOST_VECTORS 1
#else
#define UNISON_BACKENDS_HOST_VECTORS 0
#endif
/// UNISON_BACKENDS_HOST_VECTORS as a constant, for `if constexpr` in kernels.
inline constexpr bool host_vectors = UNISON_BACKENDS_HOST_VECTORS;
template <class T>
struct HostVector {
  typedef T type __attribute__((vector_size(host_stream_bytes > 0 ? host_stream_bytes : 16)));
};
/// host_stream_bytes / sizeof(T) consecutive values from p (any alignment).
template <class T>
inline typename HostVector<T>::type load_vector(const T* p) {
  typename HostVector<T>::type v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// Stores v at p (any alignment).
template <class T>
inline void store_vector(T* p, const typename HostVector<T>::type& v) {
  __builtin_memcpy(p, &v, sizeof v);
}
/// store_streaming of a vector at p, aligned to host_stream_bytes (on ARM a plain store).
template <class T>
inline void store_vector_streaming(T* p, const typename HostVector<T>::type& v) {
#if !UNISON_BACKENDS_HOST_VECTORS || defined(__aarch64__)
  __builtin_memcpy(p, &v, sizeof v);
#elif defined(__AVX512F__)
  _mm512_stream_si512(reinterpret_cast<__m512i*>(p), reinterpret_cast<const __m512i&>(v));
#elif defined(__AVX__)
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p), reinterpret_cast<const __m256i&>(v));
#else
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), reinterpret_cast<const __m128i&>(v));
#endif
}

/// Asks the operating system to back a new host allocation of `bytes` at p with huge pages where
/// it offers them on request (Linux's transparent huge pages in "madvise" mode): a temporary of
/// hundreds of megabytes is otherwise first touched in 4 KiB pages, one page fault each (NumPy
/// asks the same for its large arrays). Only the 2 MiB-aligned interior is advised; below 4 MiB
/// nothing. A hint: without it, or where it is refused, the memory is the same, only slower to
/// touch the first time.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (bytes < 2 * huge) return;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// How far ahead, in bytes, a CPU loop that reads arrays front to back asks for them with
/// prefetch_ahead. One core's hardware prefetchers do not keep enough lines in flight for a loop
/// with arithmetic between its loads: on one Sapphire Rapids core, y = gaussian_pdf(x) over 1e8
/// floats (libmvec's expf, non-temporal stores) reached 0.56 of memcpy's rate without software
/// prefetch, 0.78 with 1 KiB, 0.89 with 2 KiB, 0.94 with 4 and 8 KiB; a plain copy lost 0-8 %
/// (the probe tools/probes/cpu-one-core-probe.cpp at commit 8b34b4f; benchmarks/RESULTS.md).
inline constexpr std::uintptr_t host_prefetch_bytes = 4096;

/// Asks a CPU to bring the cache line host_prefetch_bytes past p into its L1 cache (x86:
/// prefetcht0); nothing on a GPU or without SSE. A hint: the address is formed as an integer and
/// may lie past the end of p's array (a prefetch never faults), so a loop calls it at every
/// step without a bound check.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_ahead(const T* p) {
#if !defined(__CUDA_ARCH__) && (defined(__SSE__) || defined(__AVX__) || defined(__AVX512F__))
  _mm_prefetch(
      reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + host_prefetch_bytes),
      _MM_HINT_T0);
#else
  (void)p;
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
#if !defined(__CUDA_ARCH__) && (defined(__SSE2__) || defined(__AVX__) || defined(__AVX512F__))
  _mm_sfence();
#endif
}

/// ++*p for a counter in team scratch, atomic among the threads of the team (a GPU's shared
/// memory: one shared-memory atomic instruction; elsewhere Kokkos::atomic_add).
KOKKOS_FORCEINLINE_FUNCTION void scratch_increment(std::uint32_t* p) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  static_assert(sizeof(unsigned int) == sizeof(std::uint32_t));
  cuda::scratch_increment(reinterpret_cast<unsigned int*>(p));
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
