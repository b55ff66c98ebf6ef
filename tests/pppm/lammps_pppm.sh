#!/bin/bash
# LAMMPS tests of kspace_style pppm/ocl against LAMMPS's CPU pppm with the
# same grid, order and g_ewald (same accuracy on the same system). Modes:
#   box      a random charged box (made once, written as a data file): orders 2-7,
#            mixed and double, device FFTs (odd orders) and host FFTs (even), 2 and 3
#            ranks (ranks device, gather, host);
#            kspace-only forces (pair_modify compute no), E_long, pressure tensor
#   peptide  LAMMPS's examples/peptide: kspace forces (run with kspace minus run
#            with kspace_modify compute no), E_long, pressure (device and host
#            FFTs, 1-3 ranks); then 20 MD steps
#            with shake, 1 rank -sf ocl vs CPU, and 2 ranks vs the same CPU log
#   npt      the peptide MD under fix npt (the box changes every step, and so
#            PPPM's Green's function): 1 rank -sf ocl, mixed and double, vs CPU
#            (energies, volume, the per-atom kspace energies' sum 1e-5), and Device
#            Time Info: pppm/ocl uploads
#            nothing per step (its Green's function is computed on the device)
#   errors   what pppm/ocl refuses gives a LAMMPS ERROR naming it, no crash
# Tolerances (issue 13): per-atom kspace force RMS relative difference <= 1e-5
# (mixed), <= 1e-10 (double); E_long and pressures the same relative bounds
# (pressures relative to the largest component); MD energies 1e-5.
# Env: LMP_CPU LMP_OCL MPIEXEC LAMMPS_SOURCE_DIR WORK
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CMP_LOG="$HERE/../lammps/compare_logs.py"
MODE=${1:?mode}
: "${WORK:?}" "${LMP_CPU:=lmp}" "${MPIEXEC:=mpirun}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
d="$WORK/$MODE"; rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1

lmp_run() {  # EXE NP INPUT TAG [-var ...]: run, fail on non-zero exit or no loop
  local exe=$1 np=$2 input=$3 tag=$4; shift 4
  if [ "$np" -gt 1 ]; then
    POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1 $MPIEXEC -np "$np" "$exe" -in "$input" \
      -log "log.$tag" -screen none -var tag "$tag" "$@"
  else
    "$exe" -in "$input" -log "log.$tag" -screen none -var tag "$tag" "$@"
  fi
  local rc=$?
  [ $rc -eq 0 ] || { fail "$tag: exit $rc"; tail -5 "log.$tag"; return 1; }
  grep -q "^Loop time" "log.$tag" || { fail "$tag: no Loop time"; return 1; }
}

PKEYS=Press,Pxx,Pyy,Pzz,Pxy,Pxz,Pyz  # relative to the largest component (shears can be ~0)

check_static() {  # TAG REF TOL [BASE]: forces + thermo of run 0
  local tag=$1 ref=$2 tol=$3 base=${4:-}
  python3 "$HERE/compare_forces.py" "f.$tag" "f.$ref" "$tol" $base || fail "$tag forces"
  local floor
  floor=$(awk '/^ *Step/{getline; m=0; for(i=4;i<=10;i++){v=$i<0?-$i:$i; if(v>m)m=v}; print m; exit}' "log.$ref")
  python3 "$CMP_LOG" "log.$tag" "log.$ref" "$tol" 0:E_long || fail "$tag E_long"
  python3 "$CMP_LOG" --floor "$floor" "log.$tag" "log.$ref" "$tol" 0:$PKEYS || fail "$tag pressure"
}

case "$MODE" in
box)
  cat > in.make <<'IN'
