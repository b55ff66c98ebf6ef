#!/bin/bash
# lbm on the GPU machine (run from the repository root, bare H100/H200):
#   export STREAMCL_GPU_CMAKE_ARGS="-DSTREAMCL_MODULES=lbm"; . bench/gpu-setup.sh
#   bash bench/lbm/gpu.sh
# 1. the sweep (bench/lbm/bench.sh): OpenCL fp32/fp16, two lattices and in place,
#    128^2..8192^2, against the C OpenMP reference on all host cores (serial up
#    to 1024^2) in the same run; bandwidth fraction of the clpeak anchor
#    4253 GB/s (bench/RESULTS.md, DESIGN.md);
# 2. the seed's case: 1024^2, 20,000 steps, with av_vels.dat/final_state.dat
#    (seed report: 13.32 s on a K20m), fp32 and fp16.
# Results go to $OUT/lbm (or build-gpu/lbm).
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest lbm)
mkdir -p "$dest/seed"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.mem --format=csv > "$dest/nvidia-smi.txt" 2>&1

echo "== sweep"
STREAMCL=$STREAMCL DEVICE=gpu MAX_SIDE=8192 UPDATES=1e10 MAX_STEPS=20000 REF_UPDATES=5e8 \
    SERIAL_UPDATES=2e7 PEAK_GBS=4253 PEAK_WHAT="clpeak float4 global bandwidth of the H200 (DESIGN.md)" \
    timeout 110 bash bench/lbm/bench.sh "$dest" > "$dest/sweep.log" 2>&1
tail -40 "$dest/sweep.log"

echo "== seed case: 1024^2, 20000 steps, files written"
p=$dest/seed/input_1024x1024.params
printf '1024\n1024\n20000\n1024\n0.1\n0.005\n1.85\n' > "$p"
# a channel (walls on rows 0 and 1023) with a box in its lower middle, after
# the classic benchmark's obstacle files (not available here); without walls
# the accelerated flow runs away to NaN before step 10^4
awk 'BEGIN { for (x = 0; x < 1024; x++) { print x, 0, 1; print x, 1023, 1 }
             for (y = 256; y < 512; y++) for (x = 384; x < 640; x++) print x, y, 1 }' \
    > "$dest/seed/obstacles_1024x1024.dat"
for st in fp32 fp16 fp32-aa; do
    mkdir -p "$dest/seed/$st"
    streaming=()
    [ "${st#*-}" = aa ] && streaming=(--inplace)
    timeout 30 "$STREAMCL" lbm "$p" "$dest/seed/obstacles_1024x1024.dat" --device gpu \
        --storage "${st%-aa}" "${streaming[@]}" --out "$dest/seed/$st" \
        > "$dest/seed/$st.log" 2>&1
    echo "-- $st (rc $?)"; grep -v '^lbm ' "$dest/seed/$st.log" | tail -7
    tail -1 "$dest/seed/$st/av_vels.dat"
done
# output files are big; keep the last lines only
for f in "$dest"/seed/*/final_state.dat; do [ -f "$f" ] && tail -3 "$f" > "$f.tail" && rm "$f"; done

echo "== 4096^2 work-group shapes (fixed, not tuned) and device kernel time"
printf '4096\n4096\n1000\n4096\n0.1\n0.005\n1.85\n' > "$dest/p4096"
for st in fp32 fp16; do
    for wg in lx=32,ly=4 lx=64,ly=2 lx=128,ly=1 lx=256,ly=1 lx=32,ly=8; do
        m=$(timeout 20 "$STREAMCL" lbm "$dest/p4096" "$dest/inputs/lbm_4096.obstacles" --device gpu \
            --storage $st --force "$wg" --no-output --warmup 50 --steps 500 2>&1 | awk '/^MLUPS/ { print $NF }')
        echo "$st $wg: $m MLUPS"
    done
done | tee "$dest/shapes.txt"
STREAMCL_PROFILE=1 timeout 20 "$STREAMCL" lbm "$dest/p4096" "$dest/inputs/lbm_4096.obstacles" \
    --device gpu --storage fp16 --no-output --warmup 50 --steps 500 2>&1 | grep -v '^lbm ' | tail -12
