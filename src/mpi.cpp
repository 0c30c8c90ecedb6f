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

namespace unison::detail::mpi {

void check_mpi(int code, const char* fn, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(fn) + ": " + call +
                           " failed: " + std::string(text, std::size_t(length)));
}

void check_decomposition(const unison::mpi::Decomposition& d, const char* fn) {
  require(d.comm != MPI_COMM_NULL && d.size > 0, fn,
          "the Decomposition has no communicator: make it with unison::mpi::decompose");
}

void agree_on(MPI_Comm comm, const char* fn, const std::string& local_error,
              const std::vector<std::pair<const char*, long long>>& same) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), fn, "MPI_Comm_rank");
  // [this rank if its check failed, else -1; the values that must agree; their complements]:
  // one reduction with MAX gives each value's maximum and, through its complement (~x = -1 - x,
  // which reverses the order without overflow), its minimum.
  const std::size_t n = same.size();
  std::vector<long long> mine(2 * n + 1), hi(2 * n + 1);
  mine[0] = local_error.empty() ? -1 : rank;
  for (std::size_t i = 0; i < n; ++i) {
    mine[i + 1] = same[i].second;
    mine[n + i + 1] = ~same[i].second;
  }
  check_mpi(MPI_Allreduce(mine.data(), hi.data(), int(mine.size()), MPI_LONG_LONG, MPI_MAX, comm),
            fn, "MPI_Allreduce");
  if (!local_error.empty()) throw unison::invalid_argument(local_error);
  if (hi[0] >= 0)
    fail(fn, "rank ", hi[0], " refused its arguments (its exception says why); every rank stops");
  for (std::size_t i = 0; i < n; ++i)
    require(~hi[n + i + 1] == hi[i + 1], fn, same[i].first,
            " differs between ranks: every rank must pass the same");
}

namespace {
constexpr int opposite(int s) {
  // north <-> south, west <-> east, north-west <-> south-east, north-east <-> south-west
  constexpr int o[HaloSegments::count] = {1, 0, 3, 2, 7, 6, 5, 4};
  return o[s];
}
}  // namespace

std::array<int, HaloSegments::count> neighbour_ranks(const unison::mpi::Decomposition& d) {
  const auto at = [&](int dx, int dy) {
    const int cx = d.coords[0] + dx, cy = d.coords[1] + dy;
    return cx < 0 || cy < 0 || cx >= d.dims[0] || cy >= d.dims[1] ? MPI_PROC_NULL
                                                                  : cx * d.dims[1] + cy;
  };
  return {at(-1, 0), at(1, 0), at(0, -1), at(0, 1), at(-1, -1), at(-1, 1), at(1, -1), at(1, 1)};
}

std::array<bool, HaloSegments::count> neighbours_present(const unison::mpi::Decomposition& d) {
  const auto r = neighbour_ranks(d);
  std::array<bool, HaloSegments::count> p{};
  for (int s = 0; s < HaloSegments::count; ++s)
    p[std::size_t(s)] = r[std::size_t(s)] != MPI_PROC_NULL;
  return p;
}

std::int64_t deepest_halo(const unison::mpi::Decomposition& d) {
  std::int64_t deepest = std::numeric_limits<int>::max();
  if (d.dims[0] > 1) deepest = std::min<std::int64_t>(deepest, d.nx / d.dims[0]);
  if (d.dims[1] > 1) deepest = std::min<std::int64_t>(deepest, d.ny / d.dims[1]);
  return deepest;
}

Exchange::Exchange(const unison::mpi::Decomposition& d, MPI_Datatype type, const HaloSegments& seg,
                   void* send, void* recv, std::size_t value_bytes) {
  constexpr const char* fn = "unison::mpi::DiffusionPlan";
  const auto ranks = neighbour_ranks(d);
  for (int s = 0; s < HaloSegments::count; ++s) {
    const int other = ranks[std::size_t(s)];
    const std::int64_t n = seg.offset[s + 1] - seg.offset[s];
    if (other == MPI_PROC_NULL || n == 0) continue;
    const std::size_t at = std::size_t(seg.offset[s]) * value_bytes;
    MPI_Request r = MPI_REQUEST_NULL;
    // What arrives for segment s travels away from that neighbour: the opposite direction.
    check_mpi(
        MPI_Recv_init(static_cast<char*>(recv) + at, int(n), type, other, opposite(s), d.comm, &r),
        fn, "MPI_Recv_init");
    receives_.push_back(r);
    check_mpi(MPI_Send_init(static_cast<char*>(send) + at, int(n), type, other, s, d.comm, &r), fn,
              "MPI_Send_init");
    sends_.push_back(r);
  }
  all_ = receives_;
  all_.insert(all_.end(), sends_.begin(), sends_.end());
}