units real
atom_style full
lattice sc 5.0
region box block 0 6 0 7 0 5
create_box 2 box
create_atoms 1 box
mass * 12.0
set type 1 type/fraction 2 0.5 ${seed}
set type 1 charge 0.4
set type 2 charge -0.35
displace_atoms all random 0.8 0.8 0.8 ${seed}
write_data data.box
IN
  seed=$(( (RANDOM << 8 | RANDOM) % 900000 + 1000 )); echo "seed $seed"
  "$LMP_CPU" -in in.make -var seed $seed -log none -screen none || fail "making the box"
  # both box inputs start so: the random box, kspace only (pair_modify compute no)
  box_head() {
    cat <<'IN'
units real
atom_style full
read_data data.box
pair_style lj/charmm/coul/long 8.0 10.0
pair_coeff 1 1 0.1 3.0
pair_coeff 2 2 0.2 3.3
pair_modify compute no
kspace_style ${ks} 1e-5 ${kw}
IN
  }
  { box_head; cat <<'IN'
kspace_modify order ${order}
thermo_style custom step pe elong press pxx pyy pzz pxy pxz pyz
thermo_modify format float %22.15g
dump d all custom 1 f.${tag} id fx fy fz
dump_modify d sort id format float %.17g
run 0
IN
  } > in.box
  # odd orders: the whole step on the device (VkFFT); even: LAMMPS's host FFTs
  # between the device's assignment and interpolation (fft host)
  for order in 2 3 4 5 6 7; do
    fft=device; [ $((order % 2)) = 0 ] && fft=host
    lmp_run "$LMP_CPU" 1 in.box cpu$order -var ks pppm -var kw "" -var order $order || continue
    lmp_run "$LMP_OCL" 1 in.box mixed$order -var ks pppm/ocl -var kw "precision mixed fft $fft" \
      -var order $order && check_static mixed$order cpu$order 1e-5
    lmp_run "$LMP_OCL" 1 in.box double$order -var ks pppm/ocl -var kw "precision double fft $fft" \
      -var order $order && check_static double$order cpu$order 1e-10
  done
  # a grid below the order (4x4x4 at order 5): LAMMPS's pppm runs it, and
  # pppm/ocl refused it ("every dimension must be between the order and ...")
  sed 's/^kspace_modify order ${order}$/kspace_modify order ${order} mesh 4 4 4/' in.box > in.boxmesh
  lmp_run "$LMP_CPU" 1 in.boxmesh cpu5m4 -var ks pppm -var kw "" -var order 5 &&
    lmp_run "$LMP_OCL" 1 in.boxmesh double5m4 -var ks pppm/ocl -var kw "precision double fft device" \
      -var order 5 && check_static double5m4 cpu5m4 1e-10
  # two ranks (host FFTs, each rank's brick on the device)
  lmp_run "$LMP_OCL" 2 in.box double5r2 -var ks pppm/ocl -var kw "precision double ranks device" \
    -var order 5 && check_static double5r2 cpu5 1e-10
  # ranks gather: 2 and 3 ranks' atoms on rank 0's device (whole step, VkFFT)
  lmp_run "$LMP_OCL" 2 in.box double5g2 -var ks pppm/ocl -var kw "precision double ranks gather" \
    -var order 5 &&
    { grep -q "gathered to rank 0" log.double5g2 || fail "ranks gather did not say so in the log";
      check_static double5g2 cpu5 1e-10; }
  lmp_run "$LMP_OCL" 3 in.box mixed3g3 -var ks pppm/ocl -var kw "precision mixed ranks gather" \
    -var order 3 && check_static mixed3g3 cpu3 1e-5
  # ranks gather with per-atom kspace energy every 5 steps (those steps are LAMMPS's
  # host PPPM, the others rank 0's device) in 20 NVE steps, 3 ranks vs CPU on 2
  { box_head; cat <<'IN'
velocity all create 300 4928
fix 1 all nve
compute pa all pe/atom kspace
compute s all reduce sum c_pa
thermo_style custom step pe elong c_s press
thermo_modify format float %22.15g
thermo 5
run 20
IN
  } > in.peratom
  lmp_run "$LMP_CPU" 2 in.peratom pa_cpu -var ks pppm -var kw "" &&
    lmp_run "$LMP_OCL" 3 in.peratom pa_gather -var ks pppm/ocl -var kw "precision double ranks gather" &&
    { python3 "$CMP_LOG" --floor 100 log.pa_gather log.pa_cpu 1e-10 0:PotEng,c_s,Press \
        10:PotEng,c_s,Press 20:PotEng,c_s,Press || fail "pa_gather vs CPU";
      grep -q "Steps: 16 whole on the device" log.pa_gather ||
        fail "pa_gather: expected 16 device steps (the 5 per-atom steps on the host)"; }
  # two ranks by default: LAMMPS's host PPPM on a CPU device (exact), ranks gather
  # (mixed) on a GPU; the log says which
  lmp_run "$LMP_OCL" 2 in.box auto5r2 -var ks pppm/ocl -var kw "" -var order 5 &&
    if grep -q "LAMMPS's host PPPM computes kspace" log.auto5r2; then
      check_static auto5r2 cpu5 1e-10
    elif grep -q "gathered to rank 0" log.auto5r2; then
      check_static auto5r2 cpu5 1e-5
    else
      fail "2 ranks, ranks auto: the log names neither the host PPPM nor ranks gather"
    fi
  # -sf ocl maps pppm to pppm/ocl
  lmp_run "$LMP_OCL" 1 in.box sf5 -sf ocl -var ks pppm -var kw "" -var order 5 &&
    { grep -q "pppm/ocl" log.sf5 || fail "-sf ocl did not select pppm/ocl"; check_static sf5 cpu5 1e-5; }
  ;;
