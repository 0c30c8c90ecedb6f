#pragma once
// unison/detail/diffusion/resident.hpp: part of unison/diffusion.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses).
// `resident`: the whole time loop of diffuse in one launch, for a field that fits in the GPU's
// registers (CUDA). Each block owns a tile of R grid rows by Threads x V grid columns and keeps it
// in registers for every step: a thread holds V adjacent columns of the tile's R rows, so its
// vertical neighbours are its own registers and its horizontal ones come from the lanes beside it
// (warp shuffles; across warps, a word of shared memory a row). Between steps a block exchanges
// only its tile's edges with its four neighbours, through buffers in global memory (read from the
// L2), each side double-buffered by the step's parity and signalled by a counter a tile: to
// compute step s a block waits until its neighbours have published their edges after step s - 1,
// and no block can run more than one step ahead of a neighbour, so the parity's other buffer is
// never overwritten while it is read. Every block is resident at once (a cooperative launch), so
// the waits end. The result is written back where the field was read: a block reads and writes
// only its own tile's cells, and the edges travel through the buffers. Each step rounds as
// stencil() does: the result is bitwise that of one step at a time.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <unison/backends/cuda/resident.hpp>
#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail::diffusion {

// The tile of the resident kernel for value type T: R rows of a thread's V columns, Threads threads
// a block (a thread holds R x V cells in registers: 64 floats or 32 doubles).
template <class T>
struct ResidentTile {
  static constexpr int Threads = 256, V = 4, R = sizeof(T) <= 4 ? 16 : 8;
  static constexpr int cols = Threads * V;
};

// Where the resident kernel's arrays are, in grid orientation (row and column strides in
// elements), and the memory its tiles exchange edges through: `signals` (a counter a tile), then
// `across` (the rows of the boundaries between tile rows: for each parity and boundary, the lower
// row of the upper tile and the upper row of the lower one, `cols` cells each) and `down` (the
// columns of the boundaries between tile columns, likewise, `rows` cells each).
template <class T>
struct ResidentArgs {
  T* field;  // read at the start and written at the end, in place
  std::int64_t f_row, f_col;
  T* lapl;  // step s's Laplacian at lapl + (s - 1) l_plane (diffuse: l_plane 0, one plane)
  std::int64_t l_row, l_col, l_plane;
  int rows, cols, tiles_down, tiles_across, steps;
  bool every_step;  // every step's Laplacian (else the last one's)
  bool wide_lapl;   // lapl's rows: unit column stride, aligned to Chunk<T, V>
  T coeff;
  int* signals;
  T* across;
  T* down;
};

// The edge buffers' words (in T) and the signals' for a field of rows x cols: what the kernel
// needs of the buffer it borrows.
template <class T>
struct ResidentMemory {
  std::int64_t tiles_down, tiles_across, signal_words, across_words, down_words;
  ResidentMemory(std::int64_t rows, std::int64_t cols)
      : tiles_down((rows + ResidentTile<T>::R - 1) / ResidentTile<T>::R),
        tiles_across((cols + ResidentTile<T>::cols - 1) / ResidentTile<T>::cols),
        // a 4-byte counter a tile, in whole words of T (at most a word a tile: never more than the
        // field's cells, whose tiles are at most one a cell)
        signal_words((tiles_down * tiles_across * 4 + std::int64_t(sizeof(T)) - 1) /
                     std::int64_t(sizeof(T))),
        across_words(2 * (tiles_down - 1) * 2 * cols),
        down_words(2 * (tiles_across - 1) * 2 * rows) {}
  std::int64_t words() const { return signal_words + across_words + down_words; }
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)

