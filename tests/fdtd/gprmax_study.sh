#!/bin/bash
# #study: gpr FILE.csv (gprMax 4's table of cases, one trace each):
#   cylinder_Bscan_2D_study.in   gprMax's own example, unchanged, with its CSV
#                         cut to the first NTRACES cases (default 3 of 60, for
#                         CI time), run by gprMax 4.0.1 and by streamcl fdtd
#                         (the cases as the traces of one process): each
#                         trace file's receiver within 2% relative L2, the
#                         source and receiver Positions of each case equal and
#                         its /study group's case attributes gprMax's
#   ours only             -n 2 runs the first 2 cases; --steps runs case 1
#                         alone; a receiver's own ID names it in the CSV
#   refusals              an unknown or unsupported column, an unknown object,
#                         a case leaving out a source, x_m without y_m z_m,
#                         a voltage source, #src_steps with a study: the
#                         input's or the CSV's file:line
# gprMax's venv and the example files: gprmax_lib.sh (never copied here).
#   gprmax_study.sh STREAMCL WORKDIR
. "$(dirname "$0")/gprmax_lib.sh"
gprmax_begin "$1" "$2" make
ntraces=${NTRACES:-3}
pkg=$("$py" -c "import gprMax, os; print(os.path.dirname(gprMax.__file__))")
ex=$pkg/_examples/gpr/basic
[ -f "$ex/cylinder_Bscan_2D_study.in" ] && [ -f "$ex/cylinder_Bscan_2D_study.csv" ] ||
    { echo "FAIL: the study example is not in the installed gprMax ($ex)"; exit 1; }
rm -rf "$work/gprmax" "$work/ours"
mkdir -p "$work/gprmax" "$work/ours"
for d in gprmax ours; do
    cp "$ex/cylinder_Bscan_2D_study.in" "$work/$d/"
    head -n $((1 + 2 * ntraces)) "$ex/cylinder_Bscan_2D_study.csv" > "$work/$d/cylinder_Bscan_2D_study.csv"
done
cd "$work/ours" || exit 2
streamcl_run study.log cylinder_Bscan_2D_study.in --no-tune
cat study.log
mkdir -p two one alias
cp cylinder_Bscan_2D_study.* two/
cp cylinder_Bscan_2D_study.* one/
(cd two && streamcl_run study.log cylinder_Bscan_2D_study.in -n 2 --no-tune) || exit 1
(cd one && streamcl_run study.log cylinder_Bscan_2D_study.in --steps 50 -o case1.h5) || exit 1
# a receiver's own ID as its object_id
sed 's/^#rx: \(.*\) inf$/#rx: \1 inf probe/' cylinder_Bscan_2D_study.in > alias/cylinder_Bscan_2D_study.in
sed 's/,rx_1,/,probe,/' cylinder_Bscan_2D_study.csv > alias/cylinder_Bscan_2D_study.csv
(cd alias && streamcl_run study.log cylinder_Bscan_2D_study.in --no-tune) || exit 1
# refusals, each with the file and line that says why
bad=0
refuse() { # FILE:LINE WANT CSV-TEXT [SED-ON-THE-INPUT]
    local where=$1 want=$2 csv=$3 edit=${4:-}
    rm -rf refuse && mkdir refuse
    printf '%b' "$csv" > refuse/cylinder_Bscan_2D_study.csv
    sed -e "$edit" cylinder_Bscan_2D_study.in > refuse/cylinder_Bscan_2D_study.in
    if (cd refuse && "$streamcl" fdtd cylinder_Bscan_2D_study.in > log 2>&1); then
        echo "FAIL: not refused: $want"; bad=$((bad + 1)); return
    fi
    if ! grep -q "$where.*$want" refuse/log; then
        echo "FAIL: message without '$where' and '$want':"; cat refuse/log; bad=$((bad + 1)); return
    fi
    echo "ok   refused: $(head -1 refuse/log)"
}
h='case_id,object_id,x_m,y_m,z_m\n'
refuse "study.csv:1:" "unsupported column 'colour'" 'case_id,object_id,colour\na,rx_1,red\n'
refuse "study.csv:2:" "column 'scale' is not supported" 'case_id,object_id,scale\na,hertzian_dipole_1,2\n'
refuse "study.csv:2:" "no object 'rx_2'" "${h}a,rx_2,0.1,0.1,0\n"
refuse "study.csv:2:" "given together" 'case_id,object_id,x_m\na,rx_1,0.1\n'
refuse "study.in:27:" "leaves out source hertzian_dipole_1" "${h}a,rx_1,0.1,0.1,0\n"
refuse "study.in:27:" "cannot manage a #voltage_source" "${h}a,rx_1,0.1,0.1,0\n" \
    's/^#hertzian_dipole: z \(.*\) my_ricker$/#voltage_source: z \1 50 my_ricker/'
