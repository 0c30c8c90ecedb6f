// Probe (not library code): what a call of 1e5 elements costs on all the host's threads, for
// issue 22's OpenMP zero_suppress and make_pulses at 1e5 (0.68-0.93 of the copy rate, where a
// whole call takes 5-15 us). Medians of 2000 calls, the data in the caches:
//   omp_region      an empty `#pragma omp parallel` region (the fork and the join)
//   kokkos_empty    Kokkos::parallel_for of one empty work item a thread, then a fence
//   omp_zs          zero_suppress of 1e5 int16 (200 KB in, 200 KB out) as a plain
//                   `#pragma omp parallel for simd` loop
//   kokkos_zs       the same loop as a Kokkos::parallel_for of one chunk a thread, then a fence
//   kokkos_zs_4     the same with four chunks a thread (as the library's element-wise blocks)
//   unison_zs_1     unison::zero_suppress on Serial (the calling thread alone)
//   serial_zs       the same loop on the calling thread alone
//   unison_zs       unison::zero_suppress on OpenMP, then a fence (the library's call)
// Build against an OpenMP build of Unison and its Kokkos (build/openmp: the include directories
// of the unison_tests target, libunison.a and libkokkoscore.a), e.g. from build/openmp:
//   g++ -O3 -march=native -fopenmp -std=c++17 -I../../include -I../../backends/include -Iinclude
//       -I<Kokkos' include dirs> ../../tools/probes/cpu-small-calls-probe.cpp libunison.a
//       _deps/kokkos-build/core/src/libkokkoscore.a -ldl
// Run: OMP_PROC_BIND=spread OMP_PLACES=threads ./a.out
#include <omp.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <unison/elementwise.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

template <class F>
static double median_ns(F&& f, int calls = 2000) {
  std::vector<double> t(calls);
  for (int i = 0; i < 200; ++i) f();
  for (auto& x : t) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    x = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  }
  std::nth_element(t.begin(), t.begin() + calls / 2, t.end());
  return t[calls / 2];
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int n = 100000, threads = Kokkos::OpenMP().concurrency();
  std::vector<std::int16_t> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = std::int16_t(i * 7919 % 201 - 100);
  const std::int16_t* xp = x.data();
  std::int16_t* yp = y.data();
  const std::int16_t t = 15;
  std::printf("threads %d (omp_get_max_threads %d)\n", threads, omp_get_max_threads());
  std::printf("omp_region    %8.0f ns\n", median_ns([] {
#pragma omp parallel
                { asm volatile("" ::: "memory"); }
              }));
  std::printf("kokkos_empty  %8.0f ns\n", median_ns([&] {
                Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::OpenMP>(0, threads),
                                     KOKKOS_LAMBDA(int){});
                Kokkos::fence();
              }));
  std::printf("omp_zs        %8.0f ns\n", median_ns([&] {
#pragma omp parallel for simd schedule(static)
                for (int i = 0; i < n; ++i) yp[i] = xp[i] < t ? std::int16_t(0) : xp[i];
              }));
  const int per = (n + threads - 1) / threads;
  std::printf("kokkos_zs     %8.0f ns\n", median_ns([&] {
                Kokkos::parallel_for(
                    Kokkos::RangePolicy<Kokkos::OpenMP>(0, threads), KOKKOS_LAMBDA(int c) {
                      const int e = std::min(n, (c + 1) * per);
#pragma omp simd
                      for (int i = c * per; i < e; ++i) yp[i] = xp[i] < t ? std::int16_t(0) : xp[i];
                    });
                Kokkos::fence();
              }));
  const int blocks = 4 * threads, block = (n + blocks - 1) / blocks;
  std::printf("kokkos_zs_4   %8.0f ns\n", median_ns([&] {
                Kokkos::parallel_for(
                    Kokkos::RangePolicy<Kokkos::OpenMP>(0, blocks), KOKKOS_LAMBDA(int c) {
                      const int e = std::min(n, (c + 1) * block);
#pragma omp simd
                      for (int i = c * block; i < e; ++i)
                        yp[i] = xp[i] < t ? std::int16_t(0) : xp[i];
                    });
                Kokkos::fence();
              }));
  Kokkos::View<const std::int16_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xv(
      xp, n);
  Kokkos::View<std::int16_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> yv(yp, n);
  std::printf("unison_zs     %8.0f ns\n", median_ns([&] {
                unison::zero_suppress(Kokkos::OpenMP(), xv, t, yv);
                Kokkos::fence();
              }));
  std::printf("unison_zs_1   %8.0f ns\n",
              median_ns([&] { unison::zero_suppress(Kokkos::Serial(), xv, t, yv); }));
  std::printf("serial_zs     %8.0f ns\n", median_ns([&] {
#pragma omp simd
                for (int i = 0; i < n; ++i) yp[i] = xp[i] < t ? std::int16_t(0) : xp[i];
                asm volatile("" ::: "memory");
              }));
}
