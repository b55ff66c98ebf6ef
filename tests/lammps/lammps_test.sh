#!/bin/bash
# Driver of the LAMMPS tests of pair_style lj/charmm/coul/long/ocl (ctest runs
# it; see CMakeLists.txt). Modes:
#   reference        Debian's CPU lmp on bench/in.rhodo (100 steps) -> $WORK/rhodo/log.cpu
#   rhodo NP [HOW]   HOW=ocl: lmp_ocl -sf ocl; HOW=plugin: `plugin load` into a LAMMPS
#                    built with PLUGIN (-sf ocl); NP ranks; step 0 E_vdwl/E_coul and
#                    step 100 PotEng/E_coul within $TOL of the CPU log (and, NP > 1,
#                    of the 1-rank ocl log)
#   small            a 216-atom charged LJ box: run 0 / MD / minimize vs the CPU style,
#                    incl. pressure (virial), per-atom energy and virial, force sums
#   errors           bad inputs give a LAMMPS ERROR message and a clean exit, no crash
#   minimize PREC    LAMMPS's fourmol test system minimizes in precision PREC as on the CPU
#   clear [HOW]      the style survives `clear` (HOW: ocl = explicit style, sf = -sf ocl,
#                    plugin = -sf ocl after `plugin load`): three runs (a first one, one
#                    after clear, one after write_restart/clear/read_restart), each on the
#                    device and each equal to the CPU style's energies
#   refuse           `plugin load` of a plugin built for another LAMMPS ($OTHER_PLUGIN_SO)
#                    into $LMP_PLUGIN_HOST stops with an ERROR that names the LAMMPS
#                    to rebuild against (non-zero exit, no crash); skipped (77) without one
# Env: LMP_CPU LMP_OCL LMP_PLUGIN_HOST PLUGIN_SO MPIEXEC LAMMPS_SOURCE_DIR WORK TOL
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MODE=${1:?mode}
: "${WORK:?}" "${LMP_CPU:=lmp}" "${TOL:=1e-5}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

rhodo_dir() {  # fresh dir with in.rhodo (unchanged physics) and data.rhodo linked
  local d="$WORK/rhodo/$1"
  rm -rf "$d"; mkdir -p "$d"
  ln -s "$LAMMPS_SOURCE_DIR/bench/data.rhodo" "$d/data.rhodo"
  cp "$LAMMPS_SOURCE_DIR/bench/in.rhodo" "$d/in.rhodo"
  echo "$d"
}

check_rhodo() {  # LOG LABEL
  local log=$1
  grep -q "^Loop time" "$log" || { fail "$2: run did not finish"; tail -20 "$log"; return; }
  grep -q "Device Time Info" "$log" || fail "$2: no Device Time Info in the log"
  python3 "$HERE/compare_logs.py" "$log" "$WORK/rhodo/log.cpu" "$TOL" \
      0:E_vdwl,E_coul 100:PotEng,E_coul || fail "$2 vs CPU lmp"
}

charged_lattice() {  # CELLS TYPE-SEED DISPLACE-SEED: a charged two-type simple cubic box
  cat <<IN
lattice sc 5.0
region box block 0 $1 0 $1 0 $1
create_box 2 box
create_atoms 1 box
mass * 12.0
set type 1 type/fraction 2 0.5 $2
set type 1 charge 0.4
set type 2 charge -0.4
displace_atoms all random 0.3 0.3 0.3 $3
IN
}

case "$MODE" in
reference)
  d=$(rhodo_dir cpu)
  (cd "$d" && "$LMP_CPU" -in in.rhodo -log log.lammps -screen none) || fail "CPU lmp failed"
  grep -q "^Loop time" "$d/log.lammps" && cp "$d/log.lammps" "$WORK/rhodo/log.cpu" ||
    fail "CPU reference log incomplete"
  ;;
