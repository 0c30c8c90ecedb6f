// matmul_core takes rank-3 Views (a batch of matrices), refused at compile time, naming the
// function.
#include <unison/rowwise.hpp>
void f(Kokkos::View<float**> a, Kokkos::View<float***> c) {
  unison::matmul_core(Kokkos::DefaultExecutionSpace(), a, a, c);
}
