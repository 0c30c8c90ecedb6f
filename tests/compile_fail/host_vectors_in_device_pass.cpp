// A CPU vector path compiled into a GPU kernel is refused at compile time, in the device pass of a
// CUDA or HIP build, whatever the compiler defines there: here a kernel that works on host
// vectors without the host_vectors guard (registered only in builds with a GPU backend).
#include <unison/backends/host/pack.hpp>

void twice(const Kokkos::View<float*>& x) {
  Kokkos::parallel_for(
      "twice", x.extent(0) / 16, KOKKOS_LAMBDA(int i) {
        using V = unison::backends::Pack<float>;
        const V v = unison::backends::load<V>(&x(16 * i));
        unison::backends::store(&x(16 * i), v + v);
      });
}
