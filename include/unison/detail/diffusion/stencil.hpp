#pragma once
// unison/detail/diffusion/stencil.hpp: part of unison/diffusion.hpp, which includes it after the
// family's public types (not a header to include on its own).
// The arithmetic the diffusion kernels share: one cell (stencil), cells of a row of the CPU
// kernels (stencil_cells, stencil_row), the grid's orientation over a View's layout, and the layout
// of diffuse's buffers.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <Kokkos_Core.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/backends/host_arithmetic.hpp>
#include <unison/backends/memory.hpp>
#include <unison/backends/simd.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail {

// Whether the host code is compiled for an instruction set with fused multiply-adds (x86 with FMA,
// as -march=native gives on AVX2 and later CPUs; AArch64; other targets where GCC says so). There,
// as in device code, every kernel computes the step with explicit fused multiply-adds, which a
// compiler never splits or contracts further; elsewhere with separate multiplies and additions,
// which a compiler cannot fuse without the instructions. Either way the arithmetic of every kernel
// is the same whatever the caller's -ffp-contract.
#if defined(__FMA__) || defined(__FP_FAST_FMAF) || defined(__FP_FAST_FMA) || \
    defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
#define UNISON_DETAIL_STENCIL_FMA 1
#else
#define UNISON_DETAIL_STENCIL_FMA 0
#endif

// 4 x (a scalar or a host vector) as (x + x) + (x + x), for host code: exact, like 4 * x, and
// without a multiply, for which x86 cores take a microcode assist of a hundred or more cycles
// when it meets a subnormal operand (none for an addition). The jagged field's diffusion fronts
// hold subnormal numbers for thousands of steps (docs/tuning.md).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V four_times(V x) {
  const V two = x + x;
  return two + two;
}

// One cell: the Laplacian 4 c - sum of the neighbours, (up + down) + (left + right), and the next
// value c - coeff * lap. With fused multiply-adds (UNISON_DETAIL_STENCIL_FMA; device code always)
// lap = fma(4, c, -sum) and next = fma(-coeff, lap, c), each rounded once (4 c is exact, so lap is
// the value of 4 c - sum rounded once, as without them unless 4 c overflows); without them lap =
// (4 c) - sum and next = c - (coeff * lap), the product rounded first.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void stencil(T c, T up, T down, T left, T right, T coeff, T& lap,
                                         T& next) {
  const T sum = (up + down) + (left + right);
#if UNISON_DETAIL_STENCIL_FMA
  lap = Kokkos::fma(T(4), c, -sum);
  next = Kokkos::fma(-coeff, lap, c);
#else
  KOKKOS_IF_ON_DEVICE((lap = Kokkos::fma(T(4), c, -sum); next = Kokkos::fma(-coeff, lap, c);))
  KOKKOS_IF_ON_HOST((lap = four_times(c) - sum; next = c - coeff * lap;))
#endif
}

#if UNISON_BACKENDS_HOST_VECTORS
// stencil() on host vectors of cells: step(m, sum, lap, next) gives every lane stencil()'s lap and
// next, bit for bit, from the cells m and the sums of their neighbours.
//
// Without fused multiply-adds: lap = 4 m - sum by additions, next = m - scale(lap), where
// backends::ExactScale gives coeff * lap without a multiply on subnormal numbers.
//
// With them, for double (or outside the conditions below): the two fused multiply-adds. For float,
// in the IEEE default mode (round to nearest, no flush-to-zero: x86 then takes a microcode assist
// of a hundred cycles or more for a fused multiply-add whose operand or result is subnormal) and
// 2^-40 <= |coeff| <= 2^40, a vector with a nonzero cell or neighbour sum below 2^-123 in magnitude
// (a diffusion front, docs/tuning.md) goes another way, lane by lane (special()). Elsewhere every
// operand of the two fused multiply-adds is zero or at least 2^-123; a result comes out subnormal
// only where 4 m and sum, or m and coeff * lap, cancel to a few bits, which costs time, never a
// bit.
template <class T>
class VectorStep {
 public:
  using Vec = typename backends::HostVector<T>::type;
  explicit VectorStep(T coeff) : coeff_(coeff), scale_(coeff) {}
  void operator()(const Vec& m, const Vec& sum, Vec& lap, Vec& next) const {
#if UNISON_DETAIL_STENCIL_FMA
    (void)scale_;
    lap = backends::fma(backends::splat<Vec>(T(4)), m, -sum);
    next = backends::fma(backends::splat<Vec>(-coeff_), lap, m);
#else
    lap = four_times(m) - sum;
    next = m - scale_(lap);
#endif
  }

