// A probe, not part of the library: unison::diffuse at the sizes HPC codes run (LAB_SIZES,
// default 2000,4096,8192,16384 cells a side, float), every form of it, on the default execution
// space or, with PROBE_SPACE=openmp, on OpenMP; beside a contiguous copy of one field
// (Kokkos::deep_copy) and a naive kernel: on Cuda ten lines of CUDA C (one thread a cell), on
// OpenMP a plain C loop (rows dealt to the threads by `omp parallel for`), both writing f_next
// and lapl every step. Each row: the median of 5 calls of
// `steps` steps, per step, after one call checked bit for bit against the plain reference's field.
// "of copy" = the bytes a step moves at the least (read f, write f_next and lapl: 12 a cell)
// over its time, against the copy's 8 bytes a cell over its time; "x copy" = time per step over
// the copy's time. Built by tools/gpu/gpu-diffusion-sizes.sh.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ratio>
#include <string>
#include <unison/diffusion.hpp>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
// The naive peer: ten lines of CUDA C.
__global__ void naive_step(const float* f, float* next, float* lapl, int rows, int cols,
                           float coeff) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  const long i = long(r) * cols + c;
  const float sum = (r > 0 ? f[i - cols] : 0.f) + (r + 1 < rows ? f[i + cols] : 0.f) +
                    (c > 0 ? f[i - 1] : 0.f) + (c + 1 < cols ? f[i + 1] : 0.f);
  const float lap = 4.f * f[i] - sum;
  next[i] = f[i] - coeff * lap;
  lapl[i] = lap;
}
#endif

// Whether g differs from ref anywhere.
template <class Exec, class G, class V>
bool differs(const Exec& exec, const G& g, const V& ref) {
  float worst = 0;
  Kokkos::parallel_reduce(
      "probe::check",
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {ref.extent(0), ref.extent(1)}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, float& m) {
        const float d = Kokkos::abs(g(i, j) - ref(i, j));
        m = d > m ? d : m;
      },
      Kokkos::Max<float>(worst));
  return worst != 0;
}

