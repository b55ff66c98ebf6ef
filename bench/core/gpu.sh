#!/bin/bash
# The core on the GPU machine (repository root, bare H100/H200), one sitting:
# the "no slowdown" figures of the kernel-object/plan migration, with the
# commands of bench/RESULTS.md — reduction bandwidth (1 GiB float sum vs the
# buffer copy), LBM 4096^2 fp32 MLUPS, n-body 2^20 single interactions/s —
# and the host cost per kernel launch (raw OpenCL vs kernel object vs plan).
#   bash bench/core/gpu.sh          (prints a Markdown table last)
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest core)
export STREAMCL_CACHE_DIR=$PWD/build-gpu/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$dest/gpu.txt" 2>&1

"$STREAMCL" reduce --device gpu --mib 1024 --repeat 20 > "$dest/reduce.txt" 2>&1
red=$(grep -io "[0-9.]* GB/s" "$dest/reduce.txt" | head -2 | tr '\n' ' ')

SIZES=4096 MAX_SIDE=4096 VARIANTS="" UPDATES=1e10 MAX_STEPS=2000 REF_MAX=0 REF_UPDATES=0 \
    SERIAL_UPDATES=0 PEAK_GBS=4253 PEAK_WHAT="clpeak H200" STREAMCL=$STREAMCL DEVICE=gpu \
    timeout 120 bash bench/lbm/bench.sh "$dest/lbm" > "$dest/lbm.log" 2>&1
lbm=$(grep -m1 "4096" "$dest/lbm/table.md" 2>/dev/null | awk -F'|' '{print $6}')

timeout 120 "$STREAMCL" nbody --n 1048576 --steps 5 --precision single --device gpu \
    > "$dest/nbody.txt" 2>&1
nb=$(grep -io "[0-9.e+]* interactions/s" "$dest/nbody.txt" | tail -1)

"$(dirname "$STREAMCL")/bench_launch_overhead" 20000 7 > "$dest/launch_gpu.txt" 2>&1
STREAMCL_DEVICE=cpu "$(dirname "$STREAMCL")/bench_launch_overhead" 20000 7 \
    > "$dest/launch_pocl.txt" 2>&1

echo "## core on $(cat "$dest/gpu.txt"), $(date -u +%F)"
echo "| figure | measured | command |"
echo "|---|---|---|"
echo "| reduction / copy GB/s | $red | streamcl reduce --mib 1024 --repeat 20 |"
echo "| LBM 4096^2 fp32 MLUPS | $lbm | bench/lbm/bench.sh SIZES=4096 |"
echo "| n-body 2^20 single | $nb | streamcl nbody --n 1048576 --steps 5 |"
echo
echo "launch overhead (bench_launch_overhead 20000 7), GPU:"
cat "$dest/launch_gpu.txt"
echo "PoCL on the GPU machine's host:"
cat "$dest/launch_pocl.txt"
echo "--- reduce"; tail -5 "$dest/reduce.txt"; echo "--- lbm"; tail -5 "$dest/lbm.log"
echo "--- nbody"; tail -6 "$dest/nbody.txt"
