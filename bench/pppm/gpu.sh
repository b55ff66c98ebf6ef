#!/bin/bash
# kspace_style pppm/ocl on the bare GPU machine, from the repository root:
#   bash bench/pppm/gpu.sh
# Builds what bench/rhodo/gpu.sh builds (LAMMPS with the GPU package + PLUGIN into
# build-rhodo-gpu/, reused when present; streamcl + lmp_ocl into build-gpu/), then
# rhodo (32k atoms, 100 steps) on 1, 2, 4, 8 ranks:
#   ocl      lmp_ocl -sf ocl               pair + pppm/ocl (this project)
#   ocl-cpuk lmp_ocl -sf ocl with LAMMPS's CPU pppm (1 rank only: the kspace baseline
#            and a check that pppm/ocl changes no energy)
#   gpu      -sf gpu -pk gpu 1              GPU package default: pair + pppm/gpu
#   gpu-po   -sf gpu -pk gpu 1 pair/only on GPU package, pppm on the host
# and rhodo.scaled 2x2x2 (256k atoms) on 1 and 4 ranks for ocl and gpu.
# Prints a Markdown table last: loop and Kspace seconds, the goal ratios of issue 13.
# Env: RANKS (default "1 2 4 8"), SCALED_RANKS (default "1 4"), RUN_TIMEOUT (120 s).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUTDIR=${OUT:-$ROOT/out}/pppm
W=${GPU_WORK:-$ROOT/build-rhodo-gpu}
mkdir -p "$OUTDIR" "$W"
t_start=$(date +%s)
stamp() { echo "[pppm/gpu.sh +$(( $(date +%s) - t_start ))s] $*"; }

. .gpu/device/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)

LMP=$W/lammps-gpu/bin/lmp
if [ ! -x "$LMP" ]; then
  stamp "LAMMPS (GPU package + PLUGIN) from .gpu/lammps-trim.tar.xz"
  [ -d "$W/lammps/cmake" ] || tar xJf .gpu/lammps-trim.tar.xz -C "$W"
  OCL_ARGS=""
  if [ -f /opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so ]; then
    OCL_ARGS="-DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include"
  fi
  JOBS=16 LAMMPS_EXTRA_CMAKE_ARGS="-DPKG_GPU=on -DGPU_API=opencl -DUSE_STATIC_OPENCL_LOADER=no \
    -DGPU_PREC=mixed -DPKG_OPENMP=on -DPKG_OPT=on $OCL_ARGS" \
    lammps_plugin/build-lammps-plugin-host.sh "$W/lammps-gpu" "$W/lammps" || { stamp "LAMMPS build failed"; exit 1; }
fi
# pppm/ocl's one-rank device FFTs need vkFFT.h (Debian libvkfft-dev, header only); the
# GPU machine has no package registry: carry a copy as .gpu/vkfft/vkFFT.h
# (mkdir -p .gpu/vkfft && cp /usr/include/vkFFT.h .gpu/vkfft/), CMake finds it there
if [ ! -f .gpu/vkfft/vkFFT.h ] && [ ! -f /usr/include/vkFFT.h ]; then
  stamp "WARNING: no vkFFT.h (.gpu/vkfft/ or /usr/include): pppm/ocl runs with host FFTs"
fi
LIB=$(ls "$W"/lammps-gpu/lib/liblammps.so 2>/dev/null || ls "$W"/lammps-gpu/lib*/liblammps.so | head -1)
LMP_OCL=$ROOT/build-gpu/lammps_plugin/lmp_ocl
stamp "streamcl + lmp_ocl (build-gpu) against $LIB"
export STREAMCL_GPU_CMAKE_ARGS="-DLAMMPS_SOURCE_DIR=$W/lammps -DLAMMPS_LIBRARY=$LIB -DLMP_CPU=$LMP ${STREAMCL_GPU_CMAKE_ARGS:-}"
. bench/gpu-setup.sh || { stamp "streamcl build failed"; exit 1; }
[ -x "$LMP_OCL" ] || { stamp "no lmp_ocl in build-gpu"; exit 1; }
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu}

SRC=$W/lammps/bench
manifest=$OUTDIR/runs.tsv; : > "$manifest"
run() {  # KIND NP SCALE EXE ARGS...
  local kind=$1 np=$2 scale=$3 exe=$4; shift 4
  local name=$kind-$np; [ "$scale" != 1 ] && name=$name-s$scale
  local d=$OUTDIR/$name; rm -rf "$d"; mkdir -p "$d"
  ln -s "$SRC/data.rhodo" "$d/data.rhodo"
  local input=in.rhodo vars=()
  if [ "$scale" != 1 ]; then input=in.rhodo.scaled; vars=(-var x "$scale" -var y "$scale" -var z "$scale"); fi
  cp "$SRC/$input" "$d/"
  # ocl-cpuk: LAMMPS's CPU pppm with the ocl pair (suffix off around the kspace line)
  [ "${KEEP_CPU_KSPACE:-0}" = 1 ] && sed -i 's/^kspace_style\(.*\)$/suffix off\nkspace_style\1\nsuffix on/' "$d/$input"
  local cmd=(mpirun -np "$np" "$exe" "$@" -in "$input" "${vars[@]}" -log log.lammps -screen none)
  (cd "$d" && timeout "${RUN_TIMEOUT:-120}" "${cmd[@]}" > stdout.txt 2>&1)
  local rc=$?
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$np" "$scale" "$rc" "${cmd[*]}" >> "$manifest"
  stamp "$name: rc $rc"
}
for np in ${RANKS:-1 2 4 8}; do
  run ocl $np 1 "$LMP_OCL" -sf ocl
  [ "$np" = 1 ] && KEEP_CPU_KSPACE=1 run ocl-cpuk $np 1 "$LMP_OCL" -sf ocl
  run gpu $np 1 "$LMP" -sf gpu -pk gpu 1
  run gpu-po $np 1 "$LMP" -sf gpu -pk gpu 1 pair/only on
done
for np in ${SCALED_RANKS:-1 4}; do
  run ocl $np 2 "$LMP_OCL" -sf ocl
  run gpu $np 2 "$LMP" -sf gpu -pk gpu 1
  run gpu-po $np 2 "$LMP" -sf gpu -pk gpu 1 pair/only on
done
stamp "done"
python3 "$ROOT/bench/pppm/report.py" "$manifest" "$OUTDIR" "$GPU" | tee "$OUTDIR/pppm.md"
