#!/bin/bash
# lj/charmm/coul/long engine on the GPU machine (bare NVIDIA H100/H200, 16 cores).
# Run from the repository root:  bash bench/pair/gpu.sh
# Builds everything (bench/gpu-setup.sh), runs `streamcl pair-bench` on the
# rhodopsin system (32,000 atoms, bench/data.rhodo from .gpu/lammps-trim.tar.xz)
# and on it replicated 2x2x2 (256,000 atoms, like in.rhodo.scaled), in mixed
# precision (and double at 32k, and mixed with energy+virial on every step as
# rhodo's barostat needs), prints a table.
# Peer in the same run: the double C reference (OpenMP, 16 cores).
# Then rhodo 32k mixed on one OpenMP thread with device binning/packing and
# with --host-pack (host binning and packing): host time per step.
# Stops with an error when data.rhodo is not in .gpu/lammps-trim.tar.xz.
# PAIR_CTEST=1 also runs the module's tests on the GPU.
# Results go to $OUT/pair/ when $OUT is set. Takes about 2 minutes.
set -u
. bench/pair/rhodo-setup.sh pair
SYS32="--data $DATA"; SYS256="--data $DATA --replicate 2,2,2"
run() { pb_run "$@"; }
run rhodo32k-mixed  $SYS32  --steps 100 --rebuild 10 --precision mixed --profile
run rhodo32k-mixed-tally $SYS32 --steps 100 --rebuild 10 --precision mixed --tally --profile
run rhodo32k-double $SYS32  --steps 100 --rebuild 10 --precision double --tally
run rhodo256k-mixed $SYS256 --steps 100 --rebuild 10 --precision mixed --profile --no-reference
# host time per step on one core (LAMMPS runs the library with one OpenMP
# thread): device binning and packing (default) vs the host path
OMP_NUM_THREADS=1 run rhodo32k-mixed-1thread $SYS32 --steps 100 --rebuild 10 --precision mixed --tally --no-reference --profile
OMP_NUM_THREADS=1 run rhodo32k-mixed-1thread-hostpack $SYS32 --steps 100 --rebuild 10 --precision mixed --tally --no-reference --host-pack --profile
if [ "${PAIR_CTEST:-0}" = 1 ]; then
    echo "== tests on the GPU"
    timeout 300 ctest --test-dir build-gpu -R charmm --output-on-failure 2>&1 | tee "$RES/ctest.txt" | tail -8
fi

echo
echo "| system ($(date -u +%F)) | precision | tally | force ms/step | device ms/step (up+force+down) | list build device ms/rebuild | set_atoms host ms | host ms in compute | host-reduce ms/step | C reference ms (${OMP_NUM_THREADS} threads) | force RMS err | E_coul err | tpa/chunks/wg | prunes |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in rhodo32k-mixed rhodo32k-mixed-tally rhodo32k-double rhodo256k-mixed rhodo32k-mixed-1thread rhodo32k-mixed-1thread-hostpack; do
    grep -q '^RESULT' "$RES/$f.txt" 2>/dev/null || { echo "| $f | failed | | | | | | | | | | | | |"; continue; }
    get() { pb_get "$f" "$1"; }
    echo "| $f ($(get atoms) atoms) | $(get precision) | $(get tally) | $(get force_ms) | $(get device_ms) | $(get list_build_dev_ms) | $(get set_atoms_host_ms) | $(get compute_host_ms) | $(get reduce_ms) | $(get reference_ms) | $(get force_err) | $(get ecoul_err) | $(get tpa)/$(get chunks)/$(get wg) | $(get prunes) |"
done | tee "$RES/table.md"
f0=$(pb_get rhodo32k-mixed force_ms); f1=$(pb_get rhodo32k-mixed-tally force_ms)
echo "energy+virial step / force-only step (32k mixed, force kernel time): $(ratio "$f0" "$f1") (goal <= 1.15)"
echo "Goals (issue 11, H200, 32k): force <= 0.10 ms/step, list build <= 1.0 ms device per rebuild, host <= 0.15 ms/step."
