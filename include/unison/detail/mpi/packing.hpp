#pragma once
// unison/detail/mpi/packing.hpp: part of unison/mpi.hpp (its implementation, which compiles on
// its own: it includes what it uses).
// The halos in one buffer: the segments of a block's edges and corners that go to each
// neighbour or come from it, and the kernels that pack a padded block's edges into the send
// buffer and unpack the receive buffer into its ghost cells.

#include <array>
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace unison::detail::mpi {

// The eight halo segments of a block of nx x ny cells with halos of depth k, in field
// coordinates: north (k x ny cells: the block's first k rows), south (its last k rows), west
// (nx x k: its first k columns), east, then the corners north-west, north-east, south-west and
// south-east (k x k each; empty for k = 1, which the five-point stencil does not read). The
// block's cell (x, y) is the padded copy's (x + o0, y + o1) (o0, o1 >= k: its ghost cells before
// the block along each index). Segment s holds rows x columns cells, row-major, at
// [offset[s], offset[s + 1]) of the buffers; it is packed from padded rows send_r + [0, rows) and
// columns send_c + [0, cols), and what arrives for it goes to recv_r, recv_c (where that
// neighbour exists).
struct HaloSegments {
  static constexpr int count = 8;
  Kokkos::Array<std::int64_t, count + 1> offset;
  Kokkos::Array<std::int64_t, count> cols, send_r, send_c, recv_r, recv_c;
  Kokkos::Array<bool, count> present;

  HaloSegments() = default;
  HaloSegments(std::int64_t nx, std::int64_t ny, std::int64_t k,
               const std::array<bool, count>& neighbours, std::int64_t o0, std::int64_t o1) {
    const std::int64_t ck = k > 1 ? k : 0;  // corners
    const std::int64_t rows_[count] = {k, k, nx, nx, ck, ck, ck, ck};
    const std::int64_t cols_[count] = {ny, ny, k, k, ck, ck, ck, ck};
    // Where each segment's cells are in this block (send) and in its ghost cells (recv): the
    // block's first cells (o), its last k (e), the ghost cells before it (g) and after it (a).
    const std::int64_t o = o0, e = o0 + nx - k, g = o0 - k, a = o0 + nx;
    const std::int64_t p = o1, f = o1 + ny - k, h = o1 - k, b = o1 + ny;
    const std::int64_t sr[count] = {o, e, o, o, o, o, e, e};
    const std::int64_t sc[count] = {p, p, p, f, p, f, p, f};
    const std::int64_t rr[count] = {g, a, o, o, g, g, a, a};
    const std::int64_t rc[count] = {p, p, h, b, h, b, h, b};
    offset[0] = 0;
    for (int s = 0; s < count; ++s) {
      offset[s + 1] = offset[s] + rows_[s] * cols_[s];
      cols[s] = cols_[s];
      send_r[s] = sr[s];
      send_c[s] = sc[s];
      recv_r[s] = rr[s];
      recv_c[s] = rc[s];
      present[s] = neighbours[std::size_t(s)];
    }
  }
  std::int64_t size() const { return offset[count]; }
  // The segment of buffer item i, and the item's row and column in it.
  KOKKOS_FORCEINLINE_FUNCTION void locate(std::int64_t i, int& s, std::int64_t& a,
                                          std::int64_t& b) const {
    s = 0;
    while (i >= offset[s + 1]) ++s;
    a = (i - offset[s]) / cols[s];
    b = (i - offset[s]) % cols[s];
  }
};

// Copies the block's edge cells (padded cur) into the send buffer, by segment.
template <class P, class B>
struct HaloPack {
  typename P::const_type cur;
  B send;
  HaloSegments seg;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    int s;
    std::int64_t a, b;
    seg.locate(i, s, a, b);
    send(i) = cur(seg.send_r[s] + a, seg.send_c[s] + b);
  }
};

// Copies the received segments into the ghost cells of padded cur; only the segments whose
// neighbour exists (the other ghost cells stay 0, the field's edge).
template <class P, class B>
struct HaloUnpack {
  P cur;
  typename B::const_type recv;
  HaloSegments seg;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    int s;
    std::int64_t a, b;
    seg.locate(i, s, a, b);
    if (seg.present[s]) cur(seg.recv_r[s] + a, seg.recv_c[s] + b) = recv(i);
  }
};

}  // namespace unison::detail::mpi
