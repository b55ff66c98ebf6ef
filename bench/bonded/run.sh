#!/bin/bash
# The bonded /ocl styles on rhodo (LAMMPS bench/in.rhodo, 32k atoms): the same
# -sf ocl run with the bonded terms on the host (STREAMCL_BONDED=0: LAMMPS's
# CPU styles) and on the device (the /ocl styles), interleaved ROUNDS times;
# LAMMPS's timing breakdown (Bond = bond + angle + dihedral + improper) and the
# loop time of each, medians, and the step-0 / last-step energies of the two
# compared.
#
#   bench/bonded/run.sh [OUTDIR]     (default out/bonded)
# Env: LMP_OCL (default build*/lammps_plugin/lmp_ocl), LAMMPS_SOURCE_DIR (with
#   bench/in.rhodo, data.rhodo; default /var/cache/streamcl/lammps-src),
#   STEPS (default 100), NP (ranks, default 1), ROUNDS (default 3),
#   MPIEXEC (default mpirun); STREAMCL_DEVICE / STREAMCL_PRECISION pass through.
# Output: OUTDIR/bonded.md (table), OUTDIR/<run>/log.lammps
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/out/bonded}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ -z "${LMP_OCL:-}" ]; then
  for b in "$ROOT"/build-gpu "$ROOT"/build "$ROOT"/build*; do
    [ -x "$b/lammps_plugin/lmp_ocl" ] && { LMP_OCL=$b/lammps_plugin/lmp_ocl; break; }
  done
fi
[ -x "${LMP_OCL:-}" ] || { echo "run.sh: no lmp_ocl (set LMP_OCL)" >&2; exit 1; }
SRC=${LAMMPS_SOURCE_DIR:-/var/cache/streamcl/lammps-src}
for f in in.rhodo data.rhodo; do
  [ -f "$SRC/bench/$f" ] || { echo "run.sh: no bench/$f in $SRC" >&2; exit 1; }
done
STEPS=${STEPS:-100}; NP=${NP:-1}; ROUNDS=${ROUNDS:-3}; MPIEXEC=${MPIEXEC:-mpirun}
for round in $(seq 1 "$ROUNDS"); do
  for mode in host device; do
    d="$OUT/$mode-$round"; rm -rf "$d"; mkdir -p "$d"
    ln -s "$SRC/bench/data.rhodo" "$d/data.rhodo"
    sed "s/^run.*/run $STEPS/" "$SRC/bench/in.rhodo" > "$d/in.rhodo"
    flag=1; [ $mode = host ] && flag=0
    cmd=("$LMP_OCL" -sf ocl -in in.rhodo -log log.lammps -screen screen.txt)
    [ "$NP" -gt 1 ] && cmd=("$MPIEXEC" -np "$NP" "${cmd[@]}")
    (cd "$d" && STREAMCL_BONDED=$flag "${cmd[@]}") || { echo "run $mode-$round failed" >&2; exit 1; }
    echo "$mode-$round: $(grep '^Loop time' "$d/log.lammps")" >&2
  done
done
python3 - "$OUT" "$ROUNDS" "$STEPS" "$NP" <<'PY'
import re, statistics, sys
out, rounds, steps, np = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def parse(path):
    t = open(path).read()
    loop = float(re.search(r"^Loop time of (\S+)", t, re.M).group(1))
    rows = dict((m.group(1), float(m.group(2).split("|")[1])) for m in
                re.finditer(r"^(Pair|Bond|Kspace|Neigh|Comm|Output|Modify|Other)\s*\|(.*)$", t, re.M))
    pe = [float(v) for v in re.findall(r"PotEng\s*=\s*(\S+)", t)]
    eb = [float(v) for v in re.findall(r"E_bond\s*=\s*(\S+)", t)]
    ed = [float(v) for v in re.findall(r"E_dihed\s*=\s*(\S+)", t)]
    return loop, rows, pe, eb, ed
res = {m: [parse(f"{out}/{m}-{r}/log.lammps") for r in range(1, rounds + 1)] for m in ("host", "device")}
lines = [f"rhodo 32k, {steps} steps, {np} rank(s), -sf ocl; medians of {rounds} interleaved rounds (s)", "",
         "| bonded terms | loop | Bond | Pair | Kspace | Modify | Neigh | Comm |", "|---|---|---|---|---|---|---|---|"]
for m in ("host", "device"):
    med = lambda k: statistics.median(r[1].get(k, float("nan")) for r in res[m])
    lines.append(f"| {m} | {statistics.median(r[0] for r in res[m]):.3f} | " +
                 " | ".join(f"{med(k):.3f}" for k in ("Bond", "Pair", "Kspace", "Modify", "Neigh", "Comm")) + " |")
h, d = res["host"][0], res["device"][0]
for name, i in (("PotEng", 2), ("E_bond", 3), ("E_dihed", 4)):
    for k in (0, -1):
        a, b = h[i][k], d[i][k]
        lines.append(f"{name} thermo #{k % len(h[i])}: host {a!r} device {b!r} relative {abs(a - b) / max(abs(a), 1e-300):.2e}")
open(f"{out}/bonded.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