rhodo)
  # rhodo NP [ocl|plugin]: lmp_ocl -sf ocl, or `plugin load` into the PLUGIN LAMMPS
  np=${2:-1}; how=${3:-ocl}
  [ -f "$WORK/rhodo/log.cpu" ] || { echo "FAIL: no CPU reference (run the reference test)"; exit 1; }
  d=$(rhodo_dir "$how$np")
  [ "$np" = 1 ] && rm -f "$WORK/rhodo/log.ocl1"   # never compare with a stale one
  # the multi-rank run is compared with a passing 1-rank run: without one, fail now
  [ "$np" = 1 ] || [ -f "$WORK/rhodo/log.ocl1" ] ||
    { echo "FAIL: no passing 1-rank log to compare the $np-rank run with (run lammps_rhodo_ocl_1rank)"; exit 1; }
  # one OpenCL CPU thread per rank on PoCL so ranks do not fight for the cores
  if [ "$np" -gt 1 ]; then export POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1; fi
  input=in.rhodo; exe=$LMP_OCL
  if [ "$how" = plugin ]; then
    { echo "plugin load $PLUGIN_SO"; cat "$d/in.rhodo"; } > "$d/in.plugin"
    input=in.plugin; exe=$LMP_PLUGIN_HOST
  fi
  (cd "$d" && $MPIEXEC -np "$np" "$exe" -sf ocl -in $input -log log.lammps -screen none) ||
    fail "$how -np $np exited with $?"
  if [ "$how" = plugin ]; then
    grep -q "Loading plugin: CHARMM LJ" "$d/log.lammps" || fail "plugin was not loaded"
  fi
  check_rhodo "$d/log.lammps" "$how $np rank(s)"
  # the 1-rank log is kept for the 2-rank comparison only when it passed
  if [ "$np" = 1 ] && [ $fails -eq 0 ]; then cp "$d/log.lammps" "$WORK/rhodo/log.ocl1"; fi
  if [ "$np" -gt 1 ]; then
    python3 "$HERE/compare_logs.py" "$d/log.lammps" "$WORK/rhodo/log.ocl1" "$TOL" \
        0:E_vdwl,E_coul,PotEng 100:PotEng,E_coul || fail "$how $np ranks vs ocl 1 rank"
  fi
  ;;
small)
  d="$WORK/small"; rm -rf "$d"; mkdir -p "$d"
  for style in cpu ocl; do
    ps="lj/charmm/coul/long"; [ $style = ocl ] && ps="lj/charmm/coul/long/ocl"
    cat > "$d/in.$style" <<IN
units real
atom_style full
$(charged_lattice 6 12345 4321)
pair_style $ps 8.0 10.0
pair_coeff 1 1 0.1 3.0
pair_coeff 2 2 0.2 3.3
pair_modify table 0
kspace_style pppm 1e-6
compute pa all pe/atom pair
compute pasum all reduce sum c_pa
compute sa all stress/atom NULL pair
compute sasum all reduce sum c_sa[1] c_sa[2] c_sa[3] c_sa[4]
compute fsq all reduce sumsq fx fy fz
thermo_style custom step pe evdwl ecoul press pxx pyy pzz pxy c_pasum c_sasum[1] c_sasum[2] c_sasum[3] c_sasum[4] c_fsq[1] c_fsq[2] c_fsq[3]
thermo_modify format float %22.14g norm no
run 0
timestep 0.5
velocity all create 100 99
fix 1 all nve
thermo 10
run 20
unfix 1
minimize 0 0 5 50
IN
    if [ $style = cpu ]; then exe="$LMP_CPU"; else exe="$LMP_OCL"; fi
    (cd "$d" && "$exe" -in in.$style -log log.$style -screen none) || fail "$style run exited with $?"
  done
  # energy scale of this system ~700 kcal/mol: relative to 100 for the small terms
  python3 "$HERE/compare_logs.py" --floor 100 "$d/log.ocl" "$d/log.cpu" "$TOL" \
    0:PotEng,E_vdwl,E_coul,Press,Pxx,Pyy,Pzz,Pxy,c_pasum,c_sasum[1],c_sasum[2],c_sasum[3],c_fsq[1],c_fsq[2],c_fsq[3] \
    20:PotEng,E_vdwl,E_coul,Press || fail "small system vs CPU"
  grep -q "Minimization stats" "$d/log.ocl" || fail "minimize did not finish"
  ;;
