#include <unison/backends/host/blas.hpp>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <algorithm>
#include <cctype>

// OpenBLAS's thread controls, where the linked BLAS is OpenBLAS (weak: null otherwise).
#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
extern "C" {
void openblas_set_num_threads(int) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));
int openblas_setaffinity(int, size_t, cpu_set_t*) __attribute__((weak));
char* openblas_get_corename(void) __attribute__((weak));
}
#define UNISON_BACKENDS_OPENBLAS_CONTROLS 1
#else
#define UNISON_BACKENDS_OPENBLAS_CONTROLS 0
#endif

namespace unison::backends {

std::vector<int> this_thread_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
  return cpus;
}

bool host_blas_use(int threads, const std::vector<int>& cpus) {
#if UNISON_BACKENDS_OPENBLAS_CONTROLS
  if (!openblas_set_num_threads || !openblas_get_num_threads || threads < 1) return false;
  if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
  if (!openblas_setaffinity || cpus.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  // Threads 0 .. n - 2 are OpenBLAS's workers; n - 1 is the calling thread, left as it is.
  const int n = openblas_get_num_threads();
  for (int t = 0; t + 1 < n; ++t) openblas_setaffinity(t, sizeof set, &set);
  return true;
#else
  (void)threads;
  (void)cpus;
  return false;
#endif
}

std::string host_blas_core() {
#if UNISON_BACKENDS_OPENBLAS_CONTROLS
  if (openblas_get_corename) {
    const char* name = openblas_get_corename();
    return name ? name : "";
  }
#endif
  return "";
}

std::string host_blas_better_core() {
#if UNISON_BACKENDS_OPENBLAS_CONTROLS && defined(__x86_64__)
  std::string core = host_blas_core();
  if (core.empty()) return "";
  for (auto& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  // The kernel sets written for AVX2 and FMA or later: OpenBLAS chose knowingly.
  for (const char* known : {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"})
    if (core == known) return "";
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

}  // namespace unison::backends
