#!/bin/bash
# #transmission_line against gprMax 4.0.1: every receiver component and the
# line's four series (/tls/tl1: Vinc, Iinc, Vtotal, Itotal) within 2%
# relative L2 of gprMax's, the file layout checked by h5py:
#   dipole.in   a half-wave-like PEC wire dipole (#edge, a one-cell gap of
#               free space) fed at the gap by a z line of 73 Ohm, a Gaussian,
#               6 PML cells; run as a B-scan of 2 traces (-n 2, #src_steps
#               and #rx_steps: the line and receivers move 2 cells along x
#               between traces), trace 2 against gprMax on dipole_t2.in
#               (the same model with the positions moved by hand): the line
#               is reset and moved with the other sources
#   xline.in    an x line of 50 Ohm active in a window (start, stop) over a
#               lossy dielectric block, feeding a PEC wire along x; by the
#               OpenCL solver (separate kernels, the fused kernel, --fp64)
#               and the C reference (--engine reference)
# The line must load: Vtotal differs from Vinc by 5% or more (else the grid
# would not be seen). gprMax's venv: $GPRMAX_VENV (default
# /var/cache/streamcl/venv-gprmax); skipped (77) when it is missing, unless
# CI=true (then a failure).
#   gprmax_tline.sh STREAMCL WORKDIR
. "$(dirname "$0")/gprmax_lib.sh"
gprmax_begin "$1" "$2"
cd "$work" || exit 2
rm -f ./*.in ./*.h5
cat > dipole.in <<'IN'
#title: wire dipole fed by a transmission line
#domain: 0.040 0.040 0.060
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 300
#pml_cells: 6
#waveform: gaussian 1 2e9 mypulse
#transmission_line: z 0.020 0.020 0.030 73 mypulse
#edge: 0.020 0.020 0.016 0.020 0.020 0.044 pec
#edge: 0.020 0.020 0.030 0.020 0.020 0.032 free_space
#rx: 0.030 0.020 0.030
#rx: 0.020 0.028 0.040
#src_steps: 0.004 0 0
#rx_steps: 0.004 0 0
IN
sed -e 's/^#transmission_line: z 0.020 /#transmission_line: z 0.024 /' \
    -e 's/^#rx: 0.030 /#rx: 0.034 /; s/^#rx: 0.020 0.028/#rx: 0.024 0.028/' \
    -e '/_steps:/d' dipole.in > dipole_t2.in
cat > xline.in <<'IN'
#title: windowed x line over a lossy block
#domain: 0.044 0.036 0.040
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 1.2e-9
#pml_cells: 6
#material: 4 0.005 1 0 block
#box: 0 0 0 0.044 0.036 0.014 block
#waveform: ricker 1 3e9 pulse
#transmission_line: x 0.022 0.018 0.020 50 pulse 0.05e-9 0.7e-9
#edge: 0.012 0.018 0.020 0.034 0.018 0.020 pec
#edge: 0.022 0.018 0.020 0.024 0.018 0.020 free_space
#rx: 0.022 0.026 0.020
#rx: 0.030 0.018 0.024
IN
for f in dipole dipole_t2 xline; do
    gprmax_run $f.gprmax.log $f.in
    [ -s $f.h5 ] || { echo "FAIL: gprMax on $f.in wrote no $f.h5"; tail -20 $f.gprmax.log; exit 1; }
    mv $f.h5 $f.gprmax.h5
done
streamcl_run dipole.log dipole.in -n 2 --no-tune
streamcl_run xline.opencl.log xline.in -o xline.opencl.h5 --no-tune
streamcl_run xline.fused.log xline.in -o xline.fused.h5 --no-tune --kernel fused
streamcl_run xline.fp64.log xline.in -o xline.fp64.h5 --no-tune --fp64
streamcl_run xline.reference.log xline.in -o xline.reference.h5 --engine reference
gprmax_python - <<'PY'
import sys
import h5py
import numpy as np
from tally import Tally
from gprmax_compare import compare
tally = Tally("fdtd_gprmax_tline")
SERIES = ("Vinc", "Iinc", "Vtotal", "Itotal")
for ref, ours in (("dipole.gprmax.h5", "dipole1.h5"), ("dipole_t2.gprmax.h5", "dipole2.h5"),
                  ("xline.gprmax.h5", "xline.opencl.h5"), ("xline.gprmax.h5", "xline.fused.h5"),
                  ("xline.gprmax.h5", "xline.fp64.h5"), ("xline.gprmax.h5", "xline.reference.h5")):
    g, o = h5py.File(ref, "r"), h5py.File(ours, "r")
    compare(tally, g, o, ours)
    tally.check(sorted(g["tls"]) == sorted(o["tls"]) == ["tl1"], f"{ours}: tls groups {sorted(o['tls'])}")
    tally.check(int(o.attrs["nsrc"]) == int(g.attrs["nsrc"]) and "srcs" not in o,
                f"{ours}: nsrc {o.attrs['nsrc']} (the line counted, not in /srcs)")
    gt, ot = g["tls/tl1"], o["tls/tl1"]
    for a in ("Position", "Resistance", "dl"):
        tally.check(np.allclose(np.asarray(gt.attrs[a], float), np.asarray(ot.attrs[a], float), rtol=1e-9),
                    f"{ours}: tl1 {a} {ot.attrs[a]} (gprMax {gt.attrs[a]})")
    worst = 0.0
    for s in SERIES:
        a, b = np.asarray(gt[s], float), np.asarray(ot[s], float)
        if a.shape != b.shape:
            tally.check(False, f"{ours}: tl1 {s} shape {b.shape}, gprMax {a.shape}")
            continue
        err = np.linalg.norm(a - b) / np.linalg.norm(a)
        err = err if np.all(np.isfinite(b)) and np.isfinite(err) else np.inf  # NaN-safe
        worst = max(worst, err)
        want = np.float64 if "fp64" in ours else gt[s].dtype  # --fp64 writes doubles
        tally.check(err <= 0.02 and ot[s].dtype == want,
                    f"{ours}: tl1 {s} relative L2 {err:.2e} ({ot[s].dtype}, gprMax {gt[s].dtype})")
    load = np.linalg.norm(np.asarray(ot["Vtotal"]) - np.asarray(ot["Vinc"])) / np.linalg.norm(ot["Vinc"])
    tally.check(load >= 0.05, f"{ours}: Vtotal differs from Vinc by {load:.2f} (the grid loads the line)")
    rx = max(np.linalg.norm(np.asarray(g[f"rxs/{r}/{c}"], float) - np.asarray(o[f"rxs/{r}/{c}"], float)) /
             np.linalg.norm(np.asarray(g[f"rxs/{r}/{c}"], float))
             for r in g["rxs"] for c in ("Ex", "Ey", "Ez", "Hx", "Hy", "Hz")
             if np.linalg.norm(np.asarray(g[f"rxs/{r}/{c}"], float)) > 1e-3 * max(
                 np.linalg.norm(np.asarray(g[f"rxs/{r}/{k}"], float)) for k in (c[0] + "x", c[0] + "y", c[0] + "z")))
    print(f"{ours}: worst line series {worst:.2e}, worst receiver component {rx:.2e}")
sys.exit(tally.finish(least=100))
PY
