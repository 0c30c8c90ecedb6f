#pragma once
/// \file unison/mpi.hpp
/// Unison under MPI (the optional component Unison::mpi; CMake option UNISON_ENABLE_MPI): the
/// same kernels on every rank of the caller's communicator, one rank per GPU (or per CPU
/// socket), and MPI for what crosses ranks.
///  - diffuse() on a field split into a 2-D grid of blocks (decompose()): one-cell halos are
///    exchanged every step while the interior of each block is updated; the result is bitwise
///    that of unison::diffuse on the whole field, on the same backend, for every decomposition.
///  - matmul_reduce() with A split by rows over the ranks and B on every rank: each rank's
///    column sums are added across ranks with MPI_Allreduce.
///  - jagged_field() writes each rank's block of the image unison::jagged_field would make.
/// Buffers go to MPI straight from GPU memory when the MPI library takes device pointers
/// (gpu_aware()), else through pinned host memory (Transport).
///
/// Every function here is collective over the communicator: each rank calls it, with the same
/// steps, coefficients and options. Arguments are checked on each rank and the ranks agree before
/// any message is sent: when one rank's arguments are refused, every rank throws
/// unison::invalid_argument (that rank with its own message, the others with one naming it), so
/// that no rank waits for a message that will never come.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/backends/streams.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/impl/allocate.hpp>
#include <unison/impl/checks.hpp>
#include <unison/matmul.hpp>

namespace unison::mpi {

/// How data that crosses ranks reaches MPI: `device` hands MPI pointers to the Views' own memory
/// (GPU memory on a GPU backend: needs a GPU-aware MPI); `host` copies GPU data into pinned host
/// memory first and back after; `automatic` is `device` on the host backends and where
/// gpu_aware() says yes, else `host`.
enum class Transport { automatic, device, host };

/// Whether the MPI library in use takes CUDA device pointers: Open MPI's MPIX_Query_cuda_support()
/// where the MPI headers offer it, else false. The environment variable UNISON_MPI_GPU_AWARE
/// (1 or 0) overrides the answer, for MPI libraries that have no such query.
bool gpu_aware();

/// A 2-D field of nx x ny cells split into a grid of dims[0] x dims[1] blocks, one per rank of
/// a communicator: rank r holds block (r / dims[1], r % dims[1]) (rows of the grid split the
/// field's first index). Blocks differ by at most one row or column: along an axis of n cells in
/// p blocks the first n % p blocks have one more. Made by decompose(); holds a duplicate of the
/// caller's communicator for Unison's own messages (freed with the last copy of the object).
struct Decomposition {
  MPI_Comm comm = MPI_COMM_NULL;            ///< Unison's duplicate of the caller's communicator
  int rank = 0, size = 0;                   ///< this rank and the number of ranks
  std::array<int, 2> dims{};                ///< blocks along the first and the second index
  std::array<int, 2> coords{};              ///< this rank's block in the grid of blocks
  std::int64_t nx = 0, ny = 0;              ///< the whole field
  std::int64_t x0 = 0, y0 = 0;              ///< this block's first cell in the whole field
  std::int64_t local_nx = 0, local_ny = 0;  ///< this block's extents
  /// The ranks holding the neighbouring blocks: rows x0 - 1 (north) and x0 + local_nx (south),
  /// columns y0 - 1 (west) and y0 + local_ny (east); MPI_PROC_NULL at the field's edge.
  int north = MPI_PROC_NULL, south = MPI_PROC_NULL, west = MPI_PROC_NULL, east = MPI_PROC_NULL;
  std::shared_ptr<const MPI_Comm> owner;  ///< frees comm

