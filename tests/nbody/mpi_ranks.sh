#!/bin/bash
# streamcl nbody over MPI ranks against the one-rank run (no mpirun): the
# final state (--out CSV, every value printed to 17 digits: equal text =
# equal bits), the density PNG and the energy lines must be identical, since
# each rank sums its bodies' forces over the blocks in the bodies' order, as
# one rank sums them. Sizes: 13 bodies (prime) at 1..4 ranks (blocks of
# 4,3,3,3 at 4); 5 at 4 ranks (2,1,1,1: a rank with one body) in double with
# eps = 0; 1031 (prime) at 2 and 3 ranks with vectors of 8 and 16 bodies and
# tiles of 256 / 1024 (blocks starting inside a tile); a body file as
# --init; 130 steps (two batches); each rank's plan tuned.
# Failures: more ranks than bodies, a missing body file, --engine reference,
# a bad device on one rank and a state that turns non-finite: every rank
# stops, non-zero, the message shown, no files left.
# (No --tune here: Open MPI's mpirun has a --tune FILE of its own and warns.)
#   mpi_ranks.sh STREAMCL MPIEXEC WORKDIR HAVE_MPI      (ctest passes them)
. "$(dirname "$0")/../mpi_ranks_lib.sh" "$@"

# run NAME NP ARGS...  (NP 0: no mpirun, the one-rank reference)
run() {
    local name=$1 np=$2
    shift 2
    local d="$work/$name"
    mkdir -p "$d"
    ranks "$np" "$streamcl" nbody --out "$d/state.csv" --png "$d/density.png" "$@" > "$d.log" 2>&1
}

# compare NAME REFNAME NAME2
compare() {
    local what=$1 ref="$work/$2" d="$work/$3"
    if [ ! -s "$d/state.csv" ] || [ ! -s "$d/density.png" ]; then
        fail "$what: no output ($(grep -m1 'streamcl' "$d.log"))"
    elif ! cmp -s "$ref/state.csv" "$d/state.csv"; then
        fail "$what: the final state differs from one rank's: $(cmp "$ref/state.csv" "$d/state.csv")"
    elif ! cmp -s "$ref/density.png" "$d/density.png"; then
        fail "$what: the density image differs from one rank's"
    elif [ "$(grep '^energy\|^relative' "$ref.log")" != "$(grep '^energy\|^relative' "$d.log")" ] ||
         [ "$(grep -c '^energy' "$d.log")" -ne 2 ]; then
        fail "$what: energies differ: $(grep '^energy end' "$ref.log") vs $(grep '^energy end' "$d.log")"
    else
        ok "$what"
    fi
}

p13="--n 13 --steps 20 --plan V=1,wg=16,tile=256"
run a_ref 0 $p13
for np in 1 2 3 4; do
    run a_np$np "$np" $p13
    compare "13 bodies (prime), $np rank(s)" a_ref a_np$np
done
if grep -q "blocks of 3..4 bodies" "$work/a_np4.log"; then ok "13 bodies at 4 ranks: blocks of 3 and 4"
else fail "13 bodies at 4 ranks: $(grep -m1 'MPI ranks' "$work/a_np4.log")"; fi
# against_one TAG NP WHAT ARGS...: the one-rank run and NP ranks with ARGS, compared
against_one() {
    local tag=$1 np=$2 what=$3
    shift 3
    run "${tag}_ref" 0 "$@"
    run "${tag}_np$np" "$np" "$@"
    compare "$what" "${tag}_ref" "${tag}_np$np"
}
against_one b 4 "5 bodies at 4 ranks (2,1,1,1), double, eps 0" \
    --n 5 --steps 30 --precision double --eps 0 --plan V=4,wg=16,tile=256
against_one c 3 "1031 bodies, 3 ranks, V=8, tile 256 (blocks start inside tiles)" \
    --n 1031 --steps 12 --plan V=8,wg=16,tile=256
against_one d 2 "1031 bodies, 2 ranks, V=16, tile 1024" --n 1031 --steps 12 --plan V=16,wg=16,tile=1024
# the first run's state as a body file: read by rank 0, sent to the others
against_one e 3 "a body file as --init, 3 ranks" --init "$work/c_ref/state.csv" --steps 5 --plan V=4,wg=16,tile=256
against_one f 2 "130 steps (two batches), 2 ranks" --n 13 --steps 130 --plan V=1,wg=16,tile=256 --seed 7
# each rank tunes its block's plan: a plan's vector width and tile do not
# change the sums' order, so PoCL's bits stay the same
run g_ref 0 --n 300 --steps 5
run g_np3 3 --n 300 --steps 5
compare "300 bodies, 3 ranks, plans tuned per rank" g_ref g_np3

# out DIR: the command's outputs into WORK/DIR/out
out() { echo --out "$work/$1/out/state.csv" --png "$work/$1/out/density.png"; }
expect_fail fail_split "4 ranks for 3 bodies refused" "3 bodies cannot be split over 4 MPI ranks" 4 \
    "$streamcl" nbody --n 3 $(out fail_split)
expect_fail fail_file "a missing body file stops all 2 ranks" "no_such.txt: cannot open" 2 \
    "$streamcl" nbody --init "$work/in/no_such.txt" $(out fail_file)
expect_fail fail_engine "--engine reference refused under mpirun" "--engine reference is for one-rank runs" 2 \
    "$streamcl" nbody --n 20 --engine reference $(out fail_engine)
# rank 1 alone asks for a device that does not exist
expect_fail fail_device "a bad device on rank 1 stops all 3 ranks" "no OpenCL device matches '7:7'" 3 \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --device 7:7; fi; exec "$@"' sh \
    "$streamcl" nbody --n 100 --steps 3 $(out fail_device)
expect_fail fail_diverge "a non-finite state stops all 3 ranks at the one-rank run's step" \
    "the state became non-finite by step 1 " 3 \
    "$streamcl" nbody --n 64 --dt 1e308 --steps 1 $(out fail_diverge)

mpi_ranks_end nbody_mpi_ranks
