// hidden_layer takes rank-1 Views only, refused at compile time, naming the function.
#include <unison/elementwise.hpp>
void f(Kokkos::View<float**> g, Kokkos::View<float**> out) {
  unison::hidden_layer(Kokkos::DefaultExecutionSpace(), g, g, out);
}
