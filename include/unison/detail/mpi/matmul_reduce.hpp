#pragma once
// unison/detail/mpi/matmul_reduce.hpp: part of unison/mpi.hpp (its implementation, which compiles
// on its own: it includes what it uses).
// The distributed matmul-reduce: the checks every rank agrees on, each rank's column sums (the
// single-rank unison::matmul_reduce on its rows of A), and their sum over the ranks in one
// MPI_Allreduce, from out's own memory when MPI may read it, else through a contiguous copy
// and pinned host memory.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/mpi/agreement.hpp>
#include <unison/detail/mpi/halo.hpp>
#include <unison/matmul.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// The checks of a call of unison::mpi::matmul_reduce, agreed by every rank of comm: a
// communicator, the single-rank matmul_reduce's checks, a transport MPI can take, an out short
// enough for one MPI_Allreduce, and k, n, the method and the transport alike on every rank.
template <class Exec, class AV, class BV, class OV>
void check_matmul_reduce(const char* fn, MPI_Comm comm, const AV& A, const BV& B, const OV& out,
                         MatmulMethod method, unison::mpi::Transport transport) {
  require(comm != MPI_COMM_NULL, fn, "the communicator is MPI_COMM_NULL");
  agree(comm, fn,
        [&] {
          matmul::check_arguments(A, B, out, method);
          check_transport<Exec>(fn, transport);
          require(out.extent(0) <= std::size_t(std::numeric_limits<int>::max()), fn, "out has ",
                  out.extent(0), " elements: one MPI_Allreduce takes at most 2^31 - 1");
        },
        {{"k (A's columns)", (long long)A.extent(1)},
         {"n (B's columns)", (long long)B.extent(1)},
         {"method", (long long)method},
         {"transport", (long long)transport}});
}

// Each rank's column sums into out (unison::matmul_reduce on its rows of A), then their sum over
// the ranks of comm, in place in out. The arguments: agreed by check_matmul_reduce.
template <class Exec, class AV, class BV, class OV>
void matmul_reduce(const char* fn, const Exec& exec, MPI_Comm comm, const AV& A, const BV& B,
                   const OV& out, MatmulMethod method, unison::mpi::Transport transport) {
  using T = typename OV::non_const_value_type;
  agree(comm, fn, [&] { unison::matmul_reduce(exec, A, B, out, method); });
  const std::int64_t n = out.extent(0);
  // MPI adds contiguous arrays: out itself when it is contiguous and MPI may read its memory.
  using Contiguous = Kokkos::View<T*, typename OV::memory_space>;
  using Pinned = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
  const bool in_place = transport_is_direct<Exec>(transport) && out.span_is_contiguous();
  Contiguous staged;
  Pinned pinned;
  agree(comm, fn, [&] {
    if (!out.span_is_contiguous())
      staged = unison::detail::allocate<Contiguous>(fn, "a contiguous copy of out", exec,
                                                    "unison::mpi::matmul_reduce::out", n);
    if (!transport_is_direct<Exec>(transport))
      pinned = unison::detail::allocate<Pinned>(fn, "the pinned copy of out", exec,
                                                "unison::mpi::matmul_reduce::out_host", n);
  });
  T* data = out.data();
  if (!in_place) {
    if (!out.span_is_contiguous()) {
      Kokkos::deep_copy(exec, staged, out);
      data = staged.data();
    }
    if (!transport_is_direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, pinned, Contiguous(out.data(), n));
      else Kokkos::deep_copy(exec, pinned, staged);
      data = pinned.data();
    }
  }
  exec.fence("unison::mpi::matmul_reduce: partial sums");
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, int(n), datatype<T>(), MPI_SUM, comm), fn,
            "MPI_Allreduce");
  if (!in_place) {
    if (!transport_is_direct<Exec>(transport)) {
      if (out.span_is_contiguous()) Kokkos::deep_copy(exec, Contiguous(out.data(), n), pinned);
      else Kokkos::deep_copy(exec, staged, pinned);
    }
    if (!out.span_is_contiguous()) Kokkos::deep_copy(exec, out, staged);
  }
  exec.fence("unison::mpi::matmul_reduce: sums");
}

}  // namespace unison::detail::mpi
