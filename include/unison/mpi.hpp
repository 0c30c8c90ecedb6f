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
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
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

/// The times, on one rank, from which a DiffusionPlan chooses its halos' depth (seconds; each the
/// median of five after an untimed run): one halo exchange (packing, the copies through host
/// memory if any, the messages, unpacking) of halos one cell deep and of the deepest considered,
/// with the values each moves; one update of the block's interior and its cells; one update of
/// a single cell (the cost of a kernel launch).
struct HaloTimes {
  double exchange_one = 0, exchange_deep = 0, interior = 0, launch = 0;
  std::int64_t one_values = 0, deep_values = 0, interior_cells = 0;
  int deep = 0;
};

/// Options of a DiffusionPlan (and of the one-shot mpi::diffuse).
struct ExchangeOptions {
  Transport transport = Transport::automatic;
  /// Update each block's interior while its halos travel, then its edge cells (true); or
  /// exchange the halos first and update every cell after (false: the comparison that shows
  /// what the overlap hides).
  bool overlap = true;
  /// The halos' depth k: k cells deep, exchanged once every k steps, each rank computing the
  /// cells of its neighbours' edges that its own block's next k - 1 steps need (temporal
  /// blocking across ranks); 0 (the default): chosen when the plan is made, from measured
  /// times (DiffusionPlan). At most the rows (columns) of the thinnest block along an axis
  /// split into several blocks.
  int halo_depth = 0;
};

}  // namespace unison::mpi

#include <unison/detail/mpi/depth.hpp>
#include <unison/detail/mpi/exchange.hpp>

namespace unison::mpi {

namespace detail {
// What the one-shot mpi::diffuse, which agrees on the call's arguments before it makes a plan,
// reaches inside the plan: its steps without that agreement again.
// (The tests use it too: use_depth gives a plan halos of depth k, at most its padded copies'
// depth, as the depth a plan chooses may be; collective.)
struct PlanAccess {
  template <class Plan, class F, class L>
  static void run(Plan& plan, const F& f, std::int64_t steps, double coeff, const L& lapl,
                  Laplacian which) {
    plan.run(f, steps, coeff, lapl, which);
  }
  template <class Plan>
  static void use_depth(Plan& plan, int k) {
    require(k >= 1 && k <= plan.kr_, "unison::mpi::detail::PlanAccess::use_depth", "depth ", k,
            " outside 1 to ", plan.kr_);
    if (plan.neighbours_) plan.build(k);
  }
};
}  // namespace detail

/// A distributed diffusion made once and run any number of times: the decomposition, the two
/// padded copies of the block, the halo buffers (on the device and, with the host transport, in
/// pinned host memory), the persistent MPI requests, the halo stream and its events, and the
/// halos' depth. Each call of diffuse() then costs its steps, one copy of the field into the
/// plan and one agreement of the call's arguments between ranks (one MPI_Allreduce).
///
///     unison::mpi::DiffusionPlan plan(exec, d, f);   // collective; F deduced from f
///     for (...) plan.diffuse(f, 10, 0.25, lapl);     // collective
///
/// Exec: the execution space the kernels run on; F: the field's View type (rank 2, float or
/// double, any layout, accessible from Exec). The plan serves every field of type F that is this
/// rank's block of d. It is neither copied nor moved (a std::unique_ptr passes it on); destroy
/// it before MPI_Finalize (its destructor frees MPI requests) and before Kokkos::finalize.
///
/// The halos' depth (ExchangeOptions::halo_depth): with depth k the ranks exchange k-deep halos
/// (with the corners, from the diagonal neighbours) once every k steps, and each rank advances its
/// block and the ghost cells its block's next steps need: step j of k updates the block widened
/// by k - j cells toward each neighbour. Fewer messages, more cells. With depth 0 the plan times,
/// on every rank, one halo exchange at depth 1 and at the deepest allowed (at most 16), one
/// update of the block's interior and one of a single cell (the launch cost), and picks the k
/// that the model in docs/scaling.md says is fastest for the slowest rank. The result does not
/// depend on k: every depth gives bitwise unison::diffuse's result.
///
/// Throws unison::invalid_argument (on every rank, see the file's comment) for a Decomposition
/// not made by decompose() (this rank only), f whose extents are not the block's, an unknown
/// transport, Transport::device on a GPU with an MPI that is not GPU-aware, a negative
/// halo_depth or one deeper than the thinnest block along a split axis, options that differ
/// between ranks, a block with more than 2^31 - 1 rows or columns, or buffers that do not fit in
/// memory. Collective over d.comm: every rank makes the plan, with the same options.
/// Memory: two padded copies of the block, "unison::mpi::diffusion::field", each (local_nx + 2g)
/// x (local_ny + 2g) values and up to 2 (HaloTuning::align_cols - 1) more a row (the block's
/// first column and every row start on a multiple of align_cols values: 32 on Cuda, 16 on CPUs),
/// where g is the deepest halo the plan may use (the halo_depth asked, or with 0 the deepest it
/// times, at most 16), allocated once; halo buffers of
/// 2k (local_nx + local_ny) + 4k^2 values (4k^2 only for k > 1) on the device and, with the host
/// transport, in pinned host memory; for a single block, unison::diffuse's buffer (a copy of the
/// block) alone.

template <class Exec, class F>
class DiffusionPlan {
  using T = typename F::non_const_value_type;
  using P = detail::Padded<F>;
  using Mem = typename F::memory_space;
  using Buffer = Kokkos::View<T*, Mem>;
  using Host = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
  using Shape = detail::HaloShape<Exec>;
  static constexpr bool tr = detail::diffusion::transposed_v<F>;

