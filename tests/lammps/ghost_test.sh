#!/bin/bash
# The pair style's ghost rows gathered on the device between re-neighborings
# (one rank; lammps_plugin/pair_lj_charmm_coul_long_ocl.cpp set_ghost_sources):
#   ghost_test.sh SYSTEM
# SYSTEM: peptide      examples/peptide with its nvt made npt iso (the box
#                      changes every step), lmp_ocl -sf ocl
#         rhodo        bench/in.rhodo (npt z), lmp_ocl -sf ocl
#         peptide_tri  the peptide box made triclinic, npt tri (lengths and
#                      tilts change every step); the pair style /ocl alone
#                      (pppm/ocl refuses triclinic boxes)
# 20 steps, thermo every step, twice: STREAMCL_GHOST_CHECK=1 (each gathered
# step's device ghost rows compared with atom->x after LAMMPS's forward_comm,
# == per coordinate; a difference is a LAMMPS error naming the atom) and
# STREAMCL_GHOST_GATHER=0 (every row uploaded, the path before). Checks:
#   - Device Time Info of the first: gathered in >= 10 of the 20 steps, and
#     checked in as many, all equal; of the second: gathered in 0
#   - thermo and final positions bit for bit equal in the two runs
#   - fewer KB up per step for the pair style with the gather
# Env: LMP_OCL LAMMPS_SOURCE_DIR WORK
set -uo pipefail
SYSTEM=${1:?system}
: "${WORK:?}" "${LMP_OCL:?}" "${LAMMPS_SOURCE_DIR:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$SYSTEM" in
peptide|peptide_tri) src=$LAMMPS_SOURCE_DIR/examples/peptide; in=in.peptide; data=data.peptide ;;
rhodo) src=$LAMMPS_SOURCE_DIR/bench; in=in.rhodo; data=data.rhodo ;;
*) echo "unknown system $SYSTEM"; exit 2 ;;
esac
[ -f "$src/$in" ] && [ -f "$src/$data" ] || { echo "SKIP: $src/$in not in this LAMMPS tree"; exit 77; }
d=$WORK/ghosts/$SYSTEM
rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
ln -s "$src/$data" "$data"
# 20 steps, thermo every step; the peptide under npt (fix shake must come
# before it: the nvt line moves behind the shake line)
awk -v sys="$SYSTEM" '
  /^thermo_style/ { print "thermo_style custom step pe ke etotal temp press vol ebond evdwl ecoul elong"
                    print "thermo_modify format float %.17g"; next }
  /^thermo[ \t]/  { print "thermo 1"; next }
  /^fix[ \t]+1[ \t]+all[ \t]+nvt/ { next }
  /^fix[ \t]+2[ \t]+all[ \t]+shake/ { print
      print (sys == "peptide_tri" ? "fix 1 all npt temp 275.0 275.0 100.0 tri 1.0 1.0 100.0" \
                                  : "fix 1 all npt temp 275.0 275.0 100.0 iso 1.0 1.0 100.0"); next }
  /^read_data/ { print; if (sys == "peptide_tri") print "change_box all triclinic\nkspace_style pppm 0.0001"; next }
  /^run/ { print "run 20"
           print "write_dump all custom final.dump id x y z modify sort id format float %.17g"; next }
  { print }' "$src/$in" > in.lmp
args=(-sf ocl -in in.lmp)
if [ "$SYSTEM" = peptide_tri ]; then
  sed -i -E 's|^(pair_style\s+lj/charmm/coul/long)\s|\1/ocl |' in.lmp
  args=(-in in.lmp)
fi
grep -q "^run 20" in.lmp || { echo "FAIL: no run line in $in"; exit 1; }
fails=0
STREAMCL_GHOST_CHECK=1 "$LMP_OCL" "${args[@]}" -log log.on -screen none && mv final.dump final.on ||
  { echo "FAIL: the run with the ghost gather failed"; grep -B2 -A2 ERROR log.on | head; tail -5 log.on; exit 1; }
STREAMCL_GHOST_GATHER=0 "$LMP_OCL" "${args[@]}" -log log.off -screen none && mv final.dump final.off ||
  { echo "FAIL: the STREAMCL_GHOST_GATHER=0 run failed"; tail -5 log.off; exit 1; }
grep "^Ghost rows:" log.on log.off
on=$(sed -n 's/^Ghost rows: *gathered on the device in \([0-9]*\) of 20 steps; checked against forward_comm in \([0-9]*\) steps: all equal$/\1 \2/p' log.on)
read -r gathered checked <<< "${on:-x y}"
[[ "$gathered" =~ ^[0-9]+$ ]] && [ "$gathered" -ge 10 ] && [ "$checked" = "$gathered" ] ||
  { echo "FAIL: want >= 10 of 20 steps gathered and as many checked, all equal"; fails=1; }
grep -q "^Ghost rows: *gathered on the device in 0 of 20 steps (STREAMCL_GHOST_GATHER=0: uploaded)" log.off ||
  { echo "FAIL: STREAMCL_GHOST_GATHER=0 gathered"; fails=1; }
thermo() { awk '/^ *Step /{on=1; print; next} /^Loop time/{on=0} on && $1 ~ /^[0-9]+$/' "$1"; }
[ -n "$(thermo log.on)" ] && [ "$(thermo log.on)" = "$(thermo log.off)" ] ||
  { echo "FAIL: thermo with the gathered ghosts differs"; diff <(thermo log.on) <(thermo log.off) | head; fails=1; }
cmp final.on final.off || { echo "FAIL: final positions with the gathered ghosts differ"; fails=1; }
# the pair's upload per step (KB), from "by style (up/down per step, KB): pair U/D (UKB/DKB)"
upkb() { sed -n 's/^  by style (up\/down per step, KB): pair [0-9.]*\/[0-9.]* (\([0-9]*\)\/.*/\1/p' "$1"; }
kon=$(upkb log.on); koff=$(upkb log.off)
echo "pair KB up per step: gather $kon, uploads $koff"
[ -n "$kon" ] && [ -n "$koff" ] && [ "$kon" -lt "$koff" ] ||
  { echo "FAIL: the gather does not upload less"; fails=1; }
grep -E "^(Transfers per step|  by style)" log.on log.off
exit $fails
