#!/bin/bash
# The bonded /ocl styles (bond harmonic, angle charmm, dihedral charmm with its
# 1-4 pairs, improper harmonic) against LAMMPS's own CPU styles in the same
# LAMMPS, on the solvated peptide of LAMMPS's examples/peptide (2004 atoms,
# 1365 bonds, 786 angles, 207 dihedrals incl. multi-term, 12 impropers).
# ctest runs it (CMakeLists.txt). Modes:
#   styles NP NEWTON_BOND PREC [partial]
#                                explicit style names (partial: only bond and
#                                dihedral /ocl, angle and improper LAMMPS's), NP ranks, newton_bond
#                                on|off, STREAMCL_PRECISION mixed|double: thermo
#                                (bonded energies, pair energies with the 1-4
#                                pairs, per-kind virial pressures) and dumps
#                                (forces, per-atom energies and stresses) at
#                                step 0 within 1e-6 (mixed) / 1e-10 (double),
#                                and over 10 MD steps (re-neighboring included)
#   suffix [HOW]                 -sf ocl maps the four styles (write_data names
#                                them) with equal bonded energies; HOW=plugin:
#                                `plugin load` into the PLUGIN LAMMPS
#                                HOW=auto: STREAMCL_BONDED unset (the default:
#                                one rank stays on the device, which the log
#                                must say; several ranks on a CPU device: see
#                                shake_test.sh sf_defaults)
#   restart                      the /ocl styles come back from write_restart /
#                                clear / read_restart with equal energies
#   errors                       a hybrid sub-style is refused with a message
#   onedownload NP NEWTON_BOND PREC
#                                the /ocl pair, bonded styles and pppm/ocl with the
#                                bonded and kspace forces summed into the pair's device
#                                forces (one download) against each downloading its own
#                                (STREAMCL_ONE_DOWNLOAD=0): the same forces, energies
#                                and per-atom tallies (at step 0, after a run 0: mixed
#                                1e-6, the bonded sum no longer rounded to float alone;
#                                double 1e-12), fewer downloads per step in Device
#                                Time Info, and no program built in either run's loop
# Env: LMP_OCL LMP_PLUGIN_HOST PLUGIN_SO MPIEXEC LAMMPS_SOURCE_DIR WORK
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MODE=${1:?mode}
: "${WORK:?}" "${LMP_OCL:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
data="$LAMMPS_SOURCE_DIR/examples/peptide/data.peptide"
[ -f "$data" ] || { echo "SKIP: $data missing (a trimmed LAMMPS tree)"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# -var sb/sa/sd/si: the suffix ("" or /ocl) of the bond, angle, dihedral and improper style
sv() { SV=(-var sb "$1" -var sa "$2" -var sd "$3" -var si "$4"); }

# the peptide with the CHARMM styles (suffixes ${sb} ${sa} ${sd} ${si}: "" or /ocl), per-kind
# per-atom energies and stresses dumped, 10 NVE steps (1 fs)
peptide_input() {
  cat <<'IN'
units real
atom_style full
newton on ${nb}
pair_style lj/charmm/coul/long 8.0 10.0 10.0
bond_style harmonic${sb}
angle_style charmm${sa}
dihedral_style charmm${sd}
improper_style harmonic${si}
kspace_style pppm 0.0001
read_data data.peptide
neighbor 2.0 bin
neigh_modify every 1 delay 0 check yes
compute eb all pe/atom bond
compute ea all pe/atom angle
compute ed all pe/atom dihedral
compute ei all pe/atom improper
compute ep all pe/atom pair
compute sb all stress/atom NULL bond
compute sa all stress/atom NULL angle
compute sd all stress/atom NULL dihedral
compute si all stress/atom NULL improper
compute sp all stress/atom NULL pair
compute pb all pressure NULL bond
compute pa all pressure NULL angle
compute pd all pressure NULL dihedral
compute pi all pressure NULL improper
compute pp all pressure NULL pair
thermo_style custom step ebond eangle edihed eimp evdwl ecoul c_pb[1] c_pb[2] c_pb[3] c_pb[4] c_pb[5] c_pb[6] c_pa[1] c_pa[4] c_pa[6] c_pd[1] c_pd[2] c_pd[3] c_pd[4] c_pd[5] c_pd[6] c_pi[1] c_pi[5] c_pp[1] c_pp[6]
thermo_modify format float %.15g
thermo 5
dump 1 all custom 10 dump.${tag} id fx fy fz c_eb c_ea c_ed c_ei c_ep c_sb[1] c_sb[4] c_sa[2] c_sa[5] c_sd[3] c_sd[6] c_si[1] c_si[4] c_sp[1] c_sp[5]
dump_modify 1 sort id format float %.15g
fix 1 all nve
timestep 1.0
run 10
IN
}

case "$MODE" in
styles)
  np=${2:?np}; nb=${3:?newton_bond}; prec=${4:?precision}
  d="$WORK/bonded/styles_${np}_${nb}_${prec}${5:+_partial}"
  partial=${5:-}   # only the bond and dihedral styles on the device
  rm -rf "$d"; mkdir -p "$d"; ln -s "$data" "$d/data.peptide"
  peptide_input > "$d/in.peptide"
  [ "$np" -gt 1 ] && export POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  export STREAMCL_PRECISION=$prec
  for how in cpu ocl; do
    s=""; [ $how = ocl ] && s=/ocl
    sv "$s" "$s" "$s" "$s"; [ $how = ocl ] && [ -n "$partial" ] && sv /ocl "" /ocl ""
    (cd "$d" && $MPIEXEC -np "$np" "$LMP_OCL" -in in.peptide "${SV[@]}" -var nb "$nb" \
        -var tag $how -log log.$how -screen none) || fail "$how run ($np ranks, newton_bond $nb)"
    grep -q "^Loop time" "$d/log.$how" || { fail "$how run did not finish"; tail -5 "$d/log.$how"; }
  done
  if [ "$prec" = double ]; then tol0=1e-10; toln=1e-8; else tol0=1e-6; toln=1e-4; fi
  python3 "$HERE/bonded_compare.py" "$d/log.ocl" "$d/log.cpu" "$d/dump.ocl" "$d/dump.cpu" \
      $tol0 $toln || fail "ocl vs cpu styles ($np ranks, newton_bond $nb, $prec)"
  ;;