clear)
  how=${2:-ocl}
  d="$WORK/clear-$how"; rm -rf "$d"; mkdir -p "$d"
  charged_lattice 4 2468 1357 > "$d/atoms.in"
  cat > "$d/pair.in" <<IN
pair_coeff 1 1 0.1 3.0
pair_coeff 2 2 0.2 3.3
pair_modify table 0
kspace_style pppm 1e-6
thermo_style custom step pe evdwl ecoul press
thermo_modify format float %22.14g norm no
IN
  script() {  # STYLE [PLUGIN_LINE]: run at step 0; clear, run at 100; read_restart, run at 200
    cat <<IN
${2:-}
units real
atom_style full
include atoms.in
pair_style $1 8.0 10.0
include pair.in
run 0
write_restart first.restart
clear
units real
atom_style full
$( [ "$how" = plugin ] || echo "pair_style $1 8.0 10.0" )
include atoms.in
$( [ "$how" = plugin ] && echo "pair_style $1 8.0 10.0" )
include pair.in
reset_timestep 100
run 0
clear
read_restart first.restart
include pair.in
reset_timestep 200
run 0
IN
  }
  # the launcher also gets pair_style before the box after clear (the plugin,
  # unloaded by LAMMPS at clear, is restored by read_data/create_box/read_restart)
  script lj/charmm/coul/long > "$d/in.cpu"
  exe=$LMP_OCL; sf=""
  case "$how" in
  ocl) script lj/charmm/coul/long/ocl > "$d/in.ocl" ;;
  sf) script lj/charmm/coul/long > "$d/in.ocl"; sf="-sf ocl" ;;
  plugin)
    [ -x "${LMP_PLUGIN_HOST:-}" ] || { echo "no PLUGIN LAMMPS (LMP_PLUGIN_HOST)"; exit 77; }
    script lj/charmm/coul/long "plugin load $PLUGIN_SO" > "$d/in.ocl"; exe=$LMP_PLUGIN_HOST; sf="-sf ocl" ;;
  *) echo "clear: HOW is ocl, sf or plugin"; exit 2 ;;
  esac
  (cd "$d" && "$LMP_CPU" -in in.cpu -log log.cpu -screen none) || fail "CPU lmp exited with $?"
  (cd "$d" && "$exe" $sf -in in.ocl -log log.ocl -screen none) || fail "$how run exited with $?"
  runs=$(grep -c "Device Time Info (lj/charmm/coul/long/ocl" "$d/log.ocl")
  [ "$runs" = 3 ] || fail "$how: $runs of 3 runs on the device (the others used the CPU style or failed)"
  python3 "$HERE/compare_logs.py" --floor 100 "$d/log.ocl" "$d/log.cpu" "$TOL" \
    0:PotEng,E_vdwl,E_coul,Press 100:PotEng,E_vdwl,E_coul,Press 200:PotEng,E_vdwl,E_coul,Press ||
    fail "$how: energies after clear vs the CPU style"
  ;;
minimize)
  # LAMMPS's fourmol test system (29 atoms, bonded, charged; its unittest
  # settings): minimize must finish in every precision as the CPU style does;
  # its first step must agree with the CPU style
  prec=${2:-double}
  d="$WORK/minimize-$prec"; rm -rf "$d"; mkdir -p "$d"
  U=$LAMMPS_SOURCE_DIR/unittest/force-styles/tests
  [ -f "$U/in.fourmol" ] || { echo "SKIP: no $U/in.fourmol (a trimmed LAMMPS tree)"; exit 77; }
  for style in cpu ocl; do
    ps="lj/charmm/coul/long 7.0 8.0"
    [ $style = ocl ] && ps="lj/charmm/coul/long/ocl 7.0 8.0 precision $prec"
    cat > "$d/in.$style" <<IN
