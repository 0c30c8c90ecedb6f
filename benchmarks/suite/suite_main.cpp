// unison-bench: the side-by-side suite. Runs the benchmark cases of the chosen
// workload families on the chosen backends (unison_bench's cases without its exploration
// probes), prints progress while it runs and a table grouped by family with a column per
// backend and the speedups, checks every result against its float64 reference, and writes the
// results to a folder: unison_bench.json (Google Benchmark's format), unison_bench.csv, each
// case's inputs and result as .npy, plots. `unison-bench --help` lists the options.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <unison/backends/device_info.hpp>
#include <unison/backends/enabled.hpp>
#include <unison/backends/host/blas.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/npy.hpp>

#include "../bench_common.hpp"
#include "suite.hpp"

std::string thread_placement();  // (below)
std::string host_blas_line();

namespace {

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

// The CPUs available to the process as unison-bench started: those of allowed_cpus() (or of the
// places alone where the user set OMP_PLACES), and no more than the CPU time its cgroup's limit
// grants (rounded up). UNISON_BENCH_CGROUP_ROOT names another folder than /sys/fs/cgroup to read
// the limits from (the tests' fake cgroups).
struct Cpus {
  int allowed = 0;   // CPUs of the mask and the places
  double limit = 0;  // the cgroup's CPU limit, 0: none
  int available = 0;
  std::string list;  // the allowed CPUs, "0-15"
};
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

// Collects each case's aggregates into rows and reports progress on stderr as cases finish.
// What the suite says while it runs: each case as it ends, with the count of cases and an
// estimate of the time left (the mean time of the cases so far times the cases left), and
// every 30 s without news that the running case is still running.
class Progress {
 public:
  using clock = std::chrono::steady_clock;
  explicit Progress(int cases) : cases_(cases), start_(clock::now()), last_(start_) {
    watch_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        wake_.wait_for(lock, std::chrono::seconds(1));
        const auto now = clock::now();
        if (done_ || current_.empty() || now - last_ < std::chrono::seconds(30)) continue;
        std::fprintf(stderr, "unison-bench: [%d/%d] %s still running (%.0f s so far)\n", ended_ + 1,
                     cases_, current_.c_str(),
                     std::chrono::duration<double>(now - started_).count());
        last_ = now;
      }
    });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    watch_.join();
  }
  void started(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = name;
    started_ = last_ = clock::now();
  }
  // "[7/90, cases: about 2 min left]"
  std::string ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++ended_;
    current_.clear();
    last_ = clock::now();
    const double so_far = std::chrono::duration<double>(last_ - start_).count();
    const double left = so_far / ended_ * (cases_ - ended_);
    char text[64];
    if (ended_ >= cases_) std::snprintf(text, sizeof text, "[%d/%d]", ended_, cases_);
    else if (left < 90)
      std::snprintf(text, sizeof text, "[%d/%d, cases: about %.0f s left]", ended_, cases_, left);
    else
      std::snprintf(text, sizeof text, "[%d/%d, cases: about %.0f min left]", ended_, cases_,
                    left / 60);
    return text;
  }

 private:
  int cases_, ended_ = 0;
  clock::time_point start_, started_, last_;
  std::string current_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread watch_;
};

// The manifest's entry of each registered case, by name (unison::bench::manifest()).
std::map<std::string, unison::suite::CaseKind> manifest_kinds() {
  std::map<std::string, unison::suite::CaseKind> kinds;
  for (const auto& entry : unison::bench::manifest())
    kinds[entry.c.name] = {entry.c.family, entry.c.function,
                           unison::bench::kind_name(entry.c.kind)};
  return kinds;
}