peptide)
  src="$LAMMPS_SOURCE_DIR/examples/peptide"
  ln -s "$src/data.peptide" data.peptide
  # static: no pair, no bonded terms (zero styles), so the dumped forces are kspace only
  cat > in.static <<'IN'
units real
atom_style full
pair_style lj/charmm/coul/long 8.0 10.0 10.0
bond_style zero nocoeff
angle_style zero nocoeff
dihedral_style zero nocoeff
improper_style zero nocoeff
kspace_style ${ks} 0.0001 ${kw}
read_data data.peptide
pair_modify compute no
thermo_style custom step pe elong press pxx pyy pzz pxy pxz pyz
thermo_modify format float %22.15g
dump d all custom 1 f.${tag} id fx fy fz
dump_modify d sort id format float %.17g
run 0
IN
  lmp_run "$LMP_CPU" 1 in.static cpu -var ks pppm -var kw ""
  lmp_run "$LMP_OCL" 1 in.static mixed -var ks pppm/ocl -var kw "precision mixed" && check_static mixed cpu 1e-5
  lmp_run "$LMP_OCL" 1 in.static double -var ks pppm/ocl -var kw "precision double" && check_static double cpu 1e-10
  # the host-FFT path: LAMMPS's own grid communication (flags, argument order),
  # FFTs and Poisson solve between the device's assignment and interpolation;
  # a layout or API mismatch with the running LAMMPS shows here
  lmp_run "$LMP_OCL" 1 in.static doublehost -var ks pppm/ocl -var kw "precision double fft host" && check_static doublehost cpu 1e-10
  lmp_run "$LMP_OCL" 2 in.static double2 -var ks pppm/ocl -var kw "precision double ranks device" && check_static double2 cpu 1e-10
  lmp_run "$LMP_OCL" 3 in.static double3g -var ks pppm/ocl -var kw "precision double ranks gather" && check_static double3g cpu 1e-10
  # dynamics: the example's force field, shake, 20 steps; forces collected in pre_reverse
  sed -e 's/^run.*/thermo 10\nthermo_style custom step pe ke etotal evdwl ecoul elong press\nthermo_modify format float %22.15g\nrun 20/' \
      -e 's/^thermo_style.*multi//' -e 's/^thermo\t.*//' "$src/in.peptide" > in.md
  lmp_run "$LMP_CPU" 1 in.md md_cpu
  lmp_run "$LMP_OCL" 1 in.md md_ocl1 -sf ocl
  grep -q "Device Time Info (pppm/ocl" log.md_ocl1 || fail "no pppm/ocl Device Time Info"
  lmp_run "$LMP_OCL" 2 in.md md_ocl2 -sf ocl
  # ranks gather in dynamics (shake, forces collected in pre_reverse, energies every 10 steps)
  sed 's/^kspace_style.*/kspace_style pppm\/ocl 0.0001 ranks gather/' in.md > in.md_gather
  grep -q "ranks gather" in.md_gather || fail "in.md_gather: no kspace_style line replaced"
  lmp_run "$LMP_OCL" 2 in.md_gather md_ocl2g -sf ocl
  grep -q "Ranks gather: the atoms of all 2 ranks" log.md_ocl2g || fail "md_ocl2g: no gather Device Time Info"
  for t in md_ocl1 md_ocl2 md_ocl2g; do
    python3 "$CMP_LOG" --floor 1000 log.$t log.md_cpu 1e-5 0:PotEng,E_long,Press 20:PotEng,E_long,KinEng ||
      fail "$t vs CPU"
  done
  ;;
