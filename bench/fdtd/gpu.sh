#!/bin/bash
# FDTD on the GPU machine (run from the repository root, bare H100/H200, < 4 min):
#   bash bench/fdtd/gpu.sh
# Builds streamcl (bench/gpu-setup.sh) and the CUDA peer (bench/fdtd/peer_yee.cu),
# then, in one run: free space + 10 CPML cells at 512^3 and 1024x1024x512, FP32,
# streamcl fdtd --bench with each kernel variant (separate H/E kernels, fused
# E/H), the CUDA peer at the same sizes (no CPML), the device copy bandwidth,
# the C/OpenMP reference on all host cores and PoCL on the same cores (256^3).
# Cell updates per second from wall time over the steps (after a warm-up, the
# tuner's runs included before it); table last. Results go to $OUT/fdtd/.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=${OUT:+$OUT/fdtd}
dest=${dest:-build-gpu/fdtd}
mkdir -p "$dest"
threads=$(nproc)
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=cores
"$STREAMCL" devices 2>&1 | head -20 > "$dest/devices.txt"
dev=$(grep -m1 -i nvidia "$dest/devices.txt" | sed 's/^ *//' | cut -c1-60)
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }
rate() { grep -o '[0-9.]* Gcells/s' "$1" | tail -1 | cut -d' ' -f1; }
gbs() { grep -o '[0-9.]* GB/s' "$1" | tail -1; }

echo "== CUDA peer (straightforward separate H/E kernels) + copy bandwidth"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o build-gpu/peer_yee bench/fdtd/peer_yee.cu > "$dest/peer_build.log" 2>&1; then
    for s in "512 512 512" "1024 1024 512"; do
        timeout 60 build-gpu/peer_yee $s 20 | tee -a "$dest/peer.txt"
    done
else
    echo "peer not built (see peer_build.log)" | tee "$dest/peer.txt"
fi
copy=$(grep -o 'copy_bandwidth: [0-9]*' "$dest/peer.txt" | head -1 | awk '{print $2}')

for s in "512 512 512" "1024 1024 512"; do
    tag=$(echo $s | tr ' ' x)
    for k in separate fused; do
        f="$dest/cl_${tag}_$k.txt"
        echo "== streamcl fdtd --bench $s --kernel $k (FP32, CPML 10)"
        timeout 90 "$STREAMCL" fdtd --bench $s --steps 50 --pml 10 --kernel $k --device gpu 2>&1 | tee "$f"
        r=$(rate "$f")
        frac=""
        [ -n "$r" ] && [ -n "$copy" ] && frac=$(awk -v g="$(gbs "$f" | cut -d' ' -f1)" -v c="$copy" 'BEGIN { printf "%.2f", g / c }')
        row "streamcl fdtd $k FP32 $tag, CPML 10" "${r:-fail} Gcells/s ($(gbs "$f"), ${frac:-?} of copy)" "$dev" "streamcl fdtd --bench $s --steps 50 --pml 10 --kernel $k"
    done
    p=$(grep "peer_yee $s:" "$dest/peer.txt" | grep -o '[0-9.]* Gcells/s')
    row "CUDA peer (separate H/E, 72 B/cell) $tag, no CPML" "${p:-fail}" "$dev" "build-gpu/peer_yee $s 20"
done
row "device copy bandwidth" "${copy:-?} GB/s" "$dev" "peer_yee (cudaMemcpy D2D)"

echo "== C/OpenMP reference, FP32, $threads threads, 256^3"
f="$dest/omp_256.txt"
timeout 60 "$STREAMCL" fdtd --bench 256 256 256 --steps 10 --pml 10 --engine omp --threads "$threads" 2>&1 | tee "$f"
row "C/OpenMP reference FP32 256^3, CPML 10" "$(rate "$f") Gcells/s" "$threads host cores" "streamcl fdtd --bench 256 256 256 --steps 10 --engine omp --threads $threads"
echo "== PoCL on the host cores, 256^3"
f="$dest/pocl_256.txt"
timeout 90 "$STREAMCL" fdtd --bench 256 256 256 --steps 10 --pml 10 --device cpu 2>&1 | tee "$f"
row "PoCL (OpenCL on the CPU) FP32 256^3, CPML 10" "$(rate "$f") Gcells/s" "$threads host cores" "streamcl fdtd --bench 256 256 256 --steps 10 --device cpu"

echo
echo "## fdtd on $(date -u +%F) ($dev)"
echo "| figure | value | device | command |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}" | tee "$dest/table.md"
