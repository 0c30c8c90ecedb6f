// matmul_reduce takes rank-2 A and B, refused at compile time, naming the function.
#include <unison/matmul.hpp>
void f(Kokkos::View<float*> a, Kokkos::View<float**> b, Kokkos::View<float*> out) {
  unison::matmul_reduce(Kokkos::DefaultExecutionSpace(), a, b, out);
}