template <class T, int R, int V, int Threads>
__global__ void __launch_bounds__(Threads, 2) diffusion_resident(ResidentArgs<T> a) {
  namespace cu = unison::backends::cuda;
  constexpr int W = Threads / 32;
  // lane 0's first column of warp w at first[w] (first[W]: the tile to the right's left edge);
  // lane 31's last column of warp w at last[w + 1] (last[0]: the tile to the left's right edge)
  __shared__ T first[W + 1][R], last[W + 1][R];
  __shared__ T below_row[V][Threads];  // the row below the tile, for each thread's cells
  const int t = int(threadIdx.x), lane = t & 31, w = t >> 5;
  const int tile = int(blockIdx.x), tr = tile / a.tiles_across, tc = tile % a.tiles_across;
  const int r0 = tr * R, c0 = (tc * Threads + t) * V;
  const bool above = tr > 0, below = tr + 1 < a.tiles_down, left = tc > 0,
             right = tc + 1 < a.tiles_across;
  const std::int64_t across_plane = std::int64_t(a.tiles_down - 1) * 2 * a.cols,
                     down_plane = std::int64_t(a.tiles_across - 1) * 2 * a.rows;
  // Edge rows and columns of step parity p: the boundary below tile row b (side 0: its lower row,
  // 1: the next tile row's upper row), the boundary right of tile column b (0: its right column,
  // 1: the next tile column's left column).
  // (The bases are made opaque at each use, so that the compiler does not keep every edge's
  // address in registers for the whole call.)
  const auto edge_row = [&](int p, int b, int side) {
    T* base = a.across;
    asm volatile("" : "+l"(base));
    return base + p * across_plane + (std::int64_t(b) * 2 + side) * a.cols;
  };
  const auto edge_col = [&](int p, int b, int side) {
    T* base = a.down;
    asm volatile("" : "+l"(base));
    return base + p * down_plane + (std::int64_t(b) * 2 + side) * a.rows;
  };
  bool col_in[V];
#pragma unroll
  for (int k = 0; k < V; ++k) col_in[k] = c0 + k < a.cols;

  T v[R][V];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int k = 0; k < V; ++k)
      v[i][k] = r0 + i < a.rows && col_in[k]
                    ? a.field[(r0 + i) * a.f_row + std::int64_t(c0 + k) * a.f_col]
                    : T(0);

  // Publishes the tile's edges of the field after `done` steps (parity done % 2) and the count
  // done + 1.
  const auto publish = [&](int done) {
    const int p = done & 1;
    if (above) {
      T* e = edge_row(p, tr - 1, 1);
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (col_in[k]) e[c0 + k] = v[0][k];
    }
    if (below) {
      T* e = edge_row(p, tr, 0);
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (col_in[k]) e[c0 + k] = v[R - 1][k];
    }
    // A tile with a neighbour to its right is whole: its thread 0 and Threads - 1 hold its edges.
    if (left && t == 0) {
      T* e = edge_col(p, tc - 1, 1);
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (r0 + i < a.rows) e[r0 + i] = v[i][0];
    }
    if (right && t == Threads - 1) {
      T* e = edge_col(p, tc, 0);
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (r0 + i < a.rows) e[r0 + i] = v[i][V - 1];
    }
    cu::publish(a.signals + tile, done + 1);
  };
  publish(0);

  for (int s = 1; s <= a.steps; ++s) {
    const int p = (s - 1) & 1;
    // Each of four threads waits for one neighbour's edges after step s - 1.
    if (t == 0 && above) cu::wait_for(a.signals + tile - a.tiles_across, s);
    if (t == 1 && below) cu::wait_for(a.signals + tile + a.tiles_across, s);
    if (t == 2 && left) cu::wait_for(a.signals + tile - 1, s);
    if (t == 3 && right) cu::wait_for(a.signals + tile + 1, s);
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < R; ++i) first[w][i] = v[i][0];
    if (lane == 31)
#pragma unroll
      for (int i = 0; i < R; ++i) last[w + 1][i] = v[i][V - 1];
    __syncthreads();
    // The tiles beside this one: their edge columns (0 past the field's edges).
    if (t < R) {
      const int r = r0 + t;
      last[0][t] = left && r < a.rows ? cu::load_shared_l2(edge_col(p, tc - 1, 0) + r) : T(0);
    } else if (t < 2 * R) {
      const int r = r0 + t - R;
      first[W][t - R] = right && r < a.rows ? cu::load_shared_l2(edge_col(p, tc, 1) + r) : T(0);
    }
    // The rows above and below the tile (0 past the field's edges).
    // (the row below waits in shared memory, not in registers, until the last row needs it)
    T up[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      up[k] = above && col_in[k] ? cu::load_shared_l2(edge_row(p, tr - 1, 0) + c0 + k) : T(0);
      below_row[k][t] = below && col_in[k] ? cu::load_shared_l2(edge_row(p, tr, 1) + c0 + k) : T(0);
    }
    __syncthreads();
    const bool write = a.every_step || s == a.steps;
    // The Laplacian's first cell of this thread, and its row stride, made opaque to the compiler
    // each step: otherwise it keeps the address of every row in registers for the whole call.
    T* lapl_at = a.lapl + std::int64_t(s - 1) * a.l_plane + std::int64_t(r0) * a.l_row +
                 std::int64_t(c0) * a.l_col;
    std::int64_t l_row = a.l_row;
    asm volatile("" : "+l"(lapl_at), "+l"(l_row));
#pragma unroll
    for (int i = 0; i < R; ++i) {
      T l = __shfl_up_sync(0xffffffffu, v[i][V - 1], 1),
        r = __shfl_down_sync(0xffffffffu, v[i][0], 1);
      if (lane == 0) l = last[w][i];
      if (lane == 31) r = first[w + 1][i];
      const bool row_in = r0 + i < a.rows;
      T n[V];
      Chunk<T, V> lap;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        stencil<T>(v[i][k], up[k], i + 1 < R ? v[i + 1][k] : below_row[k][t],
                   k > 0 ? v[i][k - 1] : l, k + 1 < V ? v[i][k + 1] : r, a.coeff, lap.v[k], n[k]);
        if (!(row_in && col_in[k])) n[k] = T(0);  // outside the field: 0 at every step
      }
      if (write && row_in) {
        T* out = lapl_at + i * l_row;
        if (a.wide_lapl && col_in[V - 1]) {
          *reinterpret_cast<Chunk<T, V>*>(out) = lap;
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (col_in[k]) out[k * a.l_col] = lap.v[k];
        }
      }
