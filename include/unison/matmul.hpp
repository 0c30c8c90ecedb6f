#pragma once
/// \file unison/matmul.hpp
/// Matmul-reduce (docs/workloads.md section 5): out[j] = sum_i (A.B)[i, j], for A (m x k) and
/// B (k x n), three ways: the product tiled in team scratch and reduced on the fly, Kokkos
/// Kernels' GEMM followed by a column sum, and the reassociated (1^T A) B.

#include <cstdint>
#include <utility>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host_blas.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/impl/allocate.hpp>
#include <unison/impl/checks.hpp>
#include <unison/impl/chunk.hpp>

namespace unison {

/// How matmul_reduce computes out = 1^T (A B):
///  - tiled: A.B one tile at a time in team scratch (MatmulTuning in unison/backends/tuning.hpp),
///    each tile summed over its rows there and added to out atomically; A.B is never stored.
///    2mkn flops. The order of the atomic additions varies from run to run: so do the last bits.
///  - gemm: the library baseline: KokkosBlas::gemm into a temporary m x n matrix, then its
///    column sums. cuBLAS underneath on CUDA; on CPUs the host BLAS that the build found
///    (matmul_gemm_library() says which). 2mkn flops and m*n temporary elements.
///  - reassociated: the column sums s = 1^T A (length k), then out = s B: 2mk + 2kn flops,
///    every element of A and B read once. Rounds differently from the others (other sums).
///  - automatic: reassociated.
enum class MatmulMethod { automatic, tiled, gemm, reassociated };

/// What KokkosBlas::gemm runs on for execution space Exec in this build: "cuBLAS", "host BLAS"
/// (a BLAS library found at configure time, e.g. OpenBLAS) or "Kokkos Kernels" (its own kernel).
template <class Exec>
std::string matmul_gemm_library() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return "cuBLAS";
#endif
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) return "host BLAS";
#endif
  return "Kokkos Kernels";
}

namespace impl {

// partial(r, c) = sum of w(p) * mat(p, c) over the rows p of block r ([r * rows_per, ...)),
// ascending; w(p) = 1 when `weighted` is false. A work item is one block and W consecutive
// columns; consecutive items take consecutive columns.
template <int W, class M, class Wt, class P>
struct ColumnPartials {
  using T = typename P::non_const_value_type;
  M mat;
  Wt w;
  P partial;
  bool weighted;
  std::int64_t rows, cols, rows_per, chunks;

