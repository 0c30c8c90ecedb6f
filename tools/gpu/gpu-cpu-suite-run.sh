#!/usr/bin/env bash
# Device call (after run3.sh, machine still warm): the suite on Serial, OpenMP and Cuda.
set -u
. tools/gpu/gpu-openblas.sh
mkdir -p build/cuda/share/unison && cp benchmarks/suite/plot.py build/cuda/share/unison/
rm -rf build/cuda/share/unison/peers && cp -r benchmarks/peers build/cuda/share/unison/peers
B=build/cuda/benchmarks/unison-bench
t0=$(date +%s)
timeout ${T1:-330} $B --workloads=${W1:-elementwise,rowwise,convolve,diffusion,counting} --repetitions=3 --no-peers --no-plots --results-limit=0 --out=/tmp/s1 > $OUT/suite.txt 2> $OUT/suite-progress.txt
echo "suite exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/s1/unison_bench.csv $OUT/suite.csv
t0=$(date +%s)
timeout ${T2:-220} $B --workloads=matmul --repetitions=1 --no-peers --no-plots --results-limit=0 --out=/tmp/s2 > $OUT/matmul.txt 2> $OUT/matmul-progress.txt
echo "matmul exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/s2/unison_bench.csv $OUT/matmul.csv
cp /tmp/s2/peers/*.log $OUT/ 2>/dev/null
cat $OUT/suite.txt $OUT/matmul.txt
