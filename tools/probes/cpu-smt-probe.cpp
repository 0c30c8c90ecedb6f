// Which logical CPUs share a physical core, measured: one thread of FMA-bound work on CPU 0
// alone, then on CPU 0 and CPU j at once for every other j. Two logical CPUs of one core share
// its FMA units, so the pair takes about twice as long; CPUs of different cores do not.
// (A virtual machine may report one thread per core whatever the host does.) With the argument
// "all": CPU 0 alone, then the same work on every CPU at once (each pinned to its own): the
// FMA rate of all the cores together, against which the suite's OpenMP fma case is read.
//   g++ -O2 -march=native -ffp-contract=fast -pthread tools/probes/cpu-smt-probe.cpp -o smt
//   ./smt [all]
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// 12 independent chains of FMAs (enough to cover two units' latency), 8 doubles wide.
double work(long rounds) {
  typedef double V __attribute__((vector_size(64)));
  V a0 = V{} + 1.0, a1 = a0 + 1e-3, a2 = a1 + 1e-3, a3 = a2 + 1e-3, a4 = a3 + 1e-3, a5 = a4 + 1e-3,
    a6 = a5 + 1e-3, a7 = a6 + 1e-3, a8 = a7 + 1e-3, a9 = a8 + 1e-3, a10 = a9 + 1e-3,
    a11 = a10 + 1e-3;
  const V m = V{} + 0.999999, c = V{} + 1e-6;
  for (long r = 0; r < rounds; ++r) {
    a0 = a0 * m + c;
    a1 = a1 * m + c;
    a2 = a2 * m + c;
    a3 = a3 * m + c;
    a4 = a4 * m + c;
    a5 = a5 * m + c;
    a6 = a6 * m + c;
    a7 = a7 * m + c;
    a8 = a8 * m + c;
    a9 = a9 * m + c;
    a10 = a10 * m + c;
    a11 = a11 * m + c;
  }
  const V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  double t = 0;
  for (int l = 0; l < 8; ++l) t += s[l];
  return t;
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

double timed(int cpu, long rounds, double* sink) {
  pin(cpu);
  const auto t0 = std::chrono::steady_clock::now();
  *sink = work(rounds);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int cpus = int(std::thread::hardware_concurrency());
  const long rounds = 100000000;
  double sink[2];
  timed(0, rounds / 4, sink);  // warm up the clock
  const double alone = timed(0, rounds, sink);
  std::printf("CPU 0 alone: %.3f s (%.1f GFLOP/s)\n", alone, 2.0 * 8 * 12 * rounds / alone * 1e-9);
  if (argc > 1 && std::strcmp(argv[1], "all") == 0) {
    std::vector<double> t(cpus), sinks(cpus);
    std::vector<std::thread> threads;
    for (int c = 0; c < cpus; ++c)
      threads.emplace_back([&, c] { t[c] = timed(c, rounds, &sinks[c]); });
    double slowest = 0, sum = 0;
    for (int c = 0; c < cpus; ++c) {
      threads[c].join();
      slowest = t[c] > slowest ? t[c] : slowest;
      sum += 2.0 * 8 * 12 * rounds / t[c] * 1e-9;
    }
    std::printf(
        "all %d CPUs at once: the slowest %.3f s, %.0f GFLOP/s in all (%.1f per CPU; %.2fx CPU 0 "
        "alone)\n",
        cpus, slowest, sum, sum / cpus, slowest / alone);
    return sinks[0] > 0 ? 0 : 1;
  }
  for (int j = 1; j < cpus; ++j) {
    double t[2];
    std::thread a([&] { t[0] = timed(0, rounds, &sink[0]); });
    std::thread b([&] { t[1] = timed(j, rounds, &sink[1]); });
    a.join();
    b.join();
    std::printf("CPU 0 with CPU %2d: %.3f s and %.3f s (%.2fx alone)%s\n", j, t[0], t[1],
                t[0] / alone, t[0] > 1.5 * alone ? "  <- one core" : "");
  }
  return sink[0] > 0 ? 0 : 1;
}
