#!/bin/bash
# FP32 Yee FDTD with CPML over MPI ranks, one GPU each (issue 24), on a
# machine with several GPUs (device tool kind nvidia-h100-x4 / nvidia-h200-x4;
# say which in bench/RESULTS.md). Run from the repository root:
#   export STREAMCL_GPU_CMAKE_ARGS="-DSTREAMCL_MODULES=fdtd;grid3d;pair"; . bench/gpu-setup.sh
#   bash bench/fdtd/mpi-gpu.sh           (STEPS=200 PML=10 GPUS="1 2 4"
#                                         MODES="overlap serial" SCALING="weak strong";
#                                         bench/lib/mpi-scaling.sh)
# (pair only for the node-local round-robin device choice; without it every
# rank takes the default device.) Needs Open MPI (openmpi-bin,
# libopenmpi-dev) at configure time: `streamcl fdtd` then runs over ranks
# under mpirun.
#
# streamcl fdtd --bench NX NY NZ: free space, CPML of PML cells on every
# face, a dipole at the centre; separate H and E kernels (the decomposed run
# uses them; the fused kernel is one-rank only); slabs along z (--decomp
# 1x1xN), host-staged halos (pinned): per step one plane of the two
# tangential E components goes down and one of H goes up (2 x 1056 x 1027
# floats, 8.3 MiB each way at 1024^2 cross-section). Two modes: "overlap"
# (default: the plane packed and read first, the interior update queued,
# MPI while it runs, the received plane written before the edge plane's
# update) and "serial" (--no-overlap: device drained, read, MPI, write, then
# the update). Printed per run: Gcells/s of the whole grid (max time over
# ranks), ms per step, and the rank's halo time per step as the command
# reports it (serial: the exchange the device waited for; overlap: the MPI
# time behind the interior). The halo time not hidden is estimated for weak
# scaling as ms/step at N GPUs minus ms/step at 1 GPU (same slab per GPU).
#   weak:   1024 x 1024 x (512 N) cells on N GPUs
#   strong: 1024^3 cells on N GPUs
# Also a correctness run first: a small model with materials, CPML, sources
# and receivers on slab cuts at 2 GPUs, text receivers (every fp32 bit)
# compared with 1 GPU's.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest fdtd-mpi)
steps=${STEPS:-200}
pml=${PML:-10}
. bench/lib/mpi-scaling.sh
mpi_scaling_begin "$dest" "overlap serial"
echo "== correctness: 2 GPUs vs 1 GPU, 96 x 80 x 72 cells, fp32 receivers bitwise"
cat > "$dest/small.in" <<'IN'
#domain: 0.192 0.16 0.144
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 400
#pml_cells: 10
#material: 4 0.01 1 0 soil
#box: 0 0 0 0.192 0.16 0.06 soil
#waveform: ricker 1 3e9 w1
#hertzian_dipole: z 0.096 0.08 0.072 w1
#rx: 0.096 0.1 0.072
#rx: 0.12 0.08 0.09
#rx: 0.05 0.05 0.05
IN
timeout 300 "$STREAMCL" fdtd "$dest/small.in" --device gpu -o "$dest/one.h5" --text "$dest/one.txt" \
    > "$dest/one.log" 2>&1
for split in 2x1x1 1x1x2 "1x1x2 --no-overlap"; do
    tag=${split// /}
    # shellcheck disable=SC2086
    timeout 300 "${mpirun[@]}" -np 2 "$STREAMCL" fdtd "$dest/small.in" --decomp $split \
        -o "$dest/two-$tag.h5" --text "$dest/two-$tag.txt" > "$dest/two-$tag.log" 2>&1
    if [ -s "$dest/one.txt" ] && cmp -s "$dest/one.txt" "$dest/two-$tag.txt"; then
        echo "--decomp $split: receivers bitwise equal to 1 GPU's"
    else
        echo "--decomp $split: DIFFERENT or failed: $(grep -m1 streamcl "$dest/two-$tag.log")"
    fi
done

# point KIND MODE N: weak 1024 x 1024 x (512 N) cells, strong 1024^3
point() {
    local kind=$1 mode=$2 n=$3 nz=1024 flag=
    [ "$kind" = weak ] && nz=$((512 * n))
    [ "$mode" = serial ] && flag=--no-overlap
    [ "$mode" = mpihalo ] && flag="--halo mpi" # overlap, halos through MPI messages, not shared windows
    # shellcheck disable=SC2086
    mpi_scaling_point "$kind" "$mode" "$n" "1024x1024x$nz" "$steps" "$dest/$kind-$mode-np$n.log" \
        "$STREAMCL" fdtd --bench 1024 1024 "$nz" --pml "$pml" --steps "$steps" --decomp "1x1x$n" $flag \
        ${FDTD_ARGS:-}
}
echo "== $scaling scaling (weak: 1024 x 1024 x 512 per GPU; strong: 1024^3), fp32, CPML $pml, $steps steps"
mpi_scaling_sweep point
echo "goals (issue 24): weak-scaling efficiency >= 0.95 at 4 GPUs; strong >= 3.5x on 4 GPUs"
echo "results in $dest/scaling.tsv"
