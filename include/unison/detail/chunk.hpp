#pragma once
// Chunk<T, K>: K consecutive elements moved with one wide access, and the helpers that run a
// row of a team's work over them.

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/memory.hpp>
#include <unison/backends/pass.hpp>

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define UNISON_DETAIL_IVDEP _Pragma("GCC ivdep")
#else
#define UNISON_DETAIL_IVDEP
#endif

// Unrolls the loop that follows in GPU code (`#pragma unroll`, nvcc's and clang's); nothing
// elsewhere.
#if UNISON_BACKENDS_DEVICE_PASS
#define UNISON_DETAIL_UNROLL_ON_DEVICE _Pragma("unroll")
#else
#define UNISON_DETAIL_UNROLL_ON_DEVICE
#endif

namespace unison::detail {

// K consecutive elements of a contiguous array, read or written with one wide access (a 16-byte
// vector load for four floats).
template <class T, int K>
constexpr std::size_t chunk_alignment() {
  constexpr std::size_t size = sizeof(T) * K;
  if constexpr ((size & (size - 1)) != 0) return alignof(T);  // not a power of two
  else return size < 16 ? size : 16;
}
template <class T, int K>
struct alignas(chunk_alignment<T, K>()) Chunk {
  T v[K];
};
// for p in [begin, end): f(p), over a team's vector lanes (a GPU warp's lanes). A CPU team's
// lanes are one thread: there, a plain loop that the compiler may vectorize (no iteration
// depends on another, which is what ThreadVectorRange promises too).
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void vector_for(const Member& team, int begin, int end, const F& f) {
  if (end <= begin) return;
  KOKKOS_IF_ON_DEVICE((Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), f);))
  KOKKOS_IF_ON_HOST(((void)team; UNISON_DETAIL_IVDEP for (int p = begin; p < end; ++p) f(p);))
}

// Splits [0, n) of an array that starts at `base` into a head up to the first K-element
// boundary (16 bytes for K = 4 floats), whole chunks, and a tail: calls one(p) for each element
// of head and tail, and chunk(p) for the first index p of each chunk, through `range(b, e, f)`.
template <class T, int K, class Range, class One, class Many>
KOKKOS_FORCEINLINE_FUNCTION void by_chunks(const Range& range, const T* base, int n, const One& one,
                                           const Many& chunk) {
  if constexpr (K == 1) {
    range(0, n, one);
  } else {
    constexpr std::uintptr_t bytes = sizeof(Chunk<T, K>);
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(base);
    int head = int((bytes - addr % bytes) % bytes / sizeof(T));
    if (head > n) head = n;
    const int chunks = (n - head) / K;
    range(0, head, one);
    range(0, chunks, [&](int q) { chunk(head + q * K); });
    range(head + chunks * K, n, one);
  }
}

}  // namespace unison::detail