 public:
  DiffusionPlan(const Exec& exec, const Decomposition& d, const F& f,
                const ExchangeOptions& options = {})
      : exec_(exec), d_(d), options_(options) {
    const unison::detail::Region call_region("unison::mpi::DiffusionPlan");
    detail::diffusion::check_types<Exec, F, F>();
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    detail::check_decomposition(d, fn);
    std::int64_t deepest = 1;
    detail::agree(
        d.comm, fn,
        [&] {
          detail::check_block(fn, d, f);
          detail::check_transport<Exec>(fn, options.transport);
          deepest = detail::deepest_halo(d);
          detail::require(options.halo_depth >= 0, fn, "options.halo_depth is ", options.halo_depth,
                          ", must be >= 0 (0: chosen by the plan)");
          detail::require(options.halo_depth <= deepest, fn, "options.halo_depth is ",
                          options.halo_depth, ", deeper than the thinnest block's ", deepest,
                          " rows or columns along a split axis");
          // The widest the updates and the deepest the messages get.
          const std::int64_t k = !d.has_neighbours() ? 1
                                 : options.halo_depth > 0
                                     ? options.halo_depth
                                     : std::min<std::int64_t>(deepest, detail::deepest_chosen);
          const std::int64_t rows = (tr ? d.local_ny : d.local_nx) + 2 * k,
                             cols = Shape::pitch(k) + (tr ? d.local_nx : d.local_ny) + k;
          constexpr std::int64_t most = std::numeric_limits<int>::max();
          detail::require(k * std::max(d.local_nx, d.local_ny) <= most && rows <= most &&
                              Shape::pitch(cols) <= most,
                          fn, "the block is ", d.local_nx, "x", d.local_ny, " with halos ", k,
                          " deep: MPI messages take at most 2^31 - 1 values, and the padded "
                          "copies at most 2^31 - 1 rows and columns");
        },
        {{"options.transport", (long long)options.transport},
         {"options.overlap", (long long)options.overlap},
         {"options.halo_depth", (long long)options.halo_depth}});
    neighbours_ = d.has_neighbours();
    direct_ = detail::transport_is_direct<Exec>(options.transport);
    side_ = neighbours_ && options.overlap ? backends::side_instance(exec) : exec;
    if (!neighbours_) {
      allocate_blocks(1);
    } else if (options.halo_depth > 0) {
      allocate_blocks(options.halo_depth);
      build(options.halo_depth);
    } else {
      const int deep = int(std::min<std::int64_t>(deepest, detail::deepest_chosen));
      allocate_blocks(deep);
      build(deep);
      model_ = measure();  // leaves the halos at depth 1
      const int k = detail::choose_depth(d_, model_, options.overlap, deep);
      if (k != k_) build(k);
    }
  }
  DiffusionPlan(const DiffusionPlan&) = delete;
  DiffusionPlan& operator=(const DiffusionPlan&) = delete;