suffix)
  how=${2:-ocl}
  d="$WORK/bonded/suffix_$how"
  rm -rf "$d"; mkdir -p "$d"; ln -s "$data" "$d/data.peptide"
  { peptide_input | sed -e 's/^run 10/run 0/' -e 's/^dump.*//' ; echo "write_data out.data"; } > "$d/in.peptide"
  exe=$LMP_OCL; input=in.peptide
  tol=1e-6
  [ "$how" = auto ] && unset STREAMCL_BONDED
  if [ "$how" = plugin ]; then
    [ -x "${LMP_PLUGIN_HOST:-}" ] || { echo "SKIP: no PLUGIN LAMMPS (LMP_PLUGIN_HOST)"; exit 77; }
    { echo "plugin load $PLUGIN_SO"; cat "$d/in.peptide"; } > "$d/in.plugin"
    exe=$LMP_PLUGIN_HOST; input=in.plugin
  fi
  sv "" "" "" ""
  (cd "$d" && "$LMP_OCL" -in in.peptide "${SV[@]}" -var nb on -var tag cpu -log log.cpu -screen none) ||
    fail "CPU run"
  cp "$d/out.data" "$d/out.cpu.data" 2>/dev/null
  (cd "$d" && "$exe" -sf ocl -in $input "${SV[@]}" -var nb on -var tag sf -log log.sf -screen none) ||
    fail "-sf ocl run"
  for style in "Bond Coeffs # harmonic/ocl" "Angle Coeffs # charmm/ocl" \
               "Dihedral Coeffs # charmm/ocl" "Improper Coeffs # harmonic/ocl"; do
    grep -q "$style" "$d/out.data" || fail "-sf ocl did not map: no '$style' in write_data"
  done
  if [ "$how" = auto ]; then
    # the styles say which they chose for the device's type, once
    # (one rank: the device, CPU or not; host code needs several ranks on a CPU)
    cpu=$(grep -c "is a CPU device: LAMMPS's host code computes the bonded terms" "$d/log.sf")
    dev=$(grep -c "bonded /ocl styles: on the device" "$d/log.sf")
    [ "$cpu" = 0 ] && [ "$dev" = 1 ] || fail "auto, one rank: $cpu 'host code' and $dev 'on the device' lines (want 0 and 1)"
  fi
  python3 "$HERE/bonded_compare.py" "$d/log.sf" "$d/log.cpu" - - $tol $tol \
      E_bond,E_angle,E_dihed,E_impro || fail "-sf ocl bonded energies vs CPU"
  ;;