class SuiteReporter : public benchmark::BenchmarkReporter {
 public:
  explicit SuiteReporter(Progress* progress = nullptr)
      : progress_(progress), kinds_(manifest_kinds()) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    // A stream measured again at the end of the run ("<case>/again/<backend>") takes the place
    // of its first measure where its fastest repetition was faster.
    std::string again_of;
    for (const Run& run : runs) {
      std::string full = run.run_name.function_name;  // "<case>/<backend>"
      const auto again = full.find("/again/");
      if (again != std::string::npos) {
        full.erase(again, 6);
        again_of = full;
        if (!again_stats_.count(full)) again_stats_[full] = stats_[full];  // the first measure
      }
      const auto slash = full.rfind('/');
      const std::string name = full.substr(0, slash), backend = full.substr(slash + 1);
      Stats& s = stats_[full];
      if (s.row.name.empty()) {
        s.row.name = name;
        s.row.backend = backend;
        const auto of = kinds_.find(name);
        if (of != kinds_.end()) unison::suite::describe(s.row, of->second);
        order_.push_back(full);
      }
      const double seconds =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      // One repetition reports the run itself (no aggregates): its time is the median.
      const bool single = run.aggregate_name.empty();
      if (single) s.mean = seconds, s.stddev = 0;
      if (run.aggregate_name == "median" || single) {
        s.row.median_s = seconds;
        const auto gb = run.counters.find("GB/s"), gf = run.counters.find("GFLOP/s");
        if (gb != run.counters.end()) s.row.gb_per_s = gb->second.value;
        if (gf != run.counters.end()) s.row.gflop_per_s = gf->second.value;
        const auto set = run.counters.find("working_set_bytes"),
                   out = run.counters.find("out_bytes");
        if (set != run.counters.end()) s.row.working_set_bytes = set->second.value;
        if (out != run.counters.end()) s.row.out_bytes = out->second.value;
        const auto err = run.counters.find("check_error"),
                   tol = run.counters.find("check_tolerance");
        if (err != run.counters.end() && tol != run.counters.end()) {
          s.row.checked = true;
          s.row.error = err->second.value;
          s.row.tolerance = tol->second.value;
        }
        const std::string check = unison::suite::check_text(s.row);
        const std::string count =
            progress_ ? progress_->ended() : "[" + std::to_string(order_.size()) + "]";
        std::fprintf(stderr, "unison-bench: %s %s: %s%s%s\n", count.c_str(), full.c_str(),
                     unison::suite::format_time(seconds).c_str(), check.empty() ? "" : ", check ",
                     check.c_str());
      } else if (run.aggregate_name == "min") {
        s.row.best_s = seconds;
      } else if (run.aggregate_name == "mean") {
        s.mean = seconds;
      } else if (run.aggregate_name == "stddev") {
        s.stddev = seconds;
      }
    }
    if (!again_of.empty()) {
      const Stats& first = again_stats_.at(again_of);
      Stats& now = stats_[again_of];
      const auto best = [](const Stats& x) {
        return x.row.best_s > 0 ? x.row.best_s : x.row.median_s;
      };
      // (a measure that failed, or timed nothing, never replaces the other)
      const bool first_ok = first.row.median_s > 0 && first.row.passed();
      const bool now_ok = now.row.median_s > 0 && now.row.passed();
      if (first_ok && (!now_ok || best(first) <= best(now))) now = first;
      again_stats_.erase(again_of);
    }
  }
  std::vector<unison::suite::Row> rows() const {
    std::vector<unison::suite::Row> out;
    for (const auto& full : order_) {
      unison::suite::Row r = stats_.at(full).row;
      const Stats& s = stats_.at(full);
      r.spread = s.mean > 0 ? s.stddev / s.mean : 0;
      out.push_back(r);
    }
    return out;
  }

 private:
  struct Stats {
    unison::suite::Row row;
    double mean = 0, stddev = 0;
  };
  std::map<std::string, Stats> again_stats_;  // a stream's first measure while its second reports
  Progress* progress_;
  std::map<std::string, unison::suite::CaseKind> kinds_;
  std::map<std::string, Stats> stats_;
  std::vector<std::string> order_;
};

// plot.py: next to an installed unison-bench (<prefix>/share/unison), else the source tree's.
std::string plot_script() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "unison" / "plot.py";
    if (std::filesystem::exists(installed, ec)) return installed.string();
  }
  return UNISON_SUITE_PLOT_SCRIPT;
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The peers' scripts: next to an installed unison-bench (<prefix>/share/unison/peers), else the
// source tree's.
std::filesystem::path peers_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "unison" / "peers";
    if (std::filesystem::exists(installed / "peer_timing.py", ec)) return installed;
  }
  return UNISON_SUITE_PEERS_DIR;
}

// The Python that runs the peers' scripts (module "numpy") or draws the plots ("matplotlib"):
// $UNISON_BENCH_PYTHON if set, else the first of python3 (on the path) and /usr/bin/python3
// (Debian's python3-numpy, python3-numba and python3-matplotlib serve it) that can import the
// module; empty if none can (and `why` says so).
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
std::string peers_python(std::string& why) { return find_python("numpy", why); }

