#!/bin/bash
# #add_surface_roughness against gprMax 4.0.1 (PyPI, --geometry-only):
#   rough.in  a 3D fractal box of a Peplinski soil (128 x 128 x 20 cells)
#             whose upper face is rough between 0.030 and 0.060 m (cells
#             15 to 30), both codes' geometry views read back:
#   - every column of soil contiguous from the bottom, its top at the
#     surface's height: the range's ends reached (top cell 14 .. 29) in ours
#     and within one cell of them in gprMax's (float32 heights there)
#   - the height map's statistics against gprMax's: radial power spectrum
#     slope (k 2 to 16) within 0.5 of gprMax's and of -2D = -3; mean height
#     within 15% of the range of gprMax's; spread within a factor 1.6
#   - the seed repeats the surface; another seed changes it
#   grass.in  #add_grass (300 blades, heights 0.050 to 0.070 m) on that kind
#             of rough face: grass cells above the face within 25% of
#             gprMax's (seen: 0.4%), roots within a factor 2 (seen: 1%), the
#             columns holding blades within 25%, the top cell within 2 of
#             gprMax's and below the upper limit (gprMax's grass material)
# The surfaces cannot match cell for cell: gprMax draws its noise from
# numpy's default_rng(seed), which this library does not reproduce (its own
# splitmix64 + Box-Muller), so the two are realisations of one statistics.
# gprMax's venv: $GPRMAX_VENV (default /var/cache/streamcl/venv-gprmax),
# made when missing; skipped (exit 77) when PyPI cannot be reached to make
# it, unless CI=true (then a failure).
#   gprmax_rough.sh STREAMCL WORKDIR
streamcl=$1
work=$2
[ -x "$streamcl" ] && [ -n "$work" ] || { echo "usage: $0 STREAMCL WORKDIR"; exit 2; }
venv=${GPRMAX_VENV:-/var/cache/streamcl/venv-gprmax}
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
py=$venv/bin/python
if ! "$py" -c "import gprMax, h5py, numpy" 2>/dev/null; then
    if ! timeout 60 python3 -m pip download --no-deps -d "$work/probe" gprMax==4.0.1 \
            > "$work/probe.log" 2>&1; then
        if [ "${CI:-}" = true ]; then
            echo "FAIL: gprMax is not in $venv, PyPI is unreachable and CI=true"; exit 1
        fi
        echo "SKIP: gprMax is not in $venv and PyPI is unreachable ($(tail -1 "$work/probe.log"))"
        exit 77
    fi
    python3 -m venv "$venv" || { echo "FAIL: python3 -m venv $venv"; exit 1; }
    if ! timeout 1500 "$venv/bin/pip" install -q gprMax==4.0.1 h5py > "$work/install.log" 2>&1; then
        echo "FAIL: pip install gprMax==4.0.1 into $venv"; tail -20 "$work/install.log"; exit 1
    fi
fi
rm -rf "$work/gprmax" "$work/ours"
mkdir -p "$work/gprmax" "$work/ours"
cd "$work/gprmax" || exit 2
cat > rough.in <<'IN'
#title: rough upper face of a fractal soil
#domain: 0.256 0.256 0.080
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2
#pml_cells: 0
#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 mysoil
#fractal_box: 0 0 0 0.256 0.256 0.040 1.5 1 1 1 20 mysoil fbox 7
#add_surface_roughness: 0 0 0.040 0.256 0.256 0.040 1.5 1 1 0.030 0.060 fbox 9
#geometry_view: 0 0 0 0.256 0.256 0.080 0.002 0.002 0.002 rough_view n
IN
cat > grass.in <<'IN'
#title: grass on a rough fractal soil
#domain: 0.128 0.128 0.080
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2
#pml_cells: 0
#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 mysoil
#fractal_box: 0 0 0 0.128 0.128 0.040 1.5 1 1 1 20 mysoil fbox 7
#add_surface_roughness: 0 0 0.040 0.128 0.128 0.040 1.5 1 1 0.036 0.044 fbox 9
#add_grass: 0 0 0.040 0.128 0.128 0.040 1.5 0.050 0.070 300 fbox 5
#geometry_view: 0 0 0 0.128 0.128 0.080 0.002 0.002 0.002 grass_view n
IN
cp rough.in grass.in "$work/ours/"
sed 's/ fbox 9$/ fbox 9/; s/rough_view n/rough_again n/' rough.in > "$work/ours/rough_again.in"
sed 's/ fbox 9$/ fbox 10/; s/rough_view n/rough_seed10 n/' rough.in > "$work/ours/rough_seed10.in"
for m in rough grass; do
    if ! OMP_NUM_THREADS=2 "$py" -m gprMax $m.in --geometry-only > $m.log 2>&1; then
        echo "FAIL: gprMax $m.in"; tail -20 $m.log; exit 1
    fi
