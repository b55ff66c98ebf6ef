#!/bin/bash
# Sourced (through rhodo_build of bench/lib/rhodo.sh) by the bench scripts that run LAMMPS on the bare GPU machine: registers
# NVIDIA OpenCL, builds LAMMPS (GPU package, OpenCL, mixed + PLUGIN) from
# .gpu/lammps-trim.tar.xz into $W/src-<tarball>/lammps-gpu (~95 s on 16 cores) and streamcl +
# lmp_ocl against it into build-gpu. Stops (exit 1) when anything is missing:
# the LAMMPS tarball, the rhodo inputs in it, a build. Sets LMP, LMP_OCL,
# LAMMPS_SOURCE_DIR, STREAMCL.
# LAMMPS_TARBALL picks another LAMMPS (default .gpu/lammps-trim.tar.xz, Debian's
# 29Sep2021), e.g. .gpu/lammps-4Feb2025-trim.tar.xz (.ci/lammps-current.sh --trim
# makes it); VIA_PLUGIN=1 runs the ocl kind through `plugin load` into that lmp.
die() { echo "[gpu-build] $*" >&2; exit 1; }
TARBALL=${LAMMPS_TARBALL:-.gpu/lammps-trim.tar.xz}
[ -f "$TARBALL" ] || die "no $TARBALL (tools/lammps-src.sh DIR --trim makes it): no LAMMPS, no rhodo inputs"
. .gpu/device/setup.sh || die "no .gpu/device/setup.sh (NVIDIA OpenCL registration)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LSRC=$W/src-$(basename "$TARBALL" .tar.xz)   # one unpacked tree per tarball
mkdir -p "$LSRC"
[ -d "$LSRC/lammps/cmake" ] || tar xJf "$TARBALL" -C "$LSRC" || die "cannot unpack the LAMMPS tarball"
for f in in.rhodo in.rhodo.scaled data.rhodo; do
  [ -f "$LSRC/lammps/bench/$f" ] || die "the LAMMPS tarball has no bench/$f: the rhodo inputs are missing"
done
OCL_ARGS=""
if [ -f /opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so ]; then
  OCL_ARGS="-DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include"
fi
JOBS=16 LAMMPS_EXTRA_CMAKE_ARGS="-DPKG_GPU=on -DGPU_API=opencl -DUSE_STATIC_OPENCL_LOADER=no \
  -DGPU_PREC=mixed -DPKG_OPENMP=on -DPKG_OPT=on $OCL_ARGS" \
  lammps_plugin/build-lammps-plugin-host.sh "$LSRC/lammps-gpu" "$LSRC/lammps" || die "LAMMPS build failed"
LMP=$LSRC/lammps-gpu/bin/lmp
LIB=$(ls "$LSRC"/lammps-gpu/lib/liblammps.so 2>/dev/null || ls "$LSRC"/lammps-gpu/lib*/liblammps.so | head -1)
export STREAMCL_GPU_CMAKE_ARGS="-DLAMMPS_SOURCE_DIR=$LSRC/lammps -DLAMMPS_LIBRARY=$LIB -DLMP_CPU=$LMP ${STREAMCL_GPU_CMAKE_ARGS:-}"
. bench/gpu-setup.sh || die "streamcl build failed"
LMP_OCL=$ROOT/build-gpu/lammps_plugin/lmp_ocl
[ -x "$LMP_OCL" ] || die "no lmp_ocl in build-gpu"
export LAMMPS_SOURCE_DIR=$LSRC/lammps LMP_CPU=$LMP LMP_OCL LMP_GPU=$LMP
if [ "${VIA_PLUGIN:-0}" = 1 ]; then
  export LMP_PLUGIN_HOST=$LMP PLUGIN_SO=$ROOT/build-gpu/lammps_plugin/libstreamcl_lammps.so
  [ -f "$PLUGIN_SO" ] || die "no $PLUGIN_SO"
fi