  KOKKOS_FUNCTION void operator()(std::int64_t item) const {
    const std::int64_t r = item / chunks, c0 = item % chunks * W;
    const std::int64_t p0 = r * rows_per, p1 = p0 + rows_per < rows ? p0 + rows_per : rows;
    const int width = cols - c0 < W ? int(cols - c0) : W;
    if constexpr (backends::has_pack_v<T> && W % backends::pack_lanes_v<T> == 0 && W > 1) {
#if UNISON_BACKENDS_HOST_VECTORS
      // CPUs, rows with contiguous elements of type T: the chunk's columns in packs, added up
      // in registers over the block's rows (the same products and sums, lane by lane).
      if constexpr (std::is_same_v<typename M::non_const_value_type, T>) {
        if (mat.stride(1) == 1 && width == W) {
          using V = backends::Pack<T>;
          constexpr int L = backends::lanes_v<V>, N = W / L;
          V acc[N] = {};
          for (std::int64_t p = p0; p < p1; ++p) {
            const T* row = &mat(p, c0);
            if (weighted) {
              const T wp = T(w(p));
              for (int q = 0; q < N; ++q) acc[q] += wp * backends::load<V>(row + q * L);
            } else {
              for (int q = 0; q < N; ++q) acc[q] += backends::load<V>(row + q * L);
            }
          }
          for (int q = 0; q < N; ++q) backends::store(&partial(r, c0 + q * L), acc[q]);
          return;
        }
      }
#endif
    }
    T acc[W];
    for (int e = 0; e < W; ++e) acc[e] = T(0);
    if (width == W) {
      for (std::int64_t p = p0; p < p1; ++p) {
        const T wp = weighted ? T(w(p)) : T(1);
        for (int e = 0; e < W; ++e) acc[e] += wp * T(mat(p, c0 + e));
      }
    } else {
      for (std::int64_t p = p0; p < p1; ++p) {
        const T wp = weighted ? T(w(p)) : T(1);
        for (int e = 0; e < width; ++e) acc[e] += wp * T(mat(p, c0 + e));
      }
    }
    for (int e = 0; e < width; ++e) partial(r, c0 + e) = acc[e];
  }
};

// out(c) = sum over r of partial(r, c), ascending r.
template <class P, class O>
struct SumPartials {
  using T = typename O::non_const_value_type;
  P partial;
  O out;
  KOKKOS_FUNCTION void operator()(std::int64_t c) const {
    T acc = 0;
    for (std::size_t r = 0; r < partial.extent(0); ++r) acc += partial(r, c);
    out(c) = acc;
  }
};

template <class Exec>
std::int64_t column_blocks(std::int64_t rows) {
  const std::int64_t per = backends::MatmulTuning<Exec>::column_rows;
  return rows == 0 ? 1 : rows / per + (rows % per != 0 ? 1 : 0);
}

// out(c) = sum over p of w(p) * mat(p, c) (w = 1 unless weighted): partial sums over blocks of
// rows into `partial` (column_blocks(rows) x cols), then their sum; two kernels named
// "unison::matmul_reduce::<what>_partials" and "..._sum".
template <class Exec, class M, class Wt, class P, class O>
void weighted_column_sums(const Exec& exec, const std::string& what, const M& mat, const Wt& w,
                          bool weighted, const P& partial, const O& out) {
  using Tuning = backends::MatmulTuning<Exec>;
  constexpr int W = Tuning::column_chunk;
  const std::int64_t rows = mat.extent(0), cols = mat.extent(1);
  const std::int64_t blocks = partial.extent(0), chunks = (cols + W - 1) / W;
  Kokkos::parallel_for(
      "unison::matmul_reduce::" + what + "_partials",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, blocks * chunks),
      ColumnPartials<W, M, Wt, P>{mat, w, partial, weighted, rows, cols,
                                  std::int64_t(Tuning::column_rows), chunks});
  Kokkos::parallel_for("unison::matmul_reduce::" + what + "_sum",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, cols),
                       SumPartials<P, O>{partial, out});
}

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
  // every half is aligned as an impl::Chunk.)
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
    const int level = Tuning::scratch_level;  // (a copy: team_scratch takes a reference)
    T* as = static_cast<T*>(team.team_scratch(level).get_shmem_aligned(
        ((slices > sums ? slices : sums) + (in_registers ? 0 : std::size_t(TM) * TN)) * sizeof(T),
        64));
    T* bs = as + TK * LDA;
    T* cs = as + (slices > sums ? slices : sums);  // the tile's products (CPU)
    T acc[RM][RN];
    for (int i = 0; i < RM; ++i)
      for (int j = 0; j < RN; ++j) acc[i][j] = T(0);
    T ra[LA], rb[LB];
    const auto fetch = [&](std::int64_t k0) {
      for (int q = 0; q < LA; ++q) ra[q] = a_at(i0, k0, t + q * NT);
      for (int q = 0; q < LB; ++q) rb[q] = b_at(k0, j0, t + q * NT);
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
        UNISON_IMPL_UNROLL_ON_DEVICE
        for (int kk = 0; kk < TK; ++kk) {
          // Each half of the micro-tile's rows (columns) is RM / 2 (RN / 2) consecutive words,
          // aligned to its size: a GPU loads each with one 16-byte instruction.
          using ChunkA = impl::Chunk<T, RM / 2>;
          using ChunkB = impl::Chunk<T, RN / 2>;
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

#if UNISON_BACKENDS_HOST_VECTORS
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
  using Tuning = backends::MatmulTuning<Exec>;
  static constexpr int L = backends::lanes_v<V>;
  static constexpr int TM = Tuning::host_tile_m, TN = Tuning::host_tile_n, TK = Tuning::host_tile_k;
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
#endif

template <class O>
struct Fill {
  using T = typename O::non_const_value_type;
  O out;
  T value;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { out(i) = value; }
};

template <class Exec, class O>
void fill_output(const Exec& exec, const O& out, typename O::non_const_value_type value) {
  Kokkos::parallel_for("unison::matmul_reduce::fill",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, std::int64_t(out.extent(0))),
                       Fill<O>{out, value});
}

template <class Layout>
inline constexpr bool blas_layout_v =
    std::is_same_v<Layout, Kokkos::LayoutLeft> || std::is_same_v<Layout, Kokkos::LayoutRight>;

}  // namespace impl

