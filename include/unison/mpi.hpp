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

#include <array>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/detail/checks.hpp>
#include <unison/detail/mpi/agreement.hpp>
#include <unison/detail/mpi/halo.hpp>
#include <unison/detail/mpi/jagged_field.hpp>
#include <unison/detail/mpi/matmul_reduce.hpp>
#include <unison/detail/mpi/plan.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/matmul.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {
struct PlanAccess;  // the tests' access to a plan (tests/mpi/plan_access.hpp)
}  // namespace unison::detail::mpi

namespace unison::mpi {

/// \addtogroup mpi
/// \{

/// Splits a field of nx x ny cells over the ranks of `comm` (collective). dims {0, 0}: the grid
/// of blocks with the shortest halo ((dims[0] - 1) * ny + (dims[1] - 1) * nx cells) among those
/// whose blocks all hold at least one row and one column; one of dims 0: the other is given and
/// must divide the number of ranks; both given: their product must be the number of ranks.
/// \throws unison::invalid_argument (on every rank) for comm MPI_COMM_NULL, extents or dims
/// that differ between ranks, a negative dim, dims whose product is not the number of ranks,
/// or a field with fewer rows or columns than blocks along that axis.
///
/// \param comm  the communicator (duplicated for Unison's messages).
/// \param nx    the field's rows.
/// \param ny    the field's columns.
/// \param dims  the grid of blocks: {0, 0}, one given, or both given.
/// \return this rank's Decomposition.
Decomposition decompose(MPI_Comm comm, std::int64_t nx, std::int64_t ny,
                        std::array<int, 2> dims = {0, 0});

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
/// \throws unison::invalid_argument (on every rank, see the file's comment) for a Decomposition
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
 public:
  /// Makes the plan; collective over d.comm, every rank with the same options.
  ///
  /// \param exec     the execution space instance its kernels run on.
  /// \param d        the decomposition, from decompose().
  /// \param f        a field of the plan's type: this rank's block of d.
  /// \param options  the transport, the overlap and the halos' depth (ExchangeOptions).
  /// \throws unison::invalid_argument as the class's comment says.
  DiffusionPlan(const Exec& exec, const Decomposition& d, const F& f,
                const ExchangeOptions& options = {})
      : plan_(exec, d, f, options) {}
  DiffusionPlan(const DiffusionPlan&) = delete;
  DiffusionPlan& operator=(const DiffusionPlan&) = delete;

  /// \return the halos' depth in use (1 for a block without neighbours).
  int halo_depth() const { return plan_.halo_depth(); }
  /// \return how the halos reach MPI: Transport::device (the Views' own memory) or
  /// Transport::host (pinned host memory).
  Transport transport() const { return plan_.transport(); }
  /// \return the times the depth was chosen from, on this rank (zeros unless halo_depth was 0
  /// and the block has neighbours).
  const HaloTimes& measured() const { return plan_.measured(); }
  /// \return the decomposition the plan serves.
  const Decomposition& decomposition() const { return plan_.decomposition(); }

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
  /// \throws unison::invalid_argument (on every rank) for f or lapl whose extents are not the
  /// block's, lapl overlapping f, negative steps, a coeff that is not finite, an unknown Laplacian
  /// choice, or steps, coeff or which differing between ranks.
  ///
  /// \param f      this rank's block of the field, advanced in place.
  /// \param steps  the number of steps, at least 0.
  /// \param coeff  the diffusion coefficient, finite.
  /// \param lapl   this block's Laplacian: f's value type and extents.
  /// \param which  every step's Laplacian, or the last step's only.
  ///
  /// Kernels: "unison::mpi::diffusion::copy_in" (f into the plan), then
  /// "unison::mpi::diffusion::{interior,edges,block}" (the interior, the cells around it, every
  /// cell of a step at once), "unison::mpi::diffusion::{pack,unpack}" (halos).
  template <class L>
  void diffuse(const F& f, std::int64_t steps, double coeff, const L& lapl,
               Laplacian which = Laplacian::every_step) {
    const unison::detail::Region call_region("unison::mpi::DiffusionPlan::diffuse");
    detail::mpi::diffusion::check_types<Exec, F, L>();
    detail::mpi::check_call<Exec>(plan_.decomposition(), f, steps, coeff, lapl, which);
    plan_.run(f, steps, coeff, lapl, which);
  }

 private:
  friend struct detail::mpi::PlanAccess;  // the tests' (tests/mpi/plan_access.hpp)
  detail::mpi::DiffusionPlan<Exec, F> plan_;
};