variable input_dir index $U
include $U/in.fourmol
pair_style $ps
pair_coeff 1 1 0.02 2.5
pair_coeff 2 2 0.005 1.0
pair_coeff 2 4 0.005 0.5
pair_coeff 3 3 0.02 3.2
pair_coeff 4 4 0.015 3.1
pair_coeff 5 5 0.015 3.1
pair_modify mix arithmetic
pair_modify table 0
kspace_style ewald 1.0e-6
kspace_modify gewald 0.3
thermo_style custom step pe evdwl ecoul press
thermo_modify format float %22.14g norm no
minimize 0 0 50 500
IN
    exe="$LMP_CPU"; [ $style = ocl ] && exe="$LMP_OCL"
    (cd "$d" && "$exe" -in in.$style -log log.$style -screen none) ||
      { fail "$style minimize exited with $?"; grep -m1 ERROR "$d/log.$style"; }
    grep -q "Minimization stats" "$d/log.$style" || fail "$style: minimize did not finish"
  done
  python3 "$HERE/compare_logs.py" --floor 100 "$d/log.ocl" "$d/log.cpu" "$TOL" \
    0:PotEng,E_vdwl,E_coul || fail "precision $prec: first step vs the CPU style"
  # the minimizer lowered the energy from 635 to a finite value (the path
  # itself differs from the CPU style's: its erfc is a polynomial fit)
  awk '/Energy initial, next-to-last, final/ { getline; ok = ($3 == $3 + 0) && $3 < $1 - 100 }
       END { exit !ok }' "$d/log.ocl" || fail "precision $prec: energy not lowered to a finite value"
  ;;
errors)
  d="$WORK/errors"; rm -rf "$d"; mkdir -p "$d"
  base() {  # PAIRSTYLE_LINE PAIRCOEFF_LINES KSPACE_LINE EXTRA
    cat <<IN
units real
atom_style ${ATOM_STYLE:-full}
lattice sc 4.5
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
mass * 12.0
${SET_Q-set type 1 charge 0.1}
${4:-}
$1
$2
$3
run 0
IN
  }
  n=0
  expect_error() {  # NAME PATTERN [ENV...]; input in $d/in.NAME
    local name=$1 pattern=$2; shift 2
    n=$((n + 1))
    (cd "$d" && env "$@" timeout 120 "$LMP_OCL" -in in.$name -log none > out.$name 2>&1)
    local rc=$?
    local before=$fails
    if [ $rc -eq 0 ]; then fail "$name: exit 0, expected an ERROR"
    elif [ $rc -ge 124 ]; then fail "$name: crashed, hung or was killed (rc $rc)"
    elif ! grep -q "ERROR" "$d/out.$name"; then fail "$name: no LAMMPS ERROR message (rc $rc)"
    elif ! grep "ERROR" "$d/out.$name" | grep -qi -- "$pattern"; then fail "$name: message does not say '$pattern'"
    elif grep -qiE "segmentation|signal [0-9]|core dumped" "$d/out.$name"; then fail "$name: crash"
    else echo "ok   $name: $(grep -m1 ERROR "$d/out.$name")"; fi
    [ $fails -eq $before ] || sed 's/^/     | /' "$d/out.$name" | tail -8
  }
  P="pair_style lj/charmm/coul/long/ocl 8.0 10.0"
  C="pair_coeff 1 1 0.1 3.0"
  K="kspace_style pppm 1e-4"
  base "$P" "$C" "" > "$d/in.no_kspace"; expect_error no_kspace "requires a KSpace style"
  base "$P" "pair_coeff 1 1 0.1" "$K" > "$d/in.coeff_arity"; expect_error coeff_arity "Illegal pair_coeff\|Incorrect args"
  base "$P bogus 1" "$C" "$K" > "$d/in.unknown_keyword"; expect_error unknown_keyword "Unknown pair_style"
  base "$P precision" "$C" "$K" > "$d/in.keyword_no_value"; expect_error keyword_no_value "needs a value"
  base "$P precision quad" "$C" "$K" > "$d/in.bad_precision"; expect_error bad_precision "precision 'quad'"
  base "$P tpa 3" "$C" "$K" > "$d/in.bad_tpa"; expect_error bad_tpa "tpa '3'"
  base "$P chunks 0" "$C" "$K" > "$d/in.bad_chunks"; expect_error bad_chunks "chunks '0'"
  base "$P tune maybe" "$C" "$K" > "$d/in.bad_tune"; expect_error bad_tune "tune 'maybe'"
  base "pair_style lj/charmm/coul/long/ocl 10.0 8.0" "$C" "$K" > "$d/in.inner_ge_outer"; expect_error inner_ge_outer "inner cutoff"
  base "pair_style lj/charmm/coul/long/ocl" "$C" "$K" > "$d/in.no_cutoffs"; expect_error no_cutoffs "Illegal pair_style"
  base "$P device no-such-device-xyz" "$C" "$K" > "$d/in.no_device"; expect_error no_device "no OpenCL device"
  base "$P" "$C" "$K" > "$d/in.env_precision"; expect_error env_precision "STREAMCL_PRECISION" STREAMCL_PRECISION=quad
  ATOM_STYLE=atomic SET_Q="" base "$P" "$C" "" > "$d/in.no_charge"; expect_error no_charge "requires atom attribute q"
  base "$P" "$C" "$K" "run_style respa 2 2 pair 2" > "$d/in.respa"; expect_error respa "respa"
  SET_Q="set type 1 charge 0.1
