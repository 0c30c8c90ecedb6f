// unison_ulp_scan: the largest error, in ULP of the exact float result, of the CPU kernels'
// vector exp, sin, cos and tanh (unison/backends/host/pack.hpp, at the instruction set this program
// was built for) over every one of the 2^32 float inputs, against glibc's double functions.
// Prints a line per function: the largest error, the input where it occurs, the inputs scanned.
// Usage: unison_ulp_scan [step]   (step k: every k-th bit pattern; default 1, all of them)
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <Kokkos_Core.hpp>

#include "ulp.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const unsigned long step = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1;
  if (step < 1) {
    std::fprintf(stderr, "unison_ulp_scan: the step must be a whole number >= 1\n");
    return 2;
  }
#if UNISON_BACKENDS_HOST_VECTORS
  namespace b = unison::backends;
  using V = b::Pack<float>;
  std::printf("vector math: %s, %d floats per pack; every %lu-th of the 2^32 float inputs\n",
              b::host_vector_math, b::lanes_v<V>, step);
  struct Case {
    const char* name;
    V (*f)(const V&);
    double (*ref)(double);
  };
  const Case cases[] = {
      {"exp", [](const V& x) { return b::exp(x); }, [](double x) { return std::exp(x); }},
      {"sin", [](const V& x) { return b::sin(x); }, [](double x) { return std::sin(x); }},
      {"cos", [](const V& x) { return b::cos(x); }, [](double x) { return std::cos(x); }},
      {"tanh", [](const V& x) { return b::tanh(x); }, [](double x) { return std::tanh(x); }},
  };
  for (const Case& c : cases) {
    const auto r = unison::test::ulp_scan(c.f, c.ref, step);
    std::printf("%-5s max %.4g ulp at x = %.9g (%lld inputs)\n", c.name, r.worst, double(r.at),
                static_cast<long long>(r.inputs));
  }
  return 0;
#else
  std::printf("no host vectors in this build: nothing to scan\n");
  return 0;
#endif
}
