// Why the OpenMP backend's GEMM (Kokkos Kernels on OpenBLAS, pthreads build) ran at about one
// core's speed under OMP_PROC_BIND=spread: times sgemm (m, k, n = 4000) from the main thread
// before the OpenMP runtime starts, after a parallel region has bound the main thread, and with
// the main thread's affinity widened again; lists every thread's allowed CPUs at each stage.
// Build: g++ -O2 -fopenmp tools/probes/cpu-blas-threads-probe.cpp -lopenblas -o bp
// Run:   OMP_PROC_BIND=spread OMP_PLACES=threads [PROBE_LATE=1] ./bp
#include <dirent.h>
#include <omp.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*,
                       const int*);

static void threads(const char* stage) {
  std::printf("  threads %s:", stage);
  DIR* d = opendir("/proc/self/task");
  std::vector<std::string> lines;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream st(std::string("/proc/self/task/") + e->d_name + "/status");
    std::string line, cpus;
    while (std::getline(st, line))
      if (line.rfind("Cpus_allowed_list:", 0) == 0) cpus = line.substr(19);
    lines.push_back(cpus);
  }
  closedir(d);
  std::printf(" %zu threads; allowed CPUs:", lines.size());
  for (auto& l : lines) std::printf(" [%s]", l.c_str());
  std::printf("\n");
}

static double gemm_s(int n) {
  std::vector<float> a(std::size_t(n) * n, 1.f), b(std::size_t(n) * n, 0.5f), c(std::size_t(n) * n);
  const float one = 1, zero = 0;
  sgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n);
  const auto t0 = std::chrono::steady_clock::now();
  sgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main() {
  const int n = 4000;
  const double flops = 2.0 * n * n * n;
  cpu_set_t initial;
  sched_getaffinity(0, sizeof initial, &initial);
  std::printf("before OpenMP starts: main thread may use %d CPUs\n", CPU_COUNT(&initial));
  double s = 0;
  // PROBE_LATE=1: no BLAS call before the OpenMP runtime has bound the main thread (as in
  // unison-bench, where Kokkos starts OpenMP before any GEMM).
  if (!std::getenv("PROBE_LATE")) {
    s = gemm_s(n);
    std::printf("sgemm %d^3 before OpenMP: %.3f s, %.0f GFLOP/s\n", n, s, flops / s / 1e9);
    threads("after the first sgemm");
  }
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  cpu_set_t bound;
  sched_getaffinity(0, sizeof bound, &bound);
  std::printf("after a parallel region of %d threads: main thread may use %d CPUs\n", team,
              CPU_COUNT(&bound));
  s = gemm_s(n);
  std::printf("sgemm from the bound main thread: %.3f s, %.0f GFLOP/s\n", s, flops / s / 1e9);
  threads("now");
  sched_setaffinity(0, sizeof initial, &initial);
  s = gemm_s(n);
  std::printf("sgemm with the main thread's affinity widened: %.3f s, %.0f GFLOP/s\n", s,
              flops / s / 1e9);
  sched_setaffinity(0, sizeof bound, &bound);
  return 0;
}
