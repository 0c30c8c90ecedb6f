#pragma once
// unison/detail/matmul/tiled_host.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The tiled method on CPUs: register micro-tiles over slices of B packed in scratch.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <unison/backends/host/memory.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/detail/matmul/schedule.hpp>

namespace unison::detail::matmul {

// The tiled method on CPUs (rows of A and B with contiguous elements): a work item (a team of
// one thread) owns the tile of rows [i0, i0 + TM) and columns [j0, j0 + TN) of A.B and computes
// it in register micro-tiles of RM rows by two packs of columns: each step of k broadcasts RM
// elements of A and loads two packs of B's row into RM x 2 fused multiply-adds. k goes in
// slices of TK, the micro-tiles' sums kept between slices in the tile's scratch copy `cs`
// (TM x TN); the slice of B's panel under a column of micro-tiles is first copied into
// scratch, its rows side by side (`bp`, TK x RN), and stays in the core's L2 while the RM rows
// move down the tile. At the end each column of the tile is summed over its rows, in
// order, and added to out atomically. Products of rows or columns beyond A or B are computed
// from a repeated row (or zeros) and never summed. The terms of one product are added in
// ascending k, as in MatmulReduceTiled.
template <class Exec, class A, class B, class O>
struct MatmulReduceTiledHost {
  using T = typename O::non_const_value_type;
  using V = backends::Pack<T>;
  using Shape = KernelShape<Exec>;
  static constexpr int L = backends::lanes_v<V>;
  static constexpr int TM = Shape::host_tile_m, TN = Shape::host_tile_n, TK = Shape::host_tile_k;
  static constexpr int RM = backends::host_stream_bytes >= 64 ? 8 : 4, RN = 2 * L;
  static_assert(TM % RM == 0 && TN % RN == 0, "unison::matmul_reduce: host tile shape");
  A a;
  B b;
  O out;
  std::int64_t m, k, n, tiles_n;

  // The tile's sums (TM x TN), then the packed slice of B's panel (TK x RN, rows contiguous).
  static std::size_t scratch_bytes() {
    return (std::size_t(TM) * TN + std::size_t(TK) * RN) * sizeof(T) + 64;
  }

  template <class Member>
  void operator()(const Member& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank() / tiles_n) * TM;
    const std::int64_t j0 = std::int64_t(team.league_rank() % tiles_n) * TN;
    T* cs = static_cast<T*>(team.team_scratch(1).get_shmem_aligned(scratch_bytes() - 64, 64));
    T* bp = cs + std::size_t(TM) * TN;
    const std::int64_t as = a.stride(1), bs = b.stride(0);
    const int rows = m - i0 < TM ? int(m - i0) : TM, cols = n - j0 < TN ? int(n - j0) : TN;
    for (std::int64_t k0 = 0; k0 < k; k0 += TK) {
      const std::int64_t kk1 = k - k0 < TK ? k - k0 : TK;
      for (int jt = 0; jt < cols; jt += RN) {
        // B's rows k0.. of this micro-tile's RN columns, side by side in bp (zeros past the last
        // column): the micro-kernel then streams through one contiguous block, instead of a
        // cache line on a new page (a row of B apart) per step.
        const int width = cols - jt, w0 = width < L ? width : L, w1 = width - w0;
        const T* brow = &b(k0, j0 + jt);
        for (std::int64_t kk = 0; kk < kk1; ++kk, brow += bs) {
          backends::store(bp + kk * RN, width >= RN ? backends::load<V>(brow)
                                                    : backends::load_partial<V>(brow, w0));
          backends::store(bp + kk * RN + L,
                          width >= RN ? backends::load<V>(brow + L)
                          : w1 > 0    ? backends::load_partial<V>(brow + L, w1 < L ? w1 : L)
                                      : V{});
        }
        for (int it = 0; it < rows; it += RM) {
          const T* ar[RM];
          for (int r = 0; r < RM; ++r) ar[r] = &a(i0 + (it + r < rows ? it + r : rows - 1), k0);
          V acc[RM][2];
          for (int r = 0; r < RM; ++r)
            for (int h = 0; h < 2; ++h)
              acc[r][h] = k0 == 0 ? V{} : backends::load<V>(cs + (it + r) * TN + jt + h * L);
          const T* bk = bp;
          for (std::int64_t kk = 0; kk < kk1; ++kk, bk += RN) {
            const V b0 = backends::load<V>(bk), b1 = backends::load<V>(bk + L);
            for (int r = 0; r < RM; ++r) {
              const V ak = backends::splat<V>(ar[r][kk * as]);
              acc[r][0] = backends::fma(ak, b0, acc[r][0]);
              acc[r][1] = backends::fma(ak, b1, acc[r][1]);
            }
          }
          for (int r = 0; r < RM; ++r)
            for (int h = 0; h < 2; ++h) backends::store(cs + (it + r) * TN + jt + h * L, acc[r][h]);
        }
      }
    }
    for (int c = 0; c < cols; ++c) {
      T sum = T(0);
      for (int r = 0; r < rows; ++r) sum += cs[r * TN + c];
      Kokkos::atomic_add(&out(j0 + c), sum);
    }
  }
};

}  // namespace unison::detail::matmul
