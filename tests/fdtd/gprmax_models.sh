#!/bin/bash
# gprMax's own example models, unchanged, run by gprMax 4.0.1 (PyPI, its
# OpenMP solver) and by streamcl fdtd:
#   cylinder_Ascan_2D.in  2D TM (#domain_mode: TM, inf coordinates): receiver
#                         components within 2% relative L2; its #geometry_view
#                         file (VTKHDF) equal to gprMax's, cell for cell
#   the same model in the older style (a domain one cell thick, no inf):
#                         the same receiver signals as the inf form
#   debye.in (here)       a dipole over a Debye half-space (#add_dispersion_debye),
#                         2D TM: within 2% on the device and in the C reference,
#                         and the same model without its poles 5% or more off
#                         (the comparison sees the dispersion)
#   poles.in (here)       a Lorentz half-space holding a Drude block, 2D TM:
#                         within 2% on the device and in the C reference (the
#                         PML is gprMax's own, graded per slab from its
#                         entrance plane's mean er: dispersive materials side
#                         by side inside it agree too, measured 6e-6)
#   snap.in (here)        3D, two #snapshot volumes (every cell; every second
#                         cell of a part): each field within 2% of the
#                         strongest E or H of gprMax's .vtkhdf, same extents
#   rxarray.in (here)     #rx_array: the receivers gprMax makes, in its order,
#                         with its positions and generated names
#   wave_*.in (here)      gprMax's other waveforms (gauspulse, gaussianprime,
#                         gaussiandoubleprime, impulse), one dipole each, in a
#                         file with ## comment lines and #omp_threads / its
#                         older name #num_threads: within 2%
#   inc.in (here)         #include_file twice nested (a material, then a
#                         waveform, from a sub-folder): within 2%
#   cylinder_Bscan_2D.in  a B-scan of NTRACES traces (default 3, of the 60 a
#                         user runs, for CI time) in one process: the merged
#                         file of gprMax's merge tool against ours (shape,
#                         ntraces, MergedOutput, each component within 2%)
# The example files come from the installed gprMax package (never copied
# into this repository). gprMax's venv: $GPRMAX_VENV (default
# /var/cache/streamcl/venv-gprmax); made here when missing, and the test is
# skipped (exit 77) when PyPI cannot be reached to make it (a failure under
# CI=true: gprmax_lib.sh).
#   gprmax_models.sh STREAMCL WORKDIR
. "$(dirname "$0")/gprmax_lib.sh"
gprmax_begin "$1" "$2" make
ntraces=${NTRACES:-3}
examples=$("$py" -c "import gprMax, os; print(os.path.join(os.path.dirname(gprMax.__file__), '_examples', 'gpr', 'basic'))")
for f in cylinder_Ascan_2D.in cylinder_Bscan_2D.in; do
    [ -f "$examples/$f" ] || { echo "FAIL: $examples/$f is not in the installed gprMax"; exit 1; }
done
rm -rf "$work/gprmax" "$work/ours" "$work/legacy"
mkdir -p "$work/gprmax" "$work/ours" "$work/legacy"
cp "$examples/cylinder_Ascan_2D.in" "$examples/cylinder_Bscan_2D.in" "$work/gprmax/"
cp "$examples/cylinder_Ascan_2D.in" "$examples/cylinder_Bscan_2D.in" "$work/ours/"
# the older style of the same 2D model: one cell thick, no #domain_mode, no inf
sed -e '/^#domain_mode/d' -e 's/^\(#domain:.*\) inf$/\1 0.002/' \
    -e 's/^\(#hertzian_dipole:.*\) inf /\1 0 /' -e 's/^\(#rx:.*\) inf$/\1 0/' \
    -e 's/ inf / 0.002 /g; s/ inf$/ 0.002/' "$examples/cylinder_Ascan_2D.in" > "$work/legacy/cylinder_Ascan_2D.in"