// A peer program (unison-plain-c, unison-cuda-c) next to this program (the build's benchmarks
// folder, or the installed bin/), or an empty path.
std::filesystem::path peer_program(const std::string& name) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto program = exe.parent_path() / name;
  return std::filesystem::exists(program, ec) ? program : std::filesystem::path();
}

// The diffusion cases' start field (unison::jagged_field at the suite's size) as a .npy file,
// for unison-plain-c.
void write_start_field(const std::filesystem::path& path) {
  const long n = long(unison::bench::scaled(2000, 3, 2));
  Kokkos::DefaultHostExecutionSpace exec;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> f(
      Kokkos::view_alloc(exec, std::string("unison::bench::start_field")), n, n);
  unison::jagged_field(exec, f);
  exec.fence();
  unison::write_npy(path.string(), f);
}

// Runs the peers for the chosen workloads at the suite's scale (each one's output in
// <out>/peers/<script or program>.log): unison-plain-c, then the Python scripts (where a Python
// with NumPy is found), and returns their results as peer rows; says on stderr what ran, what
// each skipped (a line of its output starting with "skipped") and what failed.
std::vector<unison::suite::Row> run_peers(const std::filesystem::path& out,
                                          const std::vector<std::string>& workloads, double scale,
                                          bool crossover, bool sizes) {
  std::string why;
  const std::string python = peers_python(why);
  if (python.empty())
    std::fprintf(stderr, "unison-bench: the Python peers skipped: %s\n", why.c_str());
  else std::fprintf(stderr, "unison-bench: peers: by %s\n", python.c_str());
  const auto dir = peers_dir();
  const auto csv = out / "peers.csv";
  std::filesystem::create_directories(out / "peers");
  std::filesystem::remove(csv);
  for (const auto& peer : unison::suite::peer_scripts(workloads, scale, crossover, sizes)) {
    const bool script =
        peer.script.size() > 3 && peer.script.compare(peer.script.size() - 3, 3, ".py") == 0;
    const auto log =
        out / "peers" /
        ((script ? peer.script.substr(0, peer.script.size() - 3) : peer.script) + ".log");
    std::string command =
        "PYTHONDONTWRITEBYTECODE=1 UNISON_PEERS_CSV=" + shell_quoted(csv.string()) + " ";
    // This build's Python module, for python_peers.py where `import unison` finds none.
    command += "UNISON_PYTHON_DIR=" + shell_quoted(UNISON_SUITE_PYTHON_DIR) + " ";
    auto args = peer.args;
    if (script) {
      if (python.empty()) continue;
      // (No .pyc files written next to the scripts: the source tree's, or the installed ones.)
      command += shell_quoted(python) + " " + shell_quoted((dir / peer.script).string());
    } else {
      // (unison-cuda-c is built with the Cuda backend only: without it, nothing to say)
      const auto backends = enabled_backends();
      if (peer.script == "unison-cuda-c" &&
          std::find(backends.begin(), backends.end(), "Cuda") == backends.end())
        continue;
      const auto program = peer_program(peer.script);
      if (program.empty()) {
        std::fprintf(stderr, "unison-bench: peers: %s skipped: it is not next to unison-bench\n",
                     peer.script.c_str());
        continue;
      }
      command += shell_quoted(program.string());
      if (std::find(args.begin(), args.end(), "diffusion") != args.end()) {
        const auto field = out / "peers" / "start_field.npy";
        write_start_field(field);
        args.insert(args.end() - 1, "--field=" + field.string());
      }
    }
    for (const auto& a : args) command += " " + shell_quoted(a);
    command += " > " + shell_quoted(log.string()) + " 2>&1";
    std::fprintf(stderr, "unison-bench: peers: %s %s (log in %s)\n", peer.script.c_str(),
                 unison::suite::join(args, " ").c_str(), log.string().c_str());
    // The peer may use every CPU the process was given: this thread is bound to one of them by
    // the OpenMP runtime (OMP_PROC_BIND), and a child process inherits its binding.
    cpu_set_t bound;
    const cpu_set_t all = allowed_cpus();
    const bool rebind = sched_getaffinity(0, sizeof bound, &bound) == 0;
    if (rebind) sched_setaffinity(0, sizeof all, &all);
    const int status = std::system(command.c_str());
    if (rebind) sched_setaffinity(0, sizeof bound, &bound);
    const int code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream text(log);
    std::string last;
    for (std::string line; std::getline(text, line);) {
      if (line.rfind("skipped", 0) == 0)
        std::fprintf(stderr, "unison-bench: peers: %s: %s\n", peer.script.c_str(), line.c_str());
      if (!line.empty()) last = line;
    }
    if (code != 0 && last.find("ModuleNotFoundError") != std::string::npos)
      std::fprintf(stderr, "unison-bench: peers: %s skipped: %s\n", peer.script.c_str(),
                   last.c_str());
    else if (code != 0)
      std::fprintf(stderr, "unison-bench: peers: %s failed (exit %d): %s\n", peer.script.c_str(),
                   code, last.c_str());
  }
  std::ifstream in(csv);
  std::string error;
  int not_in_run = 0;
  auto rows = unison::suite::read_peer_rows(in, manifest_kinds(), error, not_in_run);
  if (!error.empty())
    std::fprintf(stderr, "unison-bench: peers: %s: %s\n", csv.string().c_str(), error.c_str());
  std::fprintf(stderr, "unison-bench: peers: %zu results", rows.size());
  if (not_in_run > 0) std::fprintf(stderr, " (and %d of cases this run left out)", not_in_run);
  std::fprintf(stderr, "\n");
  return rows;
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

// report.html in out: the rows, `about`, and the plots that draw_plots wrote (embedded).
bool write_report(const std::filesystem::path& out, const std::vector<unison::suite::Row>& rows,
                  const std::vector<std::string>& columns,
                  const std::vector<std::pair<std::string, std::string>>& about) {
  std::vector<std::pair<std::string, std::string>> images;
  for (const char* png : {"times.png", "peak.png", "crossover.png", "diffusion.png"}) {
    std::ifstream in(out / png, std::ios::binary);
    if (!in) continue;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    images.push_back({png, unison::suite::base64(bytes.str())});
  }
  std::ofstream html(out / "report.html");
  unison::suite::write_report(html, rows, columns, about, images);
  html.close();
  if (!html) {
    std::fprintf(stderr, "unison-bench: cannot write %s\n", (out / "report.html").string().c_str());
    return false;
  }
  std::fprintf(stderr, "unison-bench: report in %s (%zu plots embedded)\n",
               (out / "report.html").string().c_str(), images.size());
  return true;
}

// Draws the plots; says what happened (a missing Python or matplotlib is not an error).
void draw_plots(const std::string& out) {
  const std::string script = plot_script();
  std::string why;
  const std::string python = find_python("matplotlib", why);
  if (python.empty()) {
    std::fprintf(stderr, "unison-bench: no plots: %s\n", why.c_str());
    return;
  }
  const std::string command =
      shell_quoted(python) + " " + shell_quoted(script) + " " + shell_quoted(out);
  const int status = std::system(command.c_str());
  const int code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return;  // plot.py said what it wrote
  if (code == 3) std::fprintf(stderr, "unison-bench: no plots: python3 has no matplotlib\n");
  else if (code == 127) std::fprintf(stderr, "unison-bench: no plots: python3 not found\n");
  else std::fprintf(stderr, "unison-bench: no plots: %s failed (exit %d)\n", script.c_str(), code);
}

// The tutorial's pictures of the diffusion workload, as .npy files that plot.py draws: the
// jagged field, the field after the seed run's 10,000 steps (coeff 0.25; both scaled with the
// suite's sizes) and its Laplacian.
template <class Exec>
void diffusion_images(const std::string& out) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long n = long(unison::bench::scaled(2000, 3, 2));
  const std::int64_t steps = unison::bench::scaled(10000);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
      Kokkos::view_alloc(exec, std::string("unison::bench::image_field")), n, n),
      lapl(Kokkos::view_alloc(exec, std::string("unison::bench::image_lapl")), n, n);
  unison::jagged_field(exec, f);
  unison::write_npy(out + "/diffusion_initial.npy", f);
  unison::diffuse(exec, f, steps, 0.25, lapl, unison::Laplacian::final_only);
  unison::write_npy(out + "/diffusion_field.npy", f);
  unison::write_npy(out + "/diffusion_laplacian.npy", lapl);
  std::fprintf(stderr, "unison-bench: diffusion images (%ldx%ld, %lld steps on %s) in %s\n", n, n,
               static_cast<long long>(steps), Exec::name(), out.c_str());
}

