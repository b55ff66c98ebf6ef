#!/bin/bash
# streamcl lbm over MPI ranks against the one-rank run (no mpirun):
#  - final_state.dat bitwise equal (the updates are local, so the slabs'
#    distributions must equal the whole lattice's bit for bit; the state file
#    prints every float with 13 significant digits, so equal text = equal bits)
#  - av_vels.dat within 1e-6 relative (each slab's |u| sum is added in double
#    in another order than one device's, so the last bit may differ)
# on awkward sizes: 19x13 (13 rows, prime) at 1..4 ranks with obstacles on the
# slab boundaries and on the periodic wrap row; 23x5 at 4 ranks (slabs of
# 2,1,1,1 rows: a rank with one row) in fp32 and fp16; tuned and forced shapes;
# the overlapped halo exchange (default) and --no-overlap; through shared
# memory (default) and as MPI messages (--halo mpi).
# Failures: more ranks than rows, and one rank with a bad device: every rank
# stops, non-zero, the message shown, no files (nor .part) left.
#   mpi_ranks.sh STREAMCL MPIEXEC WORKDIR HAVE_MPI      (ctest passes them)
. "$(dirname "$0")/../mpi_ranks_lib.sh" "$@"

# 19x13, 60 steps; obstacles on rows 0 and 12 (the periodic wrap), on the
# slab edges of 2, 3 and 4 ranks (rows 3/4, 4/5, 6/7, 7/8) and near row 11,
# the accelerated row
printf '19\n13\n60\n13\n0.1\n0.005\n1.85\n' > "$work/in/a.par"
printf '10 0 1\n10 12 1\n2 11 1\n3 3 1\n3 4 1\n5 5 1\n6 6 1\n7 7 1\n7 8 1\n8 3 1\n12 6 1\n' \
    > "$work/in/a.obs"
printf '23\n5\n40\n5\n0.1\n0.005\n1.85\n' > "$work/in/b.par"
printf '3 0 1\n4 1 1\n5 2 1\n6 3 1\n7 4 1\n20 4 1\n' > "$work/in/b.obs"

# compare NAME REFDIR DIR
compare() {
    local name=$1 ref=$2 d=$3
    if [ ! -s "$d/final_state.dat" ] || [ ! -s "$d/av_vels.dat" ]; then
        fail "$name: no output ($(grep -m1 'streamcl' "$d.log"))"
    elif ! cmp -s "$ref/final_state.dat" "$d/final_state.dat"; then
        fail "$name: final_state.dat differs from one rank's: $(cmp "$ref/final_state.dat" "$d/final_state.dat")"
    elif ! awk 'NR == FNR { a[$1] = $2; next }
                { d = $2 - a[$1]; if (d < 0) d = -d; s = a[$1] < 0 ? -a[$1] : a[$1];
                  if (!(d <= 1e-6 * s + 1e-12)) { print "step " $1 ": " a[$1] " vs " $2; bad = 1 } n++ }
                END { exit bad || n == 0 }' "$ref/av_vels.dat" "$d/av_vels.dat"; then
        fail "$name: av_vels.dat differs beyond 1e-6"
    else
        ok "$name"
    fi
}

# run NAME NP PARAMS OBST ARGS...  (NP 0: no mpirun, the one-rank reference)
run() {
    local name=$1 np=$2 par=$3 obs=$4
    shift 4
    local d="$work/$name"
    mkdir -p "$d"
    ranks "$np" "$streamcl" lbm "$work/in/$par" "$work/in/$obs" --out "$d" "$@" > "$d.log" 2>&1
}

run a_ref 0 a.par a.obs --force lx=16,ly=1
for np in 1 2 3 4; do
    run a_np$np "$np" a.par a.obs --force lx=16,ly=1
    compare "19x13 (prime rows), $np rank(s), obstacles on slab edges" "$work/a_ref" "$work/a_np$np"
