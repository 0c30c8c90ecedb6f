#pragma once
// unison/detail/mpi/exchange.hpp: part of unison/mpi.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The halo exchange with the four neighbours, through device or pinned host buffers.

#include <unison/detail/mpi/halo.hpp>

namespace unison::mpi::detail {

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

}  // namespace unison::mpi::detail