  /// Whether any neighbouring block exists (false on a single rank).
  bool has_neighbours() const {
    return north != MPI_PROC_NULL || south != MPI_PROC_NULL || west != MPI_PROC_NULL ||
           east != MPI_PROC_NULL;
  }
};

/// The first index of block p when n cells are split into `parts` blocks (block p holds
/// [block_begin(n, parts, p), block_begin(n, parts, p + 1))).
inline std::int64_t block_begin(std::int64_t n, int parts, int p) {
  return p * (n / parts) + std::min<std::int64_t>(p, n % parts);
}

/// Splits a field of nx x ny cells over the ranks of `comm` (collective). dims {0, 0}: the grid
/// of blocks with the shortest halo ((dims[0] - 1) * ny + (dims[1] - 1) * nx cells) among those
/// whose blocks all hold at least one row and one column; one of dims 0: the other is given and
/// must divide the number of ranks; both given: their product must be the number of ranks.
/// Throws unison::invalid_argument (on every rank) for comm MPI_COMM_NULL, extents or dims
/// that differ between ranks, a negative dim, dims whose product is not the number of ranks,
/// or a field with fewer rows or columns than blocks along that axis.
Decomposition decompose(MPI_Comm comm, std::int64_t nx, std::int64_t ny,
                        std::array<int, 2> dims = {0, 0});

/// Options of mpi::diffuse.
struct ExchangeOptions {
  Transport transport = Transport::automatic;
  /// Update each block's interior while its halos travel, then its edge cells (true); or
  /// exchange the halos first and update every cell after (false: the comparison that shows
  /// what the overlap hides).
  bool overlap = true;
};

namespace impl {

using unison::impl::fail;
using unison::impl::require;

template <class T>
MPI_Datatype datatype() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "unison::mpi: values must be float or double");
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else return MPI_DOUBLE;
}

/// Throws std::runtime_error naming fn and the MPI call when an MPI call failed (only reached
/// when the communicator's error handler returns errors instead of aborting).
void check_mpi(int code, const char* fn, const char* call);

/// The check of Decomposition objects that precedes any collective use: a communicator to agree on.
void check_decomposition(const Decomposition& d, const char* fn);

/// Every rank runs check() (its own arguments' checks); then the ranks agree over comm: if a rank's
/// check threw unison::invalid_argument, or a value in `same` differs between ranks, every rank
/// throws. `same` holds (name, value) pairs that every rank must pass alike.
void agree_on(MPI_Comm comm, const char* fn, const std::string& local_error,
              const std::vector<std::pair<const char*, long long>>& same);

template <class Check>
void agree(MPI_Comm comm, const char* fn, Check&& check,
           const std::vector<std::pair<const char*, long long>>& same = {}) {
  std::string error;
  try {
    check();
  } catch (const unison::invalid_argument& e) {
    error = e.what();
    if (error.empty()) error = std::string(fn) + ": invalid argument";
  }
  agree_on(comm, fn, error, same);
}

