#!/bin/bash
# Installs everything streamcl needs on Debian 12 (as root), and fetches the
# LAMMPS source that matches Debian's lammps package (headers for the plugin,
# and the rhodopsin inputs). Idempotent; prints where the source is.
#   usage: bash .ci/deps.sh   (source lands in ${STREAMCL_CACHE:-/var/cache/streamcl}/lammps-src)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-c-headers
          pocl-opencl-icd clinfo libpng-dev libhdf5-dev libvkfft-dev lammps liblammps-dev openmpi-bin libopenmpi-dev
          python3 python3-matplotlib valgrind dpkg-dev xz-utils
          clang libclang-rt-dev)  # libFuzzer (tests/fuzz)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# LAMMPS source of the installed version (Debian's -dev headers are incomplete).
STREAMCL_CACHE=${STREAMCL_CACHE:-/var/cache/streamcl}
LAMMPS_SOURCE_DIR=${LAMMPS_SOURCE_DIR:-$STREAMCL_CACHE/lammps-src}
if [ ! -f "$LAMMPS_SOURCE_DIR/src/lammps.h" ]; then
  echo "== fetching the LAMMPS source matching Debian's lammps package"
  if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      > /etc/apt/sources.list.d/streamcl-src.sources
    apt-get update -qq
  fi
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source --download-only -qq lammps >/dev/null)
  mkdir -p "$tmp/x"
  tar xJf "$tmp"/lammps_*.orig.tar.xz -C "$tmp/x"
  mkdir -p "$(dirname "$LAMMPS_SOURCE_DIR")"
  rm -rf "$LAMMPS_SOURCE_DIR"
  mv "$tmp"/x/* "$LAMMPS_SOURCE_DIR"
  rm -rf "$tmp"
fi
export LAMMPS_SOURCE_DIR STREAMCL_CACHE
echo "== LAMMPS source: $LAMMPS_SOURCE_DIR"
