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
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUTDIR=${OUT:-$ROOT/out}/bonded
W=${GPU_WORK:-$ROOT/build-rhodo-gpu}
mkdir -p "$OUTDIR" "$W"
. bench/rhodo/gpu-build.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$OUTDIR/gpu.txt"
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu} LMP_OCL
for np in ${RANKS:-1 4}; do
  NP=$np STEPS=${STEPS:-100} ROUNDS=${ROUNDS:-3} bash bench/bonded/run.sh "$OUTDIR/np$np" ||
    echo "bonded runs at $np ranks failed"
done
cat "$OUTDIR"/np*/bonded.md
