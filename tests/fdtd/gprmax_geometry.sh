#!/bin/bash
# gprMax's thin and planar objects and excitation files, run by gprMax 4.0.1
# (PyPI, its OpenMP solver) and by streamcl fdtd:
#   geo2d.in  2D TM: #edge (PEC posts along the invariant axis), #plate
#             (normal to x and to y), #triangle (a prism one cell thick),
#             #cylindrical_sector (averaged and not), in a half-space, with
#             CPML; receiver components within 2% relative L2 (seen: ~1e-3),
#             and the #geometry_view cell materials equal cell for cell
#   geo3d.in  3D, a PEC box (no CPML: gprMax's and our 3D CPML differ by
#             ~1% on their own, which this test must not mix in): plates
#             normal to z and x, edges along x and z, a zero-thickness PEC
#             triangle and sector (faces), a dielectric triangular prism and
#             sector, two sources driven by #excitation_file (one column on
#             the simulation's time axis, one with a time column and
#             linear interpolation, fill 0): within 2% (seen: ~1e-4)
#   without its objects, each model must be 5% or more off (the comparison
#             sees them)
#   te.in     2D TE (#domain_mode: TE, inf on z: two cells, Ex Ey Hz live
#             at node 1) with a half-space, a PEC cylinder, a #plate and an
#             #edge across the invariant axis: within 2% (seen: ~3e-3), and
#             the geometry view equal cell for cell
#   soil.in   2D TM, #soil_peplinski in a seeded #fractal_box (50 bins):
#             the soil's materials named as gprMax names them (permittivity
#             at infinite frequency and conductivity to 4 decimals) in the
#             same order; the binned volume's statistics against gprMax's
#             (spectrum slope within 0.5, mean bin within 15% of the bins,
#             spread within a factor 1.6); the same seed repeats the volume
#             and another seed changes it. The fields are not compared
#             sample for sample: gprMax draws the noise from numpy's
#             generator, which this library does not reproduce, so the two
#             soils are different realisations of the same statistics (their
#             misfit is printed, for information)
#   (#geometry_objects_read: geometry_read.sh; #transmission_line:
#   gprmax_tline.sh)
# gprMax's venv: $GPRMAX_VENV (default /var/cache/streamcl/venv-gprmax),
# made when missing; skipped (exit 77) when PyPI cannot be reached to make
# it, unless CI=true (then a failure).
#   gprmax_geometry.sh STREAMCL WORKDIR
. "$(dirname "$0")/gprmax_lib.sh"
gprmax_begin "$1" "$2" make
rm -rf "$work/gprmax" "$work/ours"
mkdir -p "$work/gprmax" "$work/ours"
cd "$work/gprmax" || exit 2
cat > geo2d.in <<'IN'
#title: 2D TM thin objects
#domain: 0.120 0.100 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2.5e-9
#pml_cells: 8 8 0 8 8 0
#material: 5 0.002 1 0 rock
#material: 3 0 1 0 clay
#waveform: ricker 1 2e9 pulse
#hertzian_dipole: z 0.060 0.070 0 pulse
#rx: 0.080 0.070 0
#rx: 0.046 0.040 0
#rx: 0.070 0.030 0
#box: 0 0 0 0.120 0.050 0.002 clay
#edge: 0.030 0.060 0 0.030 0.060 0.002 pec
#edge: 0.090 0.064 0 0.090 0.064 0.002 pec
#plate: 0.040 0.020 0 0.040 0.046 0.002 pec
#plate: 0.050 0.080 0 0.076 0.080 0.002 pec
#triangle: 0.060 0.020 0 0.100 0.022 0 0.084 0.046 0 0.002 rock
#cylindrical_sector: z 0.034 0.036 0 0.002 0.017 30 120 rock
#cylindrical_sector: z 0.096 0.086 0 0.002 0.013 200 150 rock n
#geometry_view: 0 0 0 0.120 0.100 0.002 0.002 0.002 0.002 geo2d_view n
IN
cat > geo3d.in <<'IN'
#title: 3D thin objects, excitation files
#domain: 0.064 0.060 0.056
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 300
#pml_cells: 0
#material: 4 0.001 1 0 rock
#excitation_file: exc.txt
#excitation_file: exc2.txt linear 0
#hertzian_dipole: z 0.030 0.030 0.030 mypulse
#hertzian_dipole: y 0.040 0.024 0.020 slow
#rx: 0.036 0.030 0.030
#rx: 0.022 0.038 0.040
#rx: 0.044 0.020 0.036
#plate: 0.016 0.016 0.018 0.034 0.040 0.018 pec
#plate: 0.046 0.016 0.020 0.046 0.034 0.044 pec
#edge: 0.020 0.044 0.024 0.040 0.044 0.024 pec
#edge: 0.026 0.020 0.016 0.026 0.020 0.040 pec
#triangle: 0.018 0.018 0.042 0.040 0.020 0.042 0.030 0.044 0.042 0 pec
#triangle: 0.040 0.030 0.016 0.040 0.046 0.016 0.040 0.040 0.030 0.004 rock
#cylindrical_sector: y 0.030 0.030 0.014 0.014 0.012 45 100 pec
#cylindrical_sector: x 0.040 0.040 0.014 0.022 0.010 300 80 rock n
IN
# the excitations: smooth, starting from zero and without a DC part (a
# dipole's static charge makes late-time fields that depend on rounding)
"$py" - <<'PY' || { echo "FAIL: writing the excitation files"; exit 1; }
import numpy as np
dt = 1 / (299792458 * np.sqrt(3 / 0.002**2))
t = np.arange(250) * dt                   # the simulation's time axis, cut short
x = (np.pi * 3e9 * (t - 0.5e-9))**2
with open("exc.txt", "w") as f:
    f.write("mypulse\n")
    f.writelines(f"{v:.10e}\n" for v in (1 - 2 * x) * np.exp(-x))