/// How many elements of the value type matmul_reduce's `method` needs as temporary memory for A
/// (m x k) and B (k x n) on execution space Exec: 0 for tiled; the column sums of A and the
/// partial sums over blocks of rows for reassociated (and automatic), about k * (m / 64 + 1) +
/// n * k / 64 elements on a GPU; m x n for A.B and its partial column sums for gemm. What a
/// workspace given to matmul_reduce must hold at least. Throws unison::invalid_argument for a
/// negative extent, an unknown method, or a size that does not fit in 64 bits.
template <class Exec>
std::int64_t matmul_reduce_workspace_size(std::int64_t m, std::int64_t k, std::int64_t n,
                                          MatmulMethod method = MatmulMethod::automatic) {
  constexpr const char* fn = "unison::matmul_reduce_workspace_size";
  impl::require(m >= 0 && k >= 0 && n >= 0, fn, "m, k, n are ", m, ", ", k, ", ", n,
                ", expected 0 or more");
  impl::require(method == MatmulMethod::automatic || method == MatmulMethod::tiled ||
                    method == MatmulMethod::gemm || method == MatmulMethod::reassociated,
                fn, "unknown method ", int(method));
  if (m == 0 || k == 0 || n == 0) return 0;
  {
    // The same sum in long double: every term at most ~2^126, no overflow.
    using L = long double;
    const L size = method == MatmulMethod::tiled ? L(0)
                   : method == MatmulMethod::gemm
                       ? L(m) * L(n) + L(impl::column_blocks<Exec>(m)) * L(n)
                       : L(k) + L(impl::column_blocks<Exec>(m)) * L(k) +
                             L(impl::column_blocks<Exec>(k)) * L(n);
    impl::require(size <= L(std::numeric_limits<std::int64_t>::max()), fn, "m, k, n are ", m, ", ",
                  k, ", ", n, ": the workspace of about ", size,
                  " elements overflows a 64-bit count");
  }
  switch (method) {
    case MatmulMethod::automatic:
    case MatmulMethod::reassociated:
      return k + impl::column_blocks<Exec>(m) * k + impl::column_blocks<Exec>(k) * n;
    case MatmulMethod::gemm:
      return m * n + impl::column_blocks<Exec>(m) * n;
    default:
      return 0;
  }
}