/// A double's bits, for agreement on floating-point arguments (NaN and -0.0 included).
inline long long bits(double x) {
  long long b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// Whether buffers of exec's memory go to MPI as they are.
template <class Exec>
bool direct(Transport t) {
  if constexpr (!backends::asynchronous_v<Exec>) return true;
  else return t == Transport::device || (t == Transport::automatic && gpu_aware());
}

/// f has the extents of this rank's block of d.
template <class F>
void check_block(const char* fn, const Decomposition& d, const F& f) {
  require(std::int64_t(f.extent(0)) == d.local_nx && std::int64_t(f.extent(1)) == d.local_ny, fn,
          "f is ", f.extent(0), "x", f.extent(1), ", expected this rank's block, ", d.local_nx, "x",
          d.local_ny);
}

template <class Exec>
void check_transport(const char* fn, Transport t) {
  require(t == Transport::automatic || t == Transport::device || t == Transport::host, fn,
          "unknown transport ", int(t));
  if constexpr (backends::asynchronous_v<Exec>)
    require(t != Transport::device || gpu_aware(), fn,
            "Transport::device needs an MPI that takes GPU pointers, and this one does not say so "
            "(set UNISON_MPI_GPU_AWARE=1 if it does)");
}

// The padded copy of a block: one ghost cell around it, (local_nx + 2) x (local_ny + 2), in the
// layout diffuse uses for the field.
template <class F>
using Padded = Kokkos::View<typename F::non_const_value_type**, unison::impl::diffusion_layout_t<F>,
                            typename F::memory_space>;

// One diffusion step of the cells of a block's grid (rows across its contiguous axis, as the
// single-rank kernels see it): cell (r, c) is padded cell (r + 1, c + 1) of cur; its neighbours
// are other cells of the block or ghost cells, which hold the neighbouring blocks' cells (or 0 at
// the field's edge). The arithmetic is unison::impl::stencil, as in every single-rank kernel.
template <bool Tr, class P, class L>
struct HaloStencil {
  using T = typename P::non_const_value_type;
  typename P::const_type cur;
  P next;
  L lapl;
  T coeff;
  bool write_lapl;

  KOKKOS_FORCEINLINE_FUNCTION void cell(std::int64_t r, std::int64_t c) const {
    using unison::impl::cell;
    T lap, v;
    unison::impl::stencil<T>(cell<Tr>(cur, r + 1, c + 1), cell<Tr>(cur, r, c + 1),
                             cell<Tr>(cur, r + 2, c + 1), cell<Tr>(cur, r + 1, c),
                             cell<Tr>(cur, r + 1, c + 2), coeff, lap, v);
    cell<Tr>(next, r + 1, c + 1) = v;
    if (write_lapl) cell<Tr>(lapl, r, c) = lap;
  }
};

// The cells [r0, r0 + rows) x [c0, c0 + cols) of the grid: a team per segment of `width`
// columns of a grid row (segments of them per row), its threads along the row (the contiguous
// axis). Each thread loads the neighbours of U cells, a team's width apart, before it computes
// and stores any: U cells' loads in flight at once (one cell at a time, the stores of a cell
// could alias the next cell's loads as far as the compiler knows; docs/tuning.md).
template <bool Tr, class P, class L, int U>
struct HaloStencilRows : HaloStencil<Tr, P, L> {
  using T = typename P::non_const_value_type;
  std::int64_t r0, c0, cols, segments, width;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    using unison::impl::cell;
    const std::int64_t league = team.league_rank();
    const std::int64_t r = r0 + league / segments + 1;  // padded row
    const std::int64_t begin = league % segments * width;
    const std::int64_t end = begin + width < cols ? begin + width : cols;
    const std::int64_t threads = team.team_size();
    for (std::int64_t base = begin + team.team_rank(); base < end; base += U * threads) {
      T mid[U] = {}, up[U] = {}, down[U] = {}, left[U] = {}, right[U] = {};
      for (int u = 0; u < U; ++u) {
        const std::int64_t k = base + u * threads, c = c0 + k + 1;  // padded column
        if (k < end) {
          mid[u] = cell<Tr>(this->cur, r, c);
          up[u] = cell<Tr>(this->cur, r - 1, c);
          down[u] = cell<Tr>(this->cur, r + 1, c);
          left[u] = cell<Tr>(this->cur, r, c - 1);
          right[u] = cell<Tr>(this->cur, r, c + 1);
        }
      }
      for (int u = 0; u < U; ++u) {
        const std::int64_t k = base + u * threads, c = c0 + k + 1;
        if (k < end) {
          T lap, v;
          unison::impl::stencil<T>(mid[u], up[u], down[u], left[u], right[u], this->coeff, lap, v);
          cell<Tr>(this->next, r, c) = v;
          if (this->write_lapl) cell<Tr>(this->lapl, r - 1, c - 1) = lap;
        }
      }
    }
  }
};

// The launch shape of HaloStencilRows: on a GPU teams of 256 threads, 4 cells each, over
// segments of 1024 columns; on the host backends a team of one thread per grid row.
template <class Exec>
struct HaloRowsShape {
  static constexpr bool gpu = backends::asynchronous_v<Exec>;
  static constexpr int cells = 4;
  static constexpr int team = gpu ? 256 : 1;
  static std::int64_t width(std::int64_t cols) { return gpu ? std::int64_t(team) * cells : cols; }
  static std::int64_t segments(std::int64_t cols) {
    const std::int64_t w = width(cols);
    return w > 0 ? (cols + w - 1) / w : 1;
  }
  static std::int64_t teams(std::int64_t rows, std::int64_t cols) { return rows * segments(cols); }
};