tt = np.linspace(0, 1.2e-9, 151)          # its own time axis
s = (tt - 0.5e-9) / 0.1e-9
with open("exc2.txt", "w") as f:
    f.write("time slow\n")
    f.writelines(f"{a:.10e} {b:.10e}\n" for a, b in zip(tt, -s * np.exp(-s * s)))
PY
cat > te.in <<'IN'
#title: 2D TE
#domain_mode: TE
#domain: 0.120 0.100 inf
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2.5e-9
#material: 5 0.002 1 0 rock
#waveform: ricker 1 2e9 pulse
#hertzian_dipole: x 0.060 0.070 inf pulse
#rx: 0.080 0.070 inf
#rx: 0.046 0.040 inf
#box: 0 0 inf 0.120 0.050 inf rock
#cylinder: 0.070 0.030 0 0.070 0.030 0.004 0.010 pec
#plate: 0.030 0.036 0 0.030 0.066 inf pec
#edge: 0.090 0.056 inf 0.090 0.078 inf pec
#geometry_view: 0 0 0 0.120 0.100 inf 0.002 0.002 0.002 te_view n
IN
cat > soil.in <<'IN'
#title: Peplinski soil in a fractal box (2D TM)
#domain: 0.300 0.200 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 3e-9
#pml_cells: 10 10 0 10 10 0
#waveform: ricker 1 1.5e9 pulse
#hertzian_dipole: z 0.150 0.150 0 pulse
#rx: 0.170 0.150 0
#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 mysoil
#fractal_box: 0 0 0 0.300 0.120 0.002 1.5 1 1 1 50 mysoil fbox 7
#geometry_view: 0 0 0 0.300 0.200 0.002 0.002 0.002 0.002 soil_view n
IN
cp geo2d.in geo3d.in te.in soil.in exc.txt exc2.txt "$work/ours/"
for m in geo2d geo3d; do
    grep -v -E '^#(edge|plate|triangle|cylindrical_sector|geometry_view)' $m.in > "$work/ours/${m}_bare.in"
done
sed 's/ mysoil fbox 7$/ mysoil fbox 7/; s/soil_view n/soil_again n/' soil.in > "$work/ours/soil_again.in"
sed 's/ mysoil fbox 7$/ mysoil fbox 8/; s/soil_view n/soil_seed8 n/' soil.in > "$work/ours/soil_seed8.in"
printf '#domain: 0.1 0.1 0.1\n#dx_dy_dz: 0.01 0.01 0.01\n#time_window: 10\n\n#geometry_objects_read: 0 0 0 g.h5 m.txt\n' > "$work/ours/gor.in"

start=$(date +%s)
for m in geo2d geo3d te soil; do
    gprmax_run $m.log $m.in
done
echo "gprMax 4.0.1 runs: $(( $(date +%s) - start )) s"
cd "$work/ours" || exit 2
for m in geo2d geo3d te geo2d_bare geo3d_bare soil soil_again soil_seed8; do
    streamcl_run $m.log $m.in --no-tune
done
"$streamcl" fdtd gor.in > gor.log 2>&1; gor_rc=$?

cd "$work" || exit 2
GOR_RC=$gor_rc gprmax_python - <<'PY'
import os
import sys
import h5py
import numpy as np
from gprmax_compare import compare
from tally import Tally
tally = Tally("fdtd_gprmax_geometry", verbose=True)
check = tally.check

for m in ("geo2d", "geo3d", "te"):
    g = h5py.File(f"gprmax/{m}.h5", "r")
    compare(tally, g, h5py.File(f"ours/{m}.h5", "r"), m)
    if m != "te":  # the objects seen at one receiver at least
        compare(tally, g, h5py.File(f"ours/{m}_bare.h5", "r"), f"{m} without its objects",
                expect_fail=True, each_rx=False)
