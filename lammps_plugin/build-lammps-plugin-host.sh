#!/bin/bash
# Build (once) a LAMMPS with the PLUGIN package from source, to host
# `plugin load libstreamcl_lammps_plugin.so` (Debian's lmp has no PLUGIN).
#
#   lammps_plugin/build-lammps-plugin-host.sh DEST_PREFIX [LAMMPS_SOURCE_DIR]
#
# Result: DEST_PREFIX/bin/lmp (+ DEST_PREFIX/lib/liblammps.so). Idempotent: a
# stamp keyed by the LAMMPS version and the cmake flags makes a second call with
# the same inputs return at once (CI caches DEST_PREFIX, e.g. under
# /var/cache/streamcl-ci/). LAMMPS_SOURCE_DIR defaults to $LAMMPS_SOURCE_DIR;
# it may be the full tree or the trimmed one (lammps-src.sh --trim).
# Env: JOBS (default 2), LAMMPS_EXTRA_CMAKE_ARGS (e.g. the GPU package flags).
# ~8 min with -j2 on 2 cores, ~1.5 min with -j16.
set -euo pipefail
DEST=${1:?usage: build-lammps-plugin-host.sh DEST_PREFIX [LAMMPS_SOURCE_DIR]}
SRC=${2:-${LAMMPS_SOURCE_DIR:-}}
[ -n "$SRC" ] && [ -f "$SRC/cmake/CMakeLists.txt" ] || {
  echo "build-lammps-plugin-host.sh: need a LAMMPS source tree (with cmake/CMakeLists.txt) as 2nd arg or \$LAMMPS_SOURCE_DIR" >&2
  exit 2; }
SRC=$(cd "$SRC" && pwd)
mkdir -p "$DEST"; DEST=$(cd "$DEST" && pwd)
JOBS=${JOBS:-2}
FLAGS="-DCMAKE_BUILD_TYPE=Release -DBUILD_MPI=on -DBUILD_SHARED_LIBS=on -DBUILD_OMP=on
 -DPKG_PLUGIN=on -DPKG_KSPACE=on -DPKG_MOLECULE=on -DPKG_RIGID=on
 -DWITH_JPEG=no -DWITH_PNG=no -DWITH_FFMPEG=no -DWITH_GZIP=no ${LAMMPS_EXTRA_CMAKE_ARGS:-}"
VERSION=$(sed -n 's/^#define LAMMPS_VERSION "\(.*\)"/\1/p' "$SRC/src/version.h")
KEY="$VERSION|$(echo $FLAGS)"
STAMP="$DEST/.streamcl-plugin-host"
if [ -x "$DEST/bin/lmp" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$KEY" ]; then
  echo "LAMMPS plugin host (cached): $DEST/bin/lmp ($VERSION)"
  exit 0
fi
BUILD="$DEST/build"
# incremental when a previous build with other flags is there
# shellcheck disable=SC2086
cmake -S "$SRC/cmake" -B "$BUILD" -DCMAKE_INSTALL_PREFIX="$DEST" $FLAGS > "$DEST/cmake.log" 2>&1 ||
  { tail -30 "$DEST/cmake.log" >&2; exit 1; }
nice -n 10 cmake --build "$BUILD" -j "$JOBS" > "$DEST/build.log" 2>&1 ||
  { tail -30 "$DEST/build.log" >&2; exit 1; }
# No `cmake --install`: it also wants doc/, potentials/ and tools/, which the
# trimmed source tree lacks. The build tree's lmp carries an RPATH to its own
# liblammps.so, so links into DEST are all that is needed.
mkdir -p "$DEST/bin" "$DEST/lib"
ln -sf "$BUILD/lmp" "$DEST/bin/lmp"
for lib in "$BUILD"/liblammps*.so*; do ln -sf "$lib" "$DEST/lib/$(basename "$lib")"; done
HELP=$("$DEST/bin/lmp" -h 2>&1 || true)
grep -q "PLUGIN" <<< "$HELP" || { echo "built lmp lacks PLUGIN" >&2; exit 1; }
echo "$KEY" > "$STAMP"
echo "LAMMPS plugin host: $DEST/bin/lmp ($VERSION)"
