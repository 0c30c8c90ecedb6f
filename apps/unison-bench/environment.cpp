#include "environment.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include <unistd.h>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include <unison/backends/device_info.hpp>
#include <unison/backends/enabled.hpp>
#include <unison/backends/host/blas.hpp>
#include <unison/core.hpp>

#include "cases/common.hpp"
#include "cgroup.hpp"

namespace unison::suite {

// The CPUs this process was given: its affinity mask, with the CPUs of every OpenMP place. (An
// OpenMP runtime told to bind its threads, OMP_PROC_BIND, binds the first thread to the first
// place as it loads, before main: the mask then holds one place, but the places still cover
// every CPU the process was started with, as a taskset mask or a cgroup's cpuset gave them.)
// The CPUs of the OpenMP places (none without OpenMP or places).
cpu_set_t place_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
#ifdef _OPENMP
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(std::size_t(std::max(0, omp_get_place_num_procs(p))));
    if (!ids.empty()) omp_get_place_proc_ids(p, ids.data());
    for (const int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  }
#endif
  return set;
}
cpu_set_t allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    for (unsigned c = 0; c < std::thread::hardware_concurrency() && c < CPU_SETSIZE; ++c)
      CPU_SET(c, &set);
  cpu_set_t places = place_cpus();
  CPU_OR(&set, &set, &places);
  return set;
}

// "0-3,8" for a set of CPUs.
std::string cpu_list(const cpu_set_t& set) {
  std::string s;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set) || (c > 0 && CPU_ISSET(c - 1, &set))) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    s += (s.empty() ? "" : ",") + std::to_string(c) + (last > c ? "-" + std::to_string(last) : "");
  }
  return s;
}

Cpus cpus_available() {
  Cpus c;
  const cpu_set_t set = allowed_cpus();
  c.allowed = CPU_COUNT(&set);
  c.list = cpu_list(set);
  std::ifstream self_file("/proc/self/cgroup");
  std::stringstream self;
  self << self_file.rdbuf();
  const char* root = std::getenv("UNISON_BENCH_CGROUP_ROOT");
  c.limit = unison::suite::cgroup_cpu_limit(root && *root ? root : "/sys/fs/cgroup", self.str());
  c.available = c.allowed;
  const cpu_set_t places = place_cpus();
  const char* placed = std::getenv("UNISON_BENCH_PLACED");
  if (std::getenv("OMP_PLACES") && !(placed && std::string(placed) == "1") &&
      CPU_COUNT(&places) > 0)
    c.available = std::min(c.available, CPU_COUNT(&places));
  if (c.limit > 0) c.available = std::max(1, std::min(c.available, int(std::ceil(c.limit - 1e-9))));
  return c;
}
Cpus& cpus() {
  static Cpus c;
  return c;
}

// The threads each CPU backend runs (Serial: 1), for the table's header and the records.
int openmp_threads() {
  int threads = 0;
  unison::backends::for_each_enabled_space([&](auto tag) {
    using Exec = typename decltype(tag)::type;
    if (std::string(Exec::name()) == "OpenMP") threads = Exec().concurrency();
  });
  return threads;
}

std::string cpus_line() {
  const Cpus& c = cpus();
  char limit[64] = "none";
  if (c.limit > 0) std::snprintf(limit, sizeof limit, "%.3g CPUs", c.limit);
  return std::to_string(c.available) +
         " available to this process (affinity: " + std::to_string(c.allowed) + " CPUs, " + c.list +
         "; cgroup CPU limit: " + limit + ")";
}

// "2 (Kokkos::OpenMP's concurrency)", and the placement; "" without an OpenMP backend.
std::string openmp_line() {
  const int threads = openmp_threads();
  if (threads == 0) return "";
  const char* n = std::getenv("OMP_NUM_THREADS");
  const char* limited = std::getenv("UNISON_BENCH_THREADS_LIMITED");
  return std::to_string(threads) + " (Kokkos::OpenMP's concurrency); " + thread_placement() +
         ", OMP_NUM_THREADS=" + (n ? n : "(unset)") +
         (limited && std::string(limited) == "1" ? " (set by unison-bench: the cgroup's CPU limit)"
                                                 : "");
}

// A warning when the OpenMP backend runs another number of threads than the CPUs available:
// its times then are not this machine's. "" when they agree.
std::string threads_warning() {
  const int threads = openmp_threads();
  const int available = cpus().available;
  if (threads == 0 || threads == available) return "";
  const char* n = std::getenv("OMP_NUM_THREADS");
  std::string why = n && std::getenv("UNISON_BENCH_THREADS_LIMITED") == nullptr
                        ? std::string(" (OMP_NUM_THREADS=") + n + " asks for that)"
                        : "";
  if (threads < available)
    return "the OpenMP backend runs " + std::to_string(threads) + " thread" +
           (threads == 1 ? "" : "s") + " where " + std::to_string(available) +
           " CPUs are available" + why + ": its times understate this machine's CPU";
  return "the OpenMP backend runs " + std::to_string(threads) + " threads on " +
         std::to_string(available) + " CPUs available" + why +
         ": the threads share CPUs, and its times understate this machine's CPU";
}