done
# the halo exchange between steps (--no-overlap) gives the same states as the
# overlapped default (edge rows, then the interior while the edges are swapped)
run a_noov 3 a.par a.obs --force lx=16,ly=1 --no-overlap
compare "19x13, 3 ranks, --no-overlap" "$work/a_ref" "$work/a_noov"
# the halos as MPI messages (--halo mpi) instead of through the node's
# shared memory window (the default): the same states
run a_mpi 3 a.par a.obs --force lx=16,ly=1 --halo mpi
compare "19x13, 3 ranks, --halo mpi" "$work/a_ref" "$work/a_mpi"
says "3 ranks of one node: halos through shared memory" "$work/a_noov.log" "through shared memory"
says "--halo mpi: halos as MPI messages" "$work/a_mpi.log" "through MPI messages"
# overlapped: interior groups 4 rows high (partials of 3 launches per step),
# batches of 7 steps (the halos stay filled from one batch to the next)
run a_ly4 2 a.par a.obs --force lx=16,ly=4 --batch 7
compare "19x13, 2 ranks, work-groups 16x4, batches of 7" "$work/a_ref" "$work/a_ly4"
run a_tuned 3 a.par a.obs
compare "19x13, 3 ranks, each rank's work-group tuned" "$work/a_ref" "$work/a_tuned"
# snapshots and PNGs: gathered at each --every, written by rank 0, identical files
run a_every_ref 0 a.par a.obs --force lx=16,ly=1 --every 20 --png "$work/a_every_ref/u.png"
run a_every 3 a.par a.obs --force lx=16,ly=1 --every 20 --png "$work/a_every/u.png"
names=$(cd "$work/a_every_ref" && ls)
if [ "$(cd "$work/a_every" && ls)" != "$names" ] || [ "$(echo "$names" | wc -l)" -ne 7 ]; then
    fail "--every 20 --png at 3 ranks: files $(cd "$work/a_every" && ls | tr '\n' ' ')"
elif ! (cd "$work/a_every_ref" && for f in $names; do cmp -s "$f" "../a_every/$f" || exit 1; done); then
    fail "--every 20 --png at 3 ranks: a snapshot or PNG differs from one rank's"
else
    ok "--every 20 --png at 3 ranks: 7 files identical to one rank's"
fi
run b_ref 0 b.par b.obs
run b_np4 4 b.par b.obs
compare "23x5, 4 ranks (slabs of 2,1,1,1 rows)" "$work/b_ref" "$work/b_np4"
run b_noov 4 b.par b.obs --no-overlap
compare "23x5, 4 ranks, --no-overlap" "$work/b_ref" "$work/b_noov"
run b16_ref 0 b.par b.obs --storage fp16
run b16_np4 4 b.par b.obs --storage fp16
compare "23x5 fp16 storage, 4 ranks" "$work/b16_ref" "$work/b16_np4"

# out DIR: the command's outputs into WORK/DIR/out
out() { echo --out "$work/$1/out" --png "$work/$1/out/u.png"; }
expect_fail fail_rows "6 ranks for 5 rows refused" "b.par:2: ny 5 rows cannot be split over 6 MPI ranks" 6 \
    "$streamcl" lbm "$work/in/b.par" "$work/in/b.obs" $(out fail_rows)
# rank 1 alone asks for a device that does not exist
expect_fail fail_device "a bad device on rank 1 stops all 3 ranks" "no OpenCL device matches '7:7'" 3 \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --device 7:7; fi; exec "$@"' sh \
    "$streamcl" lbm "$work/in/b.par" "$work/in/b.obs" $(out fail_device)
expect_fail fail_inplace "in-place streaming refused on slabs" "in-place .AA. streaming is not supported" 2 \
    "$streamcl" lbm "$work/in/b.par" "$work/in/b.obs" --inplace $(out fail_inplace)

mpi_ranks_end lbm_mpi_ranks