// The ring of a grid of rows x cols cells that is not [1, rows - 1) x [1, cols - 1): the cells
// that read ghost cells. Item k: the first row, then the last, then the first and last cells of
// the rows between.
template <bool Tr, class P, class L>
struct HaloStencilRing : HaloStencil<Tr, P, L> {
  std::int64_t rows, cols;
  static std::int64_t size(std::int64_t rows, std::int64_t cols) {
    return cols * std::min<std::int64_t>(rows, 2) +
           std::max<std::int64_t>(rows - 2, 0) * std::min<std::int64_t>(cols, 2);
  }
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < cols) return this->cell(0, k);
    k -= cols;
    if (rows > 1) {
      if (k < cols) return this->cell(rows - 1, k);
      k -= cols;
    }
    if (cols > 1) this->cell(1 + k / 2, k % 2 == 1 ? cols - 1 : 0);
    else this->cell(1 + k, 0);
  }
};

// The halo buffers of a block of nx x ny cells, in four segments: north (ny cells: the block's
// first row), south (ny: its last row), west (nx: its first column), east (nx: its last column).
inline std::array<std::int64_t, 5> segments(std::int64_t nx, std::int64_t ny) {
  return {0, ny, 2 * ny, 2 * ny + nx, 2 * ny + 2 * nx};
}

// Copies the block's edge cells (padded cur) into the send buffer, by segment.
template <class P, class B>
struct HaloPack {
  typename P::const_type cur;
  B send;
  std::int64_t nx, ny;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < ny) send(k) = cur(1, k + 1);
    else if (k < 2 * ny) send(k) = cur(nx, k - ny + 1);
    else if (k < 2 * ny + nx) send(k) = cur(k - 2 * ny + 1, 1);
    else send(k) = cur(k - 2 * ny - nx + 1, ny);
  }
};

// Copies the received segments into the ghost cells of padded cur: north into row 0, south into
// row nx + 1, west into column 0, east into column ny + 1; only the segments whose neighbour
// exists (the other ghost cells stay 0, the field's edge).
template <class P, class B>
struct HaloUnpack {
  P cur;
  typename B::const_type recv;
  std::int64_t nx, ny;
  bool north, south, west, east;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    if (k < ny) {
      if (north) cur(0, k + 1) = recv(k);
    } else if (k < 2 * ny) {
      if (south) cur(nx + 1, k - ny + 1) = recv(k);
    } else if (k < 2 * ny + nx) {
      if (west) cur(k - 2 * ny + 1, 0) = recv(k);
    } else if (east) {
      cur(k - 2 * ny - nx + 1, ny + 1) = recv(k);
    }
  }
};

// The halo exchange of one block: Irecv from each neighbour into its segment of recv, Isend of
// the matching segment of send, and the wait. Tags name the direction a message travels.
class Exchange {
 public:
  Exchange(const Decomposition& d, MPI_Datatype type) : d_(d), type_(type) {}

  template <class T>
  void receive(T* recv) {
    const auto s = segments(d_.local_nx, d_.local_ny);
    count_ = 0;
    post_recv(recv + s[0], s[1] - s[0], d_.north, southward);
    post_recv(recv + s[1], s[2] - s[1], d_.south, northward);
    post_recv(recv + s[2], s[3] - s[2], d_.west, eastward);
    post_recv(recv + s[3], s[4] - s[3], d_.east, westward);
  }
  template <class T>
  void send(T* send) {
    const auto s = segments(d_.local_nx, d_.local_ny);
    post_send(send + s[0], s[1] - s[0], d_.north, northward);
    post_send(send + s[1], s[2] - s[1], d_.south, southward);
    post_send(send + s[2], s[3] - s[2], d_.west, westward);
    post_send(send + s[3], s[4] - s[3], d_.east, eastward);
  }
  void wait() {
    check_mpi(MPI_Waitall(count_, requests_.data(), MPI_STATUSES_IGNORE), "unison::mpi::diffuse",
              "MPI_Waitall");
    count_ = 0;
  }

 private:
  enum Tag { northward = 11, southward, westward, eastward };
  void post_recv(void* p, std::int64_t n, int from, int tag) {
    if (from == MPI_PROC_NULL || n == 0) return;
    check_mpi(MPI_Irecv(p, int(n), type_, from, tag, d_.comm, &requests_[count_++]),
              "unison::mpi::diffuse", "MPI_Irecv");
  }
  void post_send(void* p, std::int64_t n, int to, int tag) {
    if (to == MPI_PROC_NULL || n == 0) return;
    check_mpi(MPI_Isend(p, int(n), type_, to, tag, d_.comm, &requests_[count_++]),
              "unison::mpi::diffuse", "MPI_Isend");
  }
  const Decomposition& d_;
  MPI_Datatype type_;
  std::array<MPI_Request, 8> requests_{};
  int count_ = 0;
};

}  // namespace impl