grep -q inf "$work/legacy/cylinder_Ascan_2D.in" && { echo "FAIL: legacy model still has inf"; exit 1; }
# a moist soil of one Debye pole (eps_inf 4, delta 6, tau 0.3 ns: strong
# dispersion across the pulse's band), the source in air above it
cat > "$work/gprmax/debye.in" <<'IN'
#title: dipole over a Debye half-space (2D TM)
#domain: 0.160 0.160 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 3e-9
#material: 4 0.001 1 0 moist
#add_dispersion_debye: 1 6 3e-10 moist
#waveform: ricker 1 1.5e9 pulse
#hertzian_dipole: z 0.080 0.100 0 pulse
#rx: 0.100 0.100 0
#rx: 0.080 0.060 0
#box: 0 0 0 0.160 0.080 0.002 moist
IN
cat > "$work/gprmax/poles.in" <<'IN'
#title: dipole over a Lorentz half-space with a Drude block (2D TM)
#domain: 0.160 0.160 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 3e-9
#material: 4 0.001 1 0 resonant
#material: 2 0 1 0 plasma
#add_dispersion_lorentz: 1 3 2e9 1e9 resonant
#add_dispersion_drude: 1 1e9 1e9 plasma
#waveform: ricker 1 1.5e9 pulse
#hertzian_dipole: z 0.080 0.100 0 pulse
#rx: 0.100 0.100 0
#rx: 0.080 0.060 0
#rx: 0.060 0.040 0
#box: 0 0 0 0.160 0.080 0.002 resonant
#box: 0.040 0.030 0 0.120 0.060 0.002 plasma
IN
cat > "$work/gprmax/snap.in" <<'IN'
#title: snapshot probe
#domain: 0.050 0.046 0.042
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 60
#pml_cells: 5
#material: 4 0.001 1 0 block
#waveform: gaussiandot 1 2e9 w
#hertzian_dipole: z 0.024 0.022 0.020 w
#box: 0.010 0.010 0.004 0.040 0.036 0.014 block
#snapshot: 0 0 0 0.050 0.046 0.042 0.002 0.002 0.002 40 s40
#snapshot: 0.004 0.006 0.002 0.044 0.040 0.038 0.004 0.004 0.004 40 c40
IN
cat > "$work/gprmax/rxarray.in" <<'IN'
#domain: 0.060 0.050 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 3
#waveform: ricker 1 5e9 w
#hertzian_dipole: z 0.030 0.030 0 w
#rx_array: 0.010 0.024 0 0.030 0.028 0 0.004 0.002 0
IN
waves="gauspulse gaussianprime gaussiandoubleprime impulse"
for w in $waves; do
    threads="#omp_threads: 2"
    [ "$w" = impulse ] && threads="#num_threads: 2"
    cat > "$work/gprmax/wave_$w.in" <<IN
#title: a dipole driven by gprMax's $w waveform
## a line starting with two hashes is a comment to gprMax
#domain: 0.100 0.100 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2e-9
$threads
#material: 3 0.002 1 0 ground
#waveform: $w 1 1.5e9 drive
## the source and two receivers
#hertzian_dipole: z 0.050 0.060 0 drive
#rx: 0.064 0.060 0
#rx: 0.050 0.030 0
#box: 0 0 0 0.100 0.040 0.002 ground
IN
done
cp "$work/gprmax/debye.in" "$work/gprmax/poles.in" "$work/gprmax/snap.in" "$work/gprmax/rxarray.in" "$work/ours/"
for w in $waves; do cp "$work/gprmax/wave_$w.in" "$work/ours/"; done
for d in gprmax ours; do
    mkdir -p "$work/$d/lib"
    printf '## shared materials\n#material: 5 0.001 1 0 soil\n#include_file: waves.txt\n' > "$work/$d/lib/materials.txt"
    printf '#waveform: ricker 1 1.5e9 pulse\n' > "$work/$d/lib/waves.txt"
    cat > "$work/$d/inc.in" <<'IN'
#title: materials and a waveform from included files
#domain: 0.100 0.100 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2e-9
#include_file: lib/materials.txt
#hertzian_dipole: z 0.050 0.060 0 pulse
#rx: 0.064 0.060 0
#box: 0 0 0 0.100 0.040 0.002 soil
IN
done
grep -v '^#add_dispersion' "$work/gprmax/debye.in" > "$work/ours/nopoles.in"

start=$(date +%s)
cd "$work/gprmax" || exit 2
gprmax_run ascan.log cylinder_Ascan_2D.in
gprmax_run bscan.log cylinder_Bscan_2D.in -n "$ntraces"
if ! "$py" -m gprMax.toolboxes.Utilities.outputfiles_merge cylinder_Bscan_2D > merge.log 2>&1; then
    echo "FAIL: gprMax's merge tool on cylinder_Bscan_2D"; tail -20 merge.log; exit 1
fi
for model in debye poles snap rxarray inc $(printf 'wave_%s ' $waves); do
    gprmax_run $model.log $model.in