 private:
  T coeff_;
  backends::ExactScale<T> scale_;
};

#if UNISON_DETAIL_STENCIL_FMA && !defined(__FAST_MATH__) && defined(__SSE2__)
template <>
class VectorStep<float> {
 public:
  using Vec = backends::HostVector<float>::type;
  typedef std::int32_t IVec __attribute__((vector_size(backends::host_stream_bytes)));
  typedef std::uint32_t UVec __attribute__((vector_size(backends::host_stream_bytes)));
  // Half a vector of floats, and as many doubles (a whole vector of them).
  typedef float HVec __attribute__((vector_size(backends::host_stream_bytes / 2)));
  using DVec = backends::HostVector<double>::type;

  explicit VectorStep(float coeff)
      : minus_coeff_(backends::splat<Vec>(-coeff)),
        coeff_(coeff),
        // The default mode: round to nearest (RC bits 13-14 zero), no FTZ (bit 15), no DAZ (bit
        // 6).
        exact_((_mm_getcsr() & 0xe040u) == 0 && std::fabs(coeff) >= 0x1p-40f &&
               std::fabs(coeff) <= 0x1p40f) {}

  void operator()(const Vec& m, const Vec& sum, Vec& lap, Vec& next) const {
    if (exact_) {
      // Nonzero lanes below 2^-123: twice the bits minus 1, unsigned, below twice 2^-123's minus
      // 1 (zeros wrap to the top; infinities and NaNs are above), for the smaller of m and sum.
      const UVec a = (UVec(bits(m)) << 1) - 1u, b = (UVec(bits(sum)) << 1) - 1u;
      const IVec small = (a < b ? a : b) < 2u * 0x02000000u - 1u;
      if (backends::any_lane(small)) {
        const Step r = special(m, sum, small);
        lap = r.lap;
        next = r.next;
        return;
      }
    }
    lap = backends::fma(backends::splat<Vec>(4.f), m, -sum);
    next = backends::fma(minus_coeff_, lap, m);
  }

 private:
  struct Step {
    Vec lap, next;
  };
  Vec minus_coeff_;
  float coeff_;
  bool exact_;

  static IVec bits(const Vec& v) {
    IVec b;
    __builtin_memcpy(&b, &v, sizeof b);
    return b;
  }
  static Vec from_bits(const IVec& b) {
    Vec v;
    __builtin_memcpy(&v, &b, sizeof v);
    return v;
  }
  // Half H of v (lanes [H * n / 2, (H + 1) * n / 2)); a and b side by side.
  template <int H>
  static HVec half(const Vec& v) {
    HVec h;
    __builtin_memcpy(&h, reinterpret_cast<const char*>(&v) + H * sizeof h, sizeof h);
    return h;
  }
  static Vec join(const HVec& a, const HVec& b) {
    Vec v;
    __builtin_memcpy(&v, &a, sizeof a);
    __builtin_memcpy(reinterpret_cast<char*>(&v) + sizeof a, &b, sizeof b);
    return v;
  }

  // v 2^64 for the lanes of `keep` (0 in the others), |v| < 2^-60: a normal float, computed
  // without a floating-point operation on a subnormal one (a subnormal's bits are its value times
  // 2^149). Exact.
  static Vec up(const IVec& b, const IVec& keep) {
    const IVec mag = b & 0x7fffffff, subnormal = mag < 0x00800000;
    const IVec as_int = keep & subnormal & (b < 0 ? -mag : mag);
    return __builtin_convertvector(as_int, Vec) * 0x1p-85f +
           from_bits(b & keep & ~subnormal) * 0x1p64f;
  }

  // Half H of m - coeff * lap rounded once to the grid of 2^-85 (as long as it is below 2^-34;
  // exact as a float), from m and lap times 2^64: in double, fma(-coeff, lap, m + C) - C with
  // C = 1.5 2^-33, whose binade has that grid (|m| < 2^-34 keeps m + C exact and in it). For the
  // unscaled values the grid is 2^-149: the subnormal floats' (and the lowest normal binade's).
  template <int H>
  HVec on_grid(const Vec& m_up, const Vec& lap_up) const {
    const DVec m = __builtin_convertvector(half<H>(m_up), DVec),
               lap = __builtin_convertvector(half<H>(lap_up), DVec);
    const DVec rounded = backends::fma(DVec{} - double(coeff_), lap, m + 0x1.8p-33) - 0x1.8p-33;
    return __builtin_convertvector(rounded, HVec);
  }

