# shellcheck shell=bash
# Sourced by the grid solvers' multi-GPU scaling scripts (bench/fdtd/mpi-gpu.sh,
# bench/seismic/mpi-gpu.sh):  . "$(dirname "$0")/../lib/mpi-scaling.sh"
# One rank per GPU under mpirun; each point's log must carry a line with
# "MPI ranks" and "<seconds> s, <rate> Gcells/s" (or "s:"), and one with
# "halo" and "<ms> ms/step" (what the streamcl commands print). Environment:
#   GPUS="1 2 4"   ranks (GPUs) per point; points above the GPUs here are skipped
#   MODES          "overlap" (halo swaps behind the interior) and/or "serial"
#                  (--no-overlap) and/or "mpihalo" (overlap with --halo mpi: node-local
#                  halos as MPI messages instead of MPI-3 shared windows, the default);
#                  the script sets the default
#   SCALING        "weak strong" (default), "weak" or "strong"
#   SEIS_ARGS      (seismic) more options for each point
#   FDTD_ARGS      (fdtd) more options for each point, e.g. "--no-tune --plan lx=32,ly=2,kz=16"
#   NGPU           GPUs here (default: nvidia-smi -L)
# Defines functions only; mpi_scaling_begin sets the variables below.

# mpi_scaling_begin DEST MODES_DEFAULT: DEST/scaling.tsv started; sets dest,
# gpus_list, modes, scaling, ngpu, mpirun (an array); the machine's GPUs in
# DEST/nvidia-smi.txt and topo.txt.
mpi_scaling_begin() {
    dest=$1
    gpus_list=${GPUS:-"1 2 4"}
    modes=${MODES:-$2}
    scaling=${SCALING:-"weak strong"}
    ngpu=${NGPU:-$(nvidia-smi -L 2> /dev/null | wc -l)}
    mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
    mkdir -p "$dest"
    nvidia-smi --query-gpu=name,driver_version --format=csv > "$dest/nvidia-smi.txt" 2>&1
    nvidia-smi topo -m > "$dest/topo.txt" 2>&1
    printf 'kind\tmode\tgpus\tcells\tgcells_s\tspeedup\tefficiency\tseconds\tms_per_step\thalo_ms_per_step\texposed_ms_per_step\n' \
        > "$dest/scaling.tsv"
}

# mpi_scaling_point KIND MODE N CELLS STEPS LOG CMD...: CMD under mpirun -np N
# into LOG, one row of scaling.tsv (speed-up and efficiency against the
# 1-GPU row of KIND; weak: the ms/step above 1 GPU's, the halo time not hidden)
mpi_scaling_point() {
    local kind=$1 mode=$2 n=$3 cells=$4 steps=$5 log=$6
    shift 6
    if [ "$n" -gt "$ngpu" ]; then echo "skip $kind $n GPUs: only $ngpu here"; return; fi
    timeout 600 "${mpirun[@]}" -np "$n" "$@" > "$log" 2>&1
    local rc=$? pair g s h
    # "<seconds> s, <rate> Gcells/s" (fdtd) or "<seconds> s: <rate> Gcells/s" (seismic)
    pair=$(grep 'MPI ranks' "$log" | grep -o '[0-9.]\+ s[,:] [0-9.]\+ Gcells/s' | head -1)
    s=$(echo "$pair" | cut -d' ' -f1)
    g=$(echo "$pair" | cut -d' ' -f3)
    h=$(grep -m1 'halo.*ms/step' "$log" | grep -o '[0-9.]* ms/step' | tail -1 | cut -d' ' -f1)
    if [ "$rc" -ne 0 ] || [ -z "$g" ] || [ -z "$s" ]; then
        echo "$kind $mode $n GPUs: failed (rc $rc): $(grep -m1 'streamcl' "$log")"
        return
    fi
    local b b_ms
    b=$(awk -F'\t' -v k="$kind" 'NR > 1 && $1 == k && $3 == 1 && $5 > b { b = $5 } END { print b }' "$dest/scaling.tsv")
    b_ms=$(awk -F'\t' -v k="$kind" 'NR > 1 && $1 == k && $3 == 1 && (m == "" || $9 < m) { m = $9 } END { print m }' "$dest/scaling.tsv")
    [ -z "$b" ] && b=$g
    # weak: efficiency = per-GPU rate / 1-GPU rate; strong: speed-up / N
    awk -v k="$kind" -v mode="$mode" -v n="$n" -v c="$cells" -v g="$g" -v b="$b" -v s="$s" \
        -v h="${h:--}" -v t="$steps" -v bm="$b_ms" \
        'BEGIN { sp = g / b; ms = 1000 * s / t; ex = (k == "weak" && bm != "") ? sprintf("%.3f", ms - bm) : "-";
                 printf "%s\t%s\t%d\t%s\t%.4f\t%.2f\t%.3f\t%s\t%.3f\t%s\t%s\n", k, mode, n, c, g, sp, sp / n, s, ms, h, ex }' |
        tee -a "$dest/scaling.tsv"
}

# mpi_scaling_sweep FN: FN KIND MODE N for each scaling kind of SCALING, each
# N of GPUS and each mode of MODES (one mode at 1 GPU: one rank has no halo)
mpi_scaling_sweep() {
    local fn=$1 kind n mode
    for kind in $scaling; do
        case $kind in weak | strong) ;; *) echo "SCALING: weak and/or strong, not '$kind'"; return 1 ;; esac
        for n in $gpus_list; do for mode in $modes; do
            [ "$n" = 1 ] && [ "$mode" != "${modes%% *}" ] && continue
            "$fn" "$kind" "$mode" "$n"
        done; done
    done
}
