#!/bin/bash
# #material_from_database (gprMax 4's JSON material databases):
#   eccosorb_slab.in      gprMax's own example (toolboxes/Materials, with its
#                         eccosorb.json: three Debye poles), unchanged, run by
#                         gprMax 4.0.1 and by streamcl fdtd: every receiver
#                         component within 2% relative L2
#   the same model with the entry written out as #material and
#                         #add_dispersion_debye lines: the same receivers
#                         (bit for bit: the database only names the values)
#   local.json (here)     constant, Lorentz and Drude entries and an ID given
#                         as the third parameter, each against its commands
#   refusals              a missing entry, an unsupported model, gprMax's
#                         installed databases, broken JSON (its line named),
#                         a '+' in the ID: refused with the input's file:line
# gprMax's venv and the example files: gprmax_lib.sh (never copied here).
#   gprmax_matdb.sh STREAMCL WORKDIR
. "$(dirname "$0")/gprmax_lib.sh"
gprmax_begin "$1" "$2" make
pkg=$("$py" -c "import gprMax, os; print(os.path.dirname(gprMax.__file__))")
ex=$pkg/toolboxes/Materials
[ -f "$ex/eccosorb_slab.in" ] && [ -f "$ex/eccosorb.json" ] ||
    { echo "FAIL: $ex/eccosorb_slab.in or eccosorb.json is not in the installed gprMax"; exit 1; }
rm -rf "$work/gprmax" "$work/ours"
mkdir -p "$work/gprmax" "$work/ours"
cp "$ex/eccosorb_slab.in" "$ex/eccosorb.json" "$work/gprmax/"
cp "$ex/eccosorb_slab.in" "$ex/eccosorb.json" "$work/ours/"
cd "$work/ours" || exit 2
# the entry as commands, from the JSON (python reads it, not our reader)
gprmax_python - <<'PY' || { echo "FAIL: writing the command form"; exit 1; }
import json
e = json.load(open("eccosorb.json"))["materials"]["eccosorb_ls22"]
b = e["base"]
poles = " ".join(f"{p['relative_permittivity_difference']!r} {p['relaxation_time_s']!r}" for p in e["poles"])
lines = open("eccosorb_slab.in").read().splitlines()
out = []
for l in lines:
    if l.startswith("#material_from_database"):
        out.append(f"#material: {b['relative_permittivity']!r} {b['electric_conductivity_s_per_m']!r} "
                   f"{b['relative_permeability']!r} {b['magnetic_conductivity_s_per_m']!r} eccosorb_ls22")
        out.append(f"#add_dispersion_debye: {len(e['poles'])} {poles} eccosorb_ls22")
    else:
        out.append(l)
open("commands.in", "w").write("\n".join(out) + "\n")
PY
cat > local.json <<'JSON'
{"schema": "gprMax-material-database", "schema_version": 1,
 "database": {"id": "local", "name": "test \u0061 \"quoted\" name", "version": "1"},
 "materials": {
  "dry": {"model": "constant", "base": {"relative_permittivity": 4.5,
          "electric_conductivity_s_per_m": 0.002, "relative_permeability": 1.5,
          "magnetic_conductivity_s_per_m": 0.0}},
  "res": {"model": "lorentz", "base": {"relative_permittivity": 3,
          "electric_conductivity_s_per_m": 0.001, "relative_permeability": 1,
          "magnetic_conductivity_s_per_m": 0},
          "poles": [{"relative_permittivity_difference": 2.5, "resonance_frequency_hz": 2e9,
                     "damping_coefficient_per_s": 1e9}]},
  "plasma": {"model": "drude", "base": {"relative_permittivity": 2,
          "electric_conductivity_s_per_m": 0, "relative_permeability": 1,
          "magnetic_conductivity_s_per_m": 0},
          "poles": [{"plasma_frequency_hz": 1e9, "collision_frequency_per_s": 1e9}]},
  "odd": {"model": "general", "base": {"relative_permittivity": 1,
          "electric_conductivity_s_per_m": 0, "relative_permeability": 1,
          "magnetic_conductivity_s_per_m": 0}, "poles": []}
 }}
JSON
common='#domain: 0.100 0.100 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2e-9
#waveform: ricker 1 1.5e9 pulse
#hertzian_dipole: z 0.050 0.060 0 pulse
#rx: 0.064 0.060 0
#rx: 0.050 0.030 0'
boxes='#box: 0 0 0 0.100 0.040 0.002 ground
#box: 0.020 0.010 0 0.050 0.030 0.002 res
#box: 0.060 0.010 0 0.080 0.030 0.002 plasma'
printf '%s\n%s\n%s\n%s\n%s\n' "$common" '#material_from_database: local dry ground' \
    '#material_from_database: local res' '#material_from_database: local plasma' "$boxes" > db.in
