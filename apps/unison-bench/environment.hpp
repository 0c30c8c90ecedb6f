#pragma once
// The machine unison-bench runs on, as the report states it: the CPUs the process may use (its
// affinity, the OpenMP places, its cgroup's CPU limit), the OpenMP threads and their placement,
// the host BLAS, the GPU driver, each backend's levels of memory; unison-bench's run of itself
// with the thread placement and OpenBLAS's kernels set; the Python that runs the peers and plots.
#include <sched.h>

#include <string>
#include <utility>
#include <vector>

#include "roofline.hpp"

namespace unison::suite {

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
// The CPUs as unison-bench started (cpus_available(), kept by main before anything changes them).
Cpus cpus_available();
Cpus& cpus();
// The CPUs of the affinity mask and of the OpenMP places.
cpu_set_t allowed_cpus();

// The lines of the table's header and the records: "2 available to this process (affinity: ...)",
// "2 (Kokkos::OpenMP's concurrency); OMP_PROC_BIND=...", a warning where the OpenMP threads and
// the CPUs available differ (else ""), the NVIDIA driver's version (else ""), the threads'
// placement, and the host BLAS's kernels (else "").
std::string cpus_line();
std::string openmp_line();
std::string threads_warning();
// The three on standard error, each after "unison-bench: " (the warning only where there is one):
// what a run prints before its first case, and --list before its list.
void say_cpus_and_threads();
std::string gpu_driver();
std::string thread_placement();
std::string host_blas_line();

// Each backend's memory levels (and the plain C loops', on the OpenMP backend's threads).
MemoryLevels memory_levels();

// The backends this build enabled, in order ("Serial", "OpenMP", "Cuda").
std::vector<std::string> enabled_backends();

// The thread placement and OpenBLAS's kernels are read by the runtimes as they load, before main:
// where unison-bench must set them (or a cgroup's CPU limit asks for fewer OpenMP threads), it
// runs itself again with them set, and does not return. Call it first in main.
void run_again_if_needed(char** argv);

// The machine's lines (CPUs, OpenMP threads, warning, host BLAS, GPU driver) in Google
// Benchmark's JSON context.
void add_machine_context();

// s quoted for the shell.
std::string shell_quoted(const std::string& s);

// The Python that runs the peers' scripts (module "numpy") or draws the plots ("matplotlib"):
// $UNISON_BENCH_PYTHON if set, else the first of python3 (on the path) and /usr/bin/python3
// that can import the module; empty if none can (and `why` says so).
std::string find_python(const std::string& module, std::string& why);

// The machine and versions that report.html shows (`args`: unison-bench's own arguments).
std::vector<std::pair<std::string, std::string>> about_this_run(
    const std::vector<std::string>& args);

}  // namespace unison::suite
