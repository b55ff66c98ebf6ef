#!/bin/bash
# fix shake on the host vs fix shake/ocl, both inside `lmp_ocl -sf ocl` on
# bench/in.rhodo (pair, pppm on the device either way; the "host" input wraps
# its fix shake line in `suffix off` / `suffix on`, so -sf ocl leaves it
# LAMMPS's CPU fix shake). Interleaved rounds; prints per run the loop time
# and LAMMPS's Modify row (fix shake + fix npt), then medians:
#   bash bench/shake/run.sh [STEPS] [ROUNDS] [RANKS...]      (default 20 3 1)
# Env: LMP_OCL (default build/lammps_plugin/lmp_ocl), LAMMPS_SOURCE_DIR
# (default /var/cache/streamcl/lammps-src), MPIEXEC (mpirun), OUT (results
# folder, default ./out/shake), STREAMCL_DEVICE etc. pass through.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEPS=${1:-20}; ROUNDS=${2:-3}; RANKS=${*:3}; RANKS=${RANKS:-1}
LMP_OCL=${LMP_OCL:-$ROOT/build/lammps_plugin/lmp_ocl}
OUTDIR=${OUT:-$ROOT/out}/shake
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUTDIR"; cd "$OUTDIR" || exit 1
[ -x "$LMP_OCL" ] || { echo "no lmp_ocl at $LMP_OCL"; exit 1; }
rhodo_inputs "${LAMMPS_SOURCE_DIR:-/var/cache/streamcl/lammps-src}" "$STEPS" || exit 1
fmt="%-6s %-6s %-6s %10s %10s\n"
# shellcheck disable=SC2059
printf "$fmt" ranks shake round loop_s modify_s | tee table.txt
for np in $RANKS; do
  for r in $(seq 1 "$ROUNDS"); do
    for how in host device; do
      log=log.$how.np$np.r$r
      ranked "$np" "$LMP_OCL"
      "${CMD[@]}" -sf ocl -in in.$how -log "$log" -screen none ||
        { echo "run failed: $log"; tail -5 "$log"; continue; }
      # shellcheck disable=SC2046,SC2059
      printf "$fmt" "$np" "$how" "$r" $(log_rows "$log" Modify) | tee -a table.txt
    done
  done
done
echo "medians (steps $STEPS, seconds):"
medians table.txt 2 4 5 | sed '1i ranks shake  loop  modify'