/// Advances the distributed field by `steps` diffusion steps (unison::diffuse's step: the
/// 5-point Laplacian, 0 outside the whole field), in place: f is this rank's block of the field
/// split by `d` (local_nx x local_ny), lapl receives this block's Laplacian of every step
/// (Laplacian::every_step) or only of the final step (Laplacian::final_only); either way it ends
/// holding the Laplacian of the field before the last step. f and lapl: rank-2 Views of float or
/// double, any layout, accessible from exec. Every rank calls it with the same steps, coeff,
/// which and options (collective over d.comm).
/// Each step, the block's edge cells go to the neighbouring ranks and theirs come back into a
/// one-cell ghost ring, while the block's interior cells (those with no neighbour outside the
/// block) are updated (options.overlap); then the edge cells are updated. On a GPU the halo
/// work (packing, the copies through host memory when the transport is `host`, unpacking, the
/// edge cells) runs on a second stream of the highest priority beside the interior update,
/// the two streams ordered by events once a step; the host waits only for the packed halo. A
/// rank without neighbours updates its block in one kernel per step.
/// The result is bitwise that of unison::diffuse on the whole field on the same backend, for
/// every decomposition: each cell sees the same neighbour values and the same arithmetic.
/// Memory: two padded copies of the block ("unison::mpi::diffusion::field"), halo buffers of
/// 2 (local_nx + local_ny) values on the device and, with the host transport, in pinned host
/// memory. Blocks: returns once the work is done, the block in f.
/// Throws unison::invalid_argument (on every rank, see the file's comment) for a Decomposition not
/// made by decompose() (this rank only: there is no communicator to agree on), f or lapl whose
/// extents are not the block's, lapl overlapping f, negative steps, a coeff that is not finite,
/// an unknown Laplacian choice or transport, Transport::device on a GPU with an MPI that is not
/// GPU-aware, steps, coeff, which or options that differ between ranks, a block with more than
/// 2^31 - 1 rows or columns, or buffers that do not fit in memory.
/// Kernels: "unison::mpi::diffusion::{interior,edges,block}" (the interior, the ring of edge
/// cells, every cell at once), "unison::mpi::diffusion::{pack,unpack}" (halos).
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const Decomposition& d, const F& f, std::int64_t steps, double coeff,
             const L& lapl, Laplacian which = Laplacian::every_step,
             const ExchangeOptions& options = {}) {
  unison::impl::static_checks<Exec, F, L>();
  using T = typename F::non_const_value_type;
  static_assert(std::is_same_v<typename L::non_const_value_type, T>,
                "unison::mpi::diffuse: f and lapl must have the same value type");
  static_assert(
      !std::is_const_v<typename F::value_type> && !std::is_const_v<typename L::value_type>,
      "unison::mpi::diffuse: f and lapl must have a non-const value type");
  constexpr const char* fn = "unison::mpi::diffuse";
  impl::check_decomposition(d, fn);
  impl::agree(
      d.comm, fn,
      [&] {
        impl::check_block(fn, d, f);
        unison::impl::check_field<Exec>(fn, f, lapl, coeff);
        unison::impl::check_disjoint(fn, "lapl", lapl, "f", f);
        impl::require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
        impl::require(which == Laplacian::every_step || which == Laplacian::final_only, fn,
                      "unknown Laplacian choice ", int(which));
        impl::check_transport<Exec>(fn, options.transport);
        constexpr bool tr = unison::impl::transposed_v<F>;
        using Shape = impl::HaloRowsShape<Exec>;
        const std::int64_t rows = tr ? d.local_ny : d.local_nx, cols = tr ? d.local_nx : d.local_ny;
        impl::require(std::max(rows, cols) <= std::numeric_limits<int>::max() &&
                          Shape::teams(rows, cols) <= std::numeric_limits<int>::max(),
                      fn, "the block is ", d.local_nx, "x", d.local_ny,
                      ": MPI messages take at most 2^31 - 1 values and a kernel launch at most "
                      "2^31 - 1 teams");
      },
      {{"steps", steps},
       {"coeff", impl::bits(coeff)},
       {"which (the Laplacian choice)", (long long)which},
       {"options.transport", (long long)options.transport},
       {"options.overlap", (long long)options.overlap}});
  if (steps == 0) return;

  using P = impl::Padded<F>;
  using Mem = typename F::memory_space;
  using Buffer = Kokkos::View<T*, Mem>;
  constexpr bool tr = unison::impl::transposed_v<F>;
  const std::int64_t nx = d.local_nx, ny = d.local_ny;
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;  // the grid of the kernels
  const std::int64_t halo = 2 * (nx + ny);
  const bool neighbours = d.has_neighbours();
  const bool direct = impl::direct<Exec>(options.transport);
  const T c = T(coeff);

  // Buffers, allocated on every rank before any message (an allocation refusal is agreed on).
  P cur, nxt;
  Buffer send, recv;
  Kokkos::View<T*, Kokkos::SharedHostPinnedSpace> send_host, recv_host;
  impl::agree(d.comm, fn, [&] {
    cur = unison::impl::allocate<P>(fn, "the padded block", exec, "unison::mpi::diffusion::field",
                                    nx + 2, ny + 2);
    nxt = unison::impl::allocate<P>(fn, "the second padded block", exec,
                                    "unison::mpi::diffusion::field", nx + 2, ny + 2);
    if (neighbours) {
      send = unison::impl::allocate<Buffer>(fn, "the halo send buffer", exec,
                                            "unison::mpi::diffusion::send", halo);
      recv = unison::impl::allocate<Buffer>(fn, "the halo receive buffer", exec,
                                            "unison::mpi::diffusion::recv", halo);
      if (!direct) {
        using Host = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
        send_host = unison::impl::allocate<Host>(fn, "the pinned halo send buffer", exec,
                                                 "unison::mpi::diffusion::send_host", halo);
        recv_host = unison::impl::allocate<Host>(fn, "the pinned halo receive buffer", exec,
                                                 "unison::mpi::diffusion::recv_host", halo);
      }
    }
  });
  // Ghost cells at the field's edge must read 0 in both buffers, for every step.
  Kokkos::deep_copy(exec, cur, T(0));
  Kokkos::deep_copy(exec, nxt, T(0));
  const auto inside = [&](const P& p) {
    return Kokkos::subview(p, std::pair<std::int64_t, std::int64_t>(1, nx + 1),
                           std::pair<std::int64_t, std::int64_t>(1, ny + 1));
  };
  Kokkos::deep_copy(exec, inside(cur), f);

  using Shape = impl::HaloRowsShape<Exec>;
  using Rows = impl::HaloStencilRows<tr, P, L, Shape::cells>;
  using Ring = impl::HaloStencilRing<tr, P, L>;
  // Enqueues the update of grid rows [r0, r0 + n) x columns [c0, c0 + m) on `on`.
  const auto update_rows = [&](const Exec& on, const char* label, std::int64_t r0, std::int64_t n,
                               std::int64_t c0, std::int64_t m, bool write_lapl) {
    if (n <= 0 || m <= 0) return;
    Kokkos::parallel_for(
        label, Kokkos::TeamPolicy<Exec>(on, int(Shape::teams(n, m)), Shape::team),
        Rows{{cur, nxt, lapl, c, write_lapl}, r0, c0, m, Shape::segments(m), Shape::width(m)});
  };
  const auto update_ring = [&](const Exec& on, bool write_lapl) {
    Kokkos::parallel_for(
        "unison::mpi::diffusion::edges",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, Ring::size(rows, cols)),
        Ring{{cur, nxt, lapl, c, write_lapl}, rows, cols});
  };
  const auto pack = [&](const Exec& on) {
    Kokkos::parallel_for("unison::mpi::diffusion::pack",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, halo),
                         impl::HaloPack<P, Buffer>{cur, send, nx, ny});
    if (!direct) Kokkos::deep_copy(on, send_host, send);
  };
  const auto unpack = [&](const Exec& on) {
    if (!direct) Kokkos::deep_copy(on, recv, recv_host);
    Kokkos::parallel_for("unison::mpi::diffusion::unpack",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, halo),
                         impl::HaloUnpack<P, Buffer>{
                             cur, recv, nx, ny, d.north != MPI_PROC_NULL, d.south != MPI_PROC_NULL,
                             d.west != MPI_PROC_NULL, d.east != MPI_PROC_NULL});
  };
  T* const send_ptr = direct ? send.data() : send_host.data();
  T* const recv_ptr = direct ? recv.data() : recv_host.data();

  impl::Exchange exchange(d, impl::datatype<T>());
  const Exec side = neighbours && options.overlap ? backends::side_instance(exec) : exec;
  backends::StreamOrder<Exec> side_after_exec, exec_after_side;
  for (std::int64_t s = 0; s < steps; ++s) {
    const bool write_lapl = which == Laplacian::every_step || s + 1 == steps;
    if (!neighbours) {
      update_rows(exec, "unison::mpi::diffusion::block", 0, rows, 0, cols, write_lapl);
    } else if (!options.overlap) {
      pack(exec);
      // The fence also finishes the last step's copies out of recv: receives may land now.
      exec.fence("unison::mpi::diffuse: halo packed");
      exchange.receive(recv_ptr);
      exchange.send(send_ptr);
      exchange.wait();
      unpack(exec);
      update_rows(exec, "unison::mpi::diffusion::block", 0, rows, 0, cols, write_lapl);
    } else {
      // Both instances start the step once both have finished the last: the halo work reads
      // what the last interior update wrote, the interior update what the last edge update did.
      exec_after_side.after(exec, side);
      side_after_exec.after(side, exec);
      pack(side);
      // On a GPU the interior update is queued before the host waits for the packed halo (the
      // wait also finishes the last step's copies out of recv, so receives may land after it);
      // on the host backends the update runs in the call, so the messages go out first.
      if constexpr (backends::asynchronous_v<Exec>)
        update_rows(exec, "unison::mpi::diffusion::interior", 1, rows - 2, 1, cols - 2, write_lapl);
      side.fence("unison::mpi::diffuse: halo packed");
      exchange.receive(recv_ptr);
      exchange.send(send_ptr);
      if constexpr (!backends::asynchronous_v<Exec>)
        update_rows(exec, "unison::mpi::diffusion::interior", 1, rows - 2, 1, cols - 2, write_lapl);
      exchange.wait();
      // The edge cells on the halo instance too, beside the interior update: on a GPU the
      // interior's stream then runs one interior update after the other.
      unpack(side);
      update_ring(side, write_lapl);
    }
    std::swap(cur, nxt);
  }
  exec_after_side.after(exec, side);
  Kokkos::deep_copy(exec, f, inside(cur));
  exec.fence("unison::mpi::diffuse: release buffers");
}