  // The vector's lanes with a small cell or sum (`small`) and the others:
  // - lap in the small lanes by additions, (4 m) - sum: 4 m is exact (one of m and sum is small,
  //   and where m is the large one sum is too small to move 4 m even at overflow), so this is
  //   fma(4, m, -sum) to the bit;
  // - next in the small lanes with |m| < 2^-98 and |lap| < 2^-60 (`exact`), m - coeff * lap rounded
  //   once, without a floating-point operation on a subnormal float, from m and lap times 2^64
  //   (normal floats). The fused multiply-add of those, fma(-coeff, lap 2^64, m 2^64), is the
  //   result times 2^64 where that is at least 2^-61 (a normal float: its bits less 64 in the
  //   exponent are the result's). Below, the result is on the grid of 2^-149, and its bits count
  //   its steps (its sign is the scaled result's, which keeps it): where |m| < 2^-127 and the
  //   scaled result is below 2^-63, fma(-coeff, lap 2^64, m 2^64 + C) with C = 1.5 2^-62 rounds
  //   m - coeff * lap once to that grid (2^-85 scaled: the binade of C, which m 2^64 + C and the
  //   result do not leave), and its bits less C's are the steps; elsewhere on_grid's in double;
  // - the other lanes by the fused multiply-adds, the exact lanes' operands set to zero (where m
  //   or lap is outside those bounds and the other is subnormal, that takes an assist: rare).
  // Out of line (the kernels' loops keep their registers), by value.
  __attribute__((noinline)) Step special(Vec m, Vec sum, IVec small) const {
    const Vec zero = {};
    const IVec mb = bits(m), sb = bits(sum);
    small &= ((mb & 0x7f800000) != 0x7f800000) & ((sb & 0x7f800000) != 0x7f800000);
    const Vec lap =
        small ? four_times(m) - sum
              : backends::fma(backends::splat<Vec>(4.f), small ? zero : m, -(small ? zero : sum));
    const IVec lb = bits(lap), m_mag = mb & 0x7fffffff;
    const IVec exact = small & (m_mag < 0x0e800000) & ((lb & 0x7fffffff) < 0x21800000);
    const Vec m_up = up(mb, exact), lap_up = up(lb, exact);
    const IVec scaled = bits(backends::fma(minus_coeff_, lap_up, m_up));
    const IVec scaled_mag = scaled & 0x7fffffff;
    const IVec below = scaled_mag < 0x21000000;  // 2^-61
    // The steps of the grid, in float where |m| < 2^-127 and |scaled| < 2^-63, else in double.
    const IVec in_float = (m_mag < 0x00400000) & (scaled_mag < 0x20000000);  // 2^-127, 2^-63
    IVec steps = bits(backends::fma(minus_coeff_, lap_up, m_up + 0x1.8p-62f)) - 0x20c00000;
    if (backends::any_lane(exact & below & ~in_float)) {
      const IVec wide = __builtin_convertvector(
          join(on_grid<0>(m_up, lap_up), on_grid<1>(m_up, lap_up)) * 0x1p85f, IVec);
      steps = in_float ? steps : wide;
    }
    const IVec result =
        below ? ((steps < 0 ? -steps : steps) | (scaled & INT32_MIN)) : scaled - (64 << 23);
    const Vec hardware = backends::fma(minus_coeff_, exact ? zero : lap, exact ? zero : m);
    return {lap, exact ? from_bits(result) : hardware};
  }
};
#endif
#endif

// The tiled kernel indexes a grid of rows x cols whose columns run along the View's contiguous
// axis: for LayoutLeft, grid (r, c) is element (c, r). The stencil is symmetric, so this
// changes nothing but the memory access pattern.
template <class V>
inline constexpr bool transposed_v = std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>;

template <bool Transposed, class V>
KOKKOS_FORCEINLINE_FUNCTION auto& cell(const V& v, std::int64_t r, std::int64_t c) {
  if constexpr (Transposed) return v(c, r);
  else return v(r, c);
}

