// l2_norm takes a rank-2 View of rows, refused at compile time, naming the function.
#include <unison/rowwise.hpp>
void f(Kokkos::View<float*> v, Kokkos::View<float*> out) {
  unison::l2_norm(Kokkos::DefaultExecutionSpace(), v, out);
}
