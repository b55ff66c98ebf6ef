#!/bin/bash
# Issue 21 on the bare GPU machine, from the repository root:
#   bash bench/rhodo/step-gpu.sh            (OUT: results folder, default ./out)
# Builds LAMMPS (GPU package + PLUGIN) and lmp_ocl (bench/rhodo/gpu-build.sh),
# then rhodo 32k, 100 steps, ROUNDS interleaved rounds at each of RANKS:
#   old     -sf ocl with the bonded terms and fix shake on the host (the path
#           before the device bonded styles: STREAMCL_BONDED=0, shake suffix off)
#   bonded  -sf ocl, bonded styles on the device, fix shake on the host
#   all     -sf ocl, bonded styles and fix shake/ocl on the device
#   allnox  as all, but the bonded styles upload x themselves instead of reading
#           the pair's device copy (STREAMCL_SHARE_X=0; not in the default MODES)
#   gpudef  LAMMPS's GPU package, default (-sf gpu -pk gpu 1: pair + pppm/gpu)
# Prints loop and LAMMPS's Pair/Bond/Kspace/Modify/Neigh/Comm rows, medians;
# devinfo.txt: each ocl run's streamcl contexts per rank, host ms per step by
# style and transfers per step (Device Time Info).
# Env: RANKS (default "1 8"), ROUNDS (default 3), MODES, STEPS (default 100).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUTDIR=${OUT:-$ROOT/out}/step
W=${GPU_WORK:-$ROOT/build-rhodo-gpu}
mkdir -p "$OUTDIR" "$W"
if [ -z "${LMP_OCL:-}" ] || [ ! -x "${LMP_OCL:-}" ]; then . bench/rhodo/gpu-build.sh; fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$OUTDIR/gpu.txt"
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu} OMPI_MCA_rmaps_base_oversubscribe=1
SRC=${LAMMPS_SOURCE_DIR:-$W/lammps}
STEPS=${STEPS:-100}
cd "$OUTDIR" || exit 1
ln -sf "$SRC/bench/data.rhodo" data.rhodo
sed -E "s/^run.*/run $STEPS/" "$SRC/bench/in.rhodo" > in.device
sed -E -e "s/^run.*/run $STEPS/" -e 's/^(fix\s+\S+\s+\S+\s+shake\s.*)$/suffix off\n\1\nsuffix on/' \
    "$SRC/bench/in.rhodo" > in.hostshake
rows() { awk '/^Loop time/ {l=$4} /^(Pair|Bond|Kspace|Modify|Neigh|Comm) / {v[$1]=$3}
  END {printf "%s %s %s %s %s %s %s", l, v["Pair"], v["Bond"], v["Kspace"], v["Modify"], v["Neigh"], v["Comm"]}' "$1"; }
printf "%-6s %-7s %-5s %8s %7s %7s %7s %7s %7s %7s\n" ranks mode round loop Pair Bond Kspace Modify Neigh Comm | tee table.txt
for np in ${RANKS:-1 8}; do
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for mode in ${MODES:-old bonded all gpudef}; do
      log=log.$mode.np$np.r$r
      case $mode in
        old)    env=(STREAMCL_BONDED=0); args=(-sf ocl -in in.hostshake); bin=$LMP_OCL ;;
        bonded) env=(STREAMCL_BONDED=1); args=(-sf ocl -in in.hostshake); bin=$LMP_OCL ;;
        all)    env=(STREAMCL_BONDED=1); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        allnox) env=(STREAMCL_BONDED=1 STREAMCL_SHARE_X=0); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        gpudef) env=(); args=(-sf gpu -pk gpu 1 -in in.device); bin=$LMP ;;
      esac
      cmd=("$bin"); [ "$np" -gt 1 ] && cmd=(mpirun -np "$np" "$bin")
      env "${env[@]}" timeout 300 "${cmd[@]}" "${args[@]}" -log "$log" -screen none ||
        { echo "run failed: $log"; tail -5 "$log"; continue; }
      printf "%-6s %-7s %-5s %8s %7s %7s %7s %7s %7s %7s\n" "$np" "$mode" "$r" $(rows "$log") | tee -a table.txt
      [ "$mode" = gpudef ] || { echo "== $log"; grep -E "^(streamcl contexts|Host per step, by style|Transfers per step|Shared x)" "$log"; } >> devinfo.txt
    done
  done
done
echo "medians (rhodo $STEPS steps, seconds):"
awk 'NR > 1 {k=sprintf("%-3s %-7s", $1, $2); for (c = 4; c <= 10; c++) V[k, c] = V[k, c] " " $c; K[k] = 1}
     function med(s,  a, n, i, j, t) { n = split(s, a, " ");
       for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     END { for (k in K) { printf "%s", k; for (c = 4; c <= 10; c++) printf " %7.3f", med(V[k, c]); print "" } }' table.txt | sort -n | sed '1i np  mode       loop    Pair    Bond  Kspace  Modify   Neigh    Comm' | tee medians.txt