namespace impl {

template <class Exec, class AV, class BV, class OV>
void check_matmul_reduce_types() {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::matmul_reduce: the first argument must be a Kokkos execution space");
  static_assert(
      Kokkos::is_view_v<AV> && Kokkos::is_view_v<BV> && AV::rank() == 2 && BV::rank() == 2,
      "unison::matmul_reduce: A and B must be rank-2 Views");
  static_assert(
      Kokkos::is_view_v<OV> && OV::rank() == 1 && !std::is_const_v<typename OV::value_type>,
      "unison::matmul_reduce: out must be a rank-1 View with a non-const value type");
  using T = typename OV::non_const_value_type;
  static_assert(std::is_floating_point_v<T> &&
                    std::is_same_v<typename AV::non_const_value_type, T> &&
                    std::is_same_v<typename BV::non_const_value_type, T>,
                "unison::matmul_reduce: A, B and out must hold the same floating-point type");
  static_assert(
      impl::accessible_v<Exec, AV> && impl::accessible_v<Exec, BV> && impl::accessible_v<Exec, OV>,
      "unison::matmul_reduce: A, B and out must be accessible from the execution space");
}

// The run-time checks shared by both forms; returns the method that will run.
template <class AV, class BV, class OV>
MatmulMethod check_matmul_reduce(const AV& A, const BV& B, const OV& out, MatmulMethod method) {
  constexpr const char* fn = "unison::matmul_reduce";
  impl::require(B.extent(0) == A.extent(1), fn, "A is ", impl::extents_string(A), " and B is ",
                impl::extents_string(B), ": A's columns must be B's rows");
  impl::require(out.extent(0) == B.extent(1), fn, "out is ", out.extent(0), ", expected ",
                B.extent(1), " (B's columns)");
  impl::check_disjoint(fn, "out", out, "A", A);
  impl::check_disjoint(fn, "out", out, "B", B);
  impl::require(method == MatmulMethod::automatic || method == MatmulMethod::tiled ||
                    method == MatmulMethod::gemm || method == MatmulMethod::reassociated,
                fn, "unknown method ", int(method));
  if (method == MatmulMethod::gemm) {
    constexpr bool same = std::is_same_v<typename AV::array_layout, typename BV::array_layout> &&
                          impl::blas_layout_v<typename AV::array_layout>;
    impl::require(same, fn,
                  "the gemm method takes A and B both LayoutLeft or both LayoutRight (KokkosBlas::"
                  "gemm); use the tiled or reassociated method for other layouts");
  }
  return method == MatmulMethod::automatic ? MatmulMethod::reassociated : method;
}

// The (TM x TN) tiles of the m x n product A.B for Kernel, by rows and columns of tiles;
// refuses a count that one launch cannot hold.
template <class Kernel>
std::pair<std::int64_t, std::int64_t> tiles_of(std::int64_t m, std::int64_t n) {
  const std::int64_t tiles_m = (m + Kernel::TM - 1) / Kernel::TM;
  const std::int64_t tiles_n = (n + Kernel::TN - 1) / Kernel::TN;
  require(tiles_m * tiles_n <= std::int64_t(INT32_MAX), "unison::matmul_reduce", "A.B (", m, "x", n,
          ") has ", tiles_m * tiles_n, " tiles of ", Kernel::TM, "x", Kernel::TN,
          ", more than 2^31 - 1 for one launch of the tiled method");
  return {tiles_m, tiles_n};
}

// The work, once checked: `work` holds matmul_reduce_workspace_size elements (unused by tiled).
template <class Exec, class AV, class BV, class OV>
void matmul_reduce_run(const Exec& exec, const AV& A, const BV& B, const OV& out,
                       MatmulMethod method, typename OV::non_const_value_type* work) {
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  if (n == 0) return;
  if (m == 0 || k == 0) {
    impl::fill_output(exec, out, T(0));
    return;
  }
  if (method == MatmulMethod::tiled) {
    using Tuning = backends::MatmulTuning<Exec>;
    if constexpr (Tuning::packs && backends::has_pack_v<T>) {
#if UNISON_BACKENDS_HOST_VECTORS
      // CPUs, rows of A and B with contiguous elements: register micro-tiles.
      if (B.stride(1) == 1) {
        using Kernel = impl::MatmulReduceTiledHost<Exec, AV, BV, OV>;
        const auto [tiles_m, tiles_n] = impl::tiles_of<Kernel>(m, n);
        impl::fill_output(exec, out, T(0));
        Kokkos::TeamPolicy<Exec> policy(exec, int(tiles_m * tiles_n), 1);
        policy.set_scratch_size(1, Kokkos::PerTeam(Kernel::scratch_bytes()));
        Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                             Kernel{A, B, out, m, k, n, tiles_n});
        return;
      }
#endif
    }
    using Kernel = impl::MatmulReduceTiled<Exec, AV, BV, OV>;
    const auto [tiles_m, tiles_n] = impl::tiles_of<Kernel>(m, n);
    impl::fill_output(exec, out, T(0));
    Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<Tuning::team_size, Tuning::min_teams>> policy(
        exec, int(tiles_m * tiles_n), Tuning::team_size, 1);
    policy.set_scratch_size(Tuning::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
    Kokkos::parallel_for("unison::matmul_reduce::tiled", policy,
                         Kernel{A, B, out, m, k, n, tiles_n});
    return;
  }
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Partials = Kokkos::View<T**, Kokkos::LayoutRight, Mem, Unmanaged>;
  if (method == MatmulMethod::reassociated) {
    const std::int64_t ba = impl::column_blocks<Exec>(m), bb = impl::column_blocks<Exec>(k);
    Kokkos::View<T*, Mem, Unmanaged> s(work, k);
    impl::weighted_column_sums(exec, "a", A, s, false, Partials(work + k, ba, k), s);
    impl::weighted_column_sums(exec, "b", B, s, true, Partials(work + k + ba * k, bb, n), out);
    return;
  }
  // gemm: C = A B in the workspace, in A's layout, then its column sums.
  if constexpr (std::is_same_v<typename AV::array_layout, typename BV::array_layout> &&
                impl::blas_layout_v<typename AV::array_layout>) {
    // Views of exec's own device type: Kokkos Kernels hands a call to the vendor BLAS only when
    // the Views' execution space is exec's (a HostSpace View's is the default host space, so a
    // Serial call on it would otherwise run Kokkos Kernels' own kernel).
    using Layout = typename AV::array_layout;
    const Kokkos::View<const T**, Layout, Kokkos::Device<Exec, typename AV::memory_space>,
                       Unmanaged>
        a(A);
    const Kokkos::View<const T**, Layout, Kokkos::Device<Exec, typename BV::memory_space>,
                       Unmanaged>
        b(B);
    const Kokkos::View<T**, Layout, Kokkos::Device<Exec, Mem>, Unmanaged> C(work, m, n);
#ifdef KOKKOSKERNELS_ENABLE_TPL_BLAS
    // The host BLAS on the cores exec runs on (its threads could be bound to one).
    if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible)
      backends::host_blas_for(exec);
#endif
    KokkosBlas::gemm(exec, "N", "N", T(1), a, b, T(0), C);
    impl::weighted_column_sums(exec, "product", C, out, false,
                               Partials(work + m * n, impl::column_blocks<Exec>(m), n), out);
  }
}

}  // namespace impl

