#pragma once
// unison/detail/matmul/tiled.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The tiled method: a tile of A.B in team scratch, summed over its rows (GPUs).

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <unison/detail/chunk.hpp>
#include <unison/detail/matmul/schedule.hpp>

namespace unison::detail::matmul {

// The tiled method. A team owns the tile of rows [i0, i0 + TM) and columns [j0, j0 + TN) of
// A.B. For each slice of TK along k it stages A's TM x TK block (transposed, zero outside A)
// and B's TK x TN block (zero outside B) in scratch, and every micro-tile of RM x RN products
// adds the slice's terms. A micro-tile's rows are two runs of RM / 2 rows, one in each half of
// the tile (likewise its columns), so that the threads of a GPU warp read consecutive scratch
// words. At the end the tile's column sums go through scratch and one atomic addition per
// column into out. The terms of one product are added in ascending k.
//
// On a GPU (one micro-tile a thread, `in_registers`) a thread loads its part of the next slice
// into registers while it multiplies the current one. Its part is LA (LB) consecutive elements
// of a row of A's (B's) slice: where A's and B's rows are contiguous and those parts aligned
// (`wide`), one vector load brings each. Only the tiles at A.B's edges and a last, partial
// slice check bounds; each kind of team runs a loop of its own (slices_in_registers).
template <class Exec, class A, class B, class O>
struct MatmulReduceTiled {
  using T = typename O::non_const_value_type;
  using Shape = KernelShape<Exec>;
  static constexpr int TM = Shape::tile_m, TN = Shape::tile_n, TK = Shape::tile_k;
  static constexpr int RM = Shape::micro_m, RN = Shape::micro_n, NT = Shape::team_size;
  static constexpr int PM = TM / RM, PN = TN / RN;
  // Micro-tiles per thread: 1 on a GPU (held in registers), all of them on a CPU (held in
  // scratch between slices).
  static constexpr int PER = PM * PN / NT;
  static constexpr bool in_registers = PER == 1;
  static constexpr int LDA = TM + 4;  // padded rows of A's transposed slice: conflict-free stores
  // Elements of A's and B's slices each thread stages through registers (GPU).
  static constexpr int LA = in_registers ? TM * TK / NT : 1;
  static constexpr int LB = in_registers ? TK * TN / NT : 1;
  using ChunkA = detail::Chunk<T, LA>;
  using ChunkB = detail::Chunk<T, LB>;
  // (LDA, TN and the micro-tiles' halves are multiples of RM / 2 and RN / 2 words, so that
  // every half is aligned as an detail::Chunk; a thread's part of a slice lies in one row.)
  static_assert(TM % RM == 0 && TN % RN == 0 && RM % 2 == 0 && RN % 2 == 0 && LDA % (RM / 2) == 0 &&
                    TN % (RN / 2) == 0 && (TK * LDA) % (RN / 2) == 0 && (PM * PN) % NT == 0 &&
                    (TM * TK) % NT == 0 && (TK * TN) % NT == 0 && TK % LA == 0 && TN % LB == 0 &&
                    (TK * LDA) % LB == 0,
                "unison::matmul_reduce: the backend's tile shape does not divide evenly");

  A a;
  B b;
  O out;
  std::int64_t m, k, n, tiles_n;
  bool wide;  // from wide_loads(a, b)

  // A's and B's rows are contiguous and every thread's part of a slice inside them is aligned
  // for one vector load (GPU).
  static bool wide_loads(const A& a, const B& b) {
    const auto aligned = [](const void* p, std::size_t bytes) {
      return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
    };
    return in_registers && a.stride(1) == 1 && b.stride(1) == 1 && a.stride(0) % LA == 0 &&
           b.stride(0) % LB == 0 && aligned(a.data(), alignof(ChunkA)) &&
           aligned(b.data(), alignof(ChunkB));
  }

  // One slice: A's transposed (TK x LDA, zero outside A), then B's (TK x TN, zero outside B).
  static constexpr std::size_t slices = std::size_t(TK) * LDA + std::size_t(TK) * TN;
  static constexpr std::size_t sums = std::size_t(PM) * TN;
  static constexpr std::size_t shared = slices > sums ? slices : sums;
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return (shared + (in_registers ? 0 : std::size_t(TM) * TN)) * sizeof(T) + 64;
  }

