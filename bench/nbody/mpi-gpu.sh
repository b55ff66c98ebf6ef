#!/bin/bash
# n-body strong scaling over MPI ranks, one GPU each (issue 24, item 4), on a
# machine with several GPUs (device tool kind nvidia-h100-x4 / nvidia-h200-x4,
# or -x2; say which in bench/RESULTS.md). Run from the repository root:
#   bash bench/nbody/mpi-gpu.sh          (N_LIST="1048576 262144" STEPS=10 GPUS="1 2 4")
# Builds streamcl with nbody and pair (pair for the node-local round-robin
# device choice; without it every rank takes the default device) unless
# $STREAMCL names a built command. Needs Open MPI (openmpi-bin,
# libopenmpi-dev) at configure time.
#
# First a check on the GPUs: 65536 bodies (CHECK_N), 5 steps, the one-rank run against
# 2 and 4 ranks with one forced plan (bitwise equal expected) and with each
# rank's tuned plan (reported only: a GPU compiler may contract a vector
# plan's sums differently). Then per N and GPU count, `mpirun -np G streamcl
# nbody --n N`: each rank owns N/G bodies, the blocks go round the ring in
# the bodies' order, forces added while the next block travels. The rate is
# N^2 interactions per step over the slowest rank's wall time per step
# (drift, transfers, forces; the tuned plan per rank, tuning outside the
# timed steps), speed-up and efficiency against 1 GPU under mpirun (same
# path), plus the one-rank command without mpirun (kernel event times) for
# reference, and per step the most a rank's host waited in MPI for blocks
# (while the last block's forces run) and for the device (the forces
# outlasting the transfers: the exchange is hidden while this dominates). PRECISION=double for fp64. Results: $OUT/nbody-mpi/ (scaling.tsv,
# logs).
cd "$(dirname "$0")/../.." || exit 1
export STREAMCL_GPU_CMAKE_ARGS=${STREAMCL_GPU_CMAKE_ARGS:-"-DSTREAMCL_MODULES=nbody;pair -DSTREAMCL_TESTS=OFF"}
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=$(gpu_dest nbody-mpi)
n_list=${N_LIST:-"1048576 262144"}
steps=${STEPS:-10}
gpus_list=${GPUS:-"1 2 4"}
prec=${PRECISION:-single}
ngpu=${NGPU:-$(nvidia-smi -L 2> /dev/null | wc -l)}
device=${DEVICE:+--device $DEVICE} # none: the node's GPUs round robin (one-rank runs: gpu)
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
nvidia-smi --query-gpu=name,driver_version --format=csv > "$dest/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$dest/topo.txt" 2>&1
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$dest/cache} # plans tuned once per shape, then cached

check_n=${CHECK_N:-65536}
echo "== check: $check_n bodies, 5 steps, 2 and 4 ranks against one (final state bitwise)"
small=(nbody --n "$check_n" --steps 5 --precision "$prec")
for plan in forced tuned; do
    p=()
    [ "$plan" = forced ] && p=(--plan "V=1,wg=256,tile=256")
    # shellcheck disable=SC2086
    timeout 300 "$STREAMCL" "${small[@]}" "${p[@]}" ${device:---device gpu} \
        --out "$dest/check-$plan-1.csv" > "$dest/check-$plan-1.log" 2>&1
    for n in 2 4; do
        if [ "$n" -gt "$ngpu" ]; then continue; fi
        # shellcheck disable=SC2086
        timeout 300 "${mpirun[@]}" -np "$n" "$STREAMCL" "${small[@]}" "${p[@]}" $device \
            --out "$dest/check-$plan-$n.csv" > "$dest/check-$plan-$n.log" 2>&1
        if cmp -s "$dest/check-$plan-1.csv" "$dest/check-$plan-$n.csv"; then
            echo "$plan plan, $n ranks: bitwise equal to one rank"
        else
            echo "$plan plan, $n ranks: DIFFERENT ($(grep -m1 streamcl "$dest/check-$plan-$n.log"))"
        fi
    done
    rm -f "$dest"/check-"$plan"-*.csv
done

echo "== strong scaling, $prec precision, $steps steps"
printf 'bodies\tgpus\tinteractions_s\tspeedup\tefficiency\ts_per_step\tmpi_wait_s\tdevice_wait_s\n' \
    > "$dest/scaling.tsv"
for N in $n_list; do
    log=$dest/one-$N.log
    # shellcheck disable=SC2086
    timeout 600 "$STREAMCL" nbody --n "$N" --steps "$steps" --precision "$prec" \
        ${device:---device gpu} > "$log" 2>&1
    echo "N=$N one rank without mpirun: $(grep -m1 '^force:' "$log" | cut -c1-140)"
    for n in $gpus_list; do
        if [ "$n" -gt "$ngpu" ]; then echo "skip $n GPUs: only $ngpu here"; continue; fi
        log=$dest/np$n-$N.log
        # shellcheck disable=SC2086
        timeout 600 "${mpirun[@]}" -np "$n" "$STREAMCL" nbody --n "$N" --steps "$steps" \
            --precision "$prec" $device > "$log" 2>&1
        rc=$?
        line=$(grep -m1 '^force:.*MPI ranks' "$log")
        per=$(echo "$line" | grep -o '[0-9.e+-]* s per step' | head -1 | cut -d' ' -f1)
        rate=$(echo "$line" | grep -o '[0-9.e+-]* interactions/s' | cut -d' ' -f1)
        wait=$(echo "$line" | grep -o 'waiting for blocks [0-9.e+-]*' | cut -d' ' -f4)
        dev=$(echo "$line" | grep -o 'for the device [0-9.e+-]*' | cut -d' ' -f4)
        if [ "$rc" -ne 0 ] || [ -z "$rate" ]; then
            echo "N=$N $n GPUs: failed (rc $rc): $(grep -m1 'streamcl' "$log")"
            continue
        fi
        b=$(awk -F'\t' -v N="$N" 'NR > 1 && $1 == N && $2 == 1 { print $3 }' "$dest/scaling.tsv")
        [ -z "$b" ] && b=$rate
        awk -v N="$N" -v n="$n" -v r="$rate" -v b="$b" -v p="$per" -v w="$wait" -v d="$dev" \
            'BEGIN { printf "%d\t%d\t%.4e\t%.2f\t%.3f\t%s\t%s\t%s\n", N, n, r, r / b, r / b / n, p, w, d }' |
            tee -a "$dest/scaling.tsv"
    done
done
