#!/bin/bash
# fix shake/ocl against LAMMPS's fix shake (ctest runs it; see CMakeLists.txt).
#   shake_test.sh SYSTEM NP HOW
# SYSTEM: peptide (examples/peptide: bond clusters of 2-4 atoms and water
# angle clusters) or rhodo (bench/in.rhodo: SHAKE by mass and angle 232, npt).
# 20 steps, thermo every step, final positions by write_dump, SHAKE stats
# every 10 steps. The reference is the CPU lmp ($LMP_CPU) with NP ranks.
# HOW:
#   explicit  lmp_ocl, the input's `fix ... shake` renamed `shake/ocl`, every
#             other style LAMMPS's CPU one: the constraint solve is all that
#             differs, and it is in double with LAMMPS's operation order, so
#             thermo within 1e-10 (relative; the virial's sum order differs)
#             and positions within 1e-9 A
#   sf        lmp_ocl -sf ocl (pair, pppm and shake on the device, mixed
#             precision; one rank: the solve inside the pair's force rows
#             in every step of the loop, checked): thermo within 1e-5 (the mixed bound of the rhodo
#             tests; Press against the sum of |kinetic|, |pair|, |kspace|, |fix|
#             pressures, of which it is a small difference), positions within 1e-4 A (PoCL at step 20: peptide 1e-6,
#             rhodo 2e-5; the mixed pair forces, not SHAKE: see explicit)
#   plugin    `plugin load` into the PLUGIN LAMMPS ($LMP_PLUGIN_HOST), -sf ocl:
#             as sf (skips, 77, without a plugin host)
#   sf_nobonded  as sf with STREAMCL_BONDED=0 (-sf ocl keeps LAMMPS's CPU
#             bonded styles: the A/B switch of the bonded /ocl styles)
#   sf_defaults  as sf with STREAMCL_BONDED and STREAMCL_SHAKE unset (ctest sets
#             both to 1 for the device path): with several ranks on a CPU device
#             the bonded styles and fix shake/ocl run LAMMPS's host code, which
#             the log must say, and fix shake/ocl holds no context; one rank or a
#             GPU: the device
#   sharex    as sf, and again with STREAMCL_SHARE_X=0 (bonded, pppm/ocl and
#             fix shake/ocl upload x instead of reading the pair's device copy):
#             thermo and final positions bit for bit equal, and Device Time
#             Info's "Shared x" line says who read the copy in each run
#             (STREAMCL_ONE_DOWNLOAD=0 in both: see lammps_bonded_onedownload_*)
#   sf, plugin and sf_nobonded also check Device Time Info: no program built
#             and no kernel object made in the run loop (all at set-up), and ONE streamcl
#             context per rank (and in the process), shared by the pair, pppm/ocl
#             (one rank: several ranks run LAMMPS's host PPPM on PoCL), the
#             bonded styles (not with sf_nobonded) and fix shake/ocl
#   respa     as explicit under run_style respa (both runs): fix shake/ocl takes
#             FixShake's host path and says so in the log; equal as explicit
#   minimize  `minimize` with fix shake/ocl: LAMMPS's error where fix shake refuses
#             it (29Sep2021); 2022+: FixShake's restraints on the host, equal as explicit
# Every run: the constraints hold (SHAKE's spread of each bond type <= 1e-3 A,
# the averages equal the CPU's to 1e-5), and the log says the device solved.
# Env: LMP_CPU LMP_OCL LMP_PLUGIN_HOST PLUGIN_SO MPIEXEC LAMMPS_SOURCE_DIR WORK
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SYSTEM=${1:?system}; NP=${2:?ranks}; HOW=${3:?how}
: "${WORK:?}" "${LMP_CPU:=lmp}" "${LAMMPS_SOURCE_DIR:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# one OpenCL CPU thread per rank on PoCL so ranks do not fight for the cores
if [ "$NP" -gt 1 ]; then export POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1; fi
run() { if [ "$NP" -gt 1 ]; then "${MPIEXEC:-mpirun}" -np "$NP" "$@"; else "$@"; fi; }

case "$SYSTEM" in
peptide) src=$LAMMPS_SOURCE_DIR/examples/peptide; in=in.peptide; data=data.peptide ;;
rhodo) src=$LAMMPS_SOURCE_DIR/bench; in=in.rhodo; data=data.rhodo ;;
*) echo "unknown system $SYSTEM"; exit 2 ;;
esac
[ -f "$src/$in" ] && [ -f "$src/$data" ] || { echo "SKIP: $src/$in not in this LAMMPS tree"; exit 77; }
if [ "$HOW" = plugin ] && [ ! -x "${LMP_PLUGIN_HOST:-}" ]; then
  echo "SKIP: no PLUGIN LAMMPS (configure with -DLAMMPS_PLUGIN_HOST=.../bin/lmp)"; exit 77
