#pragma once
// unison/detail/mpi/exchange.hpp: part of unison/mpi.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The halo exchange with the (up to eight) neighbouring blocks, on persistent requests made once
// for a pair of buffers.

#include <unison/detail/mpi/agreement.hpp>
#include <unison/detail/mpi/packing.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// The ranks of the eight neighbours of d's block, in HaloSegments' order (north, south, west,
// east, north-west, north-east, south-west, south-east); MPI_PROC_NULL past the field's edge.
std::array<int, HaloSegments::count> neighbour_ranks(const unison::mpi::Decomposition& d);

// The halo exchange of one block with its neighbours: for each segment whose neighbour exists
// and which holds cells, a persistent receive into recv's segment and a persistent send of send's
// segment (MPI_Recv_init and MPI_Send_init, made once); start_receives(), start_sends() and
// wait() run one exchange. A message's tag is the direction it travels. Frees its requests.
class Exchange {
 public:
  Exchange() = default;
  Exchange(const unison::mpi::Decomposition& d, MPI_Datatype type, const HaloSegments& seg,
           void* send, void* recv, std::size_t value_bytes);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  Exchange(Exchange&& other) noexcept { *this = std::move(other); }
  Exchange& operator=(Exchange&& other) noexcept;

  void start_receives();
  void start_sends();
  void wait();
  // Receives and sends, then the wait.
  void run() {
    start_receives();
    start_sends();
    wait();
  }

 private:
  void release();
  std::vector<MPI_Request> receives_, sends_, all_;
};

}  // namespace unison::detail::mpi
