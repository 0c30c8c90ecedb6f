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
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
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

}  // namespace unison::mpi

#include <unison/detail/mpi/exchange.hpp>

namespace unison::mpi {

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
  detail::diffusion::check_types<Exec, F, L>();
  using T = typename F::non_const_value_type;
  constexpr const char* fn = "unison::mpi::diffuse";
  detail::check_decomposition(d, fn);
  detail::agree(
      d.comm, fn,
      [&] {
        detail::check_block(fn, d, f);
        detail::diffusion::check_arguments<Exec>(fn, f, lapl, coeff);
        detail::require(steps >= 0, fn, "steps is ", steps, ", must be >= 0");
        detail::diffusion::check_laplacian(fn, which);
        detail::check_transport<Exec>(fn, options.transport);
        constexpr bool tr = detail::diffusion::transposed_v<F>;
        using Shape = detail::HaloRowsShape<Exec>;
        const std::int64_t rows = tr ? d.local_ny : d.local_nx, cols = tr ? d.local_nx : d.local_ny;
        detail::require(std::max(rows, cols) <= std::numeric_limits<int>::max() &&
                            Shape::teams(rows, cols) <= std::numeric_limits<int>::max(),
                        fn, "the block is ", d.local_nx, "x", d.local_ny,
                        ": MPI messages take at most 2^31 - 1 values and a kernel launch at most "
                        "2^31 - 1 teams");
      },
      {{"steps", steps},
       {"coeff", detail::bits(coeff)},
       {"which (the Laplacian choice)", (long long)which},
       {"options.transport", (long long)options.transport},
       {"options.overlap", (long long)options.overlap}});
  if (steps == 0) return;

  using P = detail::Padded<F>;
  using Mem = typename F::memory_space;
  using Buffer = Kokkos::View<T*, Mem>;
  constexpr bool tr = detail::diffusion::transposed_v<F>;
  const std::int64_t nx = d.local_nx, ny = d.local_ny;
  const std::int64_t rows = tr ? ny : nx, cols = tr ? nx : ny;  // the grid of the kernels
  const std::int64_t halo = 2 * (nx + ny);
  const bool neighbours = d.has_neighbours();
  const bool direct = detail::transport_is_direct<Exec>(options.transport);
  const T c = T(coeff);

