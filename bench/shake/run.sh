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
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEPS=${1:-20}; ROUNDS=${2:-3}; RANKS=${*:3}; RANKS=${RANKS:-1}
LMP_OCL=${LMP_OCL:-$ROOT/build/lammps_plugin/lmp_ocl}
SRC=${LAMMPS_SOURCE_DIR:-/var/cache/streamcl/lammps-src}
OUTDIR=${OUT:-$ROOT/out}/shake
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUTDIR"; cd "$OUTDIR" || exit 1
[ -x "$LMP_OCL" ] || { echo "no lmp_ocl at $LMP_OCL"; exit 1; }
ln -sf "$SRC/bench/data.rhodo" data.rhodo
sed -E "s/^run.*/run $STEPS/" "$SRC/bench/in.rhodo" > in.device
sed -E -e "s/^run.*/run $STEPS/" -e 's/^(fix\s+\S+\s+\S+\s+shake\s.*)$/suffix off\n\1\nsuffix on/' \
    "$SRC/bench/in.rhodo" > in.host
grep -q "^suffix off" in.host || { echo "no fix shake line in in.rhodo"; exit 1; }
row() {  # LOG -> "loop modify"
  awk '/^Loop time/ {l=$4} /^Modify / {m=$3} END {print l, m}' "$1"
}
printf "%-6s %-6s %-6s %10s %10s\n" ranks shake round loop_s modify_s | tee table.txt
for np in $RANKS; do
  for r in $(seq 1 "$ROUNDS"); do
    for how in host device; do
      log=log.$how.np$np.r$r
      if [ "$np" -gt 1 ]; then cmd=("${MPIEXEC:-mpirun}" -np "$np" "$LMP_OCL"); else cmd=("$LMP_OCL"); fi
      "${cmd[@]}" -sf ocl -in in.$how -log "$log" -screen none ||
        { echo "run failed: $log"; tail -5 "$log"; continue; }
      printf "%-6s %-6s %-6s %10s %10s\n" "$np" "$how" "$r" $(row "$log") | tee -a table.txt
    done
  done
done
echo "medians (steps $STEPS):"
awk 'NR > 1 {k=$1" "$2; L[k]=L[k]" "$4; M[k]=M[k]" "$5}
     function med(s,  a, n, i, j, t) { n = split(s, a, " ");
       for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     END { for (k in L) printf "%-14s loop %8.3f  modify %8.3f\n", k, med(L[k]), med(M[k]) }' table.txt | sort
