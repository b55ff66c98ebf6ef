#!/bin/bash
# The "cpu" force kind (half lists with coloured blocks vs full lists) next to
# the GPU-shaped "charmm" kind on the GPU machine, and the tuner's choice
# among all of them (issue 17). Run from the repository root:
#   bash bench/pair/cpu-kernel-gpu.sh
# Builds everything (bench/gpu-setup.sh), then `streamcl pair-bench` on
# rhodopsin (32,000 atoms, data.rhodo from .gpu/lammps-trim.tar.xz), mixed
# precision, 100 steps: each kind/list forced, then tuned (no forcing, fresh
# plan cache); prints a Markdown table. About a minute.
set -u
. bench/pair/rhodo-setup.sh cpu-kernel
# a plan cache of its own, empty: the tuned run below times every candidate
export XDG_CACHE_HOME=$PWD/build-gpu/cache-cpu-kernel
rm -rf "$XDG_CACHE_HOME"
PB_COMMON="--data $DATA --steps 100 --rebuild 10 --precision mixed --device gpu"
run() { pb_run "$@"; }
run charmm      --kernel charmm --no-reference
run cpu-half    --kernel cpu --lists 2 --no-reference
run cpu-full    --kernel cpu --lists 1 --no-reference
run cpu-half-tally --kernel cpu --lists 2 --tally --no-reference
run tuned       --profile

echo
echo "| run ($(date -u +%F), $DEV, rhodo 32k mixed) | kernel | lists | blocks/colours/launches | force ms/step | force RMS err vs double C |"
echo "|---|---|---|---|---|---|"
for f in charmm cpu-half cpu-full cpu-half-tally tuned; do
    grep -q '^RESULT' "$RES/$f.txt" 2>/dev/null || { echo "| $f | failed | | | | |"; continue; }
    get() { pb_get "$f" "$1"; }
    echo "| $f | $(get kernel) | $(get lists) | $(get blocks)/$(get colours)/$(get launches) | $(get force_ms) | $(get force_err) |"
done | tee "$RES/table.md"
echo "lists: 1 full, 2 half (cpu kind only); tuned = the plan the tuner chose among every kind, list and block."
