#!/bin/bash
# lj/charmm/coul/long engine on the GPU machine (bare NVIDIA H100/H200, 16 cores).
# Run from the repository root:  bash bench/pair/gpu.sh
# Builds everything (bench/gpu-setup.sh), runs `streamcl pair-bench` on the
# rhodopsin system (32,000 atoms, bench/data.rhodo from .gpu/lammps-trim.tar.xz)
# and on it replicated 2x2x2 (256,000 atoms, like in.rhodo.scaled), in mixed
# precision (and double at 32k, and mixed without dynamic pruning), then the
# module's tests on the GPU, and prints a table. Peer in the same run: the double C reference (OpenMP, 16 cores).
# Then rhodo 32k mixed on one OpenMP thread with device packing and with
# STREAMCL_CHARMM_HOST_PACK=1 (host packing): host time inside scl_charmm_compute.
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
    echo "data.rhodo not found in .gpu/lammps-trim.tar.xz; using water boxes"
    SYS32="--atoms 32000"; SYS256="--atoms 256000"
else
    SYS32="--data $DATA"; SYS256="--data $DATA --replicate 2,2,2"
fi
export XDG_CACHE_HOME=$PWD/build-gpu/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RES/device.txt"
run() { # name, args...
    local name=$1; shift
    echo "== pair-bench $name: $*"
    timeout 300 "$STREAMCL" pair-bench "$@" 2>&1 | tee "$RES/$name.txt" | grep -v '^RESULT'
}
run rhodo32k-mixed  $SYS32  --steps 100 --rebuild 10 --precision mixed --profile
run rhodo32k-mixed-noprune $SYS32 --steps 100 --rebuild 10 --precision mixed --inner-skin -1
run rhodo32k-double $SYS32  --steps 100 --rebuild 10 --precision double
run rhodo256k-mixed $SYS256 --steps 100 --rebuild 10 --precision mixed
run water32k-single --atoms 32000 --steps 100 --rebuild 10 --precision single --no-reference
# host time inside scl_charmm_compute on one core (LAMMPS runs the library with
# one OpenMP thread): device packing (default) vs the host packing path
OMP_NUM_THREADS=1 run rhodo32k-mixed-1thread $SYS32 --steps 100 --rebuild 10 --precision mixed --no-reference
STREAMCL_CHARMM_HOST_PACK=1 OMP_NUM_THREADS=1 run rhodo32k-mixed-1thread-hostpack $SYS32 --steps 100 --rebuild 10 --precision mixed --no-reference
echo "== tests on the GPU"
timeout 300 ctest --test-dir build-gpu -R charmm --output-on-failure 2>&1 | tee "$RES/ctest.txt" | tail -8

echo
echo "| system | precision | force ms/step | device ms/step (up+force+down) | neighbor ms/step | host-reduce ms/step | C reference ms (${OMP_NUM_THREADS} threads) | force RMS err | E_coul err | tpa/chunks/wg | prunes | host ms in compute |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in rhodo32k-mixed rhodo32k-mixed-noprune rhodo32k-double rhodo256k-mixed water32k-single rhodo32k-mixed-1thread rhodo32k-mixed-1thread-hostpack; do
    line=$(grep '^RESULT' "$RES/$f.txt" 2>/dev/null) || { echo "| $f | failed | | | | | | | | | |"; continue; }
    get() { echo "$line" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2; }
    echo "| $f ($(get atoms) atoms) | $(get precision) | $(get force_ms) | $(get device_ms) | $(get neighbor_ms) | $(get reduce_ms) | $(get reference_ms) | $(get force_err) | $(get ecoul_err) | $(get tpa)/$(get chunks)/$(get wg) | $(get prunes) | $(get compute_host_ms) |"
done | tee "$RES/table.md"
echo "Goal (H200): force <= 0.10 ms/step at 32k, <= 0.6 ms at 256k; LAMMPS GPU package: 0.243 / 1.66 ms force, 0.55 ms device total at 32k."