refuse "study.in:27:" "give one" "${h}a,rx_1,0.1,0.1,0\n" '$a #src_steps: 0.002 0 0'
refuse "study.csv:2:" "outside" "${h}a,hertzian_dipole_1,0.5,0.1,0\n"

cd "$work/gprmax" || exit 2
start=$(date +%s)
gprmax_run study.log cylinder_Bscan_2D_study.in
echo "gprMax 4.0.1 study of $ntraces cases: $(( $(date +%s) - start )) s"

cd "$work" || exit 2
NTRACES=$ntraces BAD=$bad gprmax_python - <<'PY'
import os
import sys
import h5py
import numpy as np
from gprmax_compare import compare
from tally import Tally
t = Tally("fdtd_gprmax_study", verbose=True)
n = int(os.environ["NTRACES"])
for k in range(1, n + 1):
    name = f"cylinder_Bscan_2D_study{k}.h5"
    if not t.check(os.path.exists(f"ours/{name}"), f"ours/{name} written"):
        continue
    g, o = h5py.File(f"gprmax/{name}", "r"), h5py.File(f"ours/{name}", "r")
    t.check(g["study"].attrs["CaseIndex"] == k, f"gprMax's {name} is case {g['study'].attrs['CaseIndex']}")
    for key in ("Type", "CaseID", "CaseIndex", "CaseCount"):
        gv, ov = g["study"].attrs[key], o["study"].attrs[key] if "study" in o else None
        t.check(ov is not None and str(gv) == str(ov), f"case {k} /study {key}: gprMax {gv} ours {ov}")
    t.check("study" in o and os.path.basename(str(o["study"].attrs["SourcePath"])) == "cylinder_Bscan_2D_study.csv",
            f"case {k} /study SourcePath")
    for grp in ("srcs/src1", "rxs/rx1"):
        pg, po = np.asarray(g[grp].attrs["Position"]), np.asarray(o[grp].attrs["Position"])
        t.check(np.allclose(pg, po, rtol=0, atol=1e-9), f"case {k} {grp} Position gprMax {pg} ours {po}")
    compare(t, g, o, f"case {k}")
    a = h5py.File(f"ours/alias/{name}", "r")
    t.check(np.array_equal(np.asarray(a["rxs/rx1/Ez"]), np.asarray(o["rxs/rx1/Ez"])),
            f"case {k}: the receiver named by its own ID moves alike")
t.check(sorted(f for f in os.listdir("ours/two") if f.endswith(".h5")) ==
        ["cylinder_Bscan_2D_study1.h5", "cylinder_Bscan_2D_study2.h5", "cylinder_Bscan_2D_study_merged.h5"],
        f"-n 2: the first two cases ({sorted(os.listdir('ours/two'))})")
c1 = h5py.File("ours/one/case1.h5", "r")
ez = np.asarray(c1["rxs/rx1/Ez"])
ref = np.asarray(h5py.File("ours/cylinder_Bscan_2D_study1.h5", "r")["rxs/rx1/Ez"])[:50]
t.check(ez.shape == (50,) and np.array_equal(ez, ref), "--steps 50: case 1 alone, its first 50 steps")
t.check(os.environ["BAD"] == "0", f"refusals with file:line and reason ({os.environ['BAD']} failed)")
sys.exit(t.finish(least=17 * n))
PY
