#pragma once
/// \file unison/backends/host/blas.hpp
/// The threads of the host BLAS under KokkosBlas::gemm on CPU backends (matmul_reduce's gemm
/// method). OpenBLAS (the pthreads build that Debian ships) sizes its thread pool when it is
/// loaded, from the CPUs the loading thread may use, and its threads inherit that thread's
/// binding: under OMP_PROC_BIND the OpenMP runtime has bound the main thread to one CPU by then,
/// so OpenBLAS ran one thread, or all of them on one CPU. host_blas_for(exec) gives it, before
/// each call, as many threads as `exec` runs, each allowed on every CPU that exec's threads are
/// bound to: the BLAS uses the cores the backend uses, whatever the binding.

#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

namespace unison::backends {

/// The CPUs (the system's numbers) the calling thread may run on; empty where the system does
/// not say.
std::vector<int> this_thread_cpus();

/// Gives the host BLAS `threads` threads, its own worker threads allowed on `cpus` (the
/// calling thread, which takes part, keeps its own binding). Returns false, changing nothing,
/// where the linked BLAS offers no such control (it is not OpenBLAS, or none is linked).
bool host_blas_use(int threads, const std::vector<int>& cpus);

/// The kernel set the host BLAS chose for this CPU when it was loaded, where it says (OpenBLAS:
/// "SkylakeX", "Haswell", ...); empty otherwise.
std::string host_blas_core();

/// The kernel set to ask OpenBLAS for (its OPENBLAS_CORETYPE environment variable, read when it
/// is loaded) where the one it chose is a generic fallback far below what this CPU offers, and
/// empty otherwise. OpenBLAS releases that do not know a CPU model (a newer one, or one a virtual
/// machine reports without its model) fall back to "Prescott", SSE3 kernels several times
/// slower than the CPU's own (docs/PERFORMANCE.md has the measurement).
std::string host_blas_better_core();

/// host_blas_use(exec.concurrency(), the union of the CPUs exec's threads may run on), the CPUs
/// gathered once per execution space type (a parallel region that asks every thread).
template <class Exec>
bool host_blas_for(const Exec& exec) {
  static const std::vector<int> cpus = [&] {
    const int threads = exec.concurrency();
    std::vector<std::vector<int>> each(threads);
    Kokkos::parallel_for(
        "unison::backends::host_blas_cpus",
        Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(exec, 0, threads),
        [&](int t) { each[t] = this_thread_cpus(); });
    exec.fence("unison::backends::host_blas_for");
    std::vector<int> all;
    for (const auto& v : each) all.insert(all.end(), v.begin(), v.end());
    return all;
  }();
  return host_blas_use(exec.concurrency(), cpus);
}

}  // namespace unison::backends