/// Fills this rank's block f (local_nx x local_ny of d) with its part of the jagged image that
/// unison::jagged_field(exec, whole, seed, zero_fraction) writes into the whole field: the same
/// values, bit for bit. The count of zeros is agreed over the ranks (about 30 MPI_Allreduce of
/// one integer). Collective over d.comm; blocks. Throws unison::invalid_argument (on every rank)
/// as unison::jagged_field does, and for f whose extents are not the block's or a seed or
/// zero_fraction that differs between ranks.
/// Kernels: unison::jagged_field's.
template <class Exec, class F>
void jagged_field(const Exec& exec, const Decomposition& d, const F& f,
                  std::uint64_t seed = 3966789, double zero_fraction = 0.7) {
  constexpr const char* fn = "unison::mpi::jagged_field";
  impl::check_decomposition(d, fn);
  impl::agree(d.comm, fn,
              [&] {
                impl::check_block(fn, d, f);
                impl::require(zero_fraction >= 0 && zero_fraction <= 1, fn, "zero_fraction is ",
                              zero_fraction, ", must be in [0, 1]");
              },
              {{"seed", (long long)seed}, {"zero_fraction", impl::bits(zero_fraction)}});
  unison::impl::jagged_block(
      fn, exec, f, seed, zero_fraction, d.x0, d.y0, d.nx * d.ny, [&](std::int64_t count) {
        long long local = count, total = 0;
        impl::check_mpi(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, d.comm), fn,
                        "MPI_Allreduce");
        return std::int64_t(total);
      });
}