fi
d=$WORK/shake/$SYSTEM-$NP-$HOW
rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
ln -s "$src/$data" "$data"
# the input with a 20-step run, thermo every step, SHAKE stats every 10 steps
sed -E -e 's/^thermo_style.*/compute pke all pressure thermo_temp ke\ncompute ppair all pressure NULL pair\ncompute pksp all pressure NULL kspace\ncompute pfix all pressure NULL fix\nthermo_style custom step pe ke etotal temp press ebond eangle evdwl ecoul elong c_pke c_ppair c_pksp c_pfix\nthermo_modify format float %.15g/' \
       -e 's/^thermo\s.*/thermo 1/' \
       -e 's/^(fix\s+\S+\s+\S+\s+shake\s+\S+\s+\S+\s+)\S+/\110/' \
       -e 's/^run.*/run 20\nwrite_dump all custom final.dump id x y z modify sort id format float %.16g/' \
       "$src/$in" > in.cpu
grep -q "^fix.*shake .* 10 " in.cpu || { echo "FAIL: no fix shake line in $in"; exit 1; }

if [ "$HOW" = respa ]; then
  sed -i -E 's/^run .*/run_style respa 2 2 dihedral 2 pair 2 kspace 2\n&/' in.cpu
elif [ "$HOW" = minimize ]; then
  sed -i -E 's/^run .*/minimize 1e-4 1e-6 10 100/' in.cpu
  sed -E 's/^(fix\s+\S+\s+\S+\s+)shake\s/\1shake\/ocl /' in.cpu > in.ocl
  if ! run "$LMP_CPU" -in in.cpu -log log.cpu -screen none; then
    # 29Sep2021: FixShake refuses minimization; shake/ocl must say the same
    grep -q "ERROR.*Fix shake cannot be used with minimization" log.cpu ||
      { echo "FAIL: CPU lmp failed"; tail -20 log.cpu; exit 1; }
    run "$LMP_OCL" -in in.ocl -log log.ocl -screen none && { echo "FAIL: minimize with fix shake/ocl ran"; exit 1; }
    grep -q "ERROR.*Fix shake cannot be used with minimization" log.ocl ||
      { echo "FAIL: no LAMMPS error naming the problem"; tail -5 log.ocl; exit 1; }
    grep "ERROR" log.ocl; exit 0
  fi
  # 2022+: FixShake minimizes with restraint forces (its min_* methods, which
  # shake/ocl inherits): the same numbers as the CPU fix
  mv final.dump final.cpu
  run "$LMP_OCL" -in in.ocl -log log.ocl -screen none && mv final.dump final.ocl ||
    { echo "FAIL: minimize with fix shake/ocl failed"; tail -20 log.ocl; exit 1; }
  grep -q "^fix shake/ocl: minimize: " log.ocl ||
    { echo "FAIL: the log does not note the host restraints under minimize"; exit 1; }
  python3 "$HERE/shake_compare.py" log.ocl log.cpu 1e-10 final.ocl final.cpu 1e-9 inf; exit $?
fi
run "$LMP_CPU" -in in.cpu -log log.cpu -screen none && mv final.dump final.cpu ||
  { echo "FAIL: CPU lmp failed"; tail -20 log.cpu; exit 1; }
case "$HOW" in
explicit|respa)
  sed -E 's/^(fix\s+\S+\s+\S+\s+)shake\s/\1shake\/ocl /' in.cpu > in.ocl
  tol=1e-10; dx=1e-9; cmd=("$LMP_OCL" -in in.ocl) ;;
sf|sharex) tol=1e-5; dx=1e-4; cmd=("$LMP_OCL" -sf ocl -in in.cpu) ;;
sf_defaults)
  unset STREAMCL_BONDED STREAMCL_SHAKE
  tol=1e-5; dx=1e-4; cmd=("$LMP_OCL" -sf ocl -in in.cpu) ;;
sf_nobonded)
  export STREAMCL_BONDED=0
  tol=1e-5; dx=1e-4; cmd=("$LMP_OCL" -sf ocl -in in.cpu) ;;
plugin)
  { echo "plugin load $PLUGIN_SO"; cat in.cpu; } > in.ocl
  tol=1e-5; dx=1e-4; cmd=("$LMP_PLUGIN_HOST" -sf ocl -in in.ocl) ;;
*) echo "unknown HOW $HOW"; exit 2 ;;
esac
# sharex: x alone differs between its two runs; the bonded forces' one
# download needs the shared x (it rounds them with the pair's): off in both
[ "$HOW" = sharex ] && export STREAMCL_ONE_DOWNLOAD=0
run "${cmd[@]}" -log log.ocl -screen none && mv final.dump final.ocl ||
  { echo "FAIL: $HOW run failed"; tail -20 log.ocl; exit 1; }
fails=0
if [ "$HOW" = respa ]; then
  grep -q "^fix shake/ocl: run_style respa: the constraints are solved on the host" log.ocl ||
    { echo "FAIL: the log does not note the host path under respa"; fails=1; }
