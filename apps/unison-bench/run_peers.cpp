#include "run_peers.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include <sched.h>
#include <sys/wait.h>

#include <Kokkos_Core.hpp>

#include <unison/field.hpp>
#include <unison/npy.hpp>

#include "cases/common.hpp"
#include "collect.hpp"
#include "environment.hpp"
#include "peers.hpp"

namespace unison::suite {

namespace {

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

}  // namespace

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
  // The run's cases, which the peer scripts time (peer_timing.cases): their names and sizes.
  const auto manifest = out / "manifest.json";
  {
    std::ofstream file(manifest);
    unison::bench::write_manifest_json(file);
  }
  for (const auto& peer : unison::suite::peer_scripts(workloads, scale, crossover, sizes)) {
    const bool script =
        peer.script.size() > 3 && peer.script.compare(peer.script.size() - 3, 3, ".py") == 0;
    const auto log =
        out / "peers" /
        ((script ? peer.script.substr(0, peer.script.size() - 3) : peer.script) + ".log");
    std::string command =
        "PYTHONDONTWRITEBYTECODE=1 UNISON_PEERS_CSV=" + shell_quoted(csv.string()) +
        " UNISON_BENCH_MANIFEST=" + shell_quoted(manifest.string()) + " ";
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
      const auto& all = unison::bench::workloads();
      if (std::any_of(all.begin(), all.end(), [&](const unison::bench::Workload& w) {
            return w.start_field && std::find(args.begin(), args.end(), w.name) != args.end();
          })) {
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

}  // namespace unison::suite
