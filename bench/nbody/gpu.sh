#!/bin/bash
# n-body on the GPU machine (run from the repository root, bare H100/H200):
#   bash bench/nbody/gpu.sh
# Builds streamcl (bench/gpu-setup.sh), then for N = 2^12 .. 2^20: the OpenCL
# kernel in single precision (and double up to 2^18) with the tuned plan, the
# C/OpenMP reference on the 16 host cores (up to 2^16), and the peer: a CUDA
# GPU Gems 3 style tiled kernel (bench/nbody/peer_tiled.cu) at 2^18..2^20 in
# the same run. Kernel times are OpenCL/CUDA events, medians after warm-up
# (the tuner's runs warm up the OpenCL kernel). Results go to $OUT/nbody/.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest nbody)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
"$STREAMCL" devices 2>&1 | head -20 > "$dest/devices.txt"

echo "== peer: CUDA tiled kernel (GPU Gems 3 algorithm, own code)"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o build-gpu/peer_tiled bench/nbody/peer_tiled.cu > "$dest/peer_build.log" 2>&1; then
    timeout 60 build-gpu/peer_tiled 18 19 20 | tee "$dest/peer.txt"
else
    echo "peer not built (see peer_build.log)" | tee "$dest/peer.txt"
fi

echo "== streamcl nbody sweep"
LOG2_MIN=12 LOG2_MAX=20 DOUBLE_LOG2_MAX=18 REF_LOG2_MAX=16 DEVICE=gpu TARGET_INTERACTIONS=1e12 \
    timeout 240 bash bench/nbody/bench.sh "$dest" | tee "$dest/table.txt"

echo "== one energy-conservation run on the GPU (Plummer 2^16, 100 steps)"
timeout 60 "$STREAMCL" nbody --n 65536 --steps 100 --dt 1e-3 --eps 0.01 --device gpu \
    --png "$dest/plummer.png" 2>&1 | tee "$dest/plummer.txt"

echo "== peer (CUDA tiled, same run)"
cat "$dest/peer.txt"