npt)
  src="$LAMMPS_SOURCE_DIR/examples/peptide"
  ln -s "$src/data.peptide" data.peptide
  # in.npt_pa adds the per-atom kspace energies (their sum in thermo): those
  # steps take the host Poisson path, with the host's Green's function of
  # that step's box (deferred while the device computes it)
  sed -e 's/^run.*/compute ek all pe\/atom kspace\ncompute sk all reduce sum c_ek\nthermo 10\nthermo_style custom step pe ke etotal evdwl ecoul elong press vol c_sk\nthermo_modify format float %22.15g\nrun 20/' \
      -e 's/^thermo_style.*multi//' -e 's/^thermo\t.*//' \
      -e '/^fix[[:space:]]*1 all nvt /d' \
      -e 's/^fix[[:space:]]*2 all shake .*/&\nfix 1 all npt temp 275.0 275.0 100.0 iso 1.0 1.0 100.0/' \
      "$src/in.peptide" > in.npt_pa
  grep -q "npt temp" in.npt_pa || fail "in.npt_pa: no fix nvt line replaced"
  sed -e '/^compute [es]k /d' -e 's/ c_sk$//' in.npt_pa > in.npt
  lmp_run "$LMP_CPU" 1 in.npt_pa cpu
  for prec in mixed double; do
    STREAMCL_PRECISION=$prec lmp_run "$LMP_OCL" 1 in.npt $prec -sf ocl || continue
    python3 "$CMP_LOG" --floor 1000 log.$prec log.cpu 1e-5 0:PotEng,E_long,Press 20:PotEng,E_long,KinEng,Volume ||
      fail "$prec under npt vs CPU"
    # the kspace style's uploads per step in the run loop: none
    up=$(grep "by style (up/down per step" log.$prec | tail -1 | sed -E 's/.* kspace ([0-9.]+)\/.*/\1/')
    echo "$prec: pppm/ocl uploads per step: ${up:-none found}"
    [ "$up" = 0.0 ] || fail "$prec: pppm/ocl uploads $up per step under npt (want 0.0)"
  done
  STREAMCL_PRECISION=double lmp_run "$LMP_OCL" 1 in.npt_pa pa -sf ocl &&
    { python3 "$CMP_LOG" --floor 1000 log.pa log.cpu 1e-5 0:E_long,c_sk 20:E_long,c_sk,Volume ||
        fail "per-atom kspace energies under npt vs CPU"; }
  ;;
errors)
  base() {  # EXTRA_BEFORE_KSPACE KSPACE_LINE EXTRA_AFTER
    cat <<IN
units real
atom_style full
${BOX:-region box block 0 16 0 16 0 16}
create_box 1 box
create_atoms 1 random 40 4321 NULL
mass * 12.0
set type 1 charge 0.1
set atom 1*20 charge -0.1
pair_style lj/charmm/coul/long 8.0 10.0
pair_coeff 1 1 0.1 3.0
$1
$2
$3
run 0
IN
  }
  expect_error() {  # NAME PATTERN; input in in.NAME
    local name=$1 pattern=$2
    timeout 120 "$LMP_OCL" -in in.$name -log none > out.$name 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then fail "$name: exit 0, expected an ERROR"
    elif [ $rc -ge 124 ]; then fail "$name: crashed, hung or was killed (rc $rc)"
    elif ! grep "ERROR" out.$name | grep -qi -- "$pattern"; then fail "$name: no ERROR saying '$pattern'"
    else echo "ok   $name: $(grep -m1 ERROR out.$name)"; fi
  }
  K="kspace_style pppm/ocl 1e-4"
  BOX="region box prism 0 16 0 16 0 16 1 0 0" base "" "$K" "" > in.triclinic
  expect_error triclinic "pppm/ocl does not support triclinic"
  base "" "$K" "kspace_modify slab 3.0" | sed 's/^units real/units real\nboundary p p f/' > in.slab
  expect_error slab "does not support kspace_modify slab"
  # bad NAME PATTERN BASE-ARGS...: the input made by base must stop with an ERROR saying PATTERN
  bad() { local name=$1 pattern=$2; shift 2; base "$@" > in.$name; expect_error $name "$pattern"; }
  bad ad "ik differentiation only" "" "$K" "kspace_modify diff ad"
  bad precision "precision 'quad' is invalid" "" "kspace_style pppm/ocl 1e-4 precision quad" ""
  bad keyword "Unknown kspace_style pppm/ocl keyword 'colour'" "" "kspace_style pppm/ocl 1e-4 colour blue" ""
  bad novalue "needs a value" "" "kspace_style pppm/ocl 1e-4 device" ""
  bad fft "fft 'gpu' is invalid" "" "kspace_style pppm/ocl 1e-4 fft gpu" ""
  bad ranks "ranks 'all' is invalid" "" "kspace_style pppm/ocl 1e-4 ranks all" ""
  bad device "no OpenCL device" "" "kspace_style pppm/ocl 1e-4 device no-such-device-xyz" ""
  bad respa "does not support run_style respa" "" "$K" "run_style respa 2 2 pair 1 kspace 2"
  bad groupgroup "group/group" "group a id 1:10" "$K" "compute gg a group/group all kspace yes
thermo_style custom step c_gg"
  ;;
*) echo "unknown mode $MODE"; exit 2 ;;
esac
[ $fails -eq 0 ] && echo "pppm $MODE: all passed" || echo "pppm $MODE: $fails failure(s)"
[ $fails -eq 0 ]