done
echo "gprMax 4.0.1 runs: $(( $(date +%s) - start )) s (A-scan, B-scan of $ntraces traces, Debye, Lorentz + Drude, snapshots)"

cd "$work/ours" || exit 2
streamcl_run ascan.log cylinder_Ascan_2D.in --no-tune
streamcl_run bscan.log cylinder_Bscan_2D.in -n "$ntraces" --no-tune --radargram bscan.png
cat bscan.log
for run in "debye.in --no-tune" "debye.in --engine reference -o debye_ref.h5" "nopoles.in --no-tune" \
           "poles.in --no-tune" "poles.in --engine reference -o poles_ref.h5" "snap.in --no-tune" \
           "rxarray.in --no-tune" inc.in $(printf 'wave_%s.in ' $waves); do
    streamcl_run run.log $run
done
(cd "$work/legacy" && streamcl_run ascan.log cylinder_Ascan_2D.in --no-tune) || exit 1
# gprMax's own plotting tool reads our merged B-scan
rm -f cylinder_Bscan_2D_merged_rx1.png
MPLBACKEND=Agg timeout 120 "$py" -m gprMax.toolboxes.Plotting.plot_Bscan cylinder_Bscan_2D_merged.h5 Ez -save \
    > plot_bscan.log 2>&1
plot_rc=$?
# a command we do not support is refused by name, with its line
printf '#domain: 0.1 0.1 0.1\n#dx_dy_dz: 0.01 0.01 0.01\n#time_window: 10\n#add_surface_water: 0 0 0 0.1 0.1 0.1 0.05 water\n' > refused.in
"$streamcl" fdtd refused.in > refused.log 2>&1
refused_rc=$?

cd "$work" || exit 2
WAVES=$waves NTRACES=$ntraces REFUSED_RC=$refused_rc PLOT_RC=$plot_rc gprmax_python - <<'PY'
import os
import sys
import h5py
import numpy as np
from gprmax_compare import compare as compare_rx
from tally import Tally
tally = Tally("fdtd_gprmax_models", verbose=True)
check = tally.check

def compare(g, o, label, expect_fail=False):
    """What is left out (expect_fail) must be seen at every receiver."""
    compare_rx(tally, g, o, label, expect_fail=expect_fail, each_rx=True)

g, o = h5py.File("gprmax/cylinder_Ascan_2D.h5", "r"), h5py.File("ours/cylinder_Ascan_2D.h5", "r")
for key in ("Iterations", "dt"):
    check(np.isclose(float(g.attrs[key]), float(o.attrs[key]), rtol=1e-12, atol=0),
          f"A-scan attribute {key}: gprMax {g.attrs[key]} ours {o.attrs[key]}")
check(list(o.attrs["nx_ny_nz"]) == list(g.attrs["nx_ny_nz"]), f"A-scan nx_ny_nz {list(o.attrs['nx_ny_nz'])}")
compare(g, o, "A-scan 2D")
leg = h5py.File("legacy/cylinder_Ascan_2D.h5", "r")
same = all(np.array_equal(np.asarray(leg[f"rxs/rx1/{c}"]), np.asarray(o[f"rxs/rx1/{c}"]))
           for c in ("Ex", "Ey", "Ez", "Hx", "Hy", "Hz"))
check(same and leg.attrs["dt"] == o.attrs["dt"], "one-cell-thick form gives the inf form's signals exactly")

gv, ov = h5py.File("gprmax/cylinder_half_space.vtkhdf", "r"), h5py.File("ours/cylinder_half_space.vtkhdf", "r")
for key in ("Type", "WholeExtent", "Origin", "Spacing", "Version"):
    check(np.array_equal(np.asarray(gv["VTKHDF"].attrs[key]), np.asarray(ov["VTKHDF"].attrs[key])),
          f"geometry view attribute {key}: {ov['VTKHDF'].attrs[key]}")
a, b = gv["VTKHDF/CellData/Material"][()], ov["VTKHDF/CellData/Material"][()]
check(a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b),
      f"geometry view materials {b.shape} {b.dtype}: {np.sum(a != b) if a.shape == b.shape else 'shape'} cells differ")
check(list(gv["VTKHDF/FieldData/material_ids"][()]) == list(ov["VTKHDF/FieldData/material_ids"][()]),
      f"geometry view material names {list(ov['VTKHDF/FieldData/material_ids'][()])}")