// On the last backend chosen (Cuda where it is, else the CPU's widest).
void diffusion_images(const std::string& out, const std::string& backend) {
  unison::backends::for_each_enabled_space([&](auto tag) {
    using Exec = typename decltype(tag)::type;
    if (backend == Exec::name()) diffusion_images<Exec>(out);
  });
}

}  // namespace

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

int main(int argc, char** argv) {
  cpus() = cpus_available();  // before any thread is bound or the environment changed
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
  // Kokkos' own arguments go to Kokkos; the rest are unison-bench's.
  std::vector<std::string> args;
  std::vector<char*> kokkos_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos-", 0) == 0) kokkos_argv.push_back(argv[i]);
    else args.push_back(a);
  }
  const std::vector<std::string> enabled = enabled_backends();
  const unison::suite::Parsed parsed = unison::suite::parse_options(args, enabled);
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "unison-bench: %s (see unison-bench --help)\n", parsed.error.c_str());
    return 2;
  }
  const unison::suite::Options& opt = parsed.options;
  if (opt.help) {
    std::cout << unison::suite::help_text(enabled);
    return 0;
  }
  const std::filesystem::path out(opt.out);
  if (!opt.list) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec || !std::filesystem::is_directory(out)) {
      std::fprintf(stderr, "unison-bench: --out: cannot create the folder '%s'\n", opt.out.c_str());
      return 2;
    }
  }

  const bool flushed = unison::bench::flush_subnormals_if_asked();  // before Kokkos' threads
  int kokkos_argc = int(kokkos_argv.size());
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());

  const std::string json = (out / "unison_bench.json").string();
  std::vector<std::string> gb_args{argv[0]};
  if (opt.list) gb_args.push_back("--benchmark_list_tests=true");
  else gb_args.insert(gb_args.end(), {"--benchmark_out=" + json, "--benchmark_out_format=json"});
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = int(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  unison::bench::add_context(flushed);
  benchmark::AddCustomContext("cpus", cpus_line());
  if (!openmp_line().empty()) benchmark::AddCustomContext("openmp_threads", openmp_line());
  if (!threads_warning().empty()) benchmark::AddCustomContext("warning", threads_warning());
  if (!host_blas_line().empty()) benchmark::AddCustomContext("host_blas", host_blas_line());
  if (!gpu_driver().empty()) benchmark::AddCustomContext("gpu_driver", gpu_driver());

  auto& settings = unison::bench::settings();
  settings.probes = false;
  settings.backends = opt.backends;
  settings.full = opt.full;
  settings.min_sample_s = opt.full ? 1e-3 : 1e-2;
  settings.repetitions = opt.repetitions > 0 ? opt.repetitions : opt.full ? 5 : 0;
  settings.scale = opt.scale;
  settings.checks = opt.checks;
  if (opt.checks) {
    settings.results_dir = (out / "results").string();
    settings.results_backend = opt.backends.back();
    settings.results_limit = double(opt.results_limit_mib) * 1024 * 1024;
  }
  const auto wanted = [&](const std::string& w) {
    return std::find(opt.workloads.begin(), opt.workloads.end(), w) != opt.workloads.end();
  };
  // The copy and fma cases (each backend's memory and arithmetic ceilings, the peaks of the GB/s
  // and GFLOP/s fractions) always run.
  using unison::bench::Kind;
  settings.keep = [&](const unison::bench::Case& c) {
    switch (c.kind) {
      case Kind::peak:
        return true;
      case Kind::crossover:
        return opt.crossover && wanted(c.family);
      case Kind::sizes:
        return opt.sizes && wanted(c.family);
      case Kind::probe:
        return false;
      case Kind::workload:
        break;
    }
    return wanted(c.family);
  };
  if (!opt.filter.empty()) {
    const std::regex filter(opt.filter, std::regex::ECMAScript);
    settings.keep_full = [filter](const unison::bench::Case& c, const std::string& full) {
      return c.kind == Kind::peak || std::regex_search(full, filter);
    };
  }
  unison::bench::register_workloads(wanted);
  if (!wanted("elementwise")) unison::bench::register_copy();
  if (opt.crossover && wanted("elementwise")) unison::bench::register_crossover_elementwise();
  if (opt.crossover && (wanted("convolve") || wanted("diffusion")))
    unison::bench::register_crossover_convolve();
  unison::bench::register_crossover_diffusion();
  if (opt.sizes) unison::bench::register_sizes();  // (each family's cases kept where wanted)
  unison::bench::register_streams_again();         // the peaks measured at the end too

  if (opt.list && opt.json) {
    unison::bench::write_manifest_json(std::cout);
    return 0;
  }
  if (opt.list) {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  std::vector<unison::suite::Row> rows_of_cases;
  const int repetitions = settings.repetitions > 0 ? settings.repetitions : 3;
  std::fprintf(stderr, "unison-bench: CPUs: %s\n", cpus_line().c_str());
  if (!openmp_line().empty())
    std::fprintf(stderr, "unison-bench: OpenMP threads: %s\n", openmp_line().c_str());
  if (!threads_warning().empty())
    std::fprintf(stderr, "unison-bench: WARNING: %s\n", threads_warning().c_str());
  std::fprintf(stderr,
               "unison-bench: workloads %s; backends %s; scale %g; %s; %d cases of %d repetitions; "
               "results in %s\n",
               unison::suite::join(opt.workloads, ",").c_str(),
               unison::suite::join(opt.backends, ",").c_str(), opt.scale,
               opt.full ? "--full: every seed size"
                        : "seed sizes where a call takes at most 5 s (--full: all)",
               settings.registered, repetitions, opt.out.c_str());
  {
    Progress progress(settings.registered);
    settings.on_start = [&](const std::string& name) { progress.started(name); };
    SuiteReporter reporter(&progress);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    settings.on_start = nullptr;
    rows_of_cases = reporter.rows();
  }

  auto rows = rows_of_cases;
  std::vector<std::string> columns = opt.backends;
  std::vector<unison::suite::Row> peer_rows;
  if (opt.peers) {
    const std::regex filter(opt.filter.empty() ? std::string("") : opt.filter,
                            std::regex::ECMAScript);
    for (const auto& r : run_peers(out, opt.workloads, opt.scale, opt.crossover, opt.sizes)) {
      if (!opt.filter.empty() && r.kind != "peak" &&
          !std::regex_search(r.name + "/" + r.backend, filter))
        continue;
      peer_rows.push_back(r);
      if (std::find(columns.begin(), columns.end(), r.backend) == columns.end())
        columns.push_back(r.backend);
      rows.push_back(r);
    }
  }
  unison::suite::apply_peaks(rows, memory_levels());
  unison::suite::advise(rows);
  std::cout << "CPUs: " << cpus_line() << "\n";
  std::cout << "CPU vectors: " << unison::bench::cpu_vectors() << "\n";
  if (!openmp_line().empty()) std::cout << "OpenMP threads: " << openmp_line() << "\n";
  if (!threads_warning().empty()) std::cout << "WARNING: " << threads_warning() << "\n";
  if (!host_blas_line().empty()) std::cout << "host BLAS: " << host_blas_line() << "\n";
  unison::suite::write_table(std::cout, rows, columns);
  if (std::any_of(rows.begin(), rows.end(), [](const auto& r) {
        return r.name.find("/seed_run/") != std::string::npos &&
               r.name.find("/steps") != std::string::npos;
      }))
    std::cout
        << "\nA seed run named \"/steps<N>\" ran N of its 10,000 steps: all of them take more "
           "than 5 s a call here (--full runs them).\n";
  const auto about = about_this_run(args);
  std::ofstream csv(out / "unison_bench.csv");
  unison::suite::write_csv(csv, rows, about);
  csv.close();
  if (!csv) {
    std::fprintf(stderr, "unison-bench: cannot write %s\n",
                 (out / "unison_bench.csv").string().c_str());
    return 1;
  }
  // The peers' results (the plain C loops' included) join Unison's in the JSON.
  if (!peer_rows.empty()) {
    std::vector<unison::suite::Row> peers_of_json;
    for (const auto& r : rows)
      if (r.peer) peers_of_json.push_back(r);
    std::ifstream in(json);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    const std::string joined = unison::suite::add_rows_to_json(text.str(), peers_of_json);
    std::ofstream again(json);
    again << joined;
    again.close();
    if (joined.empty() || !again) {
      std::fprintf(stderr, "unison-bench: cannot add the peers' results to %s\n", json.c_str());
      return 1;
    }
  }
  std::cout << "\nunison-bench: " << rows.size() << " results in " << json << " and "
            << (out / "unison_bench.csv").string() << "\n"
            << std::flush;
  if (wanted("diffusion")) diffusion_images(opt.out, opt.backends.back());
  if (opt.plots) draw_plots(opt.out);
  const bool reported = write_report(out, rows, columns, about);
  const auto summary = unison::suite::check_summary(rows);
  if (summary.size() > 1) {  // a line per failed check, then the counts
    for (const auto& line : summary) std::fprintf(stderr, "unison-bench: %s\n", line.c_str());
    return 1;
  }
  return settings.results_failed || !reported ? 1 : 0;
}