printf '%s\n%s\n%s\n%s\n%s\n%s\n' "$common" '#material: 4.5 0.002 1.5 0 ground' '#material: 3 0.001 1 0 res' \
    '#add_dispersion_lorentz: 1 2.5 2e9 1e9 res' '#material: 2 0 1 0 plasma' \
    '#add_dispersion_drude: 1 1e9 1e9 plasma' > cmd.in
printf '%s\n' "$boxes" >> cmd.in
streamcl_run db.log db.in --no-tune
streamcl_run cmd.log cmd.in --no-tune
streamcl_run slab_cmd.log commands.in --no-tune
streamcl_run slab.log eccosorb_slab.in --no-tune
# refusals: each must name the input file and the line
refusals=0
refuse() { # WANT COMMAND: the command, line 8 of a model, refused with WANT in its message
    local want=$1 cmd=$2
    printf '%s\n%s\n' "$common" "$cmd" > bad.in
    if "$streamcl" fdtd bad.in > bad.log 2>&1; then
        echo "FAIL: '$cmd' was not refused"; refusals=$((refusals + 1)); return
    fi
    if ! grep -q "bad.in:8: #material_from_database: .*$want" bad.log; then
        echo "FAIL: '$cmd': message without bad.in:8 or '$want':"; cat bad.log; refusals=$((refusals + 1)); return
    fi
    echo "ok   refused '$cmd': $(head -1 bad.log)"
}
refuse "no material 'wet'" '#material_from_database: local wet'
refuse "model 'general' is not supported" '#material_from_database: local odd'
refuse "gprMax's installed databases" '#material_from_database: gpr concrete'
refuse "cannot read the database" '#material_from_database: nowhere dry'
refuse "reserved" '#material_from_database: local dry a+b'
printf '{"materials": {\n "x": [1, 2,,]}}\n' > broken.json
refuse "broken.json: line 2" '#material_from_database: broken x'

cd "$work/gprmax" || exit 2
start=$(date +%s)
gprmax_run slab.log eccosorb_slab.in
echo "gprMax 4.0.1 eccosorb_slab.in: $(( $(date +%s) - start )) s"

cd "$work" || exit 2
REFUSALS=$refusals gprmax_python - <<'PY'
import os
import sys
import h5py
import numpy as np
from gprmax_compare import COMPS
from tally import Tally
t = Tally("fdtd_gprmax_matdb", verbose=True)
g, o = h5py.File("gprmax/eccosorb_slab.h5", "r"), h5py.File("ours/eccosorb_slab.h5", "r")
for key in ("Iterations", "dt"):
    t.check(np.isclose(float(g.attrs[key]), float(o.attrs[key]), rtol=1e-12, atol=0),
            f"eccosorb_slab attribute {key}: gprMax {g.attrs[key]} ours {o.attrs[key]}")
# the example's receiver records Ex Ey Ez only: those, gprMax's measure
# (relative L2; a component near zero against 1e-3 of the strongest E)
for rx in g["rxs"]:
    have = [c for c in COMPS if c in g[f"rxs/{rx}"]]
    t.check(have == ["Ex", "Ey", "Ez"], f"eccosorb_slab {rx}: gprMax records {have}")
    peak = max(np.linalg.norm(np.asarray(g[f"rxs/{rx}/{c}"], float)) for c in have)
    for c in have:
        a, b = np.asarray(g[f"rxs/{rx}/{c}"], float), np.asarray(o[f"rxs/{rx}/{c}"], float)
        ok = a.shape == b.shape and np.all(np.isfinite(b))
        err = np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-3 * peak) if ok else np.inf
        t.check(err <= 0.02, f"eccosorb_slab.in (gprMax's example) {rx} {c}: relative L2 {err:.2e} "
                             f"(gprMax peak {np.max(np.abs(a)):.3e})")

def same(a, b, label):
    fa, fb = h5py.File(a, "r"), h5py.File(b, "r")
    t.check(sorted(fa["rxs"]) == sorted(fb["rxs"]), f"{label}: receivers {sorted(fa['rxs'])}")
    for rx in fa["rxs"]:
        for c in COMPS:
            x, y = np.asarray(fa[f"rxs/{rx}/{c}"]), np.asarray(fb[f"rxs/{rx}/{c}"])
            ok = x.shape == y.shape and np.all(np.isfinite(x)) and np.array_equal(x, y)
            t.check(ok, f"{label} {rx} {c}: bit for bit (peak {np.max(np.abs(x)):.3e})")

same("ours/eccosorb_slab.h5", "ours/commands.h5", "database entry vs #material + #add_dispersion_debye")
same("ours/db.h5", "ours/cmd.h5", "constant/Lorentz/Drude entries vs their commands")
d = np.asarray(h5py.File("ours/db.h5", "r")["rxs/rx2/Ez"])
t.check(np.max(np.abs(d)) > 0, f"the local-database model radiates (peak {np.max(np.abs(d)):.3e})")
t.check(os.environ["REFUSALS"] == "0", f"refusals with file:line and reason ({os.environ['REFUSALS']} failed)")
sys.exit(t.finish(least=25))
PY
