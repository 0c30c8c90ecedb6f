// unison_mpi_bench: weak and strong scaling of the distributed diffusion (on a DiffusionPlan made
// once per case, and the one-shot mpi::diffuse), the halo messages' latency and bandwidth, and the
// distributed matmul-reduce, under mpiexec (one rank per GPU), on Kokkos' default execution space.
//   mpiexec -n N unison_mpi_bench [--benchmark_filter=REGEX] [--benchmark_out=FILE ...]
// Every rank runs every case; an iteration's time is the slowest rank's (MPI_Barrier, the call,
// which returns when the rank's work is done, MPI_Allreduce of the elapsed times with MAX).
// Rank 0 reports; the counters give the time per step, the bytes each rank's step moves, the
// halos' depth and transport the plan used, and the times it chose the depth from.
// Cases:
//   mpi/diffusion/weak/<per rank>x<per rank>/...   the field grows with the ranks (dims from
//                                                  MPI_Dims_create; 8192 and 2048 per GPU)
//   mpi/diffusion/strong/<n>x<n>/...               one field of n x n over all ranks (16384)
//   .../steps:<s>/depth:<auto|k>/overlap:<0|1>     calls of s steps (10 and 100) on one plan;
//                                                  the halos' depth chosen by the plan or k
//   mpi/diffusion/one_shot/...                     mpi::diffuse, a plan made in every call
//   mpi/diffusion/single_rank/...                  unison::diffuse on one rank's field (the
//                                                  single-GPU library call), 1-rank runs only
//   mpi/pingpong/<bytes>/<host|device>             one message between ranks 0 and 1 (half a
//                                                  round trip): from pinned host memory, or
//                                                  from GPU memory through pinned host memory
//                                                  as the host transport does (2+ ranks)
//   mpi/matmul_reduce/<m>x<k>x<n>/<method>          A (m rows in all) split by rows
// UNISON_MPI_BENCH_SIZE=N: N x N per rank for weak scaling (4N x 4N strong) instead of 8192, and
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
using Field = Kokkos::View<float**, Mem>;

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

void plan_counters(benchmark::State& state, const umpi::DiffusionPlan<Exec, Field>& plan) {
  const auto& d = plan.decomposition();
  state.counters["dims0"] = d.dims[0];
  state.counters["dims1"] = d.dims[1];
  state.counters["halo_depth"] = plan.halo_depth();
  state.counters["host_staged"] = plan.transport() == umpi::Transport::host;
  const auto& t = plan.measured();
  if (t.deep > 0) {
    state.counters["x1_us"] = t.exchange_one * 1e6;  // one exchange of one-cell halos
    state.counters["xdeep_us"] = t.exchange_deep * 1e6;
    state.counters["deep"] = t.deep;
    state.counters["interior_us"] = t.interior * 1e6;
    state.counters["launch_us"] = t.launch * 1e6;
  }
}

// Calls of `steps` steps on one plan (made before the timing, with one untimed call).
void diffusion(benchmark::State& state, std::int64_t nx, std::int64_t ny, std::array<int, 2> dims,
               std::int64_t steps, int depth, bool overlap) {
  const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
  Field f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
  Exec exec;
  umpi::jagged_field(exec, d, f);
  const umpi::ExchangeOptions options{umpi::Transport::automatic, overlap, depth};
  umpi::DiffusionPlan plan(exec, d, f, options);
  plan.diffuse(f, 2, 0.25, lapl);  // warm-up
  double total = 0;
  for (auto _ : state) {
    const double t = timed(d.comm, [&] { plan.diffuse(f, steps, 0.25, lapl); });
    state.SetIterationTime(t);
    total += t;
  }
  set_step_counters(state, total, steps, d.local_nx * d.local_ny, d.size);
  plan_counters(state, plan);
  state.counters["gpu_aware"] = umpi::gpu_aware();
}

// The one-shot mpi::diffuse (a plan, its buffers and its depth choice in every call).
void one_shot(benchmark::State& state, std::int64_t nx, std::int64_t ny, std::array<int, 2> dims,
              std::int64_t steps) {
  const auto d = umpi::decompose(MPI_COMM_WORLD, nx, ny, dims);
  Field f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
  Exec exec;
  umpi::jagged_field(exec, d, f);
  umpi::diffuse(exec, d, f, 2, 0.25, lapl);  // warm-up
  double total = 0;
  for (auto _ : state) {
    const double t = timed(d.comm, [&] { umpi::diffuse(exec, d, f, steps, 0.25, lapl); });
    state.SetIterationTime(t);
    total += t;
  }
  set_step_counters(state, total, steps, d.local_nx * d.local_ny, d.size);
}