  // Buffers, allocated on every rank before any message (an allocation refusal is agreed on).
  P cur, nxt;
  Buffer send, recv;
  Kokkos::View<T*, Kokkos::SharedHostPinnedSpace> send_host, recv_host;
  detail::agree(d.comm, fn, [&] {
    cur = unison::detail::allocate<P>(fn, "the padded block", exec, "unison::mpi::diffusion::field",
                                      nx + 2, ny + 2);
    nxt = unison::detail::allocate<P>(fn, "the second padded block", exec,
                                      "unison::mpi::diffusion::field", nx + 2, ny + 2);
    if (neighbours) {
      send = unison::detail::allocate<Buffer>(fn, "the halo send buffer", exec,
                                              "unison::mpi::diffusion::send", halo);
      recv = unison::detail::allocate<Buffer>(fn, "the halo receive buffer", exec,
                                              "unison::mpi::diffusion::recv", halo);
      if (!direct) {
        using Host = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
        send_host = unison::detail::allocate<Host>(fn, "the pinned halo send buffer", exec,
                                                   "unison::mpi::diffusion::send_host", halo);
        recv_host = unison::detail::allocate<Host>(fn, "the pinned halo receive buffer", exec,
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

  using Shape = detail::HaloRowsShape<Exec>;
  using Rows = detail::HaloStencilRows<tr, P, L, Shape::cells>;
  using Ring = detail::HaloStencilRing<tr, P, L>;
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
                         detail::HaloPack<P, Buffer>{cur, send, nx, ny});
    if (!direct) Kokkos::deep_copy(on, send_host, send);
  };
  const auto unpack = [&](const Exec& on) {
    if (!direct) Kokkos::deep_copy(on, recv, recv_host);
    Kokkos::parallel_for("unison::mpi::diffusion::unpack",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, halo),
                         detail::HaloUnpack<P, Buffer>{
                             cur, recv, nx, ny, d.north != MPI_PROC_NULL, d.south != MPI_PROC_NULL,
                             d.west != MPI_PROC_NULL, d.east != MPI_PROC_NULL});
  };
  T* const send_ptr = direct ? send.data() : send_host.data();
  T* const recv_ptr = direct ? recv.data() : recv_host.data();

  detail::Exchange exchange(d, detail::datatype<T>());
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
  detail::check_decomposition(d, fn);
  using Noise = detail::field::NoiseArray<F>;
  Noise noise;
  detail::agree(d.comm, fn,
                [&] {
                  detail::check_block(fn, d, f);
                  unison::detail::check_output(fn, "f", f);
                  detail::require(zero_fraction >= 0 && zero_fraction <= 1, fn, "zero_fraction is ",
                                  zero_fraction, ", must be in [0, 1]");
                  // The noise array in the agreement: a rank short of memory makes every rank
                  // refuse, rather than leave the others waiting in the reduction below.
                  noise = unison::detail::allocate<Noise>(fn, "the noise array", exec,
                                                          "unison::field::noise", f.extent(0),
                                                          f.extent(1));
                },
                {{"seed", (long long)seed}, {"zero_fraction", detail::bits(zero_fraction)}});
  detail::field::jagged_block(
      fn, exec, f, seed, zero_fraction, d.x0, d.y0, d.nx * d.ny,
      [&](std::int64_t count) {
        long long local = count, total = 0;
        detail::check_mpi(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, d.comm), fn,
                          "MPI_Allreduce");
        return std::int64_t(total);
      },
      &noise);
  exec.fence("unison::mpi::jagged_field: release the noise");
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
  detail::matmul::check_types<Exec, AV, BV, OV>();
  constexpr const char* fn = "unison::mpi::matmul_reduce";
  detail::require(comm != MPI_COMM_NULL, fn, "the communicator is MPI_COMM_NULL");
  using T = typename OV::non_const_value_type;
  detail::agree(comm, fn,
                [&] {
                  detail::matmul::check_arguments(A, B, out, method);
                  detail::check_transport<Exec>(fn, transport);
                  detail::require(out.extent(0) <= std::size_t(std::numeric_limits<int>::max()), fn,
                                  "out has ", out.extent(0),
                                  " elements: one MPI_Allreduce takes at most 2^31 - 1");
                },
                {{"k (A's columns)", (long long)A.extent(1)},
                 {"n (B's columns)", (long long)B.extent(1)},
                 {"method", (long long)method},
                 {"transport", (long long)transport}});
  detail::agree(comm, fn, [&] { unison::matmul_reduce(exec, A, B, out, method); });
  const std::int64_t n = out.extent(0);
  // MPI adds contiguous arrays: out itself when it is contiguous and MPI may read its memory.
  using Contiguous = Kokkos::View<T*, typename OV::memory_space>;
  using Pinned = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
  const bool in_place = detail::transport_is_direct<Exec>(transport) && out.span_is_contiguous();
  Contiguous staged;
  Pinned pinned;
  detail::agree(comm, fn, [&] {
    if (!out.span_is_contiguous())
      staged = unison::detail::allocate<Contiguous>(fn, "a contiguous copy of out", exec,
                                                    "unison::mpi::matmul_reduce::out", n);
    if (!detail::transport_is_direct<Exec>(transport))
      pinned = unison::detail::allocate<Pinned>(fn, "the pinned copy of out", exec,
                                                "unison::mpi::matmul_reduce::out_host", n);
  });
  T* data = out.data();
  if (!in_place) {
    if (!out.span_is_contiguous()) {
      Kokkos::deep_copy(exec, staged, out);
      data = staged.data();
    }
    if (!detail::transport_is_direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, pinned, Contiguous(out.data(), n));
      else Kokkos::deep_copy(exec, pinned, staged);
      data = pinned.data();
    }
  }
  exec.fence("unison::mpi::matmul_reduce: partial sums");
  detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, int(n), detail::datatype<T>(), MPI_SUM, comm),
                    fn, "MPI_Allreduce");
  if (!in_place) {
    if (!detail::transport_is_direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, Contiguous(out.data(), n), pinned);
      else Kokkos::deep_copy(exec, staged, pinned);
    }
    if (!out.span_is_contiguous()) Kokkos::deep_copy(exec, out, staged);
  }
  exec.fence("unison::mpi::matmul_reduce: sums");
}

}  // namespace unison::mpi
