#!/bin/bash
# On the bare GPU machine, from the repository root:  bash bench/shake/gpu.sh
# Builds LAMMPS + lmp_ocl (bench/rhodo/gpu-build.sh), then rhodo 100 steps,
# -sf ocl, fix shake on the host vs fix shake/ocl, 3 interleaved rounds at 1
# and 8 ranks (RANKS). Table in $OUT/shake/table.txt. A few minutes.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin shake
rhodo_build
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu}
bash bench/shake/run.sh 100 3 ${RANKS:-1 8}