  /// The halos' depth in use (1 for a block without neighbours).
  int halo_depth() const { return k_; }
  /// How the halos reach MPI: Transport::device (the Views' own memory) or Transport::host
  /// (pinned host memory).
  Transport transport() const { return direct_ ? Transport::device : Transport::host; }
  /// The times the depth was chosen from, on this rank (zeros unless halo_depth was 0 and the
  /// block has neighbours).
  const HaloTimes& measured() const { return model_; }
  const Decomposition& decomposition() const { return d_; }

  /// Advances the distributed field by `steps` diffusion steps (unison::diffuse's step: the
  /// 5-point Laplacian, 0 outside the whole field), in place: f is this rank's block of the
  /// plan's decomposition, lapl receives this block's Laplacian of every step
  /// (Laplacian::every_step) or only of the final step (Laplacian::final_only); either way it
  /// ends holding the Laplacian of the field before the last step. lapl: a rank-2 View of f's
  /// value type and extents, any layout, accessible from Exec. Every rank calls it with the same
  /// steps, coeff and which (collective over the plan's communicator).
  /// Once every halo_depth() steps, the block's edges go to the neighbouring ranks and theirs come
  /// back into its ghost cells while the block's interior cells (those with no neighbour outside
  /// the block) are updated (options.overlap); then the rest of that step's cells. On a GPU the
  /// halo work (packing, the copies through host memory when the transport is `host`,
  /// unpacking, the edge cells) runs on a second stream of the highest priority beside the
  /// interior update, the two streams ordered by events; the host waits only for the packed
  /// halo. A plan of one block (a single rank) runs unison::diffuse on f with its buffer.
  /// The result is bitwise that of unison::diffuse on the whole field on the same backend, for
  /// every decomposition and depth: each cell sees the same neighbour values and the same
  /// arithmetic. Blocks: returns once the work is done, the block in f.
  /// Throws unison::invalid_argument (on every rank) for f or lapl whose extents are not the
  /// block's, lapl overlapping f, negative steps, a coeff that is not finite, an unknown Laplacian
  /// choice, or steps, coeff or which differing between ranks.
  /// Kernels: "unison::mpi::diffusion::copy_in" (f into the plan), then
  /// "unison::mpi::diffusion::{interior,edges,block}" (the interior, the cells around it, every
  /// cell of a step at once), "unison::mpi::diffusion::{pack,unpack}" (halos).
  template <class L>
  void diffuse(const F& f, std::int64_t steps, double coeff, const L& lapl,
               Laplacian which = Laplacian::every_step) {
    const unison::detail::Region call_region("unison::mpi::DiffusionPlan::diffuse");
    detail::diffusion::check_types<Exec, F, L>();
    detail::check_call<Exec>(d_, f, steps, coeff, lapl, which);
    run(f, steps, coeff, lapl, which);
  }

 private:
  friend struct detail::PlanAccess;  // the one-shot diffuse: run() once it has checked

