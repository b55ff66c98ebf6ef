#!/bin/bash
# run_style verlet/ocl (lammps_plugin/verlet_ocl.h) against LAMMPS's Verlet
# loop on the same device styles, one rank:
#   loop_test.sh MODE
# MODE: skip      examples/peptide under npt iso (box changes every step, fix
#                 shake/ocl, all styles /ocl by -sf ocl: verlet/ocl chosen by
#                 the suffix), 40 steps, thermo every 10 (re-neighborings
#                 inside the run): the loop that skips the forward comm of x vs
#                 `run_style verlet/ocl host` (Verlet's loop). Checks: the
#                 log says the ghost x stays on the device and how many steps
#                 skipped the comm (>= 10), at least one re-neighboring, thermo
#                 and final positions bit for bit equal (the device's ghost
#                 rows are the ones forward_comm computes).
#       fallback  the same input plus a fix that is not known to be device-
#                 aware (fix addforce 0 0 0): the log says why the run is
#                 Verlet's loop, no step skipped, and the same thermo as the
#                 host run.
#       rhodo     bench/in.rhodo, 20 steps, thermo every 5: skip vs host, the
#                 same checks as skip (npt z, SHAKE, all /ocl).
#       resident  examples/peptide under fix nve (no shake, 1 fs, skin 1.0,
#                 delay 5 every 1: several re-neighborings), 40 steps, thermo every 10: `run_style verlet/ocl
#                 resident` (fix nve on the device, x and v resident between
#                 re-neighborings) vs `verlet/ocl host`. Checks: the log says
#                 the run was resident, with >= 1 re-neighboring inside it and
#                 the displacement read on the device; thermo and final x, v
#                 within 1e-9 relative (the device integrator's arithmetic is
#                 fix nve's, FP_CONTRACT off, on LAMMPS's f: on PoCL equal bit
#                 for bit, which the log reports).
#       resident_shake  as resident with the input's fix shake (shake/ocl
#                 solving in the pair's rows from the device v), 2 fs
#       rhodo_resident  rhodo as in rhodo with `fix 2 all nve` for its npt
#                 (bench/rhodo/step-gpu.sh's nveres), resident vs host
#       clear     the peptide run twice, `clear` between (the launcher: the
#                 plugin refuses a pair style defined before the box after
#                 clear): -sf ocl makes the default run style verlet/ocl again
#                 after clear, so both runs skip the comm.
# Env: LMP_OCL LAMMPS_SOURCE_DIR WORK
set -uo pipefail
MODE=${1:?mode}
: "${WORK:?}" "${LMP_OCL:?}" "${LAMMPS_SOURCE_DIR:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$MODE" = clear ]; then
  src=$LAMMPS_SOURCE_DIR/examples/peptide
  [ -f "$src/in.peptide" ] || { echo "SKIP: no examples/peptide in this LAMMPS tree"; exit 77; }
  d=$WORK/loop/clear; rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
  ln -s "$src/data.peptide" data.peptide
  { sed 's/^run.*/run 20/' "$src/in.peptide"; echo clear; sed 's/^run.*/run 20/' "$src/in.peptide"; } > in.lmp
  "$LMP_OCL" -sf ocl -in in.lmp -log log.lammps -screen none ||
    { echo "FAIL: the run failed"; grep -A2 ERROR log.lammps | head; exit 1; }
  n=$(grep -c "^run_style verlet/ocl: ghost x stayed on the device between re-neighborings: forward comm of x skipped on [1-9][0-9]* of 20 steps" log.lammps)
  grep "^run_style verlet/ocl" log.lammps
  [ "$n" = 2 ] || { echo "FAIL: want both runs (before and after clear) in verlet/ocl, got $n"; exit 1; }
  exit 0
fi
case "$MODE" in
skip|fallback|resident|resident_shake) src=$LAMMPS_SOURCE_DIR/examples/peptide; in=in.peptide; data=data.peptide
               steps=40; every=10 ;;
rhodo|rhodo_resident) src=$LAMMPS_SOURCE_DIR/bench; in=in.rhodo; data=data.rhodo; steps=20; every=5 ;;
*) echo "unknown mode $MODE"; exit 2 ;;
esac
[ -f "$src/$in" ] && [ -f "$src/$data" ] || { echo "SKIP: $src/$in not in this LAMMPS tree"; exit 77; }
d=$WORK/loop/$MODE
rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
ln -s "$src/$data" "$data"
# thermo every $every with full digits; the peptide under npt iso (after
# fix shake, as fix shake must come first); fallback adds a fix
awk -v mode="$MODE" -v steps="$steps" -v every="$every" '
  /^thermo_style/ { print "thermo_style custom step pe ke etotal temp press vol ebond evdwl ecoul elong"
                    print "thermo_modify format float %.17g"; next }
  /^thermo[ \t]/  { print "thermo " every; next }
  /^fix[ \t]+2[ \t]+all[ \t]+npt.*&[ \t]*$/ && mode == "rhodo_resident" { print "fix 2 all nve"; getline; next }
  /^fix[ \t]+1[ \t]+all[ \t]+nvt/ { if (mode ~ /^resident/) print "fix 1 all nve"; next }
  /^timestep/ && mode == "resident" { print "timestep 1.0"; next }
  /^neighbor[ \t]/ && mode ~ /^resident/ { print "neighbor 1.0 bin"; next }
  /^fix[ \t]+2[ \t]+all[ \t]+shake/ && mode == "resident" { next }
  /^fix[ \t]+2[ \t]+all[ \t]+shake/ && mode == "resident_shake" { print; next }
  /^fix[ \t]+2[ \t]+all[ \t]+shake/ { print
      print "fix 1 all npt temp 275.0 275.0 100.0 iso 1.0 1.0 100.0"
      if (mode == "fallback") print "fix 9 all addforce 0.0 0.0 0.0"; next }
  /^run/ { print "run_style ${loop}"
           print "run " steps
           print "write_dump all custom final.dump id x y z vx vy vz modify sort id format float %.17g"; next }
  { print }' "$src/$in" > in.lmp