done
cd "$work/ours" || exit 2
for m in rough rough_again rough_seed10 grass; do
    if ! "$streamcl" fdtd $m.in --no-tune > $m.log 2>&1; then
        echo "FAIL: streamcl fdtd $m.in"; cat $m.log; exit 1
    fi
done
cd "$work" || exit 2
"$py" - <<'PY'
import sys
import h5py
import numpy as np
passed = failed = 0
def check(ok, what):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}")

def tops(path):
    """The top soil cell of each column (x, y) and whether all columns are
    contiguous soil from z = 0 up to it."""
    f = h5py.File(path, "r")
    mat = f["VTKHDF/CellData/Material"][()]          # (z, y, x)
    names = [x.decode() if isinstance(x, bytes) else str(x) for x in f["VTKHDF/FieldData/material_ids"][()]]
    soil = np.isin(mat, [q for q, n in enumerate(names) if n.startswith("|")])
    count = soil.sum(axis=0)
    top = count - 1
    contiguous = np.all(soil == (np.arange(mat.shape[0])[:, None, None] <= top[None]))
    return top.astype(float), contiguous

def stats(t):
    a = t - t.mean()
    P = np.abs(np.fft.fft2(a))**2
    ky, kx = np.meshgrid(np.fft.fftfreq(a.shape[0]) * a.shape[0], np.fft.fftfreq(a.shape[1]) * a.shape[1],
                         indexing="ij")
    K = np.hypot(kx, ky)
    ks = np.arange(2, 17)
    p = [P[(K >= k - 0.5) & (K < k + 0.5)].mean() for k in ks]
    return np.polyfit(np.log(ks), np.log(p), 1)[0], t.mean(), t.std(), t.min(), t.max()

(gt, gc), (ot, oc) = tops("gprmax/rough_view.vtkhdf"), tops("ours/rough_view.vtkhdf")
gs, os_ = stats(gt), stats(ot)
print(f"     height (slope, mean, std, min, max) in cells: gprMax {np.round(gs, 2)} ours {np.round(os_, 2)}")
check(oc and gc, f"soil columns contiguous from the bottom (ours {oc}, gprMax {gc})")
check(os_[3] == 14 and os_[4] == 29 and abs(gs[3] - 14) <= 1 and abs(gs[4] - 29) <= 1,
      f"top cells span the range: ours {os_[3]:.0f}..{os_[4]:.0f}, gprMax {gs[3]:.0f}..{gs[4]:.0f} (14..29)")
check(abs(os_[0] - gs[0]) <= 0.5 and abs(os_[0] + 3) <= 0.5,
      f"height spectrum slope: ours {os_[0]:.2f}, gprMax {gs[0]:.2f} (-2D = -3)")
check(abs(os_[1] - gs[1]) <= 0.15 * 15 and 1 / 1.6 <= os_[2] / gs[2] <= 1.6,
      f"height mean {os_[1]:.1f} (gprMax {gs[1]:.1f}), spread {os_[2]:.2f} (gprMax {gs[2]:.2f})")
at, _ = tops("ours/rough_again.vtkhdf")
st, _ = tops("ours/rough_seed10.vtkhdf")
check(np.array_equal(at, ot) and np.sum(st != ot) > 1000,
      f"the seed repeats the surface; another seed moves {int(np.sum(st != ot))} columns")
def grass(path):
    """Grass cells above the face (z >= 20 cells), below it (roots), the
    highest, and the columns that hold blades."""
    f = h5py.File(path, "r")
    mat = f["VTKHDF/CellData/Material"][()]
    names = [x.decode() if isinstance(x, bytes) else str(x) for x in f["VTKHDF/FieldData/material_ids"][()]]
    g = mat == names.index("grass") if "grass" in names else np.zeros_like(mat, bool)
    z = np.nonzero(g.any(axis=(1, 2)))[0]
    return (int(g[20:].sum()), int(g[:20].sum()), int(z.max()) if len(z) else -1,
            int(g[22:].any(axis=0).sum()))
gg, og = grass("gprmax/grass_view.vtkhdf"), grass("ours/grass_view.vtkhdf")
print(f"     grass (cells above the face, roots, top cell, blade columns): gprMax {gg} ours {og}")
check(og[0] > 0 and 0.75 <= og[0] / max(gg[0], 1) <= 1.33 and 0.5 <= og[1] / max(gg[1], 1) <= 2
      and 0.75 <= og[3] / max(gg[3], 1) <= 1.33 and abs(og[2] - gg[2]) <= 2 and og[2] <= 34,
      f"grass against gprMax's: blade cells {og[0]} ({gg[0]}), roots {og[1]} ({gg[1]}), "
      f"top {og[2]} ({gg[2]}; limit 34), blade columns {og[3]} ({gg[3]})")
print(f"fdtd_gprmax_rough: {passed} passed, {failed} failed")
sys.exit(1 if failed or passed < 6 else 0)
PY