/// out[j] = sum over i of (A B)[i, j], for j < n: the column sums of the product of A (m x k)
/// and B (k x n), computed by `method` (MatmulMethod). A, B: rank-2 Views of float or double,
/// any layout (the gemm method: both LayoutLeft or both LayoutRight); out: a rank-1 View of the
/// same value type, length n, overwritten whatever it held (zeros when m or k is 0). All
/// accessible from `exec`. The tiled method is asynchronous on `exec`. The gemm and
/// reassociated methods allocate their temporary memory ("unison::matmul_reduce::work",
/// matmul_reduce_workspace_size elements) and return once the work on `exec` is done, having
/// freed it (Kokkos then fences every instance of the backend); the overload with a workspace
/// does neither.
/// Throws unison::invalid_argument, before anything runs, when A's columns are not B's rows,
/// out's length is not B's columns, out overlaps A or B, the gemm method is asked for with
/// layouts it does not take, or the temporary memory would not fit in the memory free in exec's
/// memory space.
/// Kernels: "unison::matmul_reduce::tiled" (tiled), "unison::matmul_reduce::{a,b}_{partials,sum}"
/// (reassociated), KokkosBlas::gemm's and "unison::matmul_reduce::product_{partials,sum}" (gemm),
/// "unison::matmul_reduce::fill".
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  impl::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  using Mem = typename Exec::memory_space;
  constexpr const char* fn = "unison::matmul_reduce";
  method = impl::check_matmul_reduce(A, B, out, method);
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  const std::int64_t elements = matmul_reduce_workspace_size<Exec>(m, k, n, method);
  if (elements == 0) {
    impl::matmul_reduce_run(exec, A, B, out, method, static_cast<T*>(nullptr));
    return;
  }
  const std::string what = method == MatmulMethod::gemm
                               ? "the gemm method's temporary A.B (" + std::to_string(m) + "x" +
                                     std::to_string(n) + ") with its partial column sums"
                               : std::string("the reassociated method's temporary column sums");
  const auto work = impl::allocate<Kokkos::View<T*, Mem>>(fn, what.c_str(), exec,
                                                          "unison::matmul_reduce::work", elements);
  impl::matmul_reduce_run(exec, A, B, out, method, work.data());
  exec.fence("unison::matmul_reduce: free the temporary memory");
}

/// matmul_reduce with the caller's temporary memory: `workspace`, a rank-1 View of the value
/// type accessible from `exec`, with at least matmul_reduce_workspace_size<Exec>(m, k, n,
/// method) elements (its contents are overwritten). Every method is then asynchronous on `exec`
/// and allocates nothing: what a loop that calls matmul_reduce many times wants (each
/// allocation and free of GPU memory synchronizes the device). The workspace must not be used
/// by anything else until the work on `exec` is done. Throws unison::invalid_argument as the
/// other form does, and when the workspace is too small or overlaps A, B or out.
template <class Exec, class AV, class BV, class OV, class WV>
void matmul_reduce(const Exec& exec, const AV& A, const BV& B, const OV& out, MatmulMethod method,
                   const WV& workspace) {
  impl::check_matmul_reduce_types<Exec, AV, BV, OV>();
  using T = typename OV::non_const_value_type;
  static_assert(Kokkos::is_view_v<WV> && WV::rank() == 1 &&
                    std::is_same_v<typename WV::value_type, T> &&
                    impl::blas_layout_v<typename WV::array_layout>,
                "unison::matmul_reduce: workspace must be a contiguous rank-1 View of out's "
                "value type");
  static_assert(impl::accessible_v<Exec, WV>,
                "unison::matmul_reduce: workspace must be accessible from the execution space");
  constexpr const char* fn = "unison::matmul_reduce";
  method = impl::check_matmul_reduce(A, B, out, method);
  const std::int64_t elements =
      matmul_reduce_workspace_size<Exec>(A.extent(0), A.extent(1), B.extent(1), method);
  impl::require(std::int64_t(workspace.extent(0)) >= elements, fn, "workspace has ",
                workspace.extent(0), " elements, the method needs ", elements,
                " (matmul_reduce_workspace_size)");
  impl::check_disjoint(fn, "workspace", workspace, "A", A);
  impl::check_disjoint(fn, "workspace", workspace, "B", B);
  impl::check_disjoint(fn, "workspace", workspace, "out", out);
  impl::matmul_reduce_run(exec, A, B, out, method, workspace.data());
}

/// matmul_reduce on out's default execution space instance.
template <class AV, class BV, class OV>
void matmul_reduce(const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic) {
  matmul_reduce(typename OV::execution_space(), A, B, out, method);
}

}  // namespace unison
