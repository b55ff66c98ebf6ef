#!/bin/bash
# Sourced by bench/rhodo/gpu.sh and gpu2.sh on the bare GPU machine: registers
# NVIDIA OpenCL, builds LAMMPS (GPU package, OpenCL, mixed + PLUGIN) from
# .gpu/lammps-trim.tar.xz into $W/lammps-gpu (~95 s on 16 cores) and streamcl +
# lmp_ocl against it into build-gpu. Stops (exit 1) when anything is missing:
# the LAMMPS tarball, the rhodo inputs in it, a build. Sets LMP, LMP_OCL,
# LAMMPS_SOURCE_DIR, STREAMCL.
die() { echo "[gpu-build] $*" >&2; exit 1; }
[ -f .gpu/lammps-trim.tar.xz ] || die "no .gpu/lammps-trim.tar.xz (tools/lammps-src.sh DIR --trim makes it): no LAMMPS, no rhodo inputs"
. .gpu/device/setup.sh || die "no .gpu/device/setup.sh (NVIDIA OpenCL registration)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -d "$W/lammps/cmake" ] || tar xJf .gpu/lammps-trim.tar.xz -C "$W" || die "cannot unpack the LAMMPS tarball"
for f in in.rhodo in.rhodo.scaled data.rhodo; do
  [ -f "$W/lammps/bench/$f" ] || die "the LAMMPS tarball has no bench/$f: the rhodo inputs are missing"
done
OCL_ARGS=""
if [ -f /opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so ]; then
  OCL_ARGS="-DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include"
fi
JOBS=16 LAMMPS_EXTRA_CMAKE_ARGS="-DPKG_GPU=on -DGPU_API=opencl -DUSE_STATIC_OPENCL_LOADER=no \
  -DGPU_PREC=mixed -DPKG_OPENMP=on -DPKG_OPT=on $OCL_ARGS" \
  lammps_plugin/build-lammps-plugin-host.sh "$W/lammps-gpu" "$W/lammps" || die "LAMMPS build failed"
LMP=$W/lammps-gpu/bin/lmp
LIB=$(ls "$W"/lammps-gpu/lib/liblammps.so 2>/dev/null || ls "$W"/lammps-gpu/lib*/liblammps.so | head -1)
export STREAMCL_GPU_CMAKE_ARGS="-DLAMMPS_SOURCE_DIR=$W/lammps -DLAMMPS_LIBRARY=$LIB -DLMP_CPU=$LMP ${STREAMCL_GPU_CMAKE_ARGS:-}"
. bench/gpu-setup.sh || die "streamcl build failed"
LMP_OCL=$ROOT/build-gpu/lammps_plugin/lmp_ocl
[ -x "$LMP_OCL" ] || die "no lmp_ocl in build-gpu"
export LAMMPS_SOURCE_DIR=$W/lammps LMP_CPU=$LMP LMP_OCL LMP_GPU=$LMP