/// The one-shot form: makes a DiffusionPlan(exec, d, f, options) and runs its diffuse(f, steps,
/// coeff, lapl, which) once (so a halo_depth of 0 is chosen anew, by timing, in every call:
/// calls made more than once are cheaper on a plan). Arguments, checks, result and kernels as
/// DiffusionPlan's; the call's checks are agreed once (one MPI_Allreduce), before the plan is
/// made, so that a refused call allocates nothing.
///
/// \param exec     the execution space instance the kernels run on.
/// \param d        the decomposition, from decompose().
/// \param f        this rank's block of the field, advanced in place.
/// \param steps, coeff, lapl, which  as DiffusionPlan::diffuse.
/// \param options  as DiffusionPlan's.
/// \throws unison::invalid_argument as DiffusionPlan's constructor and diffuse.
///
/// Blocks until the work is done; memory: a DiffusionPlan's, made and freed in the call.
template <class Exec, class F, class L>
void diffuse(const Exec& exec, const Decomposition& d, const F& f, std::int64_t steps, double coeff,
             const L& lapl, Laplacian which = Laplacian::every_step,
             const ExchangeOptions& options = {}) {
  const unison::detail::Region region("unison::mpi::diffuse");
  detail::mpi::diffusion::check_types<Exec, F, L>();
  detail::mpi::check_decomposition(d, "unison::mpi::diffuse");
  detail::mpi::check_call<Exec>(d, f, steps, coeff, lapl, which);
  if (steps == 0) return;
  detail::mpi::DiffusionPlan<Exec, F> plan(exec, d, f, options);
  plan.run(f, steps, coeff, lapl, which);  // the arguments agreed above
}

/// Fills this rank's block f (local_nx x local_ny of d) with its part of the jagged image that
/// unison::jagged_field(exec, whole, seed, zero_fraction) writes into the whole field: the same
/// values, bit for bit. The count of zeros is agreed over the ranks (about 30 MPI_Allreduce of
/// one integer). Collective over d.comm; blocks.
/// \throws unison::invalid_argument (on every rank)
/// as unison::jagged_field does, and for f whose extents are not the block's or a seed or
/// zero_fraction that differs between ranks.
///
/// Kernels: unison::jagged_field's.
///
/// \param exec           the execution space instance the kernels run on.
/// \param d              the decomposition, from decompose().
/// \param f              this rank's block: a rank-2 View of float or double.
/// \param seed           the noise's seed, the same on every rank.
/// \param zero_fraction  the share of cells set to 0, in [0, 1], the same on every rank.
///
/// Memory: the block's noise array ("unison::field::noise"), freed before it returns.
template <class Exec, class F>
void jagged_field(const Exec& exec, const Decomposition& d, const F& f,
                  std::uint64_t seed = unison::default_seed,
                  double zero_fraction = unison::jagged_default_zero_fraction) {
  const unison::detail::Region region("unison::mpi::jagged_field");
  constexpr const char* fn = "unison::mpi::jagged_field";
  detail::mpi::check_decomposition(d, fn);
  detail::mpi::jagged_field(fn, exec, d, f, seed, zero_fraction);
}

/// out[j] = sum over all rows i of the distributed A of (A B)[i, j]: each rank passes its rows
/// of A (any number, 0 included: A split by rows, m_r x k on rank r) and the whole B (k x n, the
/// same on every rank); every rank receives the whole out (length n). Each rank runs
/// unison::matmul_reduce(exec, A, B, out, method) on its rows, then the ranks' column sums are
/// added with MPI_Allreduce (MPI_SUM) over comm (collective), from out's memory when the
/// transport allows, else through pinned host memory. The result equals the single-rank one
/// within rounding (the sums are grouped by rank, then as the MPI library adds them).
/// Types, layouts and methods as unison::matmul_reduce. Blocks: returns with out final.
/// \throws unison::invalid_argument (on every rank) for comm MPI_COMM_NULL (this rank only),
/// any check of unison::matmul_reduce on any rank (memory for its temporaries included: out is
/// then unspecified on the ranks whose part had run), an unknown transport, Transport::device
/// on a GPU with an MPI that is not GPU-aware, n above 2^31 - 1, or k, n, the method or the
/// transport differing between ranks.
///
/// Kernels: unison::matmul_reduce's.
///
/// \param exec       the execution space instance the kernels run on.
/// \param comm       the communicator.
/// \param A          this rank's rows of A: a rank-2 View (m_r x k).
/// \param B          the whole B (k x n), the same on every rank.
/// \param out        the column sums of the whole product: a rank-1 View of length n.
/// \param method     the method of unison::matmul_reduce, the same on every rank.
/// \param transport  how out's data reaches MPI (Transport).
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const Exec& exec, MPI_Comm comm, const AV& A, const BV& B, const OV& out,
                   MatmulMethod method = MatmulMethod::automatic,
                   Transport transport = Transport::automatic) {
  const unison::detail::Region region("unison::mpi::matmul_reduce");
  detail::mpi::matmul::check_types<Exec, AV, BV, OV>();
  constexpr const char* fn = "unison::mpi::matmul_reduce";
  detail::mpi::check_matmul_reduce<Exec>(fn, comm, A, B, out, method, transport);
  detail::mpi::matmul_reduce(fn, exec, comm, A, B, out, method, transport);
}

/// \}

}  // namespace unison::mpi
