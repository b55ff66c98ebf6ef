#!/bin/bash
# rhodo on the bare GPU machine (16 cores, no package registry), from the
# repository root:   bash bench/rhodo/gpu.sh
# 1. registers NVIDIA OpenCL (.gpu/device/setup.sh)
# 2. builds LAMMPS (GPU package, OpenCL, mixed + PLUGIN) from .gpu/lammps-trim.tar.xz into
#    build-rhodo-gpu/ (~95 s)
# 3. builds streamcl + lmp_ocl against that LAMMPS into build-gpu (bench/gpu-setup.sh)
# 4. runs rhodo: CPU 1 and 16 ranks, GPU package 1 and 4 ranks, ocl 1 and 4 ranks,
#    then in.rhodo.scaled 2x2x2 (256k atoms) for GPU package and ocl on 1 rank
# Tables (Markdown, CSV, PNG) and logs go to $OUT/rhodo/ (OUT defaults to ./out).
# Env: SKIP_CPU=1 drops the CPU runs; SCALED_NP (default 1); RUN_TIMEOUT (default 150 s/run).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUTDIR=${OUT:-$ROOT/out}/rhodo
W=${GPU_WORK:-$ROOT/build-rhodo-gpu}   # not under .gpu/: carrying .gpu replaces it
mkdir -p "$OUTDIR" "$W"
t_start=$(date +%s)
stamp() { echo "[gpu.sh +$(( $(date +%s) - t_start ))s] $*"; }

. .gpu/device/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | tee "$OUTDIR/gpu.txt"

stamp "LAMMPS (GPU package + PLUGIN) from .gpu/lammps-trim.tar.xz"
[ -d "$W/lammps/cmake" ] || tar xJf .gpu/lammps-trim.tar.xz -C "$W"
OCL_ARGS=""
if [ -f /opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so ]; then
  OCL_ARGS="-DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include"
fi
JOBS=16 LAMMPS_EXTRA_CMAKE_ARGS="-DPKG_GPU=on -DGPU_API=opencl -DUSE_STATIC_OPENCL_LOADER=no \
  -DGPU_PREC=mixed -DPKG_OPENMP=on -DPKG_OPT=on $OCL_ARGS" \
  lammps_plugin/build-lammps-plugin-host.sh "$W/lammps-gpu" "$W/lammps" || { stamp "LAMMPS build failed"; exit 1; }
LMP=$W/lammps-gpu/bin/lmp
LIB=$(ls "$W"/lammps-gpu/lib/liblammps.so 2>/dev/null || ls "$W"/lammps-gpu/lib*/liblammps.so | head -1)

stamp "streamcl + lmp_ocl (build-gpu) against $LIB"
export STREAMCL_GPU_CMAKE_ARGS="-DLAMMPS_SOURCE_DIR=$W/lammps -DLAMMPS_LIBRARY=$LIB -DLMP_CPU=$LMP ${STREAMCL_GPU_CMAKE_ARGS:-}"
. bench/gpu-setup.sh || { stamp "streamcl build failed"; exit 1; }
LMP_OCL=$ROOT/build-gpu/lammps_plugin/lmp_ocl
[ -x "$LMP_OCL" ] || { stamp "no lmp_ocl in build-gpu"; exit 1; }
"$ROOT/build-gpu/streamcl" devices 2>/dev/null | tee "$OUTDIR/devices.txt" || true

export LAMMPS_SOURCE_DIR=$W/lammps LMP_CPU=$LMP LMP_OCL LMP_GPU=$LMP NP=4
export RUN_TIMEOUT=${RUN_TIMEOUT:-150} STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu}
RUNS="gpu:1 gpu:4 ocl:1 ocl:4"
[ "${SKIP_CPU:-0}" = 1 ] || RUNS="cpu:1 cpu:16 $RUNS"
stamp "rhodo: $RUNS"
RUNS="$RUNS" bash bench/rhodo/run.sh "$W/rhodo"
stamp "rhodo.scaled 2x2x2: gpu, ocl on ${SCALED_NP:-1} rank(s)"
SCALE=2 RUNS="gpu:${SCALED_NP:-1} ocl:${SCALED_NP:-1}" bash bench/rhodo/run.sh "$W/rhodo-scaled"

for t in rhodo rhodo-scaled; do
  for f in rhodo.md rhodo.csv rhodo.png runs.txt; do
    [ -f "$W/$t/$f" ] && cp "$W/$t/$f" "$OUTDIR/${t}.${f#rhodo.}"
  done
  for d in "$W/$t"/*/; do
    n=$(basename "$d"); mkdir -p "$OUTDIR/logs/$t/$n"
    cp "$d"/log.lammps "$d"/screen.txt "$d"/stdout.txt "$OUTDIR/logs/$t/$n/" 2>/dev/null
  done
done
stamp "done; tables in $OUTDIR"
cat "$OUTDIR/rhodo.md" "$OUTDIR/rhodo-scaled.md" 2>/dev/null | grep -E "^\| (quantity|loop s|speedup|Pair s|dev force s|rel E_coul@0|rel PotEng@100)"
