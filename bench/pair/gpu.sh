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
. bench/gpu-setup.sh || exit 1
RES=${OUT:+$OUT/pair}
RES=${RES:-build-gpu/pair-results}
mkdir -p "$RES"
DATA=build-gpu/lammps-trim/lammps/bench/data.rhodo
if [ ! -f "$DATA" ]; then
    mkdir -p build-gpu/lammps-trim
    tar -xJf .gpu/lammps-trim.tar.xz -C build-gpu/lammps-trim 2>/dev/null
    [ -f "$DATA" ] || DATA=$(find build-gpu/lammps-trim -name data.rhodo | head -1)
fi
if [ ! -f "$DATA" ]; then
    echo "bench/pair/gpu.sh: data.rhodo not found (.gpu/lammps-trim.tar.xz missing or without bench/): the rhodo input is missing" >&2
    exit 1
fi
SYS32="--data $DATA"; SYS256="--data $DATA --replicate 2,2,2"
export XDG_CACHE_HOME=$PWD/build-gpu/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RES/device.txt"
run() { # name, args...
    local name=$1; shift
    echo "== pair-bench $name: $*"
    timeout 300 "$STREAMCL" pair-bench "$@" 2>&1 | tee "$RES/$name.txt" | grep -v '^RESULT'
}
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
    line=$(grep '^RESULT' "$RES/$f.txt" 2>/dev/null) || { echo "| $f | failed | | | | | | | | | | | | |"; continue; }
    get() { echo "$line" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2; }
    echo "| $f ($(get atoms) atoms) | $(get precision) | $(get tally) | $(get force_ms) | $(get device_ms) | $(get list_build_dev_ms) | $(get set_atoms_host_ms) | $(get compute_host_ms) | $(get reduce_ms) | $(get reference_ms) | $(get force_err) | $(get ecoul_err) | $(get tpa)/$(get chunks)/$(get wg) | $(get prunes) |"
done | tee "$RES/table.md"
ratio() { python3 -c "print(f'{float(\"$2\")/float(\"$1\"):.3f}')" 2>/dev/null || echo "?"; }
f0=$(grep '^RESULT' "$RES/rhodo32k-mixed.txt" 2>/dev/null | tr ' ' '\n' | grep '^force_ms=' | cut -d= -f2)
f1=$(grep '^RESULT' "$RES/rhodo32k-mixed-tally.txt" 2>/dev/null | tr ' ' '\n' | grep '^force_ms=' | cut -d= -f2)
echo "energy+virial step / force-only step (32k mixed, force kernel time): $(ratio "$f0" "$f1") (goal <= 1.15)"
echo "Goals (issue 11, H200, 32k): force <= 0.10 ms/step, list build <= 1.0 ms device per rebuild, host <= 0.15 ms/step."
