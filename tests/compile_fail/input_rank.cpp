// An input of another rank than out is refused at compile time, naming the function.
#include <unison/elementwise.hpp>
void f(Kokkos::View<float**> x, Kokkos::View<float*> out) {
  unison::hypot(Kokkos::DefaultExecutionSpace(), x, 1.f, out);
}
