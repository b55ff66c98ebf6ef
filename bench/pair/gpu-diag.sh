#!/bin/bash
# Shorter GPU run than gpu.sh: rhodo 32k mixed (tuned, with the device
# profile; without dynamic pruning; with 10x larger moves, which re-prune),
# 256k mixed, 32k double, a 32k water box in single, the charmm tests.
# Run from the repository root: bash bench/pair/gpu-diag.sh
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
export XDG_CACHE_HOME=$PWD/build-gpu/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RES/device.txt"
run() { # name, args...
    local name=$1; shift
    echo "== pair-bench $name: $*"
    timeout 120 "$STREAMCL" pair-bench "$@" > "$RES/$name.txt" 2>&1
    grep -v -e '^RESULT' -e '^TIMING' "$RES/$name.txt" | grep -v '^ *$' | head -${LINES_MAX:-12}
}
LINES_MAX=40 run r32-mixed --data "$DATA" --steps 100 --rebuild 10 --precision mixed --profile
run r32-mixed-noprune --data "$DATA" --steps 100 --rebuild 10 --precision mixed --inner-skin -1
run r32-mixed-move --data "$DATA" --steps 100 --rebuild 10 --precision mixed --displace 0.02
run r256-mixed --data "$DATA" --replicate 2,2,2 --steps 100 --rebuild 10 --precision mixed
run r32-double --data "$DATA" --steps 100 --rebuild 10 --precision double
run w32-single --atoms 32000 --steps 100 --rebuild 10 --precision single --no-reference
echo "== tests on the GPU"
timeout 200 ctest --test-dir build-gpu -R charmm --output-on-failure > "$RES/ctest.txt" 2>&1
grep -E "FAIL|forces|tests passed|Failed" "$RES/ctest.txt" | head -30
for f in "$RES"/r*.txt; do grep '^RESULT' "$f"; done