  KOKKOS_FORCEINLINE_FUNCTION static int row_of(int pm, int i) {
    return i < RM / 2 ? pm * (RM / 2) + i : TM / 2 + pm * (RM / 2) + i - RM / 2;
  }
  KOKKOS_FORCEINLINE_FUNCTION static int col_of(int pn, int j) {
    return j < RN / 2 ? pn * (RN / 2) + j : TN / 2 + pn * (RN / 2) + j - RN / 2;
  }

  // Element e of A's slice (row e / TK, column e % TK) and of B's (row e / TN, column e % TN).
  KOKKOS_FORCEINLINE_FUNCTION T a_at(std::int64_t i0, std::int64_t k0, int e) const {
    const std::int64_t i = i0 + e / TK, kk = k0 + e % TK;
    return i < m && kk < k ? T(a(i, kk)) : T(0);
  }
  KOKKOS_FORCEINLINE_FUNCTION T b_at(std::int64_t k0, std::int64_t j0, int e) const {
    const std::int64_t kk = k0 + e / TN, j = j0 + e % TN;
    return kk < k && j < n ? T(b(kk, j)) : T(0);
  }

  // acc += the slice's terms of micro-tile (pm, pn), from A's transposed slice `as` and B's `bs`.
  KOKKOS_FORCEINLINE_FUNCTION static void multiply(const T* as, const T* bs, int pm, int pn,
                                                   T (&acc)[RM][RN]) {
    UNISON_DETAIL_UNROLL_ON_DEVICE
    for (int kk = 0; kk < TK; ++kk) {
      // Each half of the micro-tile's rows (columns) is RM / 2 (RN / 2) consecutive words,
      // aligned to its size: a GPU loads each with one 16-byte instruction.
      using HalfA = detail::Chunk<T, RM / 2>;
      using HalfB = detail::Chunk<T, RN / 2>;
      const HalfA a0 = *reinterpret_cast<const HalfA*>(as + kk * LDA + row_of(pm, 0));
      const HalfA a1 = *reinterpret_cast<const HalfA*>(as + kk * LDA + row_of(pm, RM / 2));
      const HalfB b0 = *reinterpret_cast<const HalfB*>(bs + kk * TN + col_of(pn, 0));
      const HalfB b1 = *reinterpret_cast<const HalfB*>(bs + kk * TN + col_of(pn, RN / 2));
      T av[RM], bv[RN];
      for (int i = 0; i < RM / 2; ++i) av[i] = a0.v[i], av[RM / 2 + i] = a1.v[i];
      for (int j = 0; j < RN / 2; ++j) bv[j] = b0.v[j], bv[RN / 2 + j] = b1.v[j];
      for (int i = 0; i < RM; ++i)
        for (int j = 0; j < RN; ++j) acc[i][j] += av[i] * bv[j];
    }
  }

  // How a GPU thread loads its parts of a slice: with bounds checks (the tiles at A.B's edges,
  // and the last slice where TK does not divide k), one element at a time, or one vector load.
  enum class Loads { checked, plain, wide };

