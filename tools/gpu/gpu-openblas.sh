# Sourced by the GPU machine's scripts: unpacks the OpenBLAS .deb files copied into .deps/debs/
# (copied from ../shared/deps/debs; that machine has no package manager access), points the
# loader at them and sets UNISON_BLAS_FLAGS for `cmake --preset cuda`, so that Kokkos Kernels'
# GEMM on the OpenMP backend runs on OpenBLAS. Without the files it sets nothing.
UNISON_BLAS_FLAGS=""
if ls .deps/debs/libopenblas0-pthread_*.deb > /dev/null 2>&1; then
  _ob=$PWD/build/openblas
  mkdir -p "$_ob"
  for _deb in .deps/debs/*.deb; do dpkg -x "$_deb" "$_ob"; done
  _lib=$_ob/usr/lib/x86_64-linux-gnu
  UNISON_BLAS_FLAGS="-DUNISON_BLAS_LIBRARY=$_lib/openblas-pthread/libopenblas.so"
  export LD_LIBRARY_PATH=$_lib/openblas-pthread:$_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
