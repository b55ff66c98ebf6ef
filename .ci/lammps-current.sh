#!/bin/bash
# A current LAMMPS for CI: Debian trixie's source (stable 4Feb2025), built with
# PLUGIN + KSPACE + MOLECULE + RIGID against the system Open MPI. Cached.
#   usage: bash .ci/lammps-current.sh [--trim]   (prints the lmp path last)
# --trim also writes $STREAMCL_CACHE/lammps-4Feb2025-trim.tar.xz (~4 MB: what
# bench/rhodo/gpu-build.sh needs to build it with the GPU package on the GPU
# machine: LAMMPS_TARBALL=.gpu/lammps-4Feb2025-trim.tar.xz).
# Result: $STREAMCL_CACHE/lammps-4Feb2025/bin/lmp, source in
# $STREAMCL_CACHE/lammps-4Feb2025-src. The .orig tarball comes straight from
# the Debian pool (sha256 checked): `apt-get source` would need a trixie
# deb-src line in the system's apt sources, which would also change what
# deps.sh's `apt-get source lammps` picks.
# ~8-10 min on 2 cores (nice'd, JOBS=2 by default).
set -euo pipefail
STREAMCL_CACHE=${STREAMCL_CACHE:-/var/cache/streamcl}
VERSION=20250204+dfsg.1
SHA256=3671165bd52fad36734e0a9136c5bc5ecb225e03988f8c89aa13366a8b53b1c7
URL="http://deb.debian.org/debian/pool/main/l/lammps/lammps_${VERSION}.orig.tar.xz"
SRC="$STREAMCL_CACHE/lammps-4Feb2025-src"
DEST="$STREAMCL_CACHE/lammps-4Feb2025"
if [ ! -f "$SRC/src/version.h" ]; then
  tarball="$STREAMCL_CACHE/lammps_${VERSION}.orig.tar.xz"
  if ! echo "$SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
    echo "== downloading $URL"
    curl -fsSL --retry 3 -o "$tarball.part" "$URL"
    echo "$SHA256  $tarball.part" | sha256sum -c --status ||
      { echo "lammps-current.sh: checksum mismatch for $URL" >&2; exit 1; }
    mv "$tarball.part" "$tarball"
  fi
  tmp=$(mktemp -d "$STREAMCL_CACHE/.lammps-src.XXXXXX")
  # doc/ and the large example and potential sets are not needed to build lmp
  tar xJf "$tarball" -C "$tmp" --exclude='*/doc' --exclude='*/potentials' --exclude='*/examples/*/*/*'
  rm -rf "$SRC"
  mv "$tmp"/* "$SRC"
  rmdir "$tmp"
fi
if [ "${1:-}" = --trim ] && [ ! -f "$STREAMCL_CACHE/lammps-4Feb2025-trim.tar.xz" ]; then
  T=$(mktemp -d); mkdir -p "$T/lammps/src" "$T/lammps/lib" "$T/lammps/bench" "$T/lammps/examples"
  cp -r "$SRC/cmake" "$T/lammps/"
  cp "$SRC"/src/*.cpp "$SRC"/src/*.h "$T/lammps/src/"
  for p in fmt GPU KSPACE MOLECULE RIGID OPENMP OPT PLUGIN; do cp -r "$SRC/src/$p" "$T/lammps/src/"; done
  cp -r "$SRC/lib/gpu" "$T/lammps/lib/"
  cp "$SRC"/bench/in.rhodo "$SRC"/bench/in.rhodo.scaled "$SRC"/bench/data.rhodo "$T/lammps/bench/"
  cp -r "$SRC/examples/plugins" "$SRC/examples/peptide" "$T/lammps/examples/"
  tar cJf "$STREAMCL_CACHE/lammps-4Feb2025-trim.tar.xz" -C "$T" lammps
  rm -rf "$T"
  echo "trimmed: $STREAMCL_CACHE/lammps-4Feb2025-trim.tar.xz" >&2
fi
JOBS=${JOBS:-2} bash "$(dirname "$0")/../lammps_plugin/build-lammps-plugin-host.sh" "$DEST" "$SRC" >&2
echo "$DEST/bin/lmp"
