#!/bin/bash
# FDTD on the GPU machine (run from the repository root, bare H100/H200, < 4 min):
#   bash bench/fdtd/gpu.sh
# Builds streamcl (bench/gpu-setup.sh) and the CUDA peer (bench/fdtd/peer_yee.cu),
# then, in one run: free space + 10 CPML cells at 512^3 and 1024x1024x512, FP32,
# streamcl fdtd --bench with each kernel variant (separate H/E kernels, fused
# E/H), the CUDA peer at the same sizes (no CPML), the device copy bandwidth,
# the C/OpenMP reference on all host cores and PoCL on the same cores (256^3);
# fused also without CPML (what the CPML slab passes cost); the peer prints its
# one-thread-per-cell and 2.5D launches, the best is its figure.
# Cell updates per second from wall time over the steps (after a warm-up and
# the tuner's runs); table last. Results go to $OUT/fdtd/.
# For a dry run elsewhere: STREAMCL=build/streamcl SIZES="48x40x32" DEVICE=cpu CPU_SIZE=32x32x32.
cd "$(dirname "$0")/../.." || exit 1
if [ -z "${STREAMCL:-}" ]; then
    # shellcheck source=bench/gpu-setup.sh
    . bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
fi
sizes=${SIZES:-512x512x512 1024x1024x512}
device=${DEVICE:-gpu}
cpu_size=${CPU_SIZE:-256x256x256}
dest=${OUT:+$OUT/fdtd}
dest=${dest:-build-gpu/fdtd}
mkdir -p "$dest" build-gpu
threads=$(nproc)
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=cores
"$STREAMCL" devices > "$dest/devices.txt" 2>&1
dev=$(grep -m1 -i nvidia "$dest/devices.txt" | sed 's/^ *//' | cut -c1-60)
dev=${dev:-$device}
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }
rate() { grep -o '[0-9.]* Gcells/s' "$1" | tail -1 | cut -d' ' -f1; }
gbs() { grep -o '[0-9.]* GB/s' "$1" | tail -1 | cut -d' ' -f1; }

echo "== CUDA peer (straightforward separate H/E kernels) + copy bandwidth"
: > "$dest/peer.txt"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o build-gpu/peer_yee bench/fdtd/peer_yee.cu > "$dest/peer_build.log" 2>&1; then
    for tag in $sizes; do
        IFS=x read -r nx ny nz <<< "$tag"
        timeout 60 build-gpu/peer_yee "$nx" "$ny" "$nz" 20 | tee -a "$dest/peer.txt"
    done
else
    echo "peer not built (no nvcc, or see peer_build.log)" | tee "$dest/peer.txt"
fi
copy=$(grep -o 'copy_bandwidth: [0-9]*' "$dest/peer.txt" | head -1 | awk '{print $2}')

for tag in $sizes; do
    IFS=x read -r nx ny nz <<< "$tag"
    for k in separate fused; do
        f="$dest/cl_${tag}_$k.txt"
        echo "== streamcl fdtd --bench $nx $ny $nz --kernel $k (FP32, CPML 10)"
        timeout 90 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 50 --pml 10 --kernel "$k" \
            --device "$device" 2>&1 | tee "$f"
        r=$(rate "$f") g=$(gbs "$f") frac="?"
        [ -n "$g" ] && [ -n "$copy" ] && frac=$(awk -v g="$g" -v c="$copy" 'BEGIN { printf "%.2f", g / c }')
        row "streamcl fdtd $k FP32 $tag, CPML 10" "${r:-fail} Gcells/s (${g:-?} GB/s modelled, $frac of copy)" \
            "$dev" "streamcl fdtd --bench $nx $ny $nz --steps 50 --pml 10 --kernel $k"
    done
    # the same without CPML: what the CPML slab passes cost
    f="$dest/cl_${tag}_fused_nopml.txt"
    echo "== streamcl fdtd --bench $nx $ny $nz --kernel fused --pml 0"
    timeout 90 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 50 --pml 0 --kernel fused \
        --device "$device" 2>&1 | tee "$f"
    r=$(rate "$f") g=$(gbs "$f") frac="?"
    [ -n "$g" ] && [ -n "$copy" ] && frac=$(awk -v g="$g" -v c="$copy" 'BEGIN { printf "%.2f", g / c }')
    row "streamcl fdtd fused FP32 $tag, no CPML" "${r:-fail} Gcells/s (${g:-?} GB/s modelled, $frac of copy)" \
        "$dev" "streamcl fdtd --bench $nx $ny $nz --steps 50 --pml 0 --kernel fused"
    p=$(grep "peer_yee $nx $ny $nz:" "$dest/peer.txt" | grep -o '[0-9.]* Gcells/s')
    row "CUDA peer (separate H/E, 72 B/cell, best of 3D and 2.5D launches) $tag, no CPML" "${p:-not run}" "$dev" "build-gpu/peer_yee $nx $ny $nz 20"
done
row "device copy bandwidth (read + write)" "${copy:-?} GB/s" "$dev" "peer_yee (cudaMemcpy D2D, 2 GiB)"

IFS=x read -r nx ny nz <<< "$cpu_size"
echo "== C/OpenMP reference, FP32, $threads threads, $cpu_size"
f="$dest/omp.txt"
timeout 60 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 10 --pml 10 --engine omp \
    --threads "$threads" 2>&1 | tee "$f"
omp=$(rate "$f")
row "C/OpenMP reference FP32 $cpu_size, CPML 10" "${omp:-fail} Gcells/s" "$threads host cores" \
    "streamcl fdtd --bench $nx $ny $nz --steps 10 --engine omp --threads $threads"
for k in separate fused; do
    echo "== PoCL on the host cores, $cpu_size, $k"
    f="$dest/pocl_$k.txt"
    timeout 90 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 10 --pml 10 --kernel "$k" \
        --device cpu 2>&1 | tee "$f"
    r=$(rate "$f") ratio="?"
    [ -n "$r" ] && [ -n "$omp" ] && ratio=$(awk -v a="$r" -v b="$omp" 'BEGIN { printf "%.2f", a / b }')
    row "PoCL FP32 $k $cpu_size, CPML 10" "${r:-fail} Gcells/s (${ratio}x the OpenMP reference)" \
        "$threads host cores" "streamcl fdtd --bench $nx $ny $nz --steps 10 --kernel $k --device cpu"
done

echo
echo "## fdtd on $(date -u +%F) ($dev)"
echo "| figure | value | device | command |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}" | tee "$dest/table.md"
