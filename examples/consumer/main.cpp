// Uses Unison from an installed package: the Gaussian density on the default execution space,
// checked against the host formula.
#include <cmath>
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <unison/unison.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = 1001;
  Kokkos::View<float*> x("x", n), pdf("pdf", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i) hx(i) = -5.f + 10.f * i / (n - 1);
  Kokkos::deep_copy(x, hx);

  Kokkos::DefaultExecutionSpace exec;
  unison::gaussian_pdf(exec, x, 0.f, 1.f, pdf);
  auto hpdf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pdf);  // fences

  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double ref = std::exp(-0.5 * double(hx(i)) * hx(i)) / std::sqrt(2 * M_PI);
    worst = std::fmax(worst, std::fabs(hpdf(i) - ref));
  }
  std::printf("unison %s on %s: max |error| %.3g\n", unison::version().c_str(),
              Kokkos::DefaultExecutionSpace::name(), worst);
  try {
    unison::gaussian_pdf(exec, x, 0.f, -1.f, pdf);
    return 1;
  } catch (const unison::invalid_argument& e) {
    std::printf("bad input refused: %s\n", e.what());
  }
  return worst < 1e-6 ? 0 : 1;
}