template <class Exec, class F>
double median_us(const Exec& exec, F&& call, int reps) {
  call();
  exec.fence();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    exec.fence();
    t.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// On Cuda: the strip kernels launched directly, one pass from f into next, under launch bounds
// (threads a block at most, blocks a multiprocessor at least) against Kokkos's own choice.
template <class Exec, class V, class Row>
void launch_shapes(const Exec& exec, const V& f, const V& next, const V& lapl, int steps,
                   const Row& row) {
  namespace d = unison::detail::diffusion;
  using C = Kokkos::View<const float**, Kokkos::LayoutRight, typename Exec::memory_space,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t rows = f.extent(0), cols = f.extent(1), chunks = (cols + 3) / 4;
  const C cf(f.data(), rows, cols);
  const auto pass = [&](const char* name, auto policy_tag, int strip, bool two) {
    using Policy = decltype(policy_tag);
    const Policy policy(exec, 0, chunks * ((rows + strip - 1) / strip));
    const auto go = [&] {
      if (two)
        Kokkos::parallel_for("probe::two", policy,
                             d::DiffusionStripsTwoSteps<4, false, false, C, V, V>{
                                 cf, next, lapl, lapl, 0.2f, false, rows, cols, chunks, strip});
      else
        Kokkos::parallel_for("probe::one", policy,
                             d::DiffusionStrips<4, 3, false, C, V, V>{cf, next, lapl, 0.2f, true,
                                                                      rows, cols, chunks, strip});
    };
    row(std::string(two ? "two-step pass, " : "one-step pass, ") + name + ", strips of " +
            std::to_string(strip),
        median_us(exec, go, 9) / (two ? 2 : 1), !two);
  };
  using I = Kokkos::IndexType<std::int64_t>;
  for (const bool two : {false, true}) {
    const int strip = two ? 8 : 4;
    pass("Kokkos's block", Kokkos::RangePolicy<Exec, I>(), strip, two);
    pass("LaunchBounds<128,4>", Kokkos::RangePolicy<Exec, I, Kokkos::LaunchBounds<128, 4>>(), strip,
         two);
    pass("LaunchBounds<256,2>", Kokkos::RangePolicy<Exec, I, Kokkos::LaunchBounds<256, 2>>(), strip,
         two);
    pass("LaunchBounds<256,1>", Kokkos::RangePolicy<Exec, I, Kokkos::LaunchBounds<256, 1>>(), strip,
         two);
    pass("LaunchBounds<512,1>", Kokkos::RangePolicy<Exec, I, Kokkos::LaunchBounds<512, 1>>(), strip,
         two);
    pass("LaunchBounds<1024,1>", Kokkos::RangePolicy<Exec, I, Kokkos::LaunchBounds<1024, 1>>(),
         strip, two);
  }
  (void)steps;
}

template <class Exec>
void sweep(const std::vector<long>& sizes) {
  using Mem = typename Exec::memory_space;
  using V = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  using VS = Kokkos::View<float**, Kokkos::LayoutStride, Mem>;
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  Exec exec;
  using SA = unison::StencilAlgorithm;
  const auto E = unison::Laplacian::every_step, FO = unison::Laplacian::final_only;
  std::printf("%s, %d threads\n", Exec::name(), exec.concurrency());
  for (const long n : sizes) {
    V f0("f0", n, n), f("f", n, n), lapl("lapl", n, n), ref("ref", n, n), tmp("tmp", n, n);
    unison::DiffusionBuffer<V> buffer("buffer", n, n);
    Kokkos::Random_XorShift64_Pool<Exec> pool(7);
    Kokkos::fill_random(f0, pool, 1.0f);
    // PROBE_STEPS=N: N steps a call at every size instead.
    const int steps = std::getenv("PROBE_STEPS") ? std::atoi(std::getenv("PROBE_STEPS"))
                      : gpu                      ? (n <= 4096   ? 200
                                                    : n <= 8192 ? 60
                                                                : 20)
                                                 : (n <= 2000   ? 20
                                                    : n <= 4096 ? 6
                                                    : n <= 8192 ? 3
                                                                : 2);
    const double cells = double(n) * n, coeff = 0.2;
    const double copy = median_us(
        exec, [&] { Kokkos::deep_copy(exec, tmp, f0); }, 9);
    const double rate = 8 * cells / copy;  // bytes per microsecond
    std::printf("\nN=%ld, %d steps a call: copy of one field %.1f us (%.2f TB/s)\n", n, steps, copy,
                rate / 1e6);
    const auto row = [&](const std::string& name, double t, bool every) {
      if (every)
        std::printf("  %-36s %9.1f us/step  %.3f of copy\n", name.c_str(), t,
                    12 * cells / t / rate);
      else std::printf("  %-36s %9.1f us/step  %.2f x copy\n", name.c_str(), t, t / copy);
    };
    {  // copies between a LayoutStride field (row-major strides) and a LayoutRight one
      VS fs(tmp.data(), Kokkos::LayoutStride(n, n, n, 1));
      row("deep_copy LayoutStride->LayoutRight",
          median_us(
              exec, [&] { Kokkos::deep_copy(exec, f, fs); }, 5),
          false);
    }
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      const dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
      const auto naive = [&] {
        for (int s = 0; s < steps; ++s)
          naive_step<<<grid, block, 0, exec.cuda_stream()>>>(
              s % 2 ? tmp.data() : f.data(), s % 2 ? f.data() : tmp.data(), lapl.data(), int(n),
              int(n), float(coeff));
      };
      Kokkos::deep_copy(exec, f, f0);
      row("naive CUDA C, every step", median_us(exec, naive, 5) / steps, true);
    }
#endif
    if constexpr (gpu) {
      if (std::getenv("PROBE_LAUNCH")) launch_shapes(exec, f, tmp, lapl, steps, row);
    }
    if constexpr (!gpu) {
      const auto plain_c = [&] {
        const float* a = f.data();
        float* b = tmp.data();
        float* l = lapl.data();
        for (int s = 0; s < steps; ++s) {
#pragma omp parallel for schedule(static)
          for (long r = 0; r < n; ++r) {
            const float* mid = a + r * n;
            for (long c = 0; c < n; ++c) {
              const float sum = (r > 0 ? mid[c - n] : 0.f) + (r + 1 < n ? mid[c + n] : 0.f) +
                                (c > 0 ? mid[c - 1] : 0.f) + (c + 1 < n ? mid[c + 1] : 0.f);
              const float lap = 4.f * mid[c] - sum;
              b[r * n + c] = mid[c] - 0.2f * lap;
              l[r * n + c] = lap;
            }
          }
          float* t = const_cast<float*>(a);
          a = b;
          b = t;
        }
      };
      Kokkos::deep_copy(exec, f, f0);
#if defined(_OPENMP)
      row("plain C loop (OpenMP), every step", median_us(exec, plain_c, 5) / steps, true);
#else
      row("plain C loop (one thread: no OpenMP), every step", median_us(exec, plain_c, 5) / steps,
          true);
#endif
    }
    unison::DiffusionOptions plain;
    plain.algorithm = SA::plain;
    Kokkos::deep_copy(exec, f, f0);
    unison::diffuse(exec, f, buffer, steps, coeff, lapl, E, plain);
    Kokkos::deep_copy(exec, ref, f);
    const auto run = [&](const std::string& name, auto field, auto lap, unison::Laplacian which,
                         const unison::DiffusionOptions& o) {
      unison::DiffusionBuffer<decltype(field)> buf("probe::buffer", n, n);
      Kokkos::deep_copy(exec, field, f0);
      unison::diffuse(exec, field, buf, steps, coeff, lap, which, o);
      exec.fence();
      if (differs(exec, field, ref)) std::printf("  MISMATCH %s\n", name.c_str());
      row(name,
          median_us(
              exec, [&] { unison::diffuse(exec, field, buf, steps, coeff, lap, which, o); }, 5) /
              steps,
          which == E);
    };
    // PROBE_ONLY=every or final: that form's automatic call alone (for a profiler).
    const char* only = std::getenv("PROBE_ONLY");
    for (const auto which : {E, FO}) {
      const std::string w = which == E ? "every, " : "final, ";
      if (only && std::string(only) != (which == E ? "every" : "final")) continue;
      run(w + "automatic", f, lapl, which, {});
      if (!gpu && which == FO) {  // CPU row blocks, several steps a pass
        unison::DiffusionOptions o;
        o.algorithm = SA::streaming;
        for (const int k : {1, 2, 3, 4, 6, 8}) {
          o.steps_per_pass = k;
          run(w + "streaming, " + std::to_string(k) + " steps a pass", f, lapl, which, o);
        }
      }
      if (only) continue;
      unison::DiffusionOptions o;
      o.algorithm = SA::plain;
      run(w + "plain", f, lapl, which, o);
      o.algorithm = SA::tiled;
      run(w + "tiled", f, lapl, which, o);
      o.algorithm = SA::streaming;
      if (!gpu) run(w + "streaming", f, lapl, which, o);
      for (const int s : {2, 4, 8, 16, 32, 64}) {
        if (!gpu) break;  // strips are the GPU's form
        o.strip_rows = s;
        if (which == FO) {
          run(w + "streaming, strips of " + std::to_string(s), f, lapl, which, o);
        } else {
          for (const int p : {1, 3}) {
            o.strip_prefetch = p;
            run(w + "streaming, strips of " + std::to_string(s) + ", " + std::to_string(p) +
                    " ahead",
                f, lapl, which, o);
          }
          o.strip_prefetch = 0;
        }
      }
      if (which == FO) {
        o = {};
        o.algorithm = SA::tiled;
        for (const int k : {2, 4, 8}) {
          o.steps_per_pass = k;
          run(w + "tiled, " + std::to_string(k) + " steps a pass", f, lapl, which, o);
        }
      }
      if (which == E) {  // diffuse_history: every Laplacian to its plane, 2 planes
        Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("probe::history", 2, n, n);
        Kokkos::deep_copy(exec, f, f0);
        row("every, diffuse_history (2 planes)",
            median_us(
                exec,
                [&] {
                  unison::diffuse_history(exec, f, buffer, steps, coeff, history, [](auto...) {});
                },
                5) /
                steps,
            true);
      }
      // Fields by strides, as from Python: C order (stepped in place), padded rows (copied).
      VS fs(f.data(), Kokkos::LayoutStride(n, n, n, 1)),
          ls(lapl.data(), Kokkos::LayoutStride(n, n, n, 1));
      run(w + "automatic, LayoutStride C order", fs, ls, which, {});
      V wide("probe::wide", n, n + 32);
      VS fp(wide.data(), Kokkos::LayoutStride(n, n + 32, n, 1));
      run(w + "automatic, LayoutStride padded rows", fp, ls, which, {});
    }
  }
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<long> sizes = {2000, 4096, 8192, 16384};
  if (const char* list = std::getenv("LAB_SIZES")) {
    sizes.clear();
    for (char* p = const_cast<char*>(list); *p;) {
      sizes.push_back(std::strtol(p, &p, 10));
      while (*p == ',') ++p;
    }
  }
  const char* space = std::getenv("PROBE_SPACE");
#if defined(KOKKOS_ENABLE_OPENMP)
  if (space && std::string(space) == "openmp") {
    sweep<Kokkos::OpenMP>(sizes);
    return 0;
  }
#endif
  (void)space;
  sweep<Kokkos::DefaultExecutionSpace>(sizes);
}
