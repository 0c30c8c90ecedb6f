#!/usr/bin/env bash
# Build AN5D-Artifact's shipped, pre-generated j2d5pt float32 CUDA kernels for sm_90.
# Usage: bash build-an5d.sh SRC_DIR BUILD_DIR
#   SRC_DIR   : pristine export of khaki3/AN5D-Artifact (never modified)
#   BUILD_DIR : gets a copy of the needed sources (src/), objects+logs (obj/), binaries (bin/)
# Env (optional):
#   AN5D_CONFIGS : "bS1-bT-sl ..." from compiled/float/j2d5pt-*_host.cu
#                  default: V100 best (256-10-256), deepest V100 top-5 (512-16-256), 256-10-128
#   AN5D_ARCH    : SM number, default 90
#   AN5D_REGNUM  : --maxrregcount (artifact tried 0=unlimited/32/64/96), default 0
# No source change is needed for nvcc 13.0; if an5d-cuda13.patch sits beside this
# script and is non-empty it is applied (patch -p1) to the copy in BUILD_DIR.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SRC_DIR BUILD_DIR" >&2; exit 2; }
SRC=$(realpath "$1"); mkdir -p "$2"; BUILD=$(realpath "$2")
HERE=$(dirname "$(realpath "$0")")
CONFIGS=${AN5D_CONFIGS:-"256-10-256 512-16-256 256-10-128"}
ARCH=${AN5D_ARCH:-90}
REGNUM=${AN5D_REGNUM:-0}
[ -f "$SRC/common.h" ] && [ -d "$SRC/compiled/float" ] || { echo "not an AN5D-Artifact tree: $SRC" >&2; exit 1; }

# 1. Fresh copy of just what the build needs (driver header + chosen generated kernels).
rm -rf "$BUILD/src" "$BUILD/obj"
mkdir -p "$BUILD/src/compiled/float" "$BUILD/obj" "$BUILD/bin"
cp "$SRC/common.h" "$BUILD/src/"
for c in $CONFIGS; do
  cp "$SRC/compiled/float/j2d5pt-${c}"_{host.cu,kernel.cu,kernel.hu} "$BUILD/src/compiled/float/"
done
if [ -s "$HERE/an5d-cuda13.patch" ]; then patch -p1 -d "$BUILD/src" < "$HERE/an5d-cuda13.patch"; fi

# 2. Flags = artifact's (make.sh / compiled/nvcc_compile_top5.sh) with the arch swapped to sm_90.
FLAGS="-DSB_TYPE=float -O3 --use_fast_math -Xcompiler -fopenmp -gencode=arch=compute_${ARCH},code=sm_${ARCH} -I$BUILD/src"
SUFFIX=""
if [ "$REGNUM" -gt 0 ]; then FLAGS="$FLAGS --maxrregcount=$REGNUM"; SUFFIX=".reg$REGNUM"; fi
export FLAGS BUILD

# 3. Compile every host/kernel .cu as its own job, nproc in parallel (ptxas -v report kept in obj/*.log).
for c in $CONFIGS; do printf '%s\n' "j2d5pt-${c}_kernel" "j2d5pt-${c}_host"; done |
  xargs -P "$(nproc)" -I{} bash -c \
    'nvcc $FLAGS -Xptxas -v -c "$BUILD/src/compiled/float/{}.cu" -o "$BUILD/obj/{}.o" > "$BUILD/obj/{}.log" 2>&1 \
       || { cat "$BUILD/obj/{}.log" >&2; exit 1; }'

# 4. Link (host part needs OpenMP for init_grid and the -c CPU reference).
for c in $CONFIGS; do
  nvcc $FLAGS "$BUILD/obj/j2d5pt-${c}_host.o" "$BUILD/obj/j2d5pt-${c}_kernel.o" \
       -o "$BUILD/bin/j2d5pt-float-${c}${SUFFIX}"
done

# 5. Summary: registers/spills of the main (full-bT) kernel, then the binaries.
for c in $CONFIGS; do
  bt=$(echo "$c" | cut -d- -f2)
  echo "j2d5pt-float-${c}${SUFFIX}: kernel0_${bt}: $(grep -A3 "entry function '_Z[0-9]*kernel0_${bt}Pfiii'" \
        "$BUILD/obj/j2d5pt-${c}_kernel.log" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | paste -sd, -)"
done
for c in $CONFIGS; do echo "$BUILD/bin/j2d5pt-float-${c}${SUFFIX}"; done
