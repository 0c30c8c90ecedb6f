// unison_mpi_bench: weak and strong scaling of unison::mpi::diffuse, and the distributed
// matmul-reduce, under mpiexec (one rank per GPU), on Kokkos' default execution space.
//   mpiexec -n N unison_mpi_bench [--benchmark_filter=REGEX] [--benchmark_out=FILE ...]
// Every rank runs every case; an iteration's time is the slowest rank's (MPI_Barrier, the call,
// which returns when the rank's work is done, MPI_Allreduce of the elapsed times with MAX).
// Rank 0 reports; the counters give the time per step and the bytes each rank's step moves.
// Cases:
//   mpi/diffusion/weak/<per rank>x<per rank>/...   the field grows with the ranks (dims from
//                                                  MPI_Dims_create; 8192 x 8192 per GPU)
//   mpi/diffusion/strong/<n>x<n>/...               one field of n x n over all ranks
//   .../steps:<s>/overlap:<0|1>                     s steps per call (20 and 100: the per-step
//                                                  time without the per-call cost is their
//                                                  difference over 80); halos overlapped or not
//   mpi/diffusion/single_rank/...                   unison::diffuse on one rank's field (the
//                                                  single-GPU library call), 1-rank runs only
//   mpi/matmul_reduce/<m>x<k>x<n>/<method>          A split by rows
// UNISON_MPI_BENCH_SIZE=N: N x N per rank for weak scaling (2N x 2N strong) instead of 8192, and
// the matmul-reduce at a hundredth of the seed size (a quick run on a small machine).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <unison/mpi.hpp>

