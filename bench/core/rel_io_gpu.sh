#!/bin/bash
# Issue 27 on a GPU (run through bench/gpu-session.sh core/rel_io_gpu.sh:240):
#  1. the device-memory budgets refuse what cannot fit and keep what can
#     (fdtd --bench 512^3 and seismic --bench 512 run; fdtd 1200^3 fp64
#     fused (166 GB) is refused with the bytes, a seismic 1400^3 run file at
#     its grid line; no abort);
#  2. the cost of the non-finite checks (fields read after chunks 1, 2, 4,
#     ...): the same seismic and fdtd runs, the rate printed (checks excluded)
#     against the wall time of the whole command (checks included).
# Prints one table at the end.
S=${STREAMCL:?set STREAMCL to the streamcl binary}
w=$(mktemp -d)
row() { printf '%-46s %6s %10s %s\n' "$1" "$2" "$3" "$4"; }
table=()
run() { # NAME CMD...: exit status, wall seconds, the last line
    local name=$1; shift
    local t0=$(date +%s.%N)
    "$@" > "$w/out" 2>&1
    local rc=$? t1=$(date +%s.%N)
    table+=("$(row "$name" "$rc" "$(echo "$t1 - $t0" | bc)" "$(grep -E 'Gcells|needs|steps in' "$w/out" | tail -1 | cut -c1-110)")")
}
run "fdtd --bench 512^3 (fits)" "$S" fdtd --bench 512 512 512 --steps 200
run "fdtd --bench 1200^3 fp64 fused (refused)" "$S" fdtd --bench 1200 1200 1200 --fp64 --kernel fused
run "seismic --bench 512 (fits)" "$S" seismic --bench 512 --steps 200
cat > "$w/big.run" <<R
grid 1400 1400 1400 5
model homogeneous 2000 1000 2000
steps 10
source force 500 500 500 0 0 1 ricker 9 1e3
R
run "seismic 1400^3 run file (host-refused)" "$S" seismic "$w/big.run"
cat > "$w/mid.run" <<R
grid 400 400 400 5
model homogeneous 2000 1000 2000
steps 1000
source force 1000 1000 1000 0 0 1 ricker 9 1e3
receivers 100 1000 0 1900 1000 0 64
R
run "seismic 400^3 1000 steps (checks in wall)" "$S" seismic "$w/mid.run" --csv "$w/mid.csv"
cp bench/fdtd/halfspace.in "$w/h.in"
run "fdtd halfspace (checks in wall)" "$S" fdtd "$w/h.in" -o "$w/h.h5"
echo
row "case" "exit" "wall s" "last line"
printf '%s\n' "${table[@]}"
rm -rf "$w"
