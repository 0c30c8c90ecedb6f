#pragma once
/// \file unison/backends/host/memory.hpp
/// The CPU forms behind unison/backends/memory.hpp (which includes this file): the width of the
/// host's vectors, the host vectors themselves, non-temporal stores, prefetches and huge pages.
/// The x86 intrinsics of these hints are in this file; on other CPUs (64-bit ARM among them) each
/// hint is a plain store or nothing. In a GPU build's device pass (unison/backends/pass.hpp) the
/// hints are plain stores or nothing, and the host vector functions refuse to be instantiated.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/pass.hpp>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SSE2__) && !UNISON_BACKENDS_DEVICE_PASS
#include <immintrin.h>
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
#elif defined(__aarch64__) && defined(__ARM_NEON) && !UNISON_BACKENDS_DEVICE_PASS
inline constexpr int host_stream_bytes = 16;
#else
inline constexpr int host_stream_bytes = 0;
#endif

/// Host vectors of host_stream_bytes (GCC and Clang vector extensions), for CPU loops that must
/// work in vectors of that width: left to itself, GCC vectorizes at the target's preferred width
/// (256 bits on Intel AVX-512 CPUs), and a 64-byte non-temporal store of two 32-byte halves goes
/// through the stack (a store-forwarding stall per chunk, docs/tuning.md).
/// UNISON_BACKENDS_HOST_VECTORS is 1 where CPU kernels use them (host code of a GCC-compatible
/// compiler with host_stream_bytes > 0, never in a device pass), else 0. The types exist in every
/// compilation (16 bytes where there are no host vectors), so that the CPU kernels' code is
/// parsed everywhere; kernels use them only under `if constexpr (host_vectors)` (or has_pack_v),
/// and the functions on them refuse a device pass (below).
#if !UNISON_BACKENDS_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__SSE2__) || defined(__AVX__) || defined(__AVX512F__) ||            \
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

/// The host vector functions (those below, the packs' in host/vectors.hpp and the portable
/// instruction set's in host/isa/portable.hpp) begin with UNISON_BACKENDS_HOST_PASS_ONLY(T): in a
/// GPU build's device pass, instantiating one stops the compilation with this message. A
/// kernel's CPU vector path is then never compiled for a GPU, whatever the compiler defines in
/// its device pass (the test compile_fail.host_vectors_in_device_pass shows the message).
template <class T>
inline constexpr bool host_pass_v = !(UNISON_BACKENDS_DEVICE_PASS && sizeof(T) > 0);
#define UNISON_BACKENDS_HOST_PASS_ONLY(T)                                                   \
  static_assert(::unison::backends::host_pass_v<T>,                                         \
                "unison::backends: a host vector path is compiled into a device pass (GPU " \
                "code): guard it with `if constexpr (unison::backends::host_vectors)` or "  \
                "has_pack_v")

/// host_stream_bytes / sizeof(T) consecutive values from p (any alignment).
template <class T>
inline typename HostVector<T>::type load_vector(const T* p) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  typename HostVector<T>::type v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// Stores v at p (any alignment).
template <class T>
inline void store_vector(T* p, const typename HostVector<T>::type& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
  __builtin_memcpy(p, &v, sizeof v);
}
/// store_streaming of a vector at p, aligned to host_stream_bytes (on ARM a plain store).
template <class T>
inline void store_vector_streaming(T* p, const typename HostVector<T>::type& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(T);
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

namespace host {

/// store_streaming's CPU form: a non-temporal store where V is 16, 32 or 64 bytes and the
/// instruction set has one of that width (p aligned to sizeof(V)), a plain store otherwise.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(V* p, const V& v) {
#if !UNISON_BACKENDS_DEVICE_PASS && (defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__))
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

/// Brings the cache line of `address` into the L1 cache (x86: prefetcht0); nothing elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const char* address) {
#if !UNISON_BACKENDS_DEVICE_PASS && (defined(__SSE__) || defined(__AVX__) || defined(__AVX512F__))
  _mm_prefetch(address, _MM_HINT_T0);
#else
  (void)address;
#endif
}

/// Orders the thread's non-temporal stores before its later stores (x86: sfence).
KOKKOS_FORCEINLINE_FUNCTION void store_streaming_fence() {
#if !UNISON_BACKENDS_DEVICE_PASS && (defined(__SSE2__) || defined(__AVX__) || defined(__AVX512F__))
  _mm_sfence();
#endif
}

}  // namespace host
}  // namespace unison::backends
