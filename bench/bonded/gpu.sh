#!/bin/bash
# The bonded /ocl styles on the bare GPU machine, from the repository root:
#   bash bench/bonded/gpu.sh
# builds LAMMPS + lmp_ocl (bench/rhodo/gpu-build.sh), then bench/bonded/run.sh:
# rhodo 32k, 100 steps, -sf ocl, bonded terms on the host (LAMMPS's CPU styles,
# STREAMCL_BONDED=0) vs on the device, 3 interleaved rounds at 1 rank and at
# 4 ranks; LAMMPS's Bond row and the loop time of each. Goal (issue 21 step 1):
# 1-rank Bond 0.90 s -> <= 0.05 s per 100 steps. Tables in $OUT/bonded/ (OUT
# defaults to ./out). About 4 minutes after the builds.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin bonded
rhodo_build
gpu_info name,driver_version "$OUTDIR/gpu.txt"
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu} LMP_OCL
for np in ${RANKS:-1 4}; do
  NP=$np STEPS=${STEPS:-100} ROUNDS=${ROUNDS:-3} bash bench/bonded/run.sh "$OUTDIR/np$np" ||
    echo "bonded runs at $np ranks failed"
done
cat "$OUTDIR"/np*/bonded.md
