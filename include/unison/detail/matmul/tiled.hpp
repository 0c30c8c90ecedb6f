#pragma once
// unison/detail/matmul/tiled.hpp: part of unison/matmul.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The tiled method: a tile of A.B in team scratch, summed over its rows (GPUs).

#include <unison/detail/matmul/column_sums.hpp>

namespace unison::detail {

// The tiled method. A team owns the tile of rows [i0, i0 + TM) and columns [j0, j0 + TN) of
// A.B. For each slice of TK along k it stages A's TM x TK block (transposed, zero outside A)
// and B's TK x TN block (zero outside B) in scratch, and every micro-tile of RM x RN products
// adds the slice's terms. A micro-tile's rows are two runs of RM / 2 rows, one in each half of
// the tile (likewise its columns), so that the threads of a GPU warp read consecutive scratch
// words. At the end the tile's column sums go through scratch and one atomic addition per
// column into out. The terms of one product are added in ascending k.
template <class Exec, class A, class B, class O>
struct MatmulReduceTiled {
  using T = typename O::non_const_value_type;
  using Tuning = backends::MatmulTuning<Exec>;
  static constexpr int TM = Tuning::tile_m, TN = Tuning::tile_n, TK = Tuning::tile_k;
  static constexpr int RM = Tuning::micro_m, RN = Tuning::micro_n, NT = Tuning::team_size;
  static constexpr int PM = TM / RM, PN = TN / RN;
  // Micro-tiles per thread: 1 on a GPU (held in registers), all of them on a CPU (held in
  // scratch between slices).
  static constexpr int PER = PM * PN / NT;
  static constexpr bool in_registers = PER == 1;
  static constexpr int LDA = TM + 4;  // padded rows of A's transposed slice: conflict-free stores
  // Elements of A's and B's slices each thread stages through registers (GPU).
  static constexpr int LA = in_registers ? TM * TK / NT : 1;
  static constexpr int LB = in_registers ? TK * TN / NT : 1;
  // (LDA, TN and the micro-tiles' halves are multiples of RM / 2 and RN / 2 words, so that
  // every half is aligned as an detail::Chunk.)
  static_assert(TM % RM == 0 && TN % RN == 0 && RM % 2 == 0 && RN % 2 == 0 && LDA % (RM / 2) == 0 &&
                    TN % (RN / 2) == 0 && (TK * LDA) % (RN / 2) == 0 && (PM * PN) % NT == 0 &&
                    (TM * TK) % NT == 0 && (TK * TN) % NT == 0,
                "unison::matmul_reduce: MatmulTuning's tile shape does not divide evenly");

  A a;
  B b;
  O out;
  std::int64_t m, k, n, tiles_n;

  static constexpr std::size_t slices = std::size_t(TK) * LDA + std::size_t(TK) * TN;
  static constexpr std::size_t sums = std::size_t(PM) * TN;
  static std::size_t scratch_bytes() {
    return ((slices > sums ? slices : sums) + (in_registers ? 0 : std::size_t(TM) * TN)) *
               sizeof(T) +
           64;
  }

  KOKKOS_FORCEINLINE_FUNCTION static int row_of(int pm, int i) {
    return i < RM / 2 ? pm * (RM / 2) + i : TM / 2 + pm * (RM / 2) + i - RM / 2;
  }
  KOKKOS_FORCEINLINE_FUNCTION static int col_of(int pn, int j) {
    return j < RN / 2 ? pn * (RN / 2) + j : TN / 2 + pn * (RN / 2) + j - RN / 2;
  }