restart)
  # the /ocl styles come back from a restart file (after `clear`) and give the same energies
  d="$WORK/bonded/restart"
  rm -rf "$d"; mkdir -p "$d"; ln -s "$data" "$d/data.peptide"
  { peptide_input | sed -e 's/^run 10/run 0/' -e 's/^dump.*//' -e 's/^thermo_style.*/thermo_style custom step ebond eangle edihed eimp evdwl ecoul press/'
    cat <<'IN'
write_restart peptide.restart
clear
read_restart peptide.restart
kspace_style pppm 0.0001
thermo_style custom step ebond eangle edihed eimp evdwl ecoul press
thermo_modify format float %.15g
run 0
write_data out.data
IN
  } > "$d/in.peptide"
  sv /ocl /ocl /ocl /ocl
  (cd "$d" && "$LMP_OCL" -in in.peptide "${SV[@]}" -var nb on -var tag r -log log.r -screen none) ||
    fail "run with write_restart / clear / read_restart"
  for style in "Bond Coeffs # harmonic/ocl" "Angle Coeffs # charmm/ocl" \
               "Dihedral Coeffs # charmm/ocl" "Improper Coeffs # harmonic/ocl"; do
    grep -q "$style" "$d/out.data" || fail "after read_restart: no '$style' in write_data"
  done
  python3 - "$d/log.r" <<'PY' || fail "energies after read_restart differ"
import sys
rows, head = [], None
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "Step":
        head = w
    elif head and len(w) == len(head) and w[0] == "0":
        rows.append([float(v) for v in w[1:]])
        head = None
if len(rows) != 2:
    sys.exit(f"FAIL: {len(rows)} step-0 rows (want 2)")
bad = [(h, a, b) for h, a, b in zip(["ebond", "eangle", "edihed", "eimp", "evdwl", "ecoul", "press"], *rows)
       if not abs(a - b) <= 1e-10 * max(abs(b), 1e-300)]
print("\n".join(f"FAIL {h}: {a!r} vs {b!r}" for h, a, b in bad) or "restart energies equal")
sys.exit(1 if bad else 0)
PY
  ;;
errors)
  d="$WORK/bonded/errors"
  rm -rf "$d"; mkdir -p "$d"; ln -s "$data" "$d/data.peptide"
  # switched after read_data (the data file's coefficients have no sub-style names);
  # both sub-styles used (LAMMPS 2022+ refuses an unused one before we could)
  peptide_input | sed -e 's|^read_data.*|&\nbond_style hybrid harmonic/ocl harmonic\nbond_coeff * harmonic/ocl 100 1.5\nbond_coeff 1 harmonic 100 1.5|' \
      -e 's/^run 10/run 0/' -e 's/^dump.*//' > "$d/in.peptide"
  sv "" "" "" ""
  (cd "$d" && "$LMP_OCL" -in in.peptide "${SV[@]}" -var nb on -var tag e -log log.e -screen none)
  grep -q "ERROR.*cannot be a hybrid sub-style" "$d/log.e" ||
    { fail "hybrid sub-style not refused with a message"; tail -5 "$d/log.e"; }
  ;;
