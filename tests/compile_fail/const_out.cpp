// A const output is refused at compile time, naming the function.
#include <unison/elementwise.hpp>
void f(Kokkos::View<const float*> x, Kokkos::View<const float*> out) {
  unison::add(Kokkos::DefaultExecutionSpace(), x, x, out);
}
