#!/bin/bash
# Shorter GPU run than gpu.sh: rhodo 32k mixed (tuned, with the device
# profile; without dynamic pruning; with 10x larger moves, which re-prune),
# 256k mixed, 32k double, a 32k water box in single, the charmm tests.
# Run from the repository root: bash bench/pair/gpu-diag.sh
set -u
. bench/pair/rhodo-setup.sh pair
export PB_TIMEOUT=120 PB_HIDE='^(RESULT|TIMING)|^ *$'
run() { PB_LINES=${LINES_MAX:-12} pb_run "$@"; }
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