  // diffuse() once its arguments are agreed.
  template <class L>
  void run(const F& f, std::int64_t steps, double coeff, const L& lapl, Laplacian which) {
    if (steps == 0) return;
    if (!neighbours_) {  // one block: unison::diffuse itself, in place
      static_assert(std::is_same_v<P, DiffusionBuffer<F>>);
      unison::diffuse(exec_, f, cur_, steps, coeff, lapl, which);
      exec_.fence("unison::mpi::diffuse: done");
      return;
    }
    const T c = T(coeff);
    Kokkos::parallel_for("unison::mpi::diffusion::copy_in",
                         Kokkos::TeamPolicy<Exec>(exec_, int(rows()), Shape::team),
                         detail::HaloCopyIn<tr, P, F>{cur_, f, kr_, kc_, cols()});
    const bool overlap = options_.overlap;
    for (std::int64_t s = 0; s < steps;) {
      // One period: a halo exchange, then kb steps (fewer than the depth at the call's end).
      const std::int64_t kb = std::min<std::int64_t>(k_, steps - s);
      const std::int64_t end = s + kb;
      const auto laplacian = [&](std::int64_t j) {  // whether step j of the period writes lapl
        return which == Laplacian::every_step || s + j == steps;
      };
      const bool last = end == steps;  // the period's last step writes f
      if (!overlap) {
        pack(exec_);
        copy_out(exec_);
        // The fence also finishes the last period's copies out of recv: receives may land now.
        exec_.fence("unison::mpi::diffuse: halo packed");
        exchange_.run();
        unpack(exec_);
        for (std::int64_t j = 1; j <= kb; ++j)
          update(exec_, "unison::mpi::diffusion::block", region(kb - j), j, last && j == kb, f, c,
                 lapl, laplacian(j));
      } else {
        // Both instances start the period once both have finished the last: the halo work reads
        // what the last interior updates wrote, the interior updates what the last edge updates
        // did. Step j's interior (the block less j cells on every side) needs no ghost cell and
        // no edge cell of the steps before it, so every interior update of the period runs on
        // exec while the halos travel; the edge cells of step j (the rest of the block widened by
        // kb - j) follow on the halo instance, each once step j - 1's interior is done.
        exec_after_side_.after(exec_, side_);
        side_after_exec_.after(side_, exec_);
        pack(side_);
        packed_.record(side_);  // step 2's interior overwrites cells the packing reads
        copy_out(side_);
        const auto interiors = [&] {
          for (std::int64_t j = 1; j <= kb; ++j) {
            if (j == 2) packed_.wait(exec_);
            update(exec_, "unison::mpi::diffusion::interior", interior(j), j, last && j == kb, f, c,
                   lapl, laplacian(j));
            if (j < kb) interior_done_[std::size_t(j - 1)]->record(exec_);
          }
        };
        // On a GPU the interior updates are queued before the host waits for the packed halo
        // (the wait also finishes the last period's copies out of recv, so receives may land
        // after it); on the host backends the updates run in the call, so the messages go out
        // first.
        if constexpr (backends::asynchronous_v<Exec>) interiors();
        side_.fence("unison::mpi::diffuse: halo packed");
        exchange_.start_receives();
        exchange_.start_sends();
        if constexpr (!backends::asynchronous_v<Exec>) interiors();
        exchange_.wait();
        unpack(side_);
        for (std::int64_t j = 1; j <= kb; ++j) {
          if (j > 1) interior_done_[std::size_t(j - 2)]->wait(side_);
          frame(side_, region(kb - j), interior(j), j, last && j == kb, f, c, lapl, laplacian(j));
        }
      }
      if (kb % 2 == 1) std::swap(cur_, nxt_);  // the period's result is in cur_
      s = end;
    }
    if (overlap) exec_after_side_.after(exec_, side_);
    exec_.fence("unison::mpi::diffuse: done");
  }

