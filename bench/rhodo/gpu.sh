#!/bin/bash
# rhodo on the bare GPU machine (16 cores, no package registry), from the
# repository root:   bash bench/rhodo/gpu.sh
# 1. builds LAMMPS (GPU package + PLUGIN) and streamcl + lmp_ocl (bench/rhodo/gpu-build.sh;
#    stops with an error when the LAMMPS tarball or the rhodo inputs are missing)
# 2. rhodo 32k (in.rhodo, 100 steps) at RANKS ranks (default "1 4 8 16"): GPU package
#    pair/only on (gpu), GPU package default with pppm/gpu (gpudef), this project (ocl)
# 3. in.rhodo.scaled 2x2x2 (256k atoms): gpu and ocl on SCALED_NP ranks (default 1)
# Tables (Markdown, CSV, PNG) and logs go to $OUT/rhodo/ (OUT defaults to ./out).
# Env: RANKS, KINDS (default "gpu gpudef ocl"), SCALED_NP, WITH_CPU=1 adds CPU runs at 1
# and 16 ranks, RUN_TIMEOUT (default 150 s/run). About 5 minutes.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin rhodo
stamp "builds"
rhodo_build
gpu_info name,driver_version,memory.total "$OUTDIR/gpu.txt"
"$ROOT/build-gpu/streamcl" devices 2>/dev/null | tee "$OUTDIR/devices.txt" || true

export NP=4 RUN_TIMEOUT=${RUN_TIMEOUT:-150} STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu}
RUNS=""
for k in ${KINDS:-gpu gpudef ocl}; do for n in ${RANKS:-1 4 8 16}; do RUNS="$RUNS $k:$n"; done; done
[ "${WITH_CPU:-0}" = 1 ] && RUNS="cpu:1 cpu:16 $RUNS"
stamp "rhodo:$RUNS"
RUNS="$RUNS" bash bench/rhodo/run.sh "$W/rhodo" || { stamp "rhodo runs failed"; exit 1; }
stamp "rhodo.scaled 2x2x2: gpu, ocl on ${SCALED_NP:-1} rank(s)"
SCALE=2 RUNS="gpu:${SCALED_NP:-1} ocl:${SCALED_NP:-1}" bash bench/rhodo/run.sh "$W/rhodo-scaled" ||
  { stamp "rhodo.scaled runs failed"; exit 1; }

for t in rhodo rhodo-scaled; do
  for f in rhodo.md rhodo.csv rhodo.png runs.txt; do
    [ -f "$W/$t/$f" ] && cp "$W/$t/$f" "$OUTDIR/${t}.${f#rhodo.}"
  done
  copy_logs "$W/$t" "$OUTDIR/logs/$t"
done
stamp "done; tables in $OUTDIR"
cat "$OUTDIR/rhodo.md" "$OUTDIR/rhodo-scaled.md" 2>/dev/null | grep -E "^\| (quantity|run|loop s|speedup|Pair s|dev force s|rel E_coul@0|rel PotEng@100)"