gd = h5py.File("gprmax/debye.h5", "r")
compare(gd, h5py.File("ours/debye.h5", "r"), "Debye device")
compare(gd, h5py.File("ours/debye_ref.h5", "r"), "Debye reference")
compare(gd, h5py.File("ours/nopoles.h5", "r"), "without the poles", expect_fail=True)
gp = h5py.File("gprmax/poles.h5", "r")
compare(gp, h5py.File("ours/poles.h5", "r"), "Lorentz + Drude device")
compare(gp, h5py.File("ours/poles_ref.h5", "r"), "Lorentz + Drude reference")

for name in ("s40", "c40"):
    g5, o5 = (h5py.File(f"{d}/snap_snaps/{name}.vtkhdf", "r")["VTKHDF"] for d in ("gprmax", "ours"))
    check(all(np.allclose(g5.attrs[k], o5.attrs[k]) for k in ("WholeExtent", "Origin", "Spacing")),
          f"snapshot {name} extent {list(o5.attrs['WholeExtent'])} origin {list(o5.attrs['Origin'])}")
    fields = {c: (np.asarray(g5["CellData/" + c], float), np.asarray(o5["CellData/" + c], float))
              for c in ("Ex", "Ey", "Ez", "Hx", "Hy", "Hz")}
    fam = {f: max(np.linalg.norm(a) for c, (a, b) in fields.items() if c[0] == f) for f in "EH"}
    for c, (a, b) in fields.items():
        err = np.linalg.norm(a - b) / fam[c[0]] if a.shape == b.shape else np.inf
        check(np.all(np.isfinite(b)) and err <= 0.02,
              f"snapshot {name} {c} {b.shape}: relative L2 {err:.2e} of the strongest {c[0]}")

compare(h5py.File("gprmax/inc.h5", "r"), h5py.File("ours/inc.h5", "r"), "#include_file")
for w in os.environ["WAVES"].split():
    compare(h5py.File(f"gprmax/wave_{w}.h5", "r"), h5py.File(f"ours/wave_{w}.h5", "r"), f"waveform {w}")

ga, oa = h5py.File("gprmax/rxarray.h5", "r"), h5py.File("ours/rxarray.h5", "r")
same = len(ga["rxs"]) == len(oa["rxs"]) and all(
    k in oa["rxs"] and np.allclose(ga["rxs"][k].attrs["Position"], oa["rxs"][k].attrs["Position"])
    and ga["rxs"][k].attrs["Name"] == oa["rxs"][k].attrs["Name"] for k in ga["rxs"])
check(same, f"#rx_array: {len(oa['rxs'])} receivers, gprMax's order, positions and names")

n = int(os.environ["NTRACES"])
gm, om = h5py.File("gprmax/cylinder_Bscan_2D_merged.h5", "r"), h5py.File("ours/cylinder_Bscan_2D_merged.h5", "r")
check(int(om.attrs["ntraces"]) == n and bool(om.attrs["MergedOutput"]),
      f"merged attributes ntraces {om.attrs.get('ntraces')} MergedOutput {om.attrs.get('MergedOutput')}")
check(list(om.attrs["srcsteps"]) == list(gm.attrs["srcsteps"]) and list(om.attrs["rxsteps"]) == list(gm.attrs["rxsteps"]),
      f"srcsteps {list(om.attrs['srcsteps'])} rxsteps {list(om.attrs['rxsteps'])}")
check(om["rxs/rx1/Ez"].shape == (int(gm.attrs["Iterations"]), n), f"merged Ez shape {om['rxs/rx1/Ez'].shape}")
compare(gm, om, f"B-scan {n} traces")
for t in range(1, n + 1):
    check(os.path.isfile(f"ours/cylinder_Bscan_2D{t}.h5"), f"trace file cylinder_Bscan_2D{t}.h5")
check(os.path.getsize("ours/bscan.png") > 1000, "radargram PNG written")
check(os.environ["PLOT_RC"] == "0" and os.path.isfile("ours/cylinder_Bscan_2D_merged_rx1.png"),
      "gprMax's plot_Bscan reads our merged file")
check(int(os.environ["REFUSED_RC"]) != 0 and "'#add_surface_water'" in open("ours/refused.log").read()
      and "refused.in:4" in open("ours/refused.log").read(),
      "an unsupported command is refused by name and line: " + open("ours/refused.log").read().strip())
sys.exit(tally.finish(least=100))
PY