void say_cpus_and_threads() {
  std::fprintf(stderr, "unison-bench: CPUs: %s\n", cpus_line().c_str());
  if (!openmp_line().empty())
    std::fprintf(stderr, "unison-bench: OpenMP threads: %s\n", openmp_line().c_str());
  if (!threads_warning().empty())
    std::fprintf(stderr, "unison-bench: WARNING: %s\n", threads_warning().c_str());
}

// The NVIDIA driver's version ("580.159.04"), from /proc/driver/nvidia/version; "" without one.
std::string gpu_driver() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto module = line.find("Kernel Module");
  if (module == std::string::npos) return "";
  std::istringstream words(line.substr(module + 13));  // (the first word that is a number)
  for (std::string word; words >> word;)
    if (std::isdigit(static_cast<unsigned char>(word[0]))) return word;
  return "";
}

// Each backend's memory levels (and the plain C loops', which run on the OpenMP backend's
// threads), for the fractions of the peaks.
unison::suite::MemoryLevels memory_levels() {
  unison::suite::MemoryLevels levels;
  for (const auto& backend : {"Serial", "OpenMP", "Cuda"}) {
    std::vector<unison::suite::Level> ls;
    for (const auto& l : unison::bench::memory_levels(backend)) ls.push_back({l.name, l.bytes});
    levels[backend] = ls;
  }
  levels["plain_c"] = levels["OpenMP"];
  return levels;
}

std::vector<std::string> enabled_backends() {
  std::vector<std::string> b;
  unison::backends::for_each_enabled_space(
      [&](auto tag) { b.push_back(decltype(tag)::type::name()); });
  return b;
}

// Where the CPU threads run, for the table's header: OMP_PROC_BIND and OMP_PLACES as the OpenMP
// runtime read them, and who set them.
std::string thread_placement() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  std::string s = std::string("OMP_PROC_BIND=") + (bind ? bind : "(unset)") +
                  ", OMP_PLACES=" + (places ? places : "(unset)");
  const char* placed = std::getenv("UNISON_BENCH_PLACED");
  return s + (placed && std::string(placed) == "1"
                  ? " (set by unison-bench: the environment set neither)"
                  : " (from the environment)");
}

// The host BLAS under the gemm baseline, for the table's header: its kernel set, and who chose it.
std::string host_blas_line() {
  const std::string core = unison::backends::host_blas_core();
  if (core.empty()) return "";
  const char* fallback = std::getenv("UNISON_BENCH_BLAS_FALLBACK");
  return "OpenBLAS, kernels " + core +
         (fallback && *fallback
              ? std::string(" (OPENBLAS_CORETYPE set by unison-bench: OpenBLAS chose ") + fallback +
                    ", a generic fallback, on this CPU)"
          : std::getenv("OPENBLAS_CORETYPE") ? " (OPENBLAS_CORETYPE from the environment)"
                                             : " (chosen by OpenBLAS)");
}

void run_again_if_needed(char** argv) {
  // The thread placement and OpenBLAS's kernels are read by the runtimes when they are loaded,
  // before main, so unison-bench runs itself again with them set: the CPU threads one per core,
  // spread over the machine, as the suite measures them, unless the user placed them; OpenBLAS's
  // kernels for this CPU where OpenBLAS did not recognise it and fell back to generic ones,
  // unless the user chose them; and, under a cgroup CPU limit below the CPUs of the mask (an
  // OpenMP runtime starts a thread per CPU of the mask, which would share the CPU time), one
  // thread per CPU the limit grants, unless the user set OMP_NUM_THREADS.
  // UNISON_BENCH_REEXEC=1 runs itself again even when nothing is to be set (for the tests).
  const bool place = !std::getenv("OMP_PROC_BIND") && !std::getenv("OMP_PLACES") &&
                     !std::getenv("UNISON_BENCH_PLACED");
  if (place) {
    setenv("OMP_PROC_BIND", "spread", 1);
    setenv("OMP_PLACES", "threads", 1);
    setenv("UNISON_BENCH_PLACED", "1", 1);
  }
  const std::string better_core = unison::backends::host_blas_better_core();
  const bool rekernel = !better_core.empty() && !std::getenv("OPENBLAS_CORETYPE") &&
                        !std::getenv("UNISON_BENCH_BLAS_FALLBACK");
  if (rekernel) {
    setenv("OPENBLAS_CORETYPE", better_core.c_str(), 1);
    setenv("UNISON_BENCH_BLAS_FALLBACK", unison::backends::host_blas_core().c_str(), 1);
  }
  const bool limit_threads = cpus().limit > 0 && cpus().available < cpus().allowed &&
                             !std::getenv("OMP_NUM_THREADS") &&
                             !std::getenv("UNISON_BENCH_THREADS_LIMITED");
  if (limit_threads) {
    setenv("OMP_NUM_THREADS", std::to_string(cpus().available).c_str(), 1);
    setenv("UNISON_BENCH_THREADS_LIMITED", "1", 1);
  }
  const char* forced_env = std::getenv("UNISON_BENCH_REEXEC");
  const bool forced = forced_env && std::string(forced_env) == "1";
  if (forced) setenv("UNISON_BENCH_REEXEC", "done", 1);
  if (place || rekernel || limit_threads || forced) {
    // The new process starts with this thread's affinity, which the OpenMP runtime may have
    // narrowed to one place: it gets back every CPU the process was given.
    const cpu_set_t all = allowed_cpus();
    sched_setaffinity(0, sizeof all, &all);
    execv("/proc/self/exe", argv);
    // (exec failed: carry on as the environment was)
    if (limit_threads) {
      unsetenv("OMP_NUM_THREADS");
      unsetenv("UNISON_BENCH_THREADS_LIMITED");
    }
    if (place) {
      unsetenv("OMP_PROC_BIND");
      unsetenv("OMP_PLACES");
      setenv("UNISON_BENCH_PLACED", "0", 1);
    }
    if (rekernel) {
      unsetenv("OPENBLAS_CORETYPE");
      unsetenv("UNISON_BENCH_BLAS_FALLBACK");
    }
  }
}