namespace {

namespace umpi = unison::mpi;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// The slowest rank's time of call(), after a barrier.
template <class Call>
double timed(MPI_Comm comm, Call&& call) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  call();
  const double mine = MPI_Wtime() - t0;
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

void set_step_counters(benchmark::State& state, double seconds, std::int64_t steps,
                       std::int64_t cells_per_rank, int ranks) {
  const double step = seconds / double(state.iterations()) / double(steps);
  state.counters["ranks"] = ranks;
  state.counters["step_us"] = step * 1e6;
  // A step reads the field and writes the new field and the Laplacian: 12 bytes a float cell.
  state.counters["GB/s/rank"] = double(cells_per_rank) * 12.0 / step / 1e9;
}

void diffusion(benchmark::State& state, std::int64_t nx, std::int64_t ny, std::array<int, 2> dims,
               std::int64_t steps, bool overlap) {
  const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
  Kokkos::View<float**, Mem> f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
  Exec exec;
  umpi::jagged_field(exec, d, f);
  const umpi::ExchangeOptions options{umpi::Transport::automatic, overlap};
  umpi::diffuse(exec, d, f, 2, 0.25, lapl, unison::Laplacian::every_step, options);  // warm-up
  double total = 0;
  for (auto _ : state) {
    const double t = timed(d.comm, [&] {
      umpi::diffuse(exec, d, f, steps, 0.25, lapl, unison::Laplacian::every_step, options);
    });
    state.SetIterationTime(t);
    total += t;
  }
  set_step_counters(state, total, steps, d.local_nx * d.local_ny, d.size);
  state.counters["dims0"] = d.dims[0];
  state.counters["dims1"] = d.dims[1];
  state.counters["gpu_aware"] = umpi::gpu_aware();
}

// unison::diffuse on an n x n field on this rank alone, with its buffer (no allocation per call).
void single_rank(benchmark::State& state, std::int64_t n, std::int64_t steps) {
  Kokkos::View<float**, Mem> f("f", n, n), lapl("lapl", n, n);
  unison::DiffusionBuffer<decltype(f)> buffer("buffer", n, n);
  Exec exec;
  unison::jagged_field(exec, f);
  double total = 0;
  for (auto _ : state) {
    const double t = timed(MPI_COMM_WORLD, [&] {
      unison::diffuse(exec, f, buffer, steps, 0.25, lapl);
      exec.fence();
    });
    state.SetIterationTime(t);
    total += t;
  }
  set_step_counters(state, total, steps, n * n, 1);
}

void matmul(benchmark::State& state, std::int64_t m, std::int64_t k, std::int64_t n,
            unison::MatmulMethod method) {
  int rank = 0;
  const int size = world_size();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::int64_t r0 = umpi::block_begin(m, size, rank),
                     r1 = umpi::block_begin(m, size, rank + 1);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> A("A", r1 - r0, k), B("B", k, n);
  Kokkos::View<float*, Mem> out("out", n);
  Kokkos::deep_copy(A, 0.5f);
  Kokkos::deep_copy(B, 0.25f);
  Exec exec;
  umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, out, method);  // warm-up
  for (auto _ : state)
    state.SetIterationTime(timed(
        MPI_COMM_WORLD, [&] { umpi::matmul_reduce(exec, MPI_COMM_WORLD, A, B, out, method); }));
  state.counters["ranks"] = size;
  state.counters["FLOP/s"] = benchmark::Counter(
      method == unison::MatmulMethod::reassociated ? 2.0 * (m * k + k * n) : 2.0 * m * k * n,
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

void register_all() {
  const int size = world_size();
  int dims_arr[2] = {0, 0};
  MPI_Dims_create(size, 2, dims_arr);
  const std::array<int, 2> dims{dims_arr[0], dims_arr[1]};
  const auto add = [](const std::string& name, auto&& fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(5)
        ->Repetitions(3);
  };
  const std::string backend = std::string("/") + Exec::name();
  const char* env = std::getenv("UNISON_MPI_BENCH_SIZE");
  const std::int64_t size_given = env ? std::atoll(env) : 0;
  const bool small = size_given > 0;
  for (std::int64_t per : {small ? size_given : std::int64_t(8192)}) {
    for (std::int64_t steps : {20, 100}) {
      for (bool overlap : {true, false}) {
        if (steps == 20 && !overlap) continue;  // steps 20: the per-call cost, by difference
        const std::string tail = "/steps:" + std::to_string(steps) +
                                 "/overlap:" + std::to_string(int(overlap)) +
                                 "/ranks:" + std::to_string(size) + backend;
        add("mpi/diffusion/weak/" + std::to_string(per) + "x" + std::to_string(per) + tail,
            [=](benchmark::State& s) {
              diffusion(s, per * dims[0], per * dims[1], dims, steps, overlap);
            });
        const std::int64_t n = 2 * per;
        add("mpi/diffusion/strong/" + std::to_string(n) + "x" + std::to_string(n) + tail,
            [=](benchmark::State& s) {
              diffusion(s, n, n, {0, 0}, steps, overlap);
            });
      }
    }
    if (size == 1)
      add("mpi/diffusion/single_rank/" + std::to_string(per) + "x" + std::to_string(per) +
              "/steps:100" + backend,
          [=](benchmark::State& s) { single_rank(s, per, 100); });
  }
  for (auto [method, name] : {std::pair{unison::MatmulMethod::gemm, "gemm"},
                              std::pair{unison::MatmulMethod::tiled, "tiled"},
                              std::pair{unison::MatmulMethod::reassociated, "reassociated"}}) {
    const std::int64_t m = small ? 100 : 10000, k = small ? 50 : 5000, n = small ? 70 : 7000;
    add("mpi/matmul_reduce/" + std::to_string(m) + "x" + std::to_string(k) + "x" +
            std::to_string(n) + "/" + name + "/ranks:" + std::to_string(size) + backend,
        [=](benchmark::State& s) { matmul(s, m, k, n, method); });
  }
}

// Reports nothing: the ranks other than 0.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    // Only rank 0 writes --benchmark_out's file.
    std::vector<char*> args(argv, argv + argc);
    if (rank != 0)
      args.erase(
          std::remove_if(args.begin() + 1, args.end(),
                         [](char* a) { return std::strncmp(a, "--benchmark_out", 15) == 0; }),
          args.end());
    int n = int(args.size());
    benchmark::Initialize(&n, args.data());
    if (rank == 0 && benchmark::ReportUnrecognizedArguments(n, args.data())) {
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    register_all();
    if (rank == 0) {
      benchmark::RunSpecifiedBenchmarks();
    } else {
      Silent silent;
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
    benchmark::Shutdown();
  }
  MPI_Finalize();
  return 0;
}
