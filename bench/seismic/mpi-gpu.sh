#!/bin/bash
# FP32 velocity-stress order 4 with CPML over MPI ranks, one GPU each
# (issue 24), on a machine with several GPUs (device tool kind
# nvidia-h100-x4 / nvidia-h200-x4; say which in bench/RESULTS.md). Run from
# the repository root:
#   export STREAMCL_GPU_CMAKE_ARGS="-DSTREAMCL_MODULES=seismic;grid3d;pair"; . bench/gpu-setup.sh
#   bash bench/seismic/mpi-gpu.sh    (STEPS=100 PML=10 GPUS="1 2 4" MODES=overlap
#                                     SCALING="weak strong" TUNE=0; bench/lib/mpi-scaling.sh;
#                                     SEIS_ARGS: more options per point, e.g. "--halo mpi")
# (pair only for the node-local round-robin device choice; without it every
# rank takes the default device.) Needs Open MPI at configure time.
#
# streamcl seismic --bench NXxNYxNZ: homogeneous rock, CPML of PML cells on
# every face, an explosive source at the centre, one receiver; the separate
# velocity and stress kernels (the decomposed run's scheme), slabs along z
# (--decomp 1x1xN), host-staged halos (pinned): per step the planes of the 3
# stresses differentiated along z and of the 3 velocities that the
# neighbour's stencils read, 9 field planes each way (9 x 1056 x 1028
# floats, 37 MiB per face per step at a 1024^2 cross-section; the
# device-host copies on a second queue beside the kernels, MPI behind the
# interior). MODES: "overlap" (default: planes packed and read first, the
# planes that do not read the halo updated meanwhile, then the 2 planes at
# each cut; halos through the node's shared memory window copied by each
# rank's cores (--halo-threads: the rank's cores, at most the node's over
# its ranks), or as MPI messages where a rank has fewer than 4: the
# command's default), "serial" (--no-overlap), "mpihalo" (--halo mpi: one
# message a face), "mpipieces" (--halo mpi --halo-pieces 16: 16 messages a
# face in flight) and "shmhalo" (--halo shm: the window, whatever the
# threads). The log's halo line names the transport, threads and pieces. Each point's log ends with rank 0's time
# per step: host waits, MPI, device interior/edge/pack/read/write/unpack
# (SEIS_ARGS=--verbose: every rank's). TUNE=0 (default) takes the untuned plan (tuning a 1024^3
# grid costs more than the 100 steps). Printed per point: Gcells/s of the
# whole grid (max time over ranks), ms per step, the slowest rank's MPI time
# per step, and for weak scaling the ms/step above 1 GPU's (not hidden).
#   weak:   1024 x 1024 x (512 N) cells on N GPUs  (WEAK="1024 1024 512")
#   strong: 1024^3 cells on N GPUs                 (STRONG="1024 1024 1024")
# WEAK/STRONG and NGPU let the script's logic run on a CPU (PoCL), e.g.
#   STREAMCL=build/streamcl NGPU=4 WEAK="32 32 24" STRONG="32 32 48" STEPS=5 \
#   CHECK=0 bash bench/seismic/mpi-gpu.sh
# A correctness run first (CHECK=1): 2 GPUs against 1 on a 64^3 layered
# model with sources and receivers on the cut, SEG-Y and CSV byte for byte.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest seismic-mpi)
steps=${STEPS:-100}
pml=${PML:-10}
tune=${TUNE:-0}
read -r wx wy wz <<< "${WEAK:-1024 1024 512}"
read -r sx sy sz <<< "${STRONG:-1024 1024 1024}"
. bench/lib/mpi-scaling.sh
mpi_scaling_begin "$dest" "overlap"

if [ "${CHECK:-1}" = 1 ] && [ "$ngpu" -ge 2 ]; then
    echo "== correctness: 2 GPUs vs 1 GPU, 64^3 cells, fp32 traces byte for byte"
    printf '0 1800 900 1900\n200 3200 1800 2400\n' > "$dest/layers.txt"
    cat > "$dest/small.run" <<'R'
grid 64 64 64 10
model layered layers.txt
steps 300
pml 10
source force 320 320 310 0 0 1 ricker 6 1e9 0.2
source explosive 300 320 330 ricker 6 1e10 0.2
receivers 0 320 0 630 320 0 32
receiver 320 320 320
R
    one=$dest/one
    timeout 300 "$STREAMCL" seismic "$dest/small.run" --tune 0 --segy "$one" --csv "$one.csv" \
        > "$one.log" 2>&1
    for split in 1x1x2 "1x1x2 --no-overlap" 2x1x1; do
        tag=two-${split// /}
        # shellcheck disable=SC2086
        timeout 300 "${mpirun[@]}" -np 2 "$STREAMCL" seismic "$dest/small.run" --tune 0 --decomp $split \
            --segy "$dest/$tag" --csv "$dest/$tag.csv" > "$dest/$tag.log" 2>&1
        if [ -s "$one.csv" ] && cmp -s "$one.csv" "$dest/$tag.csv" && cmp -s "${one}_vz.sgy" "$dest/${tag}_vz.sgy"; then
            echo "--decomp $split: traces byte for byte equal to 1 GPU's"
        else
            echo "--decomp $split: DIFFERENT or failed: $(grep -m1 streamcl "$dest/$tag.log")"
        fi
    done
fi

# point KIND MODE N: weak WX x WY x (WZ N) cells, strong SX x SY x SZ
point() {
    local kind=$1 mode=$2 n=$3 flag= c
    c=${sx}x${sy}x${sz}
    [ "$kind" = weak ] && c=${wx}x${wy}x$((wz * n))
    [ "$mode" = serial ] && flag=--no-overlap
    [ "$mode" = mpihalo ] && flag="--halo mpi" # overlap, halos through MPI messages, not shared windows
    [ "$mode" = shmhalo ] && flag="--halo shm" # overlap, halos through the node's shared window
    [ "$mode" = mpipieces ] && flag="--halo mpi --halo-pieces 16" # messages, 16 a face in flight
    # shellcheck disable=SC2086
    mpi_scaling_point "$kind" "$mode" "$n" "$c" "$steps" "$dest/$kind-$mode-np$n.log" \
        "$STREAMCL" seismic --bench "$c" --order 4 --pml "$pml" --steps "$steps" --tune "$tune" \
        --decomp "1x1x$n" $flag ${SEIS_ARGS:-}
    grep 'per step:' "$dest/$kind-$mode-np$n.log" | sed 's/^/    /' # where the step's time went
}
echo "== $scaling scaling (weak: ${wx}x${wy}x$wz per GPU; strong: ${sx}x${sy}x$sz), fp32, order 4, CPML $pml, $steps steps"
mpi_scaling_sweep point
echo "goals (issue 24): weak-scaling efficiency >= 0.95 at 4 GPUs; strong >= 3.5x on 4 GPUs"
echo "results in $dest/scaling.tsv"
