#!/bin/bash
# OpenMM on the rhodo system, on the bare GPU machine (no package registry),
# from the repository root:   bash bench/openmm/gpu.sh
# Needs, carried with the tree: .gpu/wheels/ (openmm-8.6.1 for the machine's
# python, openmm_cuda_13 for the CUDA platform, numpy if the image has none)
# and .gpu/device/ (registers NVIDIA's OpenCL), plus data.rhodo: $DATA, else
# taken out of .gpu/lammps-trim.tar.xz.
# Installs the wheels with pip --no-index into a private site directory (the
# image's python is itself a venv, so a nested venv would not see its numpy
# and CUDA libraries), then times 100 steps x 3 after a warm-up:
#   OpenCL mixed: NH thermostat + MC z barostat, LJ with CHARMM's switch
#   (the peer); the same with LangevinMiddle; the same with OpenMM's own LJ
#   switch (its fastest path; not LAMMPS's functional form), then CUDA alike
#   when the openmm_cuda wheel is there.
# Logs and the summary go to $OUT/openmm/ (OUT defaults to ./out).
# Env: STEPS (100), REPEAT (3), WARMUP (100 steps), VARIANTS (default "nh:custom langevin:custom nh:native"),
#      PLATFORMS (default "OpenCL CUDA"). About 2-3 minutes.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin openmm build-openmm-gpu
die() { stamp "$*" >&2; exit 1; }

[ -f .gpu/device/setup.sh ] && . .gpu/device/setup.sh
PY=${PYTHON:-python3}
PYTAG=$($PY -c 'import sys; print("cp%d%d" % sys.version_info[:2])') || die "no $PY"
stamp "$($PY --version 2>&1) ($PYTAG); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

SITE=$W/site-$PYTAG
if [ ! -d "$SITE/openmm" ]; then
  whl=$(ls .gpu/wheels/openmm-*-"$PYTAG"-*.whl 2>/dev/null | head -1)
  [ -n "$whl" ] || die "no .gpu/wheels/openmm-*-$PYTAG-*.whl for this python (have: $(ls .gpu/wheels 2>/dev/null | tr '\n' ' '))"
  set -- "$whl"
  if ! $PY -c 'import numpy' 2>/dev/null; then
    np=$(ls .gpu/wheels/numpy-*-"$PYTAG"-*.whl 2>/dev/null | head -1)
    [ -n "$np" ] || die "the image has no numpy and .gpu/wheels none for $PYTAG"
    set -- "$@" "$np"
  fi
  cuda=$(ls .gpu/wheels/openmm_cuda*.whl 2>/dev/null | head -1)
  [ -n "$cuda" ] && set -- "$@" "$cuda"
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "$@" \
    || die "pip install of $* failed"
fi
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
# The CUDA plugin looks for libcufft.so.12 and libnvrtc.so.13 beside its own
# site-packages; here they are in the image's nvidia-* packages.
for lib in libcufft.so.12 libnvrtc.so.13 libcudart.so.13; do
  d=$($PY - "$lib" <<'EOF'
import glob, os, site, sys
for p in site.getsitepackages() + [site.getusersitepackages()]:
    hits = glob.glob(os.path.join(p, 'nvidia', '**', sys.argv[1]), recursive=True)
    if hits:
        print(os.path.dirname(hits[0]))
        break
EOF
)
  [ -n "$d" ] && case ":${LD_LIBRARY_PATH:-}:" in *":$d:"*) ;; *) export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH};; esac
done
$PY -c 'import openmm as m; print("OpenMM", m.__version__, "platforms:", [m.Platform.getPlatform(i).getName() for i in range(m.Platform.getNumPlatforms())]); print("plugin load failures:", m.Platform.getPluginLoadFailures())' \
  2>&1 | tee "$OUTDIR/platforms.txt" || die "openmm does not import"

DATA=${DATA:-$(rhodo_data "$W")} || die "no data.rhodo: set DATA or carry .gpu/lammps-trim.tar.xz"

: > "$OUTDIR/summary.txt"
for plat in ${PLATFORMS:-OpenCL CUDA}; do
  if ! grep -q "'$plat'" "$OUTDIR/platforms.txt"; then
    stamp "platform $plat not available: skipped" | tee -a "$OUTDIR/summary.txt"; continue
  fi
  for v in ${VARIANTS:-nh:custom langevin:custom nh:native}; do
    integ=${v%%:*}; lj=${v#*:}
    log=$OUTDIR/$plat-$integ-$lj.log
    stamp "$plat $integ $lj"
    timeout "${RUN_TIMEOUT:-150}" $PY -u bench/openmm/rhodo_openmm.py --platform "$plat" \
      --precision mixed --steps "${STEPS:-100}" --repeat "${REPEAT:-3}" --warmup "${WARMUP:-100}" \
      --integrator "$integ" --lj "$lj" "$DATA" > "$log" 2>&1
    rc=$?
    grep -E '^(OpenMM|system|warm-up|run |after|RESULT)' "$log"
    [ $rc -eq 0 ] || { tail -20 "$log"; stamp "rc $rc"; }
    grep '^RESULT' "$log" >> "$OUTDIR/summary.txt" || echo "FAILED $plat $integ $lj rc $rc" >> "$OUTDIR/summary.txt"
  done
done
stamp "summary ($OUTDIR/summary.txt):"
cat "$OUTDIR/summary.txt"