  // The padded copies of the block, for halos up to `deepest` deep (made once, on every rank;
  // an allocation refusal is agreed on): `deepest` ghost rows before and after the block in the
  // kernels' grid, kc_ (`deepest` rounded up to the alignment) ghost columns before it and
  // `deepest` after, each row padded to the alignment (HaloTuning::align_cols). A block without
  // neighbours has unison::diffuse's buffer instead.
  void allocate_blocks(int deepest) {
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    const std::int64_t nx = d_.local_nx, ny = d_.local_ny, g = deepest;
    kr_ = g;
    kc_ = Shape::pitch(g);
    detail::agree(d_.comm, fn, [&] {
      if (!neighbours_) {  // unison::diffuse's buffer (P is DiffusionBuffer<F>)
        cur_ = unison::detail::allocate<P>(fn, "the diffusion buffer", exec_,
                                           "unison::mpi::diffusion::field", nx, ny);
        return;
      }
      const std::int64_t ex = tr ? Shape::pitch(kc_ + nx + g) : nx + 2 * g,
                         ey = tr ? ny + 2 * g : Shape::pitch(kc_ + ny + g);
      cur_ = unison::detail::allocate<P>(fn, "the padded block", exec_,
                                         "unison::mpi::diffusion::field", ex, ey);
      nxt_ = unison::detail::allocate<P>(fn, "the second padded block", exec_,
                                         "unison::mpi::diffusion::field", ex, ey);
    });
    if (!neighbours_) return;
    // Ghost cells at the field's edge must read 0 in both copies, for every step (no kernel
    // writes them: the updates widen the block only toward its neighbours).
    for (const P* block : {&cur_, &nxt_})
      Kokkos::parallel_for("unison::mpi::diffusion::zero",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec_, 0, std::int64_t(block->span())),
                           detail::ZeroFill<T>{block->data()});
    exec_.fence("unison::mpi::DiffusionPlan: buffers");
  }

  // Buffers for halos of depth k (at most the padded copies' depth), and the persistent requests
  // on them (made on every rank; an allocation refusal is agreed on). The ghost cells deeper than
  // k are then never read.
  void build(int k) {
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    exchange_ = detail::Exchange();
    k_ = k;
    interior_done_.clear();
    for (int j = 1; j < k; ++j)
      interior_done_.push_back(std::make_unique<backends::StreamOrder<Exec>>());
    seg_ = detail::HaloSegments(d_.local_nx, d_.local_ny, k, detail::neighbours_present(d_),
                                tr ? kc_ : kr_, tr ? kr_ : kc_);
    const std::int64_t halo = seg_.size();
    send_ = recv_ = Buffer();
    send_host_ = recv_host_ = Host();
    detail::agree(d_.comm, fn, [&] {
      send_ = unison::detail::allocate<Buffer>(fn, "the halo send buffer", exec_,
                                               "unison::mpi::diffusion::send", halo);
      recv_ = unison::detail::allocate<Buffer>(fn, "the halo receive buffer", exec_,
                                               "unison::mpi::diffusion::recv", halo);
      if (!direct_) {
        send_host_ = unison::detail::allocate<Host>(fn, "the pinned halo send buffer", exec_,
                                                    "unison::mpi::diffusion::send_host", halo);
        recv_host_ = unison::detail::allocate<Host>(fn, "the pinned halo receive buffer", exec_,
                                                    "unison::mpi::diffusion::recv_host", halo);
      }
    });
    exchange_ = detail::Exchange(d_, detail::datatype<T>(), seg_,
                                 direct_ ? send_.data() : send_host_.data(),
                                 direct_ ? recv_.data() : recv_host_.data(), sizeof(T));
  }

  std::int64_t rows() const { return tr ? d_.local_ny : d_.local_nx; }
  std::int64_t cols() const { return tr ? d_.local_nx : d_.local_ny; }
  // The block widened by e cells toward each neighbour, in the kernels' grid.
  detail::Rect region(std::int64_t e) const {
    const std::int64_t n = d_.north != MPI_PROC_NULL ? e : 0, s = d_.south != MPI_PROC_NULL ? e : 0,
                       w = d_.west != MPI_PROC_NULL ? e : 0, o = d_.east != MPI_PROC_NULL ? e : 0;
    if (tr) return {-w, d_.local_ny + o, -n, d_.local_nx + s};
    return {-n, d_.local_nx + s, -w, d_.local_ny + o};
  }
  // Step j's interior: the block less j cells on every side (empty for a thin block).
  detail::Rect interior(std::int64_t j) const { return {j, rows() - j, j, cols() - j}; }
  static bool empty(const detail::Rect& r) { return r.r1 <= r.r0 || r.c1 <= r.c0; }
  static std::int64_t cells(const detail::Rect& r) {
    return empty(r) ? 0 : (r.r1 - r.r0) * (r.c1 - r.c0);
  }