/// out[j] = sum over all rows i of the distributed A of (A B)[i, j]: each rank passes its rows
/// of A (any number, 0 included: A split by rows, m_r x k on rank r) and the whole B (k x n, the
/// same on every rank); every rank receives the whole out (length n). Each rank runs
/// unison::matmul_reduce(exec, A, B, out, method) on its rows, then the ranks' column sums are
/// added with MPI_Allreduce (MPI_SUM) over comm (collective), from out's memory when the
/// transport allows, else through pinned host memory. The result equals the single-rank one
/// within rounding (the sums are grouped by rank, then as the MPI library adds them).
/// Types, layouts and methods as unison::matmul_reduce. Blocks: returns with out final.
/// Throws unison::invalid_argument (on every rank) for comm MPI_COMM_NULL (this rank only),
/// any check of unison::matmul_reduce on any rank (memory for its temporaries included: out is
/// then unspecified on the ranks whose part had run), an unknown transport, Transport::device
/// on a GPU with an MPI that is not GPU-aware, n above 2^31 - 1, or k, n, the method or the
/// transport differing between ranks.
/// Kernels: unison::matmul_reduce's.
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const Exec& exec, MPI_Comm comm, const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic,
                   Transport transport = Transport::automatic) {
  unison::impl::check_matmul_reduce_types<Exec, AV, BV, OV>();
  constexpr const char* fn = "unison::mpi::matmul_reduce";
  impl::require(comm != MPI_COMM_NULL, fn, "the communicator is MPI_COMM_NULL");
  using T = typename OV::non_const_value_type;
  impl::agree(comm, fn,
              [&] {
                unison::impl::check_matmul_reduce(A, B, out, method);
                impl::check_transport<Exec>(fn, transport);
                impl::require(out.extent(0) <= std::size_t(std::numeric_limits<int>::max()), fn,
                              "out has ", out.extent(0),
                              " elements: one MPI_Allreduce takes at most 2^31 - 1");
              },
              {{"k (A's columns)", (long long)A.extent(1)},
               {"n (B's columns)", (long long)B.extent(1)},
               {"method", (long long)method},
               {"transport", (long long)transport}});
  impl::agree(comm, fn, [&] { unison::matmul_reduce(exec, A, B, out, method); });
  const std::int64_t n = out.extent(0);
  // MPI adds contiguous arrays: out itself when it is contiguous and MPI may read its memory.
  using Contiguous = Kokkos::View<T*, typename OV::memory_space>;
  using Pinned = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
  const bool in_place = impl::direct<Exec>(transport) && out.span_is_contiguous();
  Contiguous staged;
  Pinned pinned;
  impl::agree(comm, fn, [&] {
    if (!out.span_is_contiguous())
      staged = unison::impl::allocate<Contiguous>(fn, "a contiguous copy of out", exec,
                                                  "unison::mpi::matmul_reduce::out", n);
    if (!impl::direct<Exec>(transport))
      pinned = unison::impl::allocate<Pinned>(fn, "the pinned copy of out", exec,
                                              "unison::mpi::matmul_reduce::out_host", n);
  });
  T* data = out.data();
  if (!in_place) {
    if (!out.span_is_contiguous()) {
      Kokkos::deep_copy(exec, staged, out);
      data = staged.data();
    }
    if (!impl::direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, pinned, Contiguous(out.data(), n));
      else Kokkos::deep_copy(exec, pinned, staged);
      data = pinned.data();
    }
  }
  exec.fence("unison::mpi::matmul_reduce: partial sums");
  impl::check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, int(n), impl::datatype<T>(), MPI_SUM, comm), fn,
                  "MPI_Allreduce");
  if (!in_place) {
    if (!impl::direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, Contiguous(out.data(), n), pinned);
      else Kokkos::deep_copy(exec, staged, pinned);
    }
    if (!out.span_is_contiguous()) Kokkos::deep_copy(exec, out, staged);
  }
  exec.fence("unison::mpi::matmul_reduce: sums");
}

}  // namespace unison::mpi