grep -q "^run $steps" in.lmp || { echo "FAIL: no run line in $in"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for loop in device host; do
  style="verlet"; [ $loop = host ] && style="verlet/ocl host"
  [ $loop = device ] && [[ "$MODE" == *resident* ]] && style="verlet/ocl resident"
  "$LMP_OCL" -sf ocl -in in.lmp -var loop "$style" -log log.$loop -screen none && mv final.dump final.$loop ||
    { echo "FAIL: the $loop run failed"; grep -B2 -A2 ERROR log.$loop | head; tail -5 log.$loop; exit 1; }
done
grep "^run_style verlet/ocl" log.device log.host
grep -q "^run_style verlet/ocl: LAMMPS's Verlet loop: run_style verlet/ocl host" log.host ||
  fail "the host run does not say it is Verlet's loop"
skipped=$(sed -n "s/^run_style verlet\/ocl: ghost x stayed on the device between re-neighborings: forward comm of x skipped on \([0-9]*\) of $steps steps$/\1/p" log.device)
if [[ "$MODE" == *resident* ]]; then
  line=$(grep "^run_style verlet/ocl resident: x and v stayed on the device" log.device)
  ups=$(echo "$line" | sed -n 's/.* x and v up \([0-9]*\) times, the displacement read \([0-9]*\) times$/\1 \2/p')
  set -- $ups
  [ -n "$line" ] && [ "${1:-0}" -ge 2 ] && [ "${2:-0}" -ge 1 ] ||
    fail "want the run resident with a re-neighboring (x, v up >= 2) and the displacement read: '$line'"
fi
if [ "$MODE" = skip ]; then
  grep -q "^run_style verlet/ocl: x and v on the host: fix 1 (npt): only fix nve" log.device ||
    fail "the npt run does not say why x and v stay on the host"
fi
if [ "$MODE" = fallback ]; then
  grep -q "^run_style verlet/ocl: LAMMPS's Verlet loop: fix 9 (addforce) is not known to read owned atoms only" log.device ||
    fail "the run with fix addforce does not say why it is Verlet's loop"
  [ -z "$skipped" ] || fail "the fallback run skipped the comm on $skipped steps"
else
  [[ "$skipped" =~ ^[0-9]+$ ]] && [ "$skipped" -ge $((steps / 4)) ] ||
    fail "want the comm skipped on >= $((steps / 4)) of $steps steps, got '${skipped}'"
fi
builds=$(sed -n 's/^Neighbor list builds = \([0-9]*\)$/\1/p' log.device)
echo "neighbor list builds in the run: $builds; comm skipped on ${skipped:-0} steps"
want=1; [[ "$MODE" == resident* ]] && want=3
[[ "$builds" =~ ^[0-9]+$ ]] && [ "$builds" -ge $want ] || fail "fewer than $want re-neighborings inside the run"
thermo() { awk '/^ *Step /{on=1; print; next} /^Loop time/{on=0} on && $1 ~ /^[0-9]+$/' "$1"; }
n=$(thermo log.device | wc -l)
# two files' numbers field by field within a relative bound (NaN fails)
near() {
  python3 - "$1" "$2" "$3" <<'PY'
import math, sys
a, b, tol = open(sys.argv[1]).read().split(), open(sys.argv[2]).read().split(), float(sys.argv[3])
if len(a) != len(b): sys.exit("different lengths")
worst = 0.0
for u, v in zip(a, b):
    try: x, y = float(u), float(v)
    except ValueError:
        if u != v: sys.exit("differ: %s %s" % (u, v))
        continue
    r = abs(x - y) / max(abs(x), abs(y), 1e-300) if x != y else 0.0
    if not (r <= tol) or math.isnan(x) or math.isnan(y): sys.exit("differ: %s %s (rel %g)" % (u, v, r))
    worst = max(worst, r)
print("largest relative difference %g (bound %g)" % (worst, tol))
PY
}
if [[ "$MODE" == *resident* ]]; then
  thermo log.device > thermo.device; thermo log.host > thermo.host
  [ "$n" -ge 3 ] && near thermo.device thermo.host 1e-9 || fail "thermo of the two loops differs ($n lines)"
  near final.device final.host 1e-9 || fail "final positions/velocities of the two loops differ"
  cmp -s final.device final.host && cmp -s thermo.device thermo.host && echo "bit for bit: thermo and final x, v"
else
[ "$n" -ge 3 ] && [ "$(thermo log.device)" = "$(thermo log.host)" ] ||
  { fail "thermo of the two loops differs ($n lines)"; diff <(thermo log.device) <(thermo log.host) | head; }
cmp final.device final.host || fail "final positions/velocities of the two loops differ"
fi
# thermo's block unbroken (log parsers read it up to the first other line)
block() { awk '/^ *Step /{on=1; next} on && $1 ~ /^[0-9]+$/ {n++; next} on {exit} END {print n + 0}' "$1"; }
[ "$(block log.device)" = $((steps / every + 1)) ] ||
  fail "thermo's block of the device run has $(block log.device) lines, want $((steps / every + 1))"
exit $fails
