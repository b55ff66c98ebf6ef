#!/bin/bash
# The OpenMM conversion of rhodo against the LAMMPS at hand (CPU only):
#   bench/openmm/check.sh LMP DATA_RHODO VENV [WORKDIR]
# runs LMP on in.rhodo.energy (step-0 energies per term), installs OpenMM from
# PyPI into VENV once, and compares term by term on OpenMM's Reference platform
# (rhodo_openmm.py --verify: bonded, LJ, Coulomb real space within 1e-6
# relative, PME within 2e-4 of PPPM on the same mesh). Exit 77 (skip) when
# data.rhodo is missing or OpenMM cannot be installed (offline). ~2 minutes.
set -u
lmp=$1 data=$2 venv=$3 work=${4:-$3/work}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$data" ] || { echo "SKIP: no $data"; exit 77; }
if ! "$venv/bin/python" -c "import openmm" 2>/dev/null; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "SKIP: no python3 venv"; exit 77; }
    timeout 600 "$venv/bin/pip" install -q "openmm>=8,<9" >/dev/null 2>&1 ||
        { echo "SKIP: cannot install openmm (offline?)"; exit 77; }
fi
mkdir -p "$work" && cd "$work" || exit 1
"$lmp" -in "$here/in.rhodo.energy" -var data "$data" -log log.energy > lmp.out 2>&1 ||
    { tail -20 lmp.out; echo "FAIL: $lmp on in.rhodo.energy"; exit 1; }
exec "$venv/bin/python" "$here/rhodo_openmm.py" --verify --lammps-log log.energy "$data"