#pragma unroll
      for (int k = 0; k < V; ++k) {
        up[k] = v[i][k];
        v[i][k] = n[k];
      }
    }
    if (s < a.steps) publish(s);  // (its barrier also ends this step's reads of first and last)
  }

#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (r0 + i < a.rows && col_in[k])
        a.field[(r0 + i) * a.f_row + std::int64_t(c0 + k) * a.f_col] = v[i][k];
}

// The resident kernel's instantiation for T.
template <class T>
constexpr auto resident_kernel() {
  using Tile = ResidentTile<T>;
  return &diffusion_resident<T, Tile::R, Tile::V, Tile::Threads>;
}

#endif  // KOKKOS_ENABLE_CUDA && __CUDACC__

// Whether Exec has the resident kernel.
template <class Exec>
inline constexpr bool resident_available_v =
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
    std::is_same_v<Exec, Kokkos::Cuda>;
#else
    false;
#endif

// Whether the resident form can run a field of rows x cols of T on exec, with a buffer of `words`
// elements of T to borrow: a CUDA GPU that holds all its tiles at once. Never elsewhere.
template <class Exec, class T>
bool resident_fits(const Exec& exec, std::int64_t rows, std::int64_t cols, std::int64_t words) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    if (rows <= 0 || cols <= 0 || rows > INT32_MAX / 2 || cols > INT32_MAX / 2) return false;
    const ResidentMemory<T> m(rows, cols);
    if (m.words() > words) return false;
    const std::int64_t most =
        backends::cuda::resident_blocks(exec, resident_kernel<T>(), ResidentTile<T>::Threads);
    return m.tiles_down * m.tiles_across <= most;
  }
#endif
  (void)exec, (void)rows, (void)cols, (void)words;
  return false;
}

// Enqueues `steps` steps of the resident kernel on field (a FieldView, advanced in place), the
// Laplacians to lapl (every step's, step s's `plane` elements after step 1's, or the last one's),
// its edges and signals in `spare` (a FieldView of the field's size whose contents it overwrites).
// resident_fits must hold.
template <class Exec, class F, class L>
void resident_pass(const Exec& exec, const F& field, const F& spare, const L& lapl,
                   std::int64_t plane, std::int64_t steps, typename F::non_const_value_type coeff,
                   bool every_step) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using T = typename F::non_const_value_type;
    constexpr bool tr = transposed_v<F>;
    constexpr int V = ResidentTile<T>::V;
    const std::int64_t rows = tr ? field.extent(1) : field.extent(0),
                       cols = tr ? field.extent(0) : field.extent(1);
    const ResidentMemory<T> m(rows, cols);
    ResidentArgs<T> a{};
    a.field = field.data();
    a.f_row = tr ? field.stride(1) : field.stride(0);
    a.f_col = tr ? field.stride(0) : field.stride(1);
    a.lapl = lapl.data();
    a.l_row = tr ? lapl.stride(1) : lapl.stride(0);
    a.l_col = tr ? lapl.stride(0) : lapl.stride(1);
    a.l_plane = every_step ? plane : 0;
    a.rows = int(rows);
    a.cols = int(cols);
    a.tiles_down = int(m.tiles_down);
    a.tiles_across = int(m.tiles_across);
    a.steps = int(steps);
    a.every_step = every_step;
    a.wide_lapl = a.l_col == 1 &&
                  reinterpret_cast<std::uintptr_t>(lapl.data()) % alignof(Chunk<T, V>) == 0 &&
                  (std::size_t(a.l_row) * sizeof(T)) % alignof(Chunk<T, V>) == 0;
    a.coeff = coeff;
    a.signals = reinterpret_cast<int*>(spare.data());
    a.across = spare.data() + m.signal_words;
    a.down = a.across + m.across_words;
    backends::cuda::zero_async(exec, a.signals, std::size_t(m.signal_words) * sizeof(T));
    backends::cuda::launch_resident("unison::diffusion::resident", exec, resident_kernel<T>(),
                                    m.tiles_down * m.tiles_across, ResidentTile<T>::Threads, a);
    return;
  }
#endif
  (void)exec, (void)field, (void)spare, (void)lapl, (void)plane, (void)steps, (void)coeff,
      (void)every_step;
  throw std::logic_error("unison: the resident diffusion kernel needs a CUDA GPU");
}

}  // namespace unison::detail::diffusion
