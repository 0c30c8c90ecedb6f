// A 2-D field diffused on the default execution space, read from and written to NumPy's .npy
// files (load the result with numpy.load).
//
//   ./02_diffusion [field.npy [steps [result.npy]]]
//
// Without arguments it writes the library's "jagged" starting field of 512 x 512 to
// start.npy and diffuses that. The field is float32 or float64 (rank 2, C order).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <Kokkos_Core.hpp>
#include <unison/unison.hpp>

using Field = Kokkos::View<float**, Kokkos::LayoutRight>;

double total(const Field& f) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "example::total", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {f.extent(0), f.extent(1)}),
      KOKKOS_LAMBDA(int i, int j, double& s) { s += f(i, j); }, sum);
  return sum;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string input = argc > 1 ? argv[1] : "start.npy";
  const long steps = argc > 2 ? std::atol(argv[2]) : 100;
  const std::string output = argc > 3 ? argv[3] : "result.npy";
  Kokkos::DefaultExecutionSpace exec;
  try {
    if (argc <= 1) {  // make a starting field
      Field start("start", 512, 512);
      unison::jagged_field(exec, start);
      unison::write_npy(input, start);  // waits for the field, then writes it
      std::printf("wrote %s (512 x 512, float32)\n", input.c_str());
    }
    // read_npy gives a host View; copy it to the execution space's memory.
    const auto host = unison::read_npy<float>(input);
    Field f("f", host.extent(0), host.extent(1)), lapl("lapl", host.extent(0), host.extent(1));
    Kokkos::deep_copy(f, host);
    const double before = total(f);

    // steps of f -= 0.25 * Laplacian(f), in place; lapl receives the last step's Laplacian.
    unison::diffuse(exec, f, steps, 0.25, lapl, unison::Laplacian::final_only);
    exec.fence();
    const double after = total(f);
    unison::write_npy(output, f);

    // Heat leaves only through the edges (the cells outside count as 0), so the total falls
    // and no value becomes NaN.
    std::printf("%s: %zu x %zu, %ld steps on %s: total %.6g -> %.6g, wrote %s\n", input.c_str(),
                f.extent(0), f.extent(1), steps, exec.name(), before, after, output.c_str());
    return std::isfinite(after) && after <= before * (1 + 1e-6) ? 0 : 1;
  } catch (const unison::invalid_argument& e) {  // a missing or malformed file, bad options
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