variable big equal 1e308*10
variable nan equal v_big-v_big
variable nx atom (id==3)*v_nan+(id!=3)*x
set atom 3 x v_nx" base "$P" "$C" "$K" > "$d/in.nan_coords"; expect_error nan_coords "Non-numeric\|NaN"
  SET_Q="set type 1 charge 0.1
variable big equal 1e308*10
variable nan equal v_big-v_big
variable nq atom (id==3)*v_nan+(id!=3)*q
set atom 3 charge v_nq" base "$P" "$C" "$K
kspace_modify gewald 0.3" > "$d/in.nan_charge"; expect_error nan_charge "NaN\|non-finite\|Non-numeric"
  echo "$n error cases"
  ;;
refuse)
  [ -n "${LMP_PLUGIN_HOST:-}" ] || { echo "no PLUGIN LAMMPS (LMP_PLUGIN_HOST)"; exit 77; }
  [ -f "${OTHER_PLUGIN_SO:-}" ] || { echo "SKIP: no plugin of another LAMMPS (OTHER_PLUGIN_SO)"; exit 77; }
  d="$WORK/refuse"; rm -rf "$d"; mkdir -p "$d"
  printf 'plugin load %s\nunits real\nprint "loaded: not refused"\n' "$OTHER_PLUGIN_SO" > "$d/in.refuse"
  (cd "$d" && timeout 120 $LMP_PLUGIN_HOST -in in.refuse -log log.refuse > out.refuse 2>&1)
  rc=$?
  sed 's/^/     | /' "$d/out.refuse" | grep -v "^     | *$" | tail -6
  if [ $rc -eq 0 ]; then fail "the other LAMMPS's plugin was loaded (exit 0)"
  elif [ $rc -ge 124 ]; then fail "crashed, hung or was killed (rc $rc)"
  elif grep -q "loaded: not refused" "$d/out.refuse"; then fail "the input went on after plugin load"
  elif ! grep "ERROR" "$d/out.refuse" | grep -q "built against LAMMPS .* rebuild the streamcl plugin against this LAMMPS"; then
    fail "no ERROR naming the LAMMPS to rebuild against (rc $rc)"
  else echo "ok   refused with exit $rc: $(grep -m1 ERROR "$d/out.refuse" | cut -c1-160)"; fi
  ;;
*) echo "unknown mode $MODE"; exit 2 ;;
esac
[ $fails -eq 0 ] && echo "PASS $MODE" || echo "FAILED $MODE: $fails"
exit $((fails > 0))
