#!/bin/bash
# Force kernels of the lj/charmm/coul/long engine on the GPU machine (bare
# NVIDIA H100/H200, 16 cores), old kernel ("charmm": lanes per atom over atom
# lists) against the cluster-pair kernel ("cluster"), about a minute in all.
# Run from the repository root:  bash bench/pair/force-gpu.sh
# Builds only the streamcl command (pair module) into build-gpu-pairk, then
# `streamcl pair-bench` on rhodo 32k (bench/data.rhodo from
# .gpu/lammps-trim.tar.xz), mixed precision, 100 steps, rebuild every 10:
# each kernel force-only and with energy+virial on every step (as rhodo's
# barostat needs), then the tuner's own choice between all kinds. The last
# lines are a Markdown table. Results go to $OUT/pair-force/ when $OUT is set.
set -u
B=build-gpu-pairk
. bench/pair/rhodo-setup.sh pair-force
PB_COMMON="--data $DATA --steps ${STEPS:-100} --rebuild 10 --precision mixed --profile ${PAIR_BENCH_ARGS:-}"
PB_TIMEOUT=120 PB_SHOW='^(RESULT|cluster pairs|pairs/s|error vs|worst)' PB_HIDE='^$'
run() { pb_run "$@"; }
run charmm       --kernel charmm
run charmm-tally --kernel charmm --no-reference --tally
# the charmm kind without its software-pipelined loop (plan value pipe=0),
# and force-only with each pipelined loop (1; 2: unrolled twice)
STREAMCL_FORCE=pipe=0 run charmm-pipe0 --kernel charmm --no-reference
STREAMCL_FORCE=pipe=0 run charmm-pipe0-tally --kernel charmm --no-reference --tally
STREAMCL_FORCE=pipe=1 run charmm-pipe1 --kernel charmm --no-reference
STREAMCL_FORCE=pipe=2 run charmm-pipe2 --kernel charmm --no-reference
# the tallying kernel capped at 64 registers (plan value tcap=64, NVIDIA only; default uncapped)
STREAMCL_FORCE=tcap=64 run charmm-tcap64-tally --kernel charmm --no-reference --tally
run cluster      --kernel cluster
run cluster-tally --kernel cluster --no-reference --tally
# the list build as before issue 11's lanes (one work-item per atom), for the comparison
run charmm-lanes1 --kernel charmm --no-reference --list-lanes 1
run charmm-lanes4 --kernel charmm --no-reference --list-lanes 4
# the cpu kind with full lists only (its coloured half lists take ~0.6 s a step on a GPU)
STREAMCL_FORCE=list=1 run tuned-tally --no-reference --tally

get() { pb_get "$@"; }
echo
echo "total $(( $(date +%s) - T0 )) s"
echo
echo "| rhodo 32k mixed, ${DEV:-?}, $(date -u +%F) | force ms/step, force-only | force ms/step, energy+virial every step | tally / force-only | list build device ms/rebuild (of it cluster lists) | of it binning / atom-list build kernel | prune ms per prune | force RMS err vs double reference | tpa/wg |"
echo "|---|---|---|---|---|---|---|---|---|"
for k in charmm charmm-pipe0 cluster; do
    f0=$(get $k force_ms); f1=$(get $k-tally force_ms)
    echo "| $k | ${f0:-failed} | ${f1:-failed} | $(ratio "$f0" "$f1") | $(get $k list_build_dev_ms) ($(get $k cluster_build_dev_ms)) | $(get $k bin_dev_ms) / $(get $k nbr_build_dev_ms) | $(get $k prune_dev_ms) | $(get $k force_err) | $(get $k tpa)/$(get $k wg) |"
done
for l in 1 4; do
    k=charmm-lanes$l
    echo "| charmm, list build and prune with $l work-item(s) per atom (--list-lanes $l; default 8) | $(get $k force_ms) | | | $(get $k list_build_dev_ms) | $(get $k bin_dev_ms) / $(get $k nbr_build_dev_ms) | $(get $k prune_dev_ms) | | $(get $k tpa)/$(get $k wg) |"
done
echo "| charmm energy+virial every step with the register cap (tcap=64) | | $(get charmm-tcap64-tally force_ms) | $(ratio "$(get charmm force_ms)" "$(get charmm-tcap64-tally force_ms)") | | | | | $(get charmm-tcap64-tally tpa)/$(get charmm-tcap64-tally wg) |"
echo "| charmm force-only with pipe=1 / pipe=2 forced | $(get charmm-pipe1 force_ms) / $(get charmm-pipe2 force_ms) | | | | | | | $(get charmm-pipe1 tpa)/$(get charmm-pipe1 wg), $(get charmm-pipe2 tpa)/$(get charmm-pipe2 wg) |"
echo "| tuner's choice: $(get tuned-tally kernel) | | $(get tuned-tally force_ms) | | $(get tuned-tally list_build_dev_ms) | $(get tuned-tally bin_dev_ms) / $(get tuned-tally nbr_build_dev_ms) | $(get tuned-tally prune_dev_ms) | | $(get tuned-tally tpa)/$(get tuned-tally wg) |"
# what the cluster launches walk (pair-bench reads the lists back): its cost is
# warp steps x cost per step; the charmm kind's steps are its inner-list slots / 32
ws=$(get cluster warp_steps); fc=$(get cluster force_ms)
per=$(python3 -c "print(f'{float(\"$fc\")*1e6/float(\"$ws\"):.3f}')" 2>/dev/null || echo "?")
echo
sc=$(get charmm inner_slots); fo=$(get charmm force_ms); na=$(get charmm atoms)
pc=$(python3 -c "print(f'{float(\"$fo\")*1e6*32/(float(\"$sc\")*float(\"$na\")):.3f}')" 2>/dev/null || echo "?")
echo "charmm kernel: $sc inner-list slots/atom: ~$pc ns per 32 slots (a warp step)"
echo "cluster kernel: $(get cluster walked_slots) pair slots/atom walked (pruned lists), $(get cluster cut_pairs) within the cutoff; $ws warp steps with a kept pair: $per ns each; launches on the unpruned lists: $(get cluster launches_full)"
echo
echo "Goals (issue 11, H200): force <= 0.10 ms/step, tally <= 1.15x force-only, list build <= 1.0 ms. Command: bash bench/pair/force-gpu.sh"