void add_machine_context() {
  benchmark::AddCustomContext("cpus", cpus_line());
  if (!openmp_line().empty()) benchmark::AddCustomContext("openmp_threads", openmp_line());
  if (!threads_warning().empty()) benchmark::AddCustomContext("warning", threads_warning());
  if (!host_blas_line().empty()) benchmark::AddCustomContext("host_blas", host_blas_line());
  if (!gpu_driver().empty()) benchmark::AddCustomContext("gpu_driver", gpu_driver());
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string find_python(const std::string& module, std::string& why) {
  const char* env = std::getenv("UNISON_BENCH_PYTHON");
  std::vector<std::string> candidates{"python3", "/usr/bin/python3"};
  if (env && *env) candidates = {env};
  for (const auto& candidate : candidates) {
    const std::string probe =
        shell_quoted(candidate) + " -c 'import " + module + "' > /dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return candidate;
  }
  why = env && *env ? std::string("UNISON_BENCH_PYTHON (") + env + ") cannot import " + module
                    : "neither python3 nor /usr/bin/python3 can import " + module +
                          " (UNISON_BENCH_PYTHON names another Python)";
  return "";
}

// The machine and versions that report.html shows.
std::vector<std::pair<std::string, std::string>> about_this_run(
    const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> about;
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  about.push_back({"date", when});
  std::string command = "unison-bench";
  for (const auto& a : args) command += " " + a;
  about.push_back({"command", command});
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string model = "unknown model";  // (an ARM CPU's /proc/cpuinfo names none)
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 1);
      model.erase(0, model.find_first_not_of(" \t"));
      break;
    }
  about.push_back({"CPU", model + ", " + std::to_string(std::thread::hardware_concurrency()) +
                              " hardware threads"});
  about.push_back({"CPUs available", cpus_line()});
  about.push_back({"CPU vectors", unison::bench::cpu_vectors()});
  if (!openmp_line().empty()) about.push_back({"OpenMP threads", openmp_line()});
  if (!threads_warning().empty()) about.push_back({"WARNING", threads_warning()});
  if (!host_blas_line().empty()) about.push_back({"host BLAS", host_blas_line()});
  for (const auto& info : unison::backends::enabled_backends()) {
    about.push_back({"backend " + info.backend, unison::backends::describe(info)});
    std::string levels;
    for (const auto& l : unison::bench::memory_levels(info.backend))
      levels += (levels.empty() ? "" : ", ") + l.name +
                (std::isfinite(l.bytes)
                     ? " " + std::to_string(static_cast<long long>(l.bytes) >> 10) + " KiB"
                     : "");
    about.push_back({"memory levels " + info.backend, levels});
  }
  if (!gpu_driver().empty()) about.push_back({"GPU driver", gpu_driver()});
#ifdef KOKKOS_ENABLE_CUDA
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess &&
      cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    about.push_back({"CUDA", "driver API " + std::to_string(driver / 1000) + "." +
                                 std::to_string(driver % 1000 / 10) + ", runtime " +
                                 std::to_string(runtime / 1000) + "." +
                                 std::to_string(runtime % 1000 / 10)});
#endif
  about.push_back({"Unison", unison::version()});
  about.push_back({"git revision", UNISON_GIT_REVISION});
  about.push_back({"Kokkos", std::to_string(KOKKOS_VERSION / 10000) + "." +
                                 std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                                 std::to_string(KOKKOS_VERSION % 100)});
  return about;
}

}  // namespace unison::suite