fi
cpu_device=0
if [ "$HOW" = sf_defaults ]; then
  # the bonded styles say which they chose for the device's type; fix
  # shake/ocl follows the same rule
  grep -q "is a CPU device: LAMMPS's host code computes the bonded terms" log.ocl && cpu_device=1
  [ $cpu_device = 1 ] || grep -q "^bonded /ocl styles: on the device" log.ocl ||
    { echo "FAIL: the bonded styles do not say what they chose"; fails=1; }
  # several ranks on a CPU device take the host code; one rank never
  if [ "$NP" = 1 ] && [ $cpu_device = 1 ]; then echo "FAIL: host code on one rank"; fails=1; fi
  if [ "$NP" != 1 ] && [ $cpu_device = 0 ] && ! grep -q "on the device .*GPU\|NVIDIA\|AMD Radeon\|gfx" log.ocl; then
    grep -qi "pthread\|Portable Computing" log.ocl && { echo "FAIL: $NP ranks on PoCL kept the device"; fails=1; }
  fi
  if [ $cpu_device = 1 ]; then
    grep -q "^fix shake/ocl: a CPU device: the constraints are solved by LAMMPS's fix shake code" log.ocl ||
      { echo "FAIL: fix shake/ocl does not say it chose the host code on a CPU device"; fails=1; }
  fi
fi
[ "$HOW" = respa ] || [ $cpu_device = 1 ] ||
  grep -q "^fix shake/ocl: SHAKE clusters solved on the OpenCL device" log.ocl ||
  { echo "FAIL: the log does not say fix shake/ocl solved on the device"; fails=1; }
python3 "$HERE/shake_compare.py" log.ocl log.cpu $tol final.ocl final.cpu $dx 1e-3 || fails=1
# sf on one rank: every force of the step is in the pair's device rows, so
# the solve runs inside them (STREAMCL_SHAKE_ROWS; its adder is set in
# setup: every step of the loop), on every LAMMPS (2022+: the clusters by
# their owned atoms)
if [ "$HOW" = sf ] && [ "$NP" = 1 ]; then
  rows=$(sed -n "s/^fix shake\/ocl: [0-9]* steps on the device (\([0-9]*\) of them inside the pair's force rows).*/\1/p" log.ocl | tail -1)
  echo "steps solved inside the pair's force rows: ${rows:-none}"
  [ -n "$rows" ] && [ "$rows" -ge 15 ] ||
    { echo "FAIL: want >= 15 of the 20 steps solved inside the pair's force rows"; fails=1; }
fi
if [ "$HOW" = sharex ]; then
  STREAMCL_SHARE_X=0 run "${cmd[@]}" -log log.nox -screen none && mv final.dump final.nox ||
    { echo "FAIL: the STREAMCL_SHARE_X=0 run failed"; tail -20 log.nox; exit 1; }
  thermo() { awk '/^ *Step /{on=1; print; next} /^Loop time/{on=0} on && $1 ~ /^[0-9]+$/' "$1"; }
  [ -n "$(thermo log.ocl)" ] && [ "$(thermo log.ocl)" = "$(thermo log.nox)" ] ||
    { echo "FAIL: thermo with the shared x differs from the uploads'"; diff <(thermo log.ocl) <(thermo log.nox) | head; fails=1; }
  cmp final.ocl final.nox || { echo "FAIL: final positions with the shared x differ"; fails=1; }
  # 20 steps + setup: every evaluation of each style read the copy, or none
  want=" kspace 20/0 bonded 20/0 shake 20/0"; [ "$NP" = 1 ] || want=" bonded 20/0 shake 20/0"
  for log in log.ocl log.nox; do
    line=$(grep "^Shared x:" $log); echo "$log: $line"
    [ "${line#*):}" = "$want" ] || { echo "FAIL: $log: want Shared x:$want"; fails=1; }
    want=$(echo "$want" | sed -E 's| ([a-z]+) ([0-9]+)/0| \1 0/\2|g')
  done
fi
case "$HOW" in
sf|plugin|sf_nobonded|sf_defaults)
  # the styles' shared context (lammps_plugin/streamcl_context.h)
  want="pair"
  [ "$NP" = 1 ] && want="$want, kspace"
  [ "$HOW" = sf_nobonded ] || want="$want, bonded"   # (host code: waits on the context)
  [ $cpu_device = 1 ] || want="$want, shake"   # (sf_nobonded: no bonded user is the switch at work)
  line=$(grep "^streamcl contexts:" log.ocl)
  echo "$line"
  [ "$line" = "streamcl contexts: 1 per rank (max over ranks; 1 in the process), shared by: $want" ] ||
    { echo "FAIL: Device Time Info does not report one streamcl context per rank shared by $want"; fails=1; }
  grep -E "^(Host per step, by style|Transfers per step)" log.ocl ||
    { echo "FAIL: Device Time Info lacks the host time by style or the transfers per step"; fails=1; }
  # every /ocl style builds its kernels at set-up: the timed loop compiles
  # nothing (a GPU compile there is a first-run stall of up to seconds)
  line=$(grep "^Program builds in the run loop:" log.ocl); echo "$line"
  case "$line" in
  "Program builds in the run loop: 0 (0 compiled from source), kernel objects made: 0 "*) ;;
  *) echo "FAIL: want no program build and no kernel object made in the run loop"; fails=1 ;;
  esac
  ;;
esac
grep -E "^(Modify|Loop time)" log.cpu log.ocl
exit $fails
