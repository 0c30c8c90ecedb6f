// The compiled part of Unison::mpi: decomposition, agreement between ranks, and the question
// whether MPI takes GPU pointers.

#include <unison/mpi.hpp>

#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace unison::mpi {

bool gpu_aware() {
  if (const char* env = std::getenv("UNISON_MPI_GPU_AWARE")) {
    const std::string v(env);
    if (v == "1") return true;
    if (v == "0") return false;
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace detail {

void check_mpi(int code, const char* fn, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(fn) + ": " + call +
                           " failed: " + std::string(text, std::size_t(length)));
}

void check_decomposition(const Decomposition& d, const char* fn) {
  require(d.comm != MPI_COMM_NULL && d.size > 0, fn,
          "the Decomposition has no communicator: make it with unison::mpi::decompose");
}

void agree_on(MPI_Comm comm, const char* fn, const std::string& local_error,
              const std::vector<std::pair<const char*, long long>>& same) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), fn, "MPI_Comm_rank");
  // [this rank if its check failed, else -1; the values that must agree]: reduced with MAX and
  // with MIN.
  std::vector<long long> mine(same.size() + 1), hi(same.size() + 1), lo(same.size() + 1);
  mine[0] = local_error.empty() ? -1 : rank;
  for (std::size_t i = 0; i < same.size(); ++i) mine[i + 1] = same[i].second;
  check_mpi(MPI_Allreduce(mine.data(), hi.data(), int(mine.size()), MPI_LONG_LONG, MPI_MAX, comm),
            fn, "MPI_Allreduce");
  check_mpi(MPI_Allreduce(mine.data(), lo.data(), int(mine.size()), MPI_LONG_LONG, MPI_MIN, comm),
            fn, "MPI_Allreduce");
  if (!local_error.empty()) throw unison::invalid_argument(local_error);
  if (hi[0] >= 0)
    fail(fn, "rank ", hi[0], " refused its arguments (its exception says why); every rank stops");
  for (std::size_t i = 0; i < same.size(); ++i)
    require(lo[i + 1] == hi[i + 1], fn, same[i].first,
            " differs between ranks: every rank must pass the same");
}

}  // namespace detail

namespace {

// The grid of blocks with the shortest halo whose blocks all hold a row and a column; dims
// entries that are not 0 are kept.
std::array<int, 2> choose_dims(int size, std::int64_t nx, std::int64_t ny,
                               std::array<int, 2> dims) {
  std::array<int, 2> best{0, 0};
  long double best_halo = std::numeric_limits<long double>::infinity();
  for (int px = 1; px <= size; ++px) {
    if (size % px != 0) continue;
    const int py = size / px;
    if ((dims[0] != 0 && dims[0] != px) || (dims[1] != 0 && dims[1] != py)) continue;
    if (px > nx || py > ny) continue;
    const long double halo = (long double)(px - 1) * ny + (long double)(py - 1) * nx;
    if (halo < best_halo) {
      best_halo = halo;
      best = {px, py};
    }
  }
  return best;
}

}  // namespace

Decomposition decompose(MPI_Comm comm, std::int64_t nx, std::int64_t ny, std::array<int, 2> dims) {
  constexpr const char* fn = "unison::mpi::decompose";
  detail::require(comm != MPI_COMM_NULL, fn, "the communicator is MPI_COMM_NULL");
  int size = 0, rank = 0;
  detail::check_mpi(MPI_Comm_size(comm, &size), fn, "MPI_Comm_size");
  detail::check_mpi(MPI_Comm_rank(comm, &rank), fn, "MPI_Comm_rank");
  std::array<int, 2> grid{0, 0};
  detail::agree(
      comm, fn,
      [&] {
        detail::require(nx >= 0 && ny >= 0, fn, "the field is ", nx, "x", ny,
                        ": extents must not be negative");
        detail::require(dims[0] >= 0 && dims[1] >= 0, fn, "dims are ", dims[0], "x", dims[1],
                        ": must not be negative (0: chosen here)");
        detail::require(dims[0] == 0 || dims[1] == 0 || (long long)dims[0] * dims[1] == size, fn,
                        "dims are ", dims[0], "x", dims[1], ", whose product is not the ", size,
                        " ranks of the communicator");
        detail::require(
            (dims[0] == 0 || size % dims[0] == 0) && (dims[1] == 0 || size % dims[1] == 0), fn,
            "dims are ", dims[0], "x", dims[1], ": a given dim must divide the ", size, " ranks");
        grid = choose_dims(size, nx, ny, dims);
        detail::require(grid[0] > 0, fn, "a field of ", nx, "x", ny, " cannot be split into ", size,
                        " blocks", dims[0] || dims[1] ? " of the dims asked for" : "",
                        " that each hold at least one row and one column");
      },
      {{"nx", nx}, {"ny", ny}, {"dims[0]", dims[0]}, {"dims[1]", dims[1]}});

  Decomposition d;
  MPI_Comm dup = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_dup(comm, &dup), fn, "MPI_Comm_dup");
  d.owner = std::shared_ptr<const MPI_Comm>(new MPI_Comm(dup), [](const MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(const_cast<MPI_Comm*>(c));
    delete c;
  });
  d.comm = dup;
  d.rank = rank;
  d.size = size;
  d.dims = grid;
  d.coords = {rank / grid[1], rank % grid[1]};
  d.nx = nx;
  d.ny = ny;
  d.x0 = block_begin(nx, grid[0], d.coords[0]);
  d.y0 = block_begin(ny, grid[1], d.coords[1]);
  d.local_nx = block_begin(nx, grid[0], d.coords[0] + 1) - d.x0;
  d.local_ny = block_begin(ny, grid[1], d.coords[1] + 1) - d.y0;
  const auto at = [&](int cx, int cy) {
    return cx < 0 || cy < 0 || cx >= grid[0] || cy >= grid[1] ? MPI_PROC_NULL : cx * grid[1] + cy;
  };
  d.north = at(d.coords[0] - 1, d.coords[1]);
  d.south = at(d.coords[0] + 1, d.coords[1]);
  d.west = at(d.coords[0], d.coords[1] - 1);
  d.east = at(d.coords[0], d.coords[1] + 1);
  return d;
}

}  // namespace unison::mpi
