// Element-wise functions on host data and on the default execution space's data: a function of
// your own through unison::transform, and the library's gaussian_pdf. Each result is checked
// against the same formula in double on the host.
//
//   ./01_elementwise [n]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <Kokkos_Core.hpp>
#include <unison/unison.hpp>

// The largest |got - expected| over the elements, expected computed in double from the inputs.
template <class View, class Input, class Formula>
double worst_error(const View& got, const Input& x, const Input& y, Formula formula) {
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  double worst = 0;
  for (std::size_t i = 0; i < g.extent(0); ++i)
    worst = std::fmax(worst, std::fabs(g(i) - formula(double(hx(i)), double(hy(i)))));
  return worst;
}

template <class Exec>
bool run(const char* where, long n) {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> x("x", n), y("y", n), out("out", n);
  // Inputs on the execution space itself: x in [-4, 4], y in [0, 1).
  Kokkos::parallel_for(
      "example::fill", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(long i) {
        x(i) = -4.f + 8.f * float(i) / float(n);
        y(i) = float((i * 7919) % 1000) / 1000.f;
      });

  // Your own element-wise function: any callable the execution space can run.
  unison::transform(
      exec, out, KOKKOS_LAMBDA(float a, float b) { return a * b + 1.f; }, x, y);
  exec.fence();  // Unison enqueues and returns; the caller waits when it needs the result
  const double e1 = worst_error(out, x, y, [](double a, double b) { return a * b + 1; });

  // A library function: the normal density with mean 0 and standard deviation 1.
  unison::gaussian_pdf(exec, x, 0.f, 1.f, out);
  exec.fence();
  const double e2 = worst_error(out, x, y, [](double a, double) {
    return std::exp(-0.5 * a * a) / std::sqrt(2 * 3.141592653589793);
  });

  std::printf("%-8s %-10s n = %ld: transform max |error| %.2g, gaussian_pdf max |error| %.2g\n",
              where, Exec::name(), n, e1, e2);
  return e1 < 1e-6 && e2 < 1e-6;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const long n = argc > 1 ? std::atol(argv[1]) : 1000003;
  bool ok = run<Kokkos::DefaultHostExecutionSpace>("host", n);
  ok = run<Kokkos::DefaultExecutionSpace>("default", n) && ok;
  // Bad input is refused with an exception that says what is wrong, before anything runs.
  try {
    Kokkos::View<float*> x("x", 10), short_out("short_out", 9);
    unison::gaussian_pdf(Kokkos::DefaultExecutionSpace(), x, 0.f, 1.f, short_out);
    ok = false;
  } catch (const unison::invalid_argument& e) {
    std::printf("refused: %s\n", e.what());
  }
  return ok ? 0 : 1;
}