Exchange& Exchange::operator=(Exchange&& other) noexcept {
  if (this != &other) {
    release();
    receives_ = std::move(other.receives_);
    sends_ = std::move(other.sends_);
    all_ = std::move(other.all_);
    other.receives_.clear();
    other.sends_.clear();
    other.all_.clear();
  }
  return *this;
}

Exchange::~Exchange() { release(); }

void Exchange::release() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    for (MPI_Request& r : all_)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  receives_.clear();
  sends_.clear();
  all_.clear();
}

void Exchange::start_receives() {
  if (!receives_.empty())
    check_mpi(MPI_Startall(int(receives_.size()), receives_.data()), "unison::mpi::diffuse",
              "MPI_Startall");
}

void Exchange::start_sends() {
  if (!sends_.empty())
    check_mpi(MPI_Startall(int(sends_.size()), sends_.data()), "unison::mpi::diffuse",
              "MPI_Startall");
}

void Exchange::wait() {
  // Persistent requests stay allocated (inactive) after the wait; all_ holds each handle once.
  if (!all_.empty())
    check_mpi(MPI_Waitall(int(all_.size()), all_.data(), MPI_STATUSES_IGNORE),
              "unison::mpi::diffuse", "MPI_Waitall");
}

int choose_depth(const unison::mpi::Decomposition& d, const unison::mpi::HaloTimes& t, bool overlap,
                 int deep) {
  constexpr const char* fn = "unison::mpi::DiffusionPlan";
  const auto present = neighbours_present(d);
  const double nx = double(d.local_nx), ny = double(d.local_ny);
  const auto widened = [&](int e) {  // the cells of the block widened by e toward each neighbour
    return (nx + e * (present[0] + present[1])) * (ny + e * (present[2] + present[3]));
  };
  const auto interior = [&](int j) {  // the cells of the block less j on every side
    return std::max(nx - 2.0 * j, 0.0) * std::max(ny - 2.0 * j, 0.0);
  };
  // A launch's cost, and each cell's beyond it, from the timed interior update.
  const double cell =
      t.interior_cells > 0 ? std::max(t.interior - t.launch, 0.0) / double(t.interior_cells) : 0;
  const auto update = [&](double cells) { return t.launch + cell * cells; };
  std::vector<double> cost(static_cast<std::size_t>(deep));
  for (int k = 1; k <= deep; ++k) {
    const double values = double(HaloSegments(d.local_nx, d.local_ny, k, present, k, k).size());
    const double exchange = t.deep_values > t.one_values
                                ? t.exchange_one + (t.exchange_deep - t.exchange_one) *
                                                       (values - double(t.one_values)) /
                                                       double(t.deep_values - t.one_values)
                                : t.exchange_one;
    // A period of k steps. Overlapped: the interiors of the k steps on one stream beside the
    // exchange and the k steps' edge cells on the other. Otherwise the exchange, then the k
    // steps over the block widened by k - 1, ..., 0 cells.
    double inside = 0, edges = 0, whole = 0;
    for (int j = 1; j <= k; ++j) {
      inside += update(interior(j));
      edges += update(widened(k - j) - interior(j));
      whole += update(widened(k - j));
    }
    const double period = overlap ? std::max(inside, exchange + edges) : exchange + whole;
    cost[std::size_t(k - 1)] = period / k;
  }
  std::vector<double> slowest(cost.size());
  check_mpi(MPI_Allreduce(cost.data(), slowest.data(), deep, MPI_DOUBLE, MPI_MAX, d.comm), fn,
            "MPI_Allreduce");
  return int(std::min_element(slowest.begin(), slowest.end()) - slowest.begin()) + 1;
}

}  // namespace unison::detail::mpi

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
  detail::mpi::check_mpi(MPI_Comm_size(comm, &size), fn, "MPI_Comm_size");
  detail::mpi::check_mpi(MPI_Comm_rank(comm, &rank), fn, "MPI_Comm_rank");
  std::array<int, 2> grid{0, 0};
  detail::mpi::agree(
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
  detail::mpi::check_mpi(MPI_Comm_dup(comm, &dup), fn, "MPI_Comm_dup");
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
