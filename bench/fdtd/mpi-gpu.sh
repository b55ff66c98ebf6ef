#!/bin/bash
# FP32 Yee FDTD with CPML over MPI ranks, one GPU each (issue 24), on a
# machine with several GPUs (device tool kind nvidia-h100-x4 / nvidia-h200-x4;
# say which in bench/RESULTS.md). Run from the repository root:
#   export STREAMCL_GPU_CMAKE_ARGS="-DSTREAMCL_MODULES=fdtd;grid3d;pair"; . bench/gpu-setup.sh
#   bash bench/fdtd/mpi-gpu.sh           (STEPS=200 PML=10 GPUS="1 2 4")
# (pair only for the node-local round-robin device choice; without it every
# rank takes the default device.) Needs Open MPI (openmpi-bin,
# libopenmpi-dev) at configure time: `streamcl fdtd` then runs over ranks
# under mpirun.
#
# streamcl fdtd --bench NX NY NZ: free space, CPML of PML cells on every
# face, a dipole at the centre; separate H and E kernels (the decomposed run
# uses them; the fused kernel is one-rank only); slabs along z (--decomp
# 1x1xN), host-staged halos, exchanged after each half step and not yet
# overlapped with the interior: per step one plane of the two tangential H
# components goes up and one of E goes down (2 x 1056 x 1027 floats, 8.3 MiB
# each way at 1024^2 cross-section). Printed per run: Gcells/s of the whole
# grid (max time over ranks) and the halo exchange time per step that the
# device waited for (the slowest rank; device drained before it is timed).
#   weak:   1024 x 1024 x (512 N) cells on N GPUs
#   strong: 1024^3 cells on N GPUs
# Also a correctness run first: a small model with materials, CPML, sources
# and receivers on slab cuts at 2 GPUs, text receivers (every fp32 bit)
# compared with 1 GPU's.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest fdtd-mpi)
mkdir -p "$dest"
steps=${STEPS:-200}
pml=${PML:-10}
gpus_list=${GPUS:-"1 2 4"}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
nvidia-smi --query-gpu=name,driver_version --format=csv > "$dest/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$dest/topo.txt" 2>&1
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

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
for split in 2x1x1 1x1x2; do
    timeout 300 "${mpirun[@]}" -np 2 "$STREAMCL" fdtd "$dest/small.in" --decomp "$split" \
        -o "$dest/two-$split.h5" --text "$dest/two-$split.txt" > "$dest/two-$split.log" 2>&1
    if [ -s "$dest/one.txt" ] && cmp -s "$dest/one.txt" "$dest/two-$split.txt"; then
        echo "--decomp $split: receivers bitwise equal to 1 GPU's"
    else
        echo "--decomp $split: DIFFERENT or failed: $(grep -m1 streamcl "$dest/two-$split.log")"
    fi
done

# run KIND N NX NY NZ: one scaling point into scaling.tsv
printf 'kind\tgpus\tcells\tgcells_s\tspeedup\tefficiency\tseconds\thalo_ms_per_step\n' > "$dest/scaling.tsv"
run() {
    local kind=$1 n=$2 nx=$3 ny=$4 nz=$5
    if [ "$n" -gt "$ngpu" ]; then echo "skip $kind $n GPUs: only $ngpu here"; return; fi
    local log=$dest/$kind-np$n.log
    timeout 600 "${mpirun[@]}" -np "$n" "$STREAMCL" fdtd --bench "$nx" "$ny" "$nz" --pml "$pml" \
        --steps "$steps" --decomp "1x1x$n" > "$log" 2>&1
    local rc=$?
    local g s h
    g=$(awk '/Gcells\/s/ && /MPI ranks/ { print $(NF-1) }' "$log")
    s=$(awk '/Gcells\/s/ && /MPI ranks/ { print $(NF-3) }' "$log")
    h=$(awk '/halo exchange/ { print $(NF-1) }' "$log")
    if [ "$rc" -ne 0 ] || [ -z "$g" ]; then
        echo "$kind $n GPUs: failed (rc $rc): $(grep -m1 'streamcl' "$log")"
        return
    fi
    local b
    b=$(awk -F'\t' -v k="$kind" 'NR > 1 && $1 == k && $2 == 1 { print $4 }' "$dest/scaling.tsv")
    [ -z "$b" ] && b=$g
    # weak: efficiency = per-GPU rate / 1-GPU rate; strong: speed-up / N
    awk -v k="$kind" -v n="$n" -v c="${nx}x${ny}x${nz}" -v g="$g" -v b="$b" -v s="$s" -v h="$h" \
        'BEGIN { sp = g / b; printf "%s\t%d\t%s\t%.2f\t%.2f\t%.3f\t%s\t%s\n", k, n, c, g, sp, sp / n, s, h }' |
        tee -a "$dest/scaling.tsv"
}

echo "== weak scaling, 1024 x 1024 x 512 per GPU, fp32, CPML $pml, $steps steps"
for n in $gpus_list; do run weak "$n" 1024 1024 $((512 * n)); done
echo "== strong scaling, 1024^3, fp32, CPML $pml, $steps steps"
for n in $gpus_list; do run strong "$n" 1024 1024 1024; done
echo "goals (issue 24): weak-scaling efficiency >= 0.95 at 4 GPUs; strong >= 3.5x on 4 GPUs"
echo "results in $dest/scaling.tsv"
