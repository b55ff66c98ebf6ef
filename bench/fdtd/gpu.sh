#!/bin/bash
# FDTD on the GPU machine (run from the repository root, bare H100/H200; about
# 90 s with the build):
#   bash bench/fdtd/gpu.sh
# Builds only the streamcl command (build-gpu, bench/gpu-setup.sh's
# configuration) and meanwhile the CUDA peer (bench/fdtd/peer_yee.cu); then,
# FP32 free space, streamcl fdtd --bench with the fused kernel:
#   CPML 10 at 512^3 and 1024x1024x512 (the tuner picks the launch shape and
#     how the CPML runs: inline with the edge walks in their own launch, inline
#     in one kernel, or as slab passes after it);
#   CPML 10 at 512^3 with the slab passes forced (--plan cpml=0: the previous
#     design, in the same run);
#   no CPML at 512^3 (what the CPML costs);
# the CUDA peer (separate H/E kernels, no CPML, 72 B/cell) at 512^3 and the
# device copy bandwidth. Gcells/s = cell updates per second from wall time
# over 50 steps after a warm-up and the tuner's runs. Table last; logs in
# $OUT/fdtd/ (or build-gpu/fdtd/).
# Dry run elsewhere: STREAMCL=build/streamcl SIZES="48x40x32 64x48x40" DEVICE=cpu bash bench/fdtd/gpu.sh
cd "$(dirname "$0")/../.." || exit 1
sizes=${SIZES:-512x512x512 1024x1024x512}
first=${sizes%% *}
device=${DEVICE:-gpu}
dest=${OUT:+$OUT/fdtd}
dest=${dest:-build-gpu/fdtd}
mkdir -p "$dest" build-gpu
t0=$(date +%s)

# the peer builds in the background while streamcl builds
(command -v nvcc > /dev/null &&
    nvcc -O3 -arch=native -o build-gpu/peer_yee bench/fdtd/peer_yee.cu > "$dest/peer_build.log" 2>&1) &
peer_pid=$!
# the device's OpenCL is registered whether or not STREAMCL is given
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
if [ -z "${STREAMCL:-}" ]; then
    echo "== building streamcl (build-gpu, target streamcl_cli)"
    { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TEST_DEVICE=gpu \
          ${STREAMCL_GPU_CMAKE_ARGS:-} && make -C build-gpu -j"$(nproc)" streamcl_cli; } \
        > build-gpu-fdtd.log 2>&1 || { tail -40 build-gpu-fdtd.log; exit 1; }
    STREAMCL=$PWD/build-gpu/streamcl
fi
peer_ok=0
wait "$peer_pid" && peer_ok=1
echo "== build done after $(( $(date +%s) - t0 )) s"

"$STREAMCL" devices > "$dest/devices.txt" 2>&1
dev=$(grep -m1 -i nvidia "$dest/devices.txt" | sed 's/^ *//' | cut -c1-60)
dev=${dev:-$device}
rows=()
row() { rows+=("| $1 | $2 | $3 |"); }
rate() { grep -o '[0-9.]* Gcells/s' "$1" | tail -1 | cut -d' ' -f1; }
gbs() { grep -o '[0-9.]* GB/s' "$1" | tail -1 | cut -d' ' -f1; }
# the launch the plan chose: "CPML inline, work-group 64x2, 16 planes/work-item"
shape() { grep -o 'kernels.*planes/work-item' "$1" | sed 's/^kernels, //'; }

copy=
if [ "$peer_ok" = 1 ]; then
    IFS=x read -r nx ny nz <<< "$first"
    echo "== CUDA peer $first + copy bandwidth"
    timeout 60 build-gpu/peer_yee "$nx" "$ny" "$nz" 20 | tee "$dest/peer.txt"
    copy=$(grep -o 'copy_bandwidth: [0-9]*' "$dest/peer.txt" | head -1 | awk '{print $2}')
fi

# bench TAG LABEL PML [--plan ...]: one streamcl fdtd --bench run, one row
bench() {
    local tag=$1 label=$2 pml=$3
    shift 3
    local nx ny nz f
    IFS=x read -r nx ny nz <<< "$tag"
    f="$dest/cl_${tag}_pml${pml}${1:+_forced}.txt"
    local cmd="streamcl fdtd --bench $nx $ny $nz --steps 50 --pml $pml --kernel fused $*"
    echo "== $cmd"
    timeout 100 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 50 --pml "$pml" --kernel fused \
        --device "$device" "$@" 2>&1 | tee "$f"
    local r g frac="?"
    r=$(rate "$f")
    g=$(gbs "$f")
    [ -n "$g" ] && [ -n "$copy" ] && frac=$(awk -v g="$g" -v c="$copy" 'BEGIN { printf "%.2f", g / c }')
    row "$label $tag" "**${r:-fail}** Gcells/s (${g:-?} GB/s at 48 B/cell, $frac of copy; $(shape "$f"))" "$cmd"
}

for tag in $sizes; do
    bench "$tag" "streamcl fused FP32, CPML 10," 10
done
bench "$first" "streamcl fused FP32, CPML 10 as slab passes (previous design)," 10 --plan cpml=0
bench "$first" "streamcl fused FP32, no CPML," 0
if [ "$peer_ok" = 1 ]; then
    IFS=x read -r nx ny nz <<< "$first"
    p=$(grep "peer_yee $nx $ny $nz:" "$dest/peer.txt" | grep -o '[0-9.]* Gcells/s')
    row "CUDA peer (separate H/E, 72 B/cell, best of 3D and 2.5D) $first, no CPML" "${p:-fail}" \
        "build-gpu/peer_yee $nx $ny $nz 20"
    row "device copy bandwidth (read + write)" "${copy:-?} GB/s" "peer_yee (cudaMemcpy D2D, 2 GiB)"
else
    row "CUDA peer" "not built (no nvcc, or see peer_build.log)" "nvcc -O3 -arch=native bench/fdtd/peer_yee.cu"
fi

echo
echo "## fdtd on $(date -u '+%F %H:%M') UTC, $dev, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(( $(date +%s) - t0 )) s with the build"
echo "| figure | value | command |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}" | tee "$dest/table.md"
