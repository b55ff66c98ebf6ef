#!/bin/bash
# Traces per second of a B-scan: streamcl fdtd -n N (one process, the device
# set up once) against gprMax 4.0.1's OpenMP solver (-n N, all cores) on the
# same model, gprMax's own cylinder_Bscan_2D.in unless MODEL is given.
#   bench/fdtd/bscan.sh STREAMCL [N] [MODEL.in] [--device SPEC]
# gprMax from $GPRMAX_VENV (default /var/cache/streamcl/venv-gprmax); without
# it only streamcl runs (the model must then be given). Prints one table.
# BSCAN_RANKS="2 4" adds a row per rank count: the traces farmed over MPI
# ranks, one device each (mpirun -np R streamcl fdtd -n N --mpi-traces;
# mpirun from $MPIEXEC, default mpirun).
streamcl=$(readlink -f "$1"); n=${2:-60}; model=${3:+$(readlink -f "$3")}
shift $(( $# < 3 ? $# : 3 )); extra=("$@")
[ -x "$streamcl" ] || { echo "usage: $0 STREAMCL [N] [MODEL.in] [--device SPEC]"; exit 2; }
venv=${GPRMAX_VENV:-/var/cache/streamcl/venv-gprmax}
have_gprmax=0
"$venv/bin/python" -c "import gprMax" 2>/dev/null && have_gprmax=1
if [ -z "$model" ]; then
    [ "$have_gprmax" = 1 ] || { echo "no gprMax in $venv: give MODEL.in"; exit 2; }
    model=$("$venv/bin/python" -c "import gprMax, os; print(os.path.join(os.path.dirname(gprMax.__file__), '_examples', 'gpr', 'basic', 'cylinder_Bscan_2D.in'))")
fi
work=$(mktemp -d)
cp "$model" "$work/model.in" || exit 2
cd "$work" || exit 2
"$streamcl" fdtd model.in -n "$n" "${extra[@]}" > ours.log 2>&1 || { cat ours.log; exit 1; }
ours=$(grep -o '[0-9.]* traces/s' ours.log | cut -d' ' -f1)
peer="-"
if [ "$have_gprmax" = 1 ]; then
    t0=$(date +%s.%N)
    OMP_NUM_THREADS=$(nproc) "$venv/bin/python" -m gprMax model.in -n "$n" > gprmax.log 2>&1 || { tail -20 gprmax.log; exit 1; }
    t1=$(date +%s.%N)
    peer=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.2f", n / (b - a) }')
fi
rows=()
for r in ${BSCAN_RANKS:-}; do
    "${MPIEXEC:-mpirun}" --allow-run-as-root -np "$r" "$streamcl" fdtd model.in -n "$n" --mpi-traces \
        "${extra[@]}" > "mpi$r.log" 2>&1 || { cat "mpi$r.log"; exit 1; }
    rows+=("streamcl fdtd -n $n --mpi-traces, $r MPI ranks" "$(grep -o '[0-9.]* traces/s' "mpi$r.log" | cut -d' ' -f1)")
done
echo "B-scan of $(basename "$model"), $n traces, $(date -u +%F), $(nproc) cores"
printf '| %-40s | %12s |\n' "solver" "traces/s" "streamcl fdtd -n $n (${extra[*]:-default device})" "$ours" \
    "${rows[@]}" "gprMax 4.0.1 OpenMP, $(nproc) threads (wall, with start-up)" "$peer"
grep -m1 'trace 1/' ours.log
rm -rf "$work"