// Half the round trip of a message of `bytes` between ranks 0 and 1 (the other ranks wait),
// from pinned host memory, or from GPU memory through pinned host memory (copied out before the
// send, in after the receive, as the host transport does).
void pingpong(benchmark::State& state, std::int64_t bytes, bool staged) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::int64_t n = std::max<std::int64_t>(bytes / 4, 1);
  Kokkos::View<float*, Kokkos::SharedHostPinnedSpace> host("host", n);
  Kokkos::View<float*, Mem> device("device", n);
  Exec exec;
  constexpr int trips = 50;
  const auto out = [&] {  // GPU memory to the message buffer
    if (staged) {
      Kokkos::deep_copy(exec, host, device);
      exec.fence();
    }
  };
  const auto in = [&] {  // the message buffer to GPU memory
    if (staged) {
      Kokkos::deep_copy(exec, device, host);
      exec.fence();
    }
  };
  const auto trip = [&] {
    if (rank > 1) return;
    const int other = 1 - rank;
    for (int i = 0; i < trips; ++i) {
      if (rank == 0) {
        out();
        MPI_Send(host.data(), int(n), MPI_FLOAT, other, 0, MPI_COMM_WORLD);
        MPI_Recv(host.data(), int(n), MPI_FLOAT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        in();
      } else {
        MPI_Recv(host.data(), int(n), MPI_FLOAT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        in();
        out();
        MPI_Send(host.data(), int(n), MPI_FLOAT, other, 0, MPI_COMM_WORLD);
      }
    }
  };
  trip();
  for (auto _ : state) state.SetIterationTime(timed(MPI_COMM_WORLD, trip) / (2 * trips));
  state.counters["bytes"] = double(n * 4);
  state.counters["GB/s"] = benchmark::Counter(
      double(n * 4), benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
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
  const auto depth_name = [](int depth) {
    return depth == 0 ? std::string("auto") : std::to_string(depth);
  };
  const std::string ranks = "/ranks:" + std::to_string(size) + backend;
  const std::vector<std::int64_t> weak =
      small ? std::vector<std::int64_t>{size_given} : std::vector<std::int64_t>{8192, 2048};
  for (std::int64_t per : weak) {
    const std::string field = std::to_string(per) + "x" + std::to_string(per);
    for (std::int64_t steps : {10, 100}) {
      for (auto [depth_, overlap_] : {std::pair{0, true}, {1, true}, {1, false}}) {
        const int depth = depth_;  // copies: lambdas capture no structured bindings in C++17
        const bool overlap = overlap_;
        if (!overlap && (steps == 10 || per != weak[0])) continue;
        const std::string tail = "/steps:" + std::to_string(steps) + "/depth:" + depth_name(depth) +
                                 "/overlap:" + std::to_string(int(overlap)) + ranks;
        add("mpi/diffusion/weak/" + field + tail, [=](benchmark::State& s) {
          diffusion(s, per * dims[0], per * dims[1], dims, steps, depth, overlap);
        });
        if (per != weak[0] || !overlap) continue;
        const std::int64_t n = small ? 4 * per : 16384;
        add("mpi/diffusion/strong/" + std::to_string(n) + "x" + std::to_string(n) + tail,
            [=](benchmark::State& s) {
              diffusion(s, n, n, {0, 0}, steps, depth, overlap);
            });
      }
      if (per == weak[0])
        add("mpi/diffusion/one_shot/weak/" + field + "/steps:" + std::to_string(steps) + ranks,
            [=](benchmark::State& s) { one_shot(s, per * dims[0], per * dims[1], dims, steps); });
      if (size == 1)
        add("mpi/diffusion/single_rank/" + field + "/steps:" + std::to_string(steps) + backend,
            [=](benchmark::State& s) { single_rank(s, per, steps); });
    }
  }
  if (size > 1)
    for (std::int64_t bytes : {8, 1024, 32768, 262144, 4194304})
      for (bool staged : {false, true})
        add("mpi/pingpong/" + std::to_string(bytes) + (staged ? "/device" : "/host") + ranks,
            [=](benchmark::State& s) { pingpong(s, bytes, staged); });
  for (auto [method, name] : {std::pair{unison::MatmulMethod::gemm, "gemm"},
                              std::pair{unison::MatmulMethod::tiled, "tiled"},
                              std::pair{unison::MatmulMethod::reassociated, "reassociated"}}) {
    const auto how = method;  // a copy: lambdas capture no structured bindings in C++17
    const std::int64_t m = small ? 400 : 40000, k = small ? 50 : 5000, n = small ? 70 : 7000;
    add("mpi/matmul_reduce/" + std::to_string(m) + "x" + std::to_string(k) + "x" +
            std::to_string(n) + "/" + name + "/ranks:" + std::to_string(size) + backend,
        [=](benchmark::State& s) { matmul(s, m, k, n, how); });
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