  // Element e of A's slice (row e / TK, column e % TK: consecutive threads along A's rows) and
  // of B's (row e / TN, column e % TN).
  KOKKOS_FORCEINLINE_FUNCTION T a_at(std::int64_t i0, std::int64_t k0, int e) const {
    const std::int64_t i = i0 + e / TK, kk = k0 + e % TK;
    return i < m && kk < k ? T(a(i, kk)) : T(0);
  }
  KOKKOS_FORCEINLINE_FUNCTION T b_at(std::int64_t k0, std::int64_t j0, int e) const {
    const std::int64_t kk = k0 + e / TN, j = j0 + e % TN;
    return kk < k && j < n ? T(b(kk, j)) : T(0);
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank() / tiles_n) * TM;
    const std::int64_t j0 = std::int64_t(team.league_rank() % tiles_n) * TN;
    const int t = team.team_rank();
    const int scratch_level = Tuning::scratch_level;  // (a copy: team_scratch takes a reference)
    T* as = static_cast<T*>(team.team_scratch(scratch_level)
                                .get_shmem_aligned(((slices > sums ? slices : sums) +
                                                    (in_registers ? 0 : std::size_t(TM) * TN)) *
                                                       sizeof(T),
                                                   64));
    T* bs = as + TK * LDA;
    T* cs = as + (slices > sums ? slices : sums);  // the tile's products (CPU)
    T acc[RM][RN];
    for (int i = 0; i < RM; ++i)
      for (int j = 0; j < RN; ++j) acc[i][j] = T(0);
    T ra[LA], rb[LB];
    const bool inside_mn = i0 + TM <= m && j0 + TN <= n;
    const auto fetch = [&](std::int64_t k0) {
      if (inside_mn && k0 + TK <= k) {
        // The slices lie inside A and B (every team but those at the edges): no bounds checks.
        for (int q = 0; q < LA; ++q) {
          const int e = t + q * NT;
          ra[q] = T(a(i0 + e / TK, k0 + e % TK));
        }
        for (int q = 0; q < LB; ++q) {
          const int e = t + q * NT;
          rb[q] = T(b(k0 + e / TN, j0 + e % TN));
        }
      } else {
        for (int q = 0; q < LA; ++q) ra[q] = a_at(i0, k0, t + q * NT);
        for (int q = 0; q < LB; ++q) rb[q] = b_at(k0, j0, t + q * NT);
      }
    };
    if constexpr (in_registers) fetch(0);
    for (std::int64_t k0 = 0; k0 < k; k0 += TK) {
      team.team_barrier();  // the last slice has been read by every thread
      if constexpr (in_registers) {
        for (int q = 0; q < LA; ++q) {
          const int e = t + q * NT;
          as[(e % TK) * LDA + e / TK] = ra[q];
        }
        for (int q = 0; q < LB; ++q) bs[t + q * NT] = rb[q];
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TM * TK),
                             [&](int e) { as[(e % TK) * LDA + e / TK] = a_at(i0, k0, e); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TK * TN),
                             [&](int e) { bs[e] = b_at(k0, j0, e); });
      }
      team.team_barrier();
      if constexpr (in_registers) {
        if (k0 + TK < k) fetch(k0 + TK);  // in flight while this slice is multiplied
      }
      for (int q = 0; q < PER; ++q) {
        const int pos = t + q * NT, pm = pos / PN, pn = pos % PN;
        if constexpr (!in_registers) {
          for (int i = 0; i < RM; ++i)
            for (int j = 0; j < RN; ++j)
              acc[i][j] = k0 == 0 ? T(0) : cs[row_of(pm, i) * TN + col_of(pn, j)];
        }
        UNISON_DETAIL_UNROLL_ON_DEVICE
        for (int kk = 0; kk < TK; ++kk) {
          // Each half of the micro-tile's rows (columns) is RM / 2 (RN / 2) consecutive words,
          // aligned to its size: a GPU loads each with one 16-byte instruction.
          using ChunkA = detail::Chunk<T, RM / 2>;
          using ChunkB = detail::Chunk<T, RN / 2>;
          const ChunkA a0 = *reinterpret_cast<const ChunkA*>(as + kk * LDA + row_of(pm, 0));
          const ChunkA a1 = *reinterpret_cast<const ChunkA*>(as + kk * LDA + row_of(pm, RM / 2));
          const ChunkB b0 = *reinterpret_cast<const ChunkB*>(bs + kk * TN + col_of(pn, 0));
          const ChunkB b1 = *reinterpret_cast<const ChunkB*>(bs + kk * TN + col_of(pn, RN / 2));
          T av[RM], bv[RN];
          for (int i = 0; i < RM / 2; ++i) av[i] = a0.v[i], av[RM / 2 + i] = a1.v[i];
          for (int j = 0; j < RN / 2; ++j) bv[j] = b0.v[j], bv[RN / 2 + j] = b1.v[j];
          for (int i = 0; i < RM; ++i)
            for (int j = 0; j < RN; ++j) acc[i][j] += av[i] * bv[j];
        }
        if constexpr (!in_registers) {
          for (int i = 0; i < RM; ++i)
            for (int j = 0; j < RN; ++j) cs[row_of(pm, i) * TN + col_of(pn, j)] = acc[i][j];
        }
      }
    }
    // Column sums: each micro-tile's over its rows into sums[pm][column], then over pm.
    team.team_barrier();
    T* colsum = as;
    for (int q = 0; q < PER; ++q) {
      const int pos = t + q * NT, pm = pos / PN, pn = pos % PN;
      for (int j = 0; j < RN; ++j) {
        T s = T(0);
        for (int i = 0; i < RM; ++i)
          s += in_registers ? acc[i][j] : cs[row_of(pm, i) * TN + col_of(pn, j)];
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

}  // namespace unison::detail
