#!/usr/bin/env bash
# Device call: the suite with its peers (Numba CPU and CUDA, NumPy, CuPy) on Serial, OpenMP, Cuda,
# from binaries built here (-DUNISON_HOST_ARCH=sapphirerapids) and carried with build/carry/lib.
set -u
name=${NAME:-elementwise-rowwise-convolve}
mkdir -p build/cuda/share/unison && cp benchmarks/suite/plot.py build/cuda/share/unison/
rm -rf build/cuda/share/unison/peers && cp -r benchmarks/peers build/cuda/share/unison/peers
export LD_LIBRARY_PATH=$PWD/build/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 -c "import numba, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__)"
t0=$(date +%s)
PYTHONUNBUFFERED=1 timeout ${T:-560} build/cuda/benchmarks/unison-bench --out=/tmp/run --workloads=${W:-elementwise,rowwise,convolve} --repetitions=3 --results-limit=0 > $OUT/table.txt 2> $OUT/progress.txt
echo "unison-bench --workloads=${W:-elementwise,rowwise,convolve} --repetitions=3: exit $? after $(( $(date +%s)-t0 )) s" | tee -a $OUT/table.txt
cp /tmp/run/unison_bench.csv /tmp/run/peers.csv $OUT/ 2>/dev/null
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)") > /tmp/run/machine.txt
tar -C /tmp/run -czf $OUT/rest.tar.gz --exclude=results . 2>/dev/null
grep -E "peers|checks" $OUT/table.txt | tail -3
