#!/usr/bin/env bash
set -u
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
. tools/gpu/gpu-openblas.sh
t0=$(date +%s)
{ cmake --preset cuda $UNISON_BLAS_FLAGS && cmake --build --preset cuda --target unison-bench; } > $OUT/build.log 2>&1; st=$?
echo "build exit $st after $(( $(date +%s)-t0 )) s"; [ $st -ne 0 ] && { tail -30 $OUT/build.log; exit 1; }
python3 -c "
import numpy as np, time
r=np.random.default_rng(1); A=r.random((10000,5000),dtype=np.float32); B=r.random((5000,7000),dtype=np.float32)
for i in range(3):
    t=time.perf_counter(); C=A@B; t1=time.perf_counter(); s=C.sum(0); t2=time.perf_counter(); print(f'numpy A@B {t1-t:.3f} s ({7e11/(t1-t)/1e9:.0f} GFLOP/s), (A@B).sum(0) {t2-t:.3f} s')
" 2>&1 | tee $OUT/numpy.txt
el=$(( $(date +%s)-t0 )); T1=$(( (560-el)*6/10 )); T2=$(( 560-el-T1 ))
echo "suite limits $T1 $T2"
T1=$T1 T2=$T2 bash tools/gpu/gpu-cpu-suite-run.sh > /dev/null
cat $OUT/suite.txt $OUT/matmul.txt | cut -c1-220
