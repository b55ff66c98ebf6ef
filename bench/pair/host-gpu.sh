#!/bin/bash
# Host cost per step of the lj/charmm/coul/long engine on the GPU machine
# (bare NVIDIA H100/H200, 16 cores): issue 11 item 3, host time inside
# set_atoms + compute + finish <= 0.15 ms per step over rhodo's 100 steps.
# Run from the repository root:  bash bench/pair/host-gpu.sh   (~1 minute)
# Builds only the streamcl command (pair module) into build-gpu-host, then
# `streamcl pair-bench` on rhodo 32k (bench/data.rhodo from
# .gpu/lammps-trim.tar.xz), mixed precision, 100 steps, rebuild every 10,
# with the atoms handed over as LAMMPS holds them (scl_charmm_set_atoms_from:
# 32-bit tags, 1-based types) or through the old entry point (--old-api),
# x and q copied into pinned staging on 1 or 4 threads (inputs_stable 0)
# or uploaded from the caller's pageable memory (inputs_stable 1, the
# plugin's setting), the finish on 1, 4 or 16 threads. The last lines are a
# Markdown table. Results go to $OUT/pair-host/ when $OUT is set.
set -u
B=build-gpu-host
. bench/pair/rhodo-setup.sh pair-host
PB_COMMON="--data $DATA --steps ${STEPS:-100} --rebuild 10 --precision mixed --no-reference ${PAIR_BENCH_ARGS:-}"
PB_TIMEOUT=120 PB_SHOW='^(host time|set_atoms host|host per step|per step)'
run() { pb_run "$@"; }
# the first run tunes the plan (cached for the others). "direct": x, q and the
# atom arrays go up from the caller's (pageable) memory, the plugin's way;
# "staged": copied into pinned staging on N threads first
run old-staged-1thread --old-api --inputs-stable 0 --host-threads 1
run new-staged-1thread --inputs-stable 0 --host-threads 1
run new-staged-4threads --inputs-stable 0 --host-threads 4
run new-direct        --inputs-stable 1
run new-direct-finish1 --inputs-stable 1 --host-threads 1
run new-direct-finish4 --inputs-stable 1 --host-threads 4
run old-direct        --old-api --inputs-stable 1
run new-direct-tally  --inputs-stable 1 --tally

get() { pb_get "$@"; }
echo
echo "total $(( $(date +%s) - T0 )) s"
echo
echo "| rhodo 32k mixed, ${DEV:-?}, $(date -u +%F) | api | compute host ms/step (median; mean, no rebuild) | set_atoms host ms/rebuild | finish host ms/step | host ms/step, all 100 steps (goal <= 0.15) |"
echo "|---|---|---|---|---|---|"
for v in old-staged-1thread new-staged-1thread new-staged-4threads new-direct new-direct-finish1 new-direct-finish4 old-direct new-direct-tally; do
    echo "| $v | $(get $v api) | $(get $v compute_host_med_ms) ($(get $v compute_host_ms)) | $(get $v set_atoms_wall_ms) | $(get $v finish_host_ms) | $(get $v host_step_ms) |"
done
echo
echo "Before (H200, 2026-11-22, bench/pair/force-gpu.sh): compute_host_ms 0.34-0.41, set_atoms_host_ms 1.0-1.2 per rebuild. Command: bash bench/pair/host-gpu.sh"