g, o = h5py.File("gprmax/te.h5", "r"), h5py.File("ours/te.h5", "r")
check(list(g.attrs["nx_ny_nz"]) == list(o.attrs["nx_ny_nz"]) == [60, 50, 2] and g.attrs["dt"] == o.attrs["dt"]
      and np.allclose(g["rxs/rx1"].attrs["Position"], o["rxs/rx1"].attrs["Position"]),
      f"2D TE: cells {list(o.attrs['nx_ny_nz'])}, dt, receiver at the live plane {o['rxs/rx1'].attrs['Position']}")
a, b = (h5py.File(f"{d}/te_view.vtkhdf", "r")["VTKHDF/CellData/Material"][()] for d in ("gprmax", "ours"))
check(a.shape == b.shape and np.array_equal(a, b), f"2D TE geometry view {b.shape}: equal cell for cell")
gv, ov = h5py.File("gprmax/geo2d_view.vtkhdf", "r"), h5py.File("ours/geo2d_view.vtkhdf", "r")
a, b = gv["VTKHDF/CellData/Material"][()], ov["VTKHDF/CellData/Material"][()]
rock = list(gv["VTKHDF/FieldData/material_ids"][()]).index(b"rock")
check(a.shape == b.shape and np.array_equal(a, b) and np.sum(a == rock) > 100,
      f"geo2d geometry view: {np.sum(a != b) if a.shape == b.shape else 'shape'} cells differ "
      f"({np.sum(a == rock)} rock cells: the prism and the sectors)")
# the soil: gprMax's materials, the fractal's statistics
def view(path):
    f = h5py.File(path, "r")
    return (f["VTKHDF/CellData/Material"][()][0],
            [x.decode() if isinstance(x, bytes) else str(x) for x in f["VTKHDF/FieldData/material_ids"][()]])
(gs, gn), (os_, on) = view("gprmax/soil_view.vtkhdf"), view("ours/soil_view.vtkhdf")
gsoil, osoil = [n for n in gn if n.startswith("|")], [n for n in on if n.startswith("|")]
check(len(gsoil) == 50 and gsoil == osoil,
      f"soil materials: {len(osoil)} named as gprMax's, in its order ({osoil[0]} .. {osoil[-1]})")
def stats(vol, names):
    first = names.index(next(n for n in names if n.startswith("|")))
    a = vol[:60, :].astype(float) - first           # the fractal box: y < 0.120 m
    F = np.abs(np.fft.fft2(a - a.mean()))**2
    ky, kx = np.fft.fftfreq(a.shape[0]), np.fft.fftfreq(a.shape[1])
    K = np.sqrt(ky[:, None]**2 + (kx[None, :] * a.shape[1] / a.shape[0])**2)
    sel = (K > 0.02) & (K < 0.3)
    return np.polyfit(np.log(K[sel]), np.log(F[sel]), 1)[0], a.mean(), a.std(), a.min(), a.max()
gst, ost = stats(gs, gn), stats(os_, on)
print(f"     soil bins (slope, mean, std, min, max): gprMax {np.round(gst, 2)} ours {np.round(ost, 2)}")
check(abs(gst[0] - ost[0]) <= 0.5 and abs(ost[0] + 3.0) <= 0.5,
      f"fractal spectrum slope: ours {ost[0]:.2f}, gprMax {gst[0]:.2f} (-2D = -3)")
check(abs(gst[1] - ost[1]) <= 0.15 * 50 and 1 / 1.6 <= ost[2] / gst[2] <= 1.6 and ost[3] == 0 and ost[4] == 49,
      f"fractal bins: mean {ost[1]:.1f} (gprMax {gst[1]:.1f}), spread {ost[2]:.1f} (gprMax {gst[2]:.1f}), bins 0..49 used")
again, seed8 = view("ours/soil_again.vtkhdf")[0], view("ours/soil_seed8.vtkhdf")[0]
check(np.array_equal(again, os_) and np.sum(seed8 != os_) > 1000,
      f"the seed repeats the soil; another seed changes {np.sum(seed8 != os_)} cells")
g, o = h5py.File("gprmax/soil.h5", "r"), h5py.File("ours/soil.h5", "r")
mis = {c: np.linalg.norm(np.asarray(g[f"rxs/rx1/{c}"]) - np.asarray(o[f"rxs/rx1/{c}"])) /
          np.linalg.norm(np.asarray(g[f"rxs/rx1/{c}"])) for c in ("Ez", "Hx", "Hy")}
print("     soil receiver misfit to gprMax (another realisation of the soil, for information): " +
      ", ".join(f"{c} {v:.2f}" for c, v in mis.items()))
check(all(np.isfinite(v) and v < 0.5 for v in mis.values()), "soil receivers finite and of gprMax's size")
sys.exit(tally.finish(least=58))
PY