// The step in memory between neighbouring grid columns of v: 1, known at compile time, when
// the grid's columns run along the View's contiguous axis (so that row loops vectorize on a CPU).
template <bool Transposed, class V>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t column_stride(const V& v) {
  using Unit = std::conditional_t<Transposed, Kokkos::LayoutLeft, Kokkos::LayoutRight>;
  if constexpr (std::is_same_v<typename V::array_layout, Unit>) return 1;
  else return Transposed ? v.stride(0) : v.stride(1);
}

// Cell c of stencil_cells, given its left and right neighbours: the new field to out and, if
// Lapl, the Laplacian to lout. (A function forced inline, not a lambda: GCC may leave a lambda as
// a call where many kernels share a file.)
template <class T, bool Up, bool Down, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cell(const T* up, const T* mid, const T* down,
                                              std::int64_t is, T* out, std::int64_t os, T* lout,
                                              std::int64_t ls, std::int64_t c, T left, T right,
                                              T coeff) {
  T lap, v;
  stencil<T>(mid[c * is], Up ? up[c * is] : T(0), Down ? down[c * is] : T(0), left, right, coeff,
             lap, v);
  out[c * os] = v;
  if constexpr (Lapl) lout[c * ls] = lap;
}

// n consecutive cells of a grid row, for the CPU kernels: from the row `mid` and the rows `up`
// and `down` (all with column stride `is`; Up / Down false: the row is outside the field, its
// cells 0), the new field to out (stride os) and, if Lapl, the Laplacian to lout (stride ls).
// left_edge / right_edge: the first / last cell has no neighbour on that side (the field's edge:
// it counts as 0); otherwise the cell one stride before / after the run is read. Each run of
// cells is one vectorizable loop.
// The Laplacian, which no later step reads, is written with non-temporal stores where the columns
// are contiguous (backends::store_streaming, in aligned chunks of K cells), so that the caches
// keep the fields; the caller ends its work item with backends::store_streaming_fence(). With
// Stream false it is written with ordinary stores (the plain reference's row kernel).
template <class T, int K, bool Up, bool Down, bool Lapl, bool Stream = true>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cells(const T* KOKKOS_RESTRICT up,
                                               const T* KOKKOS_RESTRICT mid,
                                               const T* KOKKOS_RESTRICT down,
                                               std::int64_t in_stride, T* KOKKOS_RESTRICT out,
                                               std::int64_t out_stride, T* KOKKOS_RESTRICT lout,
                                               std::int64_t lapl_stride, std::int64_t n,
                                               bool left_edge, bool right_edge, T coeff) {
  if (n <= 0) return;
  std::int64_t begin = 0, end = n;  // the cells left for the loops below
  if (left_edge) {
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride, 0,
                                    T(0), n == 1 && right_edge ? T(0) : mid[in_stride], coeff);
    begin = 1;
  }
  if (right_edge && n - 1 >= begin) {
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride,
                                    n - 1, mid[(n - 2) * in_stride], T(0), coeff);
    end = n - 1;
  }
  std::int64_t c = begin;
  if (K > 1 && in_stride == 1 && out_stride == 1 && (!Lapl || lapl_stride == 1)) {
    // Cells K at a time from the first where the Laplacian (else the new field) is K-aligned.
    constexpr std::uintptr_t bytes = K * sizeof(T);
    const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>((Lapl ? lout : out) + begin);
    std::int64_t aligned = begin + std::int64_t((bytes - addr % bytes) % bytes / sizeof(T));
    if (aligned > end) aligned = end;
    for (; c < aligned; ++c)
      stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride,
                                      c, mid[(c - 1) * in_stride], mid[(c + 1) * in_stride], coeff);
#if UNISON_BACKENDS_HOST_VECTORS
    const VectorStep<T> step(coeff);  // stencil() on vectors, without subnormal assists
#endif
    for (; c + K <= end; c += K) {
#if UNISON_BACKENDS_HOST_VECTORS
      // Host vectors of K cells: the values of stencil() per cell, to the bit.
      using Vec = typename backends::HostVector<T>::type;
      const Vec zero = {}, m = backends::load_vector(mid + c);
      const Vec u = Up ? backends::load_vector(up + c) : zero;
      const Vec d = Down ? backends::load_vector(down + c) : zero;
      const Vec l = backends::load_vector(mid + c - 1);
      const Vec r = backends::load_vector(mid + c + 1);
      Vec lap, next;
      step(m, (u + d) + (l + r), lap, next);
      backends::store_vector(out + c, next);
      if constexpr (Lapl && Stream) backends::store_vector_streaming(lout + c, lap);
      else if constexpr (Lapl) backends::store_vector(lout + c, lap);
#else
      Chunk<T, K> laps;
      UNISON_DETAIL_IVDEP
      for (int e = 0; e < K; ++e) {
        T v;
        stencil<T>(mid[c + e], Up ? up[c + e] : T(0), Down ? down[c + e] : T(0), mid[c + e - 1],
                   mid[c + e + 1], coeff, laps.v[e], v);
        out[c + e] = v;
      }
      if constexpr (Lapl && Stream)
        backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(lout + c), laps);
      else if constexpr (Lapl)
        for (int e = 0; e < K; ++e) lout[c + e] = laps.v[e];
