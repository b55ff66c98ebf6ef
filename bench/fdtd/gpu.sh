#!/bin/bash
# FDTD on the GPU machine (run from the repository root, bare H100/H200; about
# 110 s with the build):
#   bash bench/fdtd/gpu.sh
# Builds only the streamcl command (build-gpu, bench/gpu-setup.sh's
# configuration) and meanwhile the CUDA peer (bench/fdtd/peer_yee.cu); then,
# FP32 free space, streamcl fdtd --bench with the fused kernel:
#   CPML 10 at 512^3 and 1024x1024x512 (the tuner picks the launch shape and
#     how the CPML runs: inline with the edge walks in their own launch, inline
#     in one kernel, or as slab passes after it);
#   the step time the tuner measured for each CPML variant (cpml=1 edge walks
#     apart, 2 one kernel, 0 slab passes: the previous design), or the error
#     that kept it from running, and each kernel's work-group limit (it falls
#     as registers rise: 1024 at <= 64 per work-item, 512 at <= 128);
#   CPML 10 at 512^3 with cpml=1 (profiled: the interior and the edge kernel
#     apart), cpml=2 and cpml=3 (shell corrections, profiled: the fused pass
#     and the H and E shell kernels), cpml=4 (the x slabs inline in the
#     fused pass, profiled: it and the y/z shell kernels) and cpml=5 (as 4,
#     the x edge walks in their own launch, profiled) forced: the rate, or
#     the error;
#   no CPML at 512^3 (what the CPML costs; skipped past 72 s);
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

# bench TAG LABEL PML [options]: one streamcl fdtd --bench run, one row (the
# error line when it fails), then a row per CPML variant the tuner tried
bench() {
    local tag=$1 label=$2 pml=$3
    shift 3
    local nx ny nz f
    IFS=x read -r nx ny nz <<< "$tag"
    f="$dest/cl_${tag}_pml${pml}$(printf '%s' "$*" | tr -c 'a-z0-9' _).txt"
    local cmd="streamcl fdtd --bench $nx $ny $nz --steps 50 --pml $pml --kernel fused $*"
    echo "== $cmd (at $(( $(date +%s) - t0 )) s)"
    timeout 100 "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --steps 50 --pml "$pml" --kernel fused \
        --device "$device" "$@" 2>&1 | tee "$f"
    local r g frac="?" err
    r=$(rate "$f")
    g=$(gbs "$f")
    [ -n "$g" ] && [ -n "$copy" ] && frac=$(awk -v g="$g" -v c="$copy" 'BEGIN { printf "%.2f", g / c }')
    if [ -n "$r" ]; then
        row "$label $tag" "**$r** Gcells/s (${g:-?} GB/s at 48 B/cell, $frac of copy; $(shape "$f"))" "$cmd"
    else
        err=$(grep -m1 'streamcl fdtd:' "$f" | cut -c1-400 | tr '|' '/')
        row "$label $tag" "**fail**: ${err:-no output (timeout?)}" "$cmd"
    fi
    # "fdtd: tuned cpml=1 (inline, edge walks apart): 2.9 ms/step = 46 Gcells/s, ..." or "...: not run: why"
    local line
    while IFS= read -r line; do
        row "tuner, $tag CPML $pml: ${line%%): *})" "${line#*): }" "(same run)"
    done < <(grep '^fdtd: tuned cpml=' "$f" | sed 's/^fdtd: tuned //' | tr '|' '/')
    # --profile: device ms per step of each fused build
    local k ms
    for k in fdtd_fused fdtd_fused_cpml fdtd_shell_h fdtd_shell_e fdtd_fused_xcpml fdtd_shell_h_yz \
        fdtd_shell_e_yz; do
        ms=$(awk -v k="$k" '$1 == k && $2 == "kernel" && $3 > 0 { printf "%.3f", 1e3 * $4 / $3 }' "$f")
        [ -n "$ms" ] && row "$label $tag: $k (profile)" "$ms ms/step (device)" "$cmd"
    done
}

for tag in $sizes; do
    bench "$tag" "streamcl fused FP32, CPML 10," 10
done
# each inline variant forced (the plans are cached by the first run: no new tuning)
bench "$first" "streamcl fused FP32, CPML 10, inline with the edge walks apart," 10 --plan cpml=1 --profile
bench "$first" "streamcl fused FP32, CPML 10, inline in one kernel," 10 --plan cpml=2
# the shell corrections (issue 23 part 3), profiled: the fused pass and the two shell kernels
bench "$first" "streamcl fused FP32, CPML 10, shell corrections," 10 --plan cpml=3 --profile
# the x slabs inline in the fused pass, the shell over the y and z slabs only
bench "$first" "streamcl fused FP32, CPML 10, x slabs inline + y/z shell," 10 --plan cpml=4 --profile
bench "$first" "streamcl fused FP32, CPML 10, x slabs inline (x edge walks apart) + y/z shell," 10 \
    --plan cpml=5 --profile
# what the CPML costs (56.3-56.5 Gcells/s in the last two runs): only while
# the whole run stays within ~110 s
if [ $(( $(date +%s) - t0 )) -lt 90 ]; then
    bench "$first" "streamcl fused FP32, no CPML," 0
else
    row "streamcl fused FP32, no CPML, $first" "not run (time: $(( $(date +%s) - t0 )) s so far)" "-"
fi
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
# the tree that ran, also where the copy's git metadata is stale
tree=$(cat cl/fdtd.cl src/fdtd/solver.c bench/fdtd/gpu.sh | sha1sum | cut -c1-10)
echo "## fdtd on $(date -u '+%F %H:%M') UTC, $dev, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), fdtd sources $tree, $(( $(date +%s) - t0 )) s with the build"
echo "| figure | value | command |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}" | tee "$dest/table.md"
