// Uses Unison from an installed package, on the default execution space: the Gaussian density,
// checked against the host formula, and five diffusion steps of a 37 x 61 field, whose automatic
// algorithm must give the plain kernel's bits. With a file name as its argument it writes its
// results there (the density, then the field and the Laplacian): built with the compiler's
// default floating-point contraction and with -ffp-contract=off, the two files are equal byte for
// byte (CI compares them).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <Kokkos_Core.hpp>
#include <unison/unison.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = 1001;
  Kokkos::View<float*> x("x", n), pdf("pdf", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i) hx(i) = float(i - n / 2) / 100.f;  // -5 to 5
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

  // Diffusion: a field of values in [-1, 1] (from integers, exactly), five steps by the
  // backend's algorithm and by the plain kernel.
  const int nx = 37, ny = 61, steps = 5;
  Kokkos::View<float**> f0("f0", nx, ny), f("f", nx, ny), g("g", nx, ny), lapl("lapl", nx, ny),
      plain_lapl("plain_lapl", nx, ny);
  auto hf0 = Kokkos::create_mirror_view(f0);
  std::uint32_t state = 12345;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      state = state * 1664525u + 1013904223u;
      hf0(i, j) = float(int(state >> 8) - (1 << 23)) / float(1 << 23);
    }
  Kokkos::deep_copy(f0, hf0);
  Kokkos::deep_copy(f, f0);
  Kokkos::deep_copy(g, f0);
  unison::diffuse(exec, f, steps, 0.2, lapl);
  unison::DiffusionOptions plain;
  plain.algorithm = unison::StencilAlgorithm::plain;
  unison::diffuse(exec, g, steps, 0.2, plain_lapl, unison::Laplacian::every_step, plain);
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
  auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lapl);
  auto hpl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plain_lapl);
  const bool same = std::memcmp(hf.data(), hg.data(), sizeof(float) * nx * ny) == 0 &&
                    std::memcmp(hl.data(), hpl.data(), sizeof(float) * nx * ny) == 0;
  std::printf("diffusion, %d steps of %dx%d: the plain kernel's bits: %s\n", steps, nx, ny,
              same ? "yes" : "NO");

  if (argc > 1) {
    std::FILE* out = std::fopen(argv[1], "wb");
    if (!out) return 1;
    std::fwrite(hpdf.data(), sizeof(float), n, out);
    std::fwrite(hf.data(), sizeof(float), nx * ny, out);
    std::fwrite(hl.data(), sizeof(float), nx * ny, out);
    if (std::fclose(out) != 0) return 1;
    std::printf("results written to %s\n", argv[1]);
  }
  return worst < 1e-6 && same ? 0 : 1;
}