#endif
    }
  }
  UNISON_DETAIL_IVDEP
  for (; c < end; ++c)
    stencil_cell<T, Up, Down, Lapl>(up, mid, down, in_stride, out, out_stride, lout, lapl_stride, c,
                                    mid[(c - 1) * in_stride], mid[(c + 1) * in_stride], coeff);
}

// stencil_cells with (Up, Down) chosen at run time.
template <class T, int K, bool Lapl, bool Stream = true>
KOKKOS_FORCEINLINE_FUNCTION void stencil_cells(bool u, bool d, const T* up, const T* mid,
                                               const T* down, std::int64_t in_stride, T* out,
                                               std::int64_t out_stride, T* lout,
                                               std::int64_t lapl_stride, std::int64_t n,
                                               bool left_edge, bool right_edge, T coeff) {
  if (u && d)
    stencil_cells<T, K, true, true, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                  lapl_stride, n, left_edge, right_edge, coeff);
  else if (u)
    stencil_cells<T, K, true, false, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                   lapl_stride, n, left_edge, right_edge, coeff);
  else if (d)
    stencil_cells<T, K, false, true, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                   lapl_stride, n, left_edge, right_edge, coeff);
  else
    stencil_cells<T, K, false, false, Lapl, Stream>(up, mid, down, in_stride, out, out_stride, lout,
                                                    lapl_stride, n, left_edge, right_edge, coeff);
}

// One whole grid row r of `cols` cells (the `streaming` CPU kernels): stencil_cells with both
// edges, the rows above and below read where rows r - 1 and r + 1 are in a field of `rows` rows.
template <class T, int K, bool Lapl>
KOKKOS_FORCEINLINE_FUNCTION void stencil_row(std::int64_t r, std::int64_t rows, const T* up,
                                             const T* mid, const T* down, std::int64_t in_stride,
                                             T* out, std::int64_t out_stride, T* lout,
                                             std::int64_t lapl_stride, std::int64_t cols, T coeff) {
  stencil_cells<T, K, Lapl>(r > 0, r + 1 < rows, up, mid, down, in_stride, out, out_stride, lout,
                            lapl_stride, cols, true, true, coeff);
}

// Cells per non-temporal store of the CPU row kernels.
template <class T>
inline constexpr int host_chunk_v = backends::host_stream_bytes / int(sizeof(T)) > 1
                                        ? backends::host_stream_bytes / int(sizeof(T))
                                        : 1;

// How a CPU row kernel deals `rows` (> 0) grid rows to exec's threads: `items` work items, one
// a thread, of `per_item` whole rows each (the last may have fewer).
struct RowBlocks {
  std::int64_t per_item, items;
};
template <class Exec>
RowBlocks row_blocks(const Exec& exec, std::int64_t rows) {
  const std::int64_t threads = exec.concurrency() < rows ? exec.concurrency() : rows;
  const std::int64_t per_item = (rows + threads - 1) / threads;
  return {per_item, (rows + per_item - 1) / per_item};
}

// The rows [r0, r1) a CPU row kernel's work item `item` owns, of `rows` rows in blocks of
// per_item.
KOKKOS_INLINE_FUNCTION void owned_rows(std::int64_t item, std::int64_t per_item, std::int64_t rows,
                                       std::int64_t& r0, std::int64_t& r1) {
  r0 = item * per_item;
  r1 = r0 + per_item < rows ? r0 + per_item : rows;
}

// The buffers diffuse() ping-pongs between: f itself when it is contiguous, and one more of its
// layout (LayoutRight for strided fields, which are copied in and out).
template <class F>
using diffusion_layout_t =
    std::conditional_t<std::is_same_v<typename F::array_layout, Kokkos::LayoutLeft>,
                       Kokkos::LayoutLeft, Kokkos::LayoutRight>;

}  // namespace unison::detail