  // Step j of a period reads one padded copy and writes the other: cur_ and nxt_ for odd j,
  // the other way round for even j; the call's last step writes f instead.
  const P& source(std::int64_t j) const { return j % 2 == 1 ? cur_ : nxt_; }
  const P& target(std::int64_t j) const { return j % 2 == 1 ? nxt_ : cur_; }

  // Whether a caller's View v (the field or its Laplacian) takes HaloStrips' wide stores of K
  // values: unit steps along the grid's columns, rows and data aligned to a chunk.
  template <int K, class V>
  static bool wide(const V& v) {
    using C = unison::detail::Chunk<T, K>;
    const std::int64_t step = tr ? v.stride(0) : v.stride(1),
                       pitch = tr ? v.stride(1) : v.stride(0);
    return K > 1 && step == 1 && reinterpret_cast<std::uintptr_t>(v.data()) % alignof(C) == 0 &&
           (pitch * std::int64_t(sizeof(T))) % std::int64_t(alignof(C)) == 0;
  }
  // The update of rectangle r of the grid, step j of a period, on `on`: on a GPU HaloStrips, a
  // thread per chunk of the rectangle's padded columns and strip of its rows; on CPUs HaloRows, a
  // block of rows per thread.
  template <class L>
  void update(const Exec& on, const char* label, const detail::Rect& r, std::int64_t j, bool last,
              const F& f, T c, const L& lapl, bool wl) {
    if (empty(r)) return;
    const std::int64_t lo = r.c0 + kc_, hi = r.c1 + kc_, n = r.r1 - r.r0;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    const auto run = [&](const auto& out, auto to_field) {
      using N = std::decay_t<decltype(out)>;
      constexpr bool to_f = decltype(to_field)::value;
      const detail::HaloStencil<tr, P, N, L, to_f> step{source(j), out, lapl,   c,     wl,
                                                        kr_,       kc_, rows(), cols()};
      if constexpr (Shape::row_blocks) {
        const std::int64_t threads = std::min<std::int64_t>(on.concurrency(), n);
        const std::int64_t per = (n + threads - 1) / threads;
        Kokkos::parallel_for(label, Range(on, 0, (n + per - 1) / per),
                             detail::HaloRows<tr, P, N, L, to_f>{step, r.r0, r.r1, lo, hi, per});
      } else {
        using S = detail::HaloStripShape<Exec, T>;
        constexpr int K = S::K;
        const std::int64_t first = lo / K * K, chunks = (hi - first + K - 1) / K;
        const std::int64_t strips = (n + S::strip - 1) / S::strip;
        // The padded copy takes wide stores always (its rows are a whole number of chunks).
        bool wide_next = true;
        if constexpr (to_f) wide_next = wide<K>(out);
        Kokkos::parallel_for(
            label, Range(on, 0, chunks * strips),
            detail::HaloStrips<tr, P, N, L, to_f, K, S::ahead>{
                step, r.r0, r.r1, lo, hi, first, chunks, S::strip, wide_next, wl && wide<K>(lapl)});
      }
    };
    if (last) run(f, std::true_type());
    else run(target(j), std::false_type());
  }
  // The cells of rectangle `outer` that are not in `inner`, step j of a period, on `on`.
  template <class L>
  void frame(const Exec& on, const detail::Rect& outer, const detail::Rect& inner, std::int64_t j,
             bool last, const F& f, T c, const L& lapl, bool wl) {
    const auto run = [&](const auto& out, auto to_field) {
      using N = std::decay_t<decltype(out)>;
      const detail::HaloStencilFrame<tr, P, N, L, decltype(to_field)::value> frame{
          {source(j), out, lapl, c, wl, kr_, kc_, rows(), cols()}, outer, inner};
      if (frame.size() == 0) return;
      Kokkos::parallel_for(
          "unison::mpi::diffusion::edges",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, frame.size()), frame);
    };
    if (last) run(f, std::true_type());
    else run(target(j), std::false_type());
  }
  void pack(const Exec& on) {
    Kokkos::parallel_for(
        "unison::mpi::diffusion::pack",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, seg_.size()),
        detail::HaloPack<P, Buffer>{cur_, send_, seg_});
  }
  void copy_out(const Exec& on) {
    if (!direct_) Kokkos::deep_copy(on, send_host_, send_);
  }
  void unpack(const Exec& on) {
    if (!direct_) Kokkos::deep_copy(on, recv_, recv_host_);
    Kokkos::parallel_for(
        "unison::mpi::diffusion::unpack",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, seg_.size()),
        detail::HaloUnpack<P, Buffer>{cur_, recv_, seg_});
  }

  // The times the depth model needs, on this rank, with the plan's deepest buffers (the median
  // of five after one untimed run of each).
  HaloTimes measure() {
    const auto median = [&](auto&& work) {
      std::array<double, 5> t{};
      work();
      for (double& x : t) {
        Kokkos::Timer timer;
        work();
        x = timer.seconds();
      }
      std::sort(t.begin(), t.end());
      return t[2];
    };
    const auto step = [&](const detail::Rect& r) {
      return [&, r] {
        update(exec_, "unison::mpi::diffusion::block", r, 1, false, F(), T(0), nxt_, false);
        exec_.fence("unison::mpi::DiffusionPlan: timed");
      };
    };
    const auto exchange = [&] {
      pack(exec_);
      copy_out(exec_);
      exec_.fence("unison::mpi::DiffusionPlan: timed");
      exchange_.run();
      unpack(exec_);
      exec_.fence("unison::mpi::DiffusionPlan: timed");
    };
    HaloTimes t;
    t.deep = k_;
    t.deep_values = seg_.size();
    t.exchange_deep = median(exchange);
    const detail::Rect in = interior(1);
    t.interior = empty(in) ? 0 : median(step(in));
    t.launch = median(step(detail::Rect{0, 1, 0, 1}));
    t.interior_cells = cells(in);
    if (k_ > 1) {
      build(1);
      t.exchange_one = median(exchange);
      t.one_values = seg_.size();
    } else {
      t.exchange_one = t.exchange_deep;
      t.one_values = t.deep_values;
    }
    return t;
  }

  Exec exec_, side_;
  Decomposition d_;
  ExchangeOptions options_;
  bool neighbours_ = false, direct_ = true;
  int k_ = 1;  // the halos' depth
  // The padded copies' ghost rows and columns before the block, in the kernels' grid.
  std::int64_t kr_ = 1, kc_ = 1;
  HaloTimes model_;
  P cur_, nxt_;
  Buffer send_, recv_;
  Host send_host_, recv_host_;
  detail::HaloSegments seg_;
  detail::Exchange exchange_;
  backends::StreamOrder<Exec> side_after_exec_, exec_after_side_, packed_;
  std::vector<std::unique_ptr<backends::StreamOrder<Exec>>> interior_done_;  // steps 1 to k - 1
};

/// The one-shot form: makes a DiffusionPlan(exec, d, f, options) and runs its diffuse(f, steps,
/// coeff, lapl, which) once (so a halo_depth of 0 is chosen anew, by timing, in every call:
/// calls made more than once are cheaper on a plan). Arguments, checks, result and kernels as
/// DiffusionPlan's; the call's checks are agreed once (one MPI_Allreduce), before the plan is
/// made, so that a refused call allocates nothing.
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const Decomposition& d, const F& f, std::int64_t steps, double coeff,
             const L& lapl, Laplacian which = Laplacian::every_step,
             const ExchangeOptions& options = {}) {
  const unison::detail::Region region("unison::mpi::diffuse");
  detail::diffusion::check_types<Exec, F, L>();
  detail::check_decomposition(d, "unison::mpi::diffuse");
  detail::check_call<Exec>(d, f, steps, coeff, lapl, which);
  if (steps == 0) return;
  DiffusionPlan<Exec, F> plan(exec, d, f, options);
  detail::PlanAccess::run(plan, f, steps, coeff, lapl, which);  // the arguments agreed above
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
  const unison::detail::Region region("unison::mpi::jagged_field");
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
  const unison::detail::Region region("unison::mpi::matmul_reduce");
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