onedownload)
  np=${2:?np}; nb=${3:?newton_bond}; prec=${4:?precision}
  d="$WORK/bonded/onedownload_${np}_${nb}_${prec}"
  rm -rf "$d"; mkdir -p "$d"; ln -s "$data" "$d/data.peptide"
  # a run 0 first: the pair's force hook is set by the first evaluation and
  # used from the second, so the dump's step 0 compares the two paths at the
  # same positions
  peptide_input | sed -e 's|^pair_style lj/charmm/coul/long |pair_style lj/charmm/coul/long/ocl |' \
      -e 's|^kspace_style pppm |kspace_style pppm/ocl |' \
      -e 's|^dump 1 |run 0\n&|' > "$d/in.peptide"
  [ "$np" -gt 1 ] && export POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
  export STREAMCL_PRECISION=$prec
  sv /ocl /ocl /ocl /ocl
  for one in 1 0; do
    (cd "$d" && STREAMCL_ONE_DOWNLOAD=$one $MPIEXEC -np "$np" "$LMP_OCL" -in in.peptide "${SV[@]}" \
        -var nb "$nb" -var tag $one -log log.$one -screen none) || fail "STREAMCL_ONE_DOWNLOAD=$one run"
    grep -q "^Loop time" "$d/log.$one" || { fail "run $one did not finish"; tail -5 "$d/log.$one"; }
  done
  if [ "$prec" = double ]; then tol0=1e-12; toln=1e-10; else tol0=1e-6; toln=1e-4; fi
  python3 "$HERE/bonded_compare.py" "$d/log.1" "$d/log.0" "$d/dump.1" "$d/dump.0" $tol0 $toln ||
    fail "one download vs separate downloads ($np ranks, newton_bond $nb, $prec)"
  # set-up's step has per-atom tallies (the dump at step 0): pppm/ocl's is
  # the host path, and still every device kernel is built at set-up
  for one in 1 0; do
    n=$(grep -c "^Program builds in the run loop: 0 (0 compiled from source), kernel objects made: 0 " "$d/log.$one")
    [ "$n" = 2 ] || fail "STREAMCL_ONE_DOWNLOAD=$one: a run's loop built programs or made kernels: $(grep "^Program builds" "$d/log.$one" | tr '\n' ' ')"
  done
  # bonded down per step, and all styles' down per step, from Device Time Info
  python3 - "$d/log.1" "$d/log.0" <<'PY' || fail "Device Time Info: not fewer downloads per step"
import re, sys
def downs(path):
    text = open(path).read()
    text = text[text.rfind("Device Time Info (lj/charmm"):]   # the run 10's
    tot = re.search(r"Transfers per step \(all styles.*?\): [\d.]+ up \([^)]*\), ([\d.]+) down", text)
    bon = re.search(r"by style \(up/down per step, KB\):.*?bonded [\d.]+/([\d.]+)", text)
    ksp = re.search(r"by style \(up/down per step, KB\):.*?kspace [\d.]+/([\d.]+)", text)
    if not tot or not bon or not ksp:
        sys.exit(f"FAIL: no transfer lines in {path}")
    return float(tot.group(1)), float(bon.group(1)), float(ksp.group(1))
(t1, b1, k1), (t0, b0, k0) = downs(sys.argv[1]), downs(sys.argv[2])
print(f"downloads per step: one download {t1} (bonded {b1}, kspace {k1}), "
      f"separate {t0} (bonded {b0}, kspace {k0})")
# one rank: neither the bonded nor the kspace forces come down on their own
# (several ranks: pppm/ocl runs LAMMPS's host PPPM on PoCL, only the bonded);
# a style's force read is one per step, but the averages also count the run
# set-up's reads (LAMMPS 4Feb2025: kspace 2.2 -> 1.4), so 0.7 per style
both = k0 > 0
ok = b1 <= b0 - 0.7 and (not both or k1 <= k0 - 0.7) and t1 <= t0 - (1.4 if both else 0.7)
sys.exit(0 if ok else 1)
PY
  ;;
*)
  echo "unknown mode $MODE"; exit 2 ;;
esac
[ $fails = 0 ] && echo "PASS $MODE $*" || echo "$fails failure(s)"
exit $((fails > 0))
