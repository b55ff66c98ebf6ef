#!/bin/bash
# D2Q9 strong scaling over MPI ranks, one GPU each (issue 24), on a machine
# with several GPUs (device tool kind nvidia-h100-x4 / nvidia-h200-x4; say
# which in bench/RESULTS.md). Run from the repository root:
#   export STREAMCL_GPU_CMAKE_ARGS="-DSTREAMCL_MODULES=lbm;pair"; . bench/gpu-setup.sh
#   bash bench/lbm/mpi-gpu.sh            (SIDE=16384 STEPS=2000 GPUS="1 2 4")
# (pair only for the node-local round-robin device choice; without it every
# rank takes the default device.) Needs Open MPI (openmpi-bin, libopenmpi-dev)
# at configure time: `streamcl lbm` then runs over ranks under mpirun.
#
# Per GPU count, both halo exchanges: "overlap" (the default: edge rows first,
# their reads, the interior launched, MPI while it runs, halo writes before
# the next step) and "serial" (--no-overlap: read edges, MPI, write halos, then
# the whole step). fp32 two lattices, 16384^2 channel with a box (as gpu.sh's
# seed case), --no-output, --warmup then timed steps; MLUPS (whole lattice),
# speed-up and efficiency vs 1 GPU of the same mode, and ms per step. Also
# runs with files at 2 GPUs, both modes, checked bitwise against 1 GPU on a
# small lattice (correctness on NVIDIA, not PoCL). Host staged: per step
# 2 edge reads + 2 sendrecv + 2 halo writes of 3*nx floats (196 KiB at 16384).
# MODES="overlap serial" by default.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest lbm-mpi)
mkdir -p "$dest"
side=${SIDE:-16384}
steps=${STEPS:-2000}
warmup=${WARMUP:-100}
gpus_list=${GPUS:-"1 2 4"}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
nvidia-smi --query-gpu=name,driver_version --format=csv > "$dest/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$dest/topo.txt" 2>&1
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

p=$dest/lbm_$side.params o=$dest/lbm_$side.obstacles
printf '%d\n%d\n%d\n%d\n0.1\n0.005\n1.85\n' "$side" "$side" "$steps" "$side" > "$p"
awk -v s="$side" 'BEGIN { for (x = 0; x < s; x++) { print x, 0, 1; print x, s - 1, 1 }
    for (y = int(s / 4); y < int(s / 2); y++) for (x = int(3 * s / 8); x < int(5 * s / 8); x++)
        print x, y, 1 }' > "$o"

echo "== correctness: 2 GPUs vs 1 GPU, 1024^2, 500 steps, bitwise final state"
printf '1024\n1024\n500\n1024\n0.1\n0.005\n1.85\n' > "$dest/small.params"
awk 'BEGIN { for (x = 0; x < 1024; x++) { print x, 0, 1; print x, 1023, 1 }
    for (y = 256; y < 512; y++) for (x = 384; x < 640; x++) print x, y, 1 }' > "$dest/small.obst"
modes=${MODES:-"overlap serial"}
mode_flag() { [ "$1" = serial ] && echo --no-overlap; }
mkdir -p "$dest/one"
timeout 120 "$STREAMCL" lbm "$dest/small.params" "$dest/small.obst" --device gpu --out "$dest/one" \
    > "$dest/one.log" 2>&1
for mode in $modes; do
    mkdir -p "$dest/two-$mode"
    # shellcheck disable=SC2046
    timeout 120 "${mpirun[@]}" -np 2 "$STREAMCL" lbm "$dest/small.params" "$dest/small.obst" \
        --out "$dest/two-$mode" $(mode_flag "$mode") > "$dest/two-$mode.log" 2>&1
    if cmp -s "$dest/one/final_state.dat" "$dest/two-$mode/final_state.dat"; then
        echo "$mode: bitwise equal"
    else
        echo "$mode: DIFFERENT: $(tail -2 "$dest/two-$mode.log")"
    fi
    rm -f "$dest/two-$mode/final_state.dat"
done
rm -f "$dest/one/final_state.dat"

echo "== strong scaling, ${side}^2 fp32, $steps steps after $warmup warm-up"
printf 'mode\tgpus\tmlups\tspeedup\tefficiency\tseconds\tms_per_step\n' > "$dest/scaling.tsv"
for n in $gpus_list; do
    if [ "$n" -gt "$ngpu" ]; then echo "skip $n GPUs: only $ngpu here"; continue; fi
    for mode in $modes; do
        log=$dest/np$n-$mode.log
        # shellcheck disable=SC2046
        timeout 300 "${mpirun[@]}" -np "$n" "$STREAMCL" lbm "$p" "$o" --no-output \
            --warmup "$warmup" --steps "$steps" $(mode_flag "$mode") > "$log" 2>&1
        rc=$?
        m=$(awk '/^MLUPS/ { print $NF }' "$log")
        sec=$(awk '/^Elapsed compute/ { print $(NF-1) }' "$log")
        if [ "$rc" -ne 0 ] || [ -z "$m" ]; then
            echo "$mode $n GPUs: failed (rc $rc): $(grep -m1 'streamcl' "$log")"
            continue
        fi
        # speed-up against the better of the 1-GPU runs (one rank swaps with
        # itself; the overlapped step there is 3 launches instead of 1)
        b=$(awk -F'\t' 'NR > 1 && $2 == 1 && $3 > b { b = $3 } END { print b }' "$dest/scaling.tsv")
        [ -z "$b" ] && b=$m
        awk -v mode="$mode" -v n="$n" -v m="$m" -v b="$b" -v s="$sec" -v t="$steps" \
            'BEGIN { printf "%s\t%d\t%.0f\t%.2f\t%.2f\t%s\t%.3f\n", mode, n, m, m / b, m / b / n, s,
                     1000 * s / t }' | tee -a "$dest/scaling.tsv"
    done
done
echo "goal (issue 24): >= 3.3x on 4 GPUs for D2Q9"