  // acc += the products of the thread's micro-tile of the tile at (i0, j0), over k one slice at
  // a time through scratch at `as` (GPU). One loop per kind of load: a loop that holds all
  // three kinds keeps more values live and measured slower (docs/tuning.md).
  template <Loads L, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void slices_in_registers(const Member& team, T* as, std::int64_t i0,
                                                       std::int64_t j0, T (&acc)[RM][RN]) const {
    // Thread t's parts: elements [t LA, t LA + LA) of A's slice, [t LB, t LB + LB) of B's.
    const int t = team.team_rank();
    const int ai = t * LA / TK, ak = t * LA % TK, bk = t * LB / TN, bj = t * LB % TN;
    const int pm = t / PN, pn = t % PN;
    T ra[LA], rb[LB];
    const auto checked = [&](std::int64_t k0) {
      for (int q = 0; q < LA; ++q) ra[q] = a_at(i0, k0, t * LA + q);
      for (int q = 0; q < LB; ++q) rb[q] = b_at(k0, j0, t * LB + q);
    };
    const auto fetch = [&](std::int64_t k0) {
      if constexpr (L == Loads::checked) {
        checked(k0);
      } else if constexpr (L == Loads::wide) {
        const ChunkA ca = *reinterpret_cast<const ChunkA*>(
            a.data() + (i0 + ai) * std::int64_t(a.stride(0)) + k0 + ak);
        const ChunkB cb = *reinterpret_cast<const ChunkB*>(
            b.data() + (k0 + bk) * std::int64_t(b.stride(0)) + j0 + bj);
        for (int q = 0; q < LA; ++q) ra[q] = ca.v[q];
        for (int q = 0; q < LB; ++q) rb[q] = cb.v[q];
      } else {
        for (int q = 0; q < LA; ++q) ra[q] = T(a(i0 + ai, k0 + ak + q));
        for (int q = 0; q < LB; ++q) rb[q] = T(b(k0 + bk, j0 + bj + q));
      }
    };
    const auto stage = [&](T* slice) {
      for (int q = 0; q < LA; ++q) slice[(ak + q) * LDA + ai] = ra[q];
      ChunkB cb;
      for (int q = 0; q < LB; ++q) cb.v[q] = rb[q];
      *reinterpret_cast<ChunkB*>(slice + TK * LDA + bk * TN + bj) = cb;
    };
    // Each step stores the slice held in registers into scratch between two barriers, issues
    // the next slice's loads and multiplies this one. `fetch` loads the whole slices (every
    // slice where loads are checked); a last, partial one is loaded with checks after them.
    const std::int64_t whole = L == Loads::checked ? (k + TK - 1) / TK : k / TK;
    if (whole > 0) fetch(0);
    for (std::int64_t s = 0; s < whole; ++s) {
      team.team_barrier();
      stage(as);
      team.team_barrier();
      if (s + 1 < whole) fetch((s + 1) * TK);  // in flight while this slice is multiplied
      multiply(as, as + TK * LDA, pm, pn, acc);
    }
    if (whole * TK < k) {
      checked(whole * TK);
      team.team_barrier();
      stage(as);
      team.team_barrier();
      multiply(as, as + TK * LDA, pm, pn, acc);
    }
    team.team_barrier();  // every thread has read its last slice
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank() / tiles_n) * TM;
    const std::int64_t j0 = std::int64_t(team.league_rank() % tiles_n) * TN;
    const int t = team.team_rank();
    const int scratch_level = Shape::scratch_level;  // (a copy: team_scratch takes a reference)
    T* as = static_cast<T*>(
        team.team_scratch(scratch_level).get_shmem_aligned(scratch_bytes() - 64, 64));
    T acc[RM][RN];
    for (int i = 0; i < RM; ++i)
      for (int j = 0; j < RN; ++j) acc[i][j] = T(0);
    if constexpr (in_registers) {
      if (i0 + TM > m || j0 + TN > n) slices_in_registers<Loads::checked>(team, as, i0, j0, acc);
      else if (wide) slices_in_registers<Loads::wide>(team, as, i0, j0, acc);
      else slices_in_registers<Loads::plain>(team, as, i0, j0, acc);
    } else {
      T* bs = as + TK * LDA;
      T* cs = as + shared;  // the tile's products
      for (std::int64_t k0 = 0; k0 < k; k0 += TK) {
        team.team_barrier();  // the last slice has been read by every thread
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TM * TK),
                             [&](int e) { as[(e % TK) * LDA + e / TK] = a_at(i0, k0, e); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TK * TN),
                             [&](int e) { bs[e] = b_at(k0, j0, e); });
        team.team_barrier();
        for (int q = 0; q < PER; ++q) {
          const int pos = t + q * NT, pm = pos / PN, pn = pos % PN;
          for (int i = 0; i < RM; ++i)
            for (int j = 0; j < RN; ++j)
              acc[i][j] = k0 == 0 ? T(0) : cs[row_of(pm, i) * TN + col_of(pn, j)];
          multiply(as, bs, pm, pn, acc);
          for (int i = 0; i < RM; ++i)
            for (int j = 0; j < RN; ++j) cs[row_of(pm, i) * TN + col_of(pn, j)] = acc[i][j];
        }
      }
      team.team_barrier();
    }
    // Column sums: each micro-tile's over its rows into sums[pm][column], then over pm.
    T* colsum = as;
    for (int q = 0; q < PER; ++q) {
      const int pos = t + q * NT, pm = pos / PN, pn = pos % PN;
      for (int j = 0; j < RN; ++j) {
        T s = T(0);
        for (int i = 0; i < RM; ++i)
          s += in_registers ? acc[i][j] : as[shared + row_of(pm, i) * TN + col_of(pn, j)];
        colsum[pm * TN + col_of(pn, j)] = s;
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TN), [&](int c) {
      if (j0 + c >= n) return;
      T s = T(0);
      for (int pm = 0; pm < PM; ++pm) s += colsum[pm * TN + c];
      Kokkos::atomic_add(&out(j0 + c), s);
    });
  }
};

}  // namespace unison::detail::matmul
