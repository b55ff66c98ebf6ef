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
if [ -z "$STREAMCL" ]; then
    . bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
fi
dest=${OUT:+$OUT/lbm}
dest=${dest:-build-gpu/lbm}
mkdir -p "$dest/seed"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.mem --format=csv > "$dest/nvidia-smi.txt" 2>&1

echo "== sweep"
STREAMCL=$STREAMCL DEVICE=gpu MAX_SIDE=8192 UPDATES=2e10 MAX_STEPS=20000 REF_UPDATES=2e9 \
    SERIAL_UPDATES=2e8 PEAK_GBS=4253 PEAK_WHAT="clpeak float4 global bandwidth of the H200 (DESIGN.md)" \
    timeout 110 bash bench/lbm/bench.sh "$dest" > "$dest/sweep.log" 2>&1
tail -40 "$dest/sweep.log"

echo "== seed case: 1024^2, 20000 steps, files written"
p=$dest/seed/input_1024x1024.params
printf '1024\n1024\n20000\n1024\n0.1\n0.005\n1.85\n' > "$p"
# the classic benchmark's box obstacle: a block in the lower middle of the channel
awk 'BEGIN { for (y = 256; y < 512; y++) for (x = 384; x < 640; x++) print x, y, 1 }' \
    > "$dest/seed/obstacles_1024x1024.dat"
for st in fp32 fp16; do
    mkdir -p "$dest/seed/$st"
    timeout 30 "$STREAMCL" lbm "$p" "$dest/seed/obstacles_1024x1024.dat" --device gpu \
        --storage $st --out "$dest/seed/$st" > "$dest/seed/$st.log" 2>&1
    echo "-- $st (rc $?)"; grep -v '^lbm ' "$dest/seed/$st.log" | tail -8
done
# output files are big; keep the last lines only
for f in "$dest"/seed/*/final_state.dat; do [ -f "$f" ] && tail -3 "$f" > "$f.tail" && rm "$f"; done
