#!/usr/bin/env bash
# Build EBISU (ICS'23) 2d5pt binary (float with --fp32, else double) for sm_90, nvcc 13.
#   usage: bash build-ebisu.sh SRC_DIR BUILD_DIR
# SRC_DIR  : pristine export of neozhang307/EBISU-ICS23 HEAD (never modified).
# BUILD_DIR: gets a patched copy in BUILD_DIR/src and the objects/binary.
# Prints the binary path as the last line.
set -euo pipefail

SRC=$(cd "$1" && pwd)
mkdir -p "$2"; OUT=$(cd "$2" && pwd)
PATCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ebisu-cuda13.patch"
ARCH=${EBISU_ARCH:-sm_90}
NVCC=${NVCC:-nvcc}

# Fresh copy + patch every time => idempotent, SRC stays pristine.
rm -rf "$OUT/src" "$OUT/obj"
cp -a "$SRC" "$OUT/src"
if patch -p1 -R --dry-run --quiet -d "$OUT/src" < "$PATCH" >/dev/null 2>&1; then
  echo "note: $SRC already carries the patch; not re-applying" >&2
else
  patch -p1 --forward --quiet -d "$OUT/src" < "$PATCH"
fi
mkdir -p "$OUT/obj"

# Mirrors 2dstencil/2d5pt/CMakeLists.txt: kernel TU with -rdc=true -DTRATEMPORAL,
# launcher TU with -DEBISU, -D_TIMER_ everywhere, 2d5pt/config.cuh on the include path.
# -O3 also speeds up the CPU gold (--check); upstream's CMake used no host -O.
D="$OUT/src/2dstencil"
FLAGS=(-std=c++17 -O3 -arch="$ARCH" -I"$D/2d5pt" -D_TIMER_)
cd "$D"
JOBS=$(nproc)
compile() {  # run nvcc in the background, at most $JOBS at once; wait -n fails => set -e aborts
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n; done
  "$NVCC" "${FLAGS[@]}" "$@" &
}
# kernel TU first (slowest); its ptxas -v report (registers/spills) goes to obj/ptxas.log
compile -rdc=true -DTRATEMPORAL -Xptxas -v -c jacobi-temporal-traditional.cu \
        -o "$OUT/obj/kernel.o" 2> "$OUT/obj/ptxas.log"
compile -rdc=true -DEBISU -c jacobi-2d.cu -o "$OUT/obj/jacobi2d.o"
compile -DEBISU -c jacobi.driver.cpp      -o "$OUT/obj/driver.o"
compile -c 2d5pt/jacobi_gold.cpp          -o "$OUT/obj/gold.o"
compile -c 2d5pt/jacobi_gold_gen.cpp      -o "$OUT/obj/gold_gen.o"
for pid in $(jobs -p); do wait "$pid" || { cat "$OUT/obj/ptxas.log" >&2; exit 1; }; done

# Device link (rdc) + host link.
"$NVCC" -arch="$ARCH" -rdc=true "$OUT"/obj/*.o -o "$OUT/2d5pt_ebisu.exe"
grep -A3 'kernel_temporal_traditionalIf' "$OUT/obj/ptxas.log" | grep -E 'registers|spill' >&2 || true
echo "$OUT/2d5pt_ebisu.exe"
