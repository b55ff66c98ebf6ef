#!/bin/bash
# Several GPUs per node, on the 2-GPU machine, from the repository root:
#   bash bench/rhodo/gpu2.sh
# in.rhodo.scaled 2x2x2 (256k atoms), 8 ranks: ocl with the ranks on 2 GPUs
# (STREAMCL_GPUS=2, node-local round robin) vs on 1 GPU (STREAMCL_GPUS=1), and
# the GPU package on 2 GPUs (-pk gpu 2 pair/only on) as the peer. Goal (issue
# 11): 2 GPUs <= 0.6x the loop time on 1 GPU. Builds as bench/rhodo/gpu.sh does
# (stops when the LAMMPS tarball or rhodo inputs are missing). About 4 minutes.
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin rhodo2
stamp "builds"
rhodo_build
gpu_info index,name,memory.total "$OUTDIR/gpu.txt"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 2 ] || stamp "warning: $ngpu GPU(s) visible; the 2-GPU runs share what there is"
export RUN_TIMEOUT=${RUN_TIMEOUT:-200}
unset STREAMCL_DEVICE   # the style spreads ranks over the GPUs itself
NPR=${NPR:-8}
for g in 1 2; do
  stamp "ocl, $NPR ranks, STREAMCL_GPUS=$g"
  STREAMCL_GPUS=$g RUN_TAG=gpus$g SCALE=2 RUNS="ocl:$NPR" bash bench/rhodo/run.sh "$W/rhodo2-gpus$g" ||
    { stamp "ocl runs failed"; exit 1; }
done
stamp "GPU package, $NPR ranks on 2 GPUs"
SCALE=2 RUNS="gpu2:$NPR" bash bench/rhodo/run.sh "$W/rhodo2-gpupkg" || stamp "GPU package run failed"
for t in rhodo2-gpus1 rhodo2-gpus2 rhodo2-gpupkg; do
  [ -f "$W/$t/rhodo.md" ] && cp "$W/$t/rhodo.md" "$OUTDIR/$t.md"
  copy_logs "$W/$t" "$OUTDIR/logs"
done
# "loop Pair" of a run folder's first log
first_rows() { local f; f=$(ls "$W/$1"/*/log.lammps 2>/dev/null | head -1); [ -n "$f" ] && log_rows "$f" Pair || echo "- -"; }
read -r l1 p1 <<< "$(first_rows rhodo2-gpus1)"; read -r l2 p2 <<< "$(first_rows rhodo2-gpus2)"
read -r lg pg <<< "$(first_rows rhodo2-gpupkg)"
ratio=$(ratio "$l1" "$l2")
stamp "done"
grep -h "^Device [0-9]" "$W"/rhodo2-gpus2/*/log.lammps "$W"/rhodo2-gpus2/*/screen.txt 2>/dev/null | sort -u
echo
echo "| rhodo.scaled 2x2x2 (256k), $NPR ranks, $(date -u +%F) | loop s | Pair s |"
echo "|---|---|---|"
echo "| ocl, 1 GPU (STREAMCL_GPUS=1) | $l1 | $p1 |"
echo "| ocl, 2 GPUs (STREAMCL_GPUS=2) | $l2 | $p2 |"
echo "| GPU package, 2 GPUs (-pk gpu 2 pair/only on) | $lg | $pg |"
echo "| ocl 2 GPUs / 1 GPU (goal <= 0.6) | $ratio | |"
