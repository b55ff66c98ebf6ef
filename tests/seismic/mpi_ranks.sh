#!/bin/bash
# streamcl seismic over MPI ranks (mpirun -np N, slabs along one axis)
# against the one-rank run without mpirun: the SEG-Y files (IEEE floats) and
# the CSV of every receiver byte for byte equal, in fp32 and fp64 (the
# traces are recorded as floats in both; fp64 fields are rounded once, the
# same way, so a difference in the fp64 update shows as a different float
# in all but the rarest cases):
#  - 1, 2, 3 and 4 ranks, slabs along x, y and z (auto and --decomp), a free
#    surface over z cuts
#  - a force source beside a cut (its injection reads the neighbour's rho),
#    a moment source on a cut (its shear nodes on both sides), receivers on
#    cuts and on the surface
#  - uneven slabs: 13 cells over 3 (prime), 7 over 4 at order 2 (2,2,2,1: a
#    one-plane rank; at order 4 a rank needs 2 planes: refused, below)
#  - CPML corners over 4 ranks (CPML 4 on a 10-plane z axis: 3,3,2,2)
#  - halo swaps behind the inner planes (default) and --no-overlap; through
#    shared memory (default) and as MPI messages (--halo mpi); the window's
#    copies on several threads (--halo-threads), the messages in several
#    pieces a face (--halo-pieces)
#  - update launches split into a few z planes each (--plan planes=N)
# Failures: a bad output path (rank 0), a bad device on rank 1, more ranks
# than planes, a one-plane rank at order 4, a 2-D --decomp, --png: non-zero,
# the message, no files left.
#   mpi_ranks.sh STREAMCL MPIEXEC WORKDIR HAVE_MPI      (ctest passes them)
. "$(dirname "$0")/../mpi_ranks_lib.sh" "$@"

printf '0 1800 700 1900\n40 3200 1800 2400\n' > "$work/in/layers.txt"
# 16 x 12 x 14 cells of 5 m, two layers, free surface, CPML 3; the force
# source at cell (7,6,7), the moment source at (8,5,6): 2 x slabs cut at 8
cat > "$work/in/a.run" <<'R'
grid 16 12 14 5
model layered layers.txt
steps 50
pml 3
source force 35 30 35 0.3 0.2 1 ricker 8 1e8 0.02
source moment 40 25 30 1 -1 0.5 0.3 0.2 0.1 ricker 10 1e9 0.015
receivers 0 30 0 75 30 0 6
receiver 40 30 35
receiver 35 20 30
receiver 40 40 20
R
# 13 x 7 x 9 (prime x and y), absorbing top, CPML 2
cat > "$work/in/b.run" <<'R'
grid 13 7 9 5
model homogeneous 3000 1700 2200
steps 40
surface absorbing
pml 2
source explosive 30 15 20 ricker 10 1e9 0.015
receiver 25 15 20
receiver 45 10 35
receiver 20 30 10
R
sed 's/^steps 40/steps 40\norder 2/' "$work/in/b.run" > "$work/in/b2.run"
# 10^3, CPML 4 on every face: the CPML corners span all 4 z slabs (3,3,2,2)
cat > "$work/in/c.run" <<'R'
grid 10 10 10 5
model homogeneous 3000 1700 2200
steps 40
surface absorbing
pml 4
source explosive 20 20 25 ricker 10 1e9 0.015
receiver 5 5 5
receiver 20 20 40
receiver 35 35 15
R
for m in a b c; do sed 's/^steps/precision double\nsteps/' "$work/in/$m.run" > "$work/in/${m}64.run"; done

# run NAME NP MODEL ARGS...  (NP 0: no mpirun, the one-rank reference)
run() {
    local name=$1 np=$2 model=$3
    shift 3
    local d="$work/$name"
    mkdir -p "$d"
    ranks "$np" "$streamcl" seismic "$work/in/$model.run" --segy "$d/s" --csv "$d/r.csv" --tune 0 \
        "$@" > "$d.log" 2>&1
}

# same NAME REF DIR: every output file byte for byte
same() {
    local name=$1 ref=$work/$2 d=$work/$3 f
    for f in r.csv s_vx.sgy s_vy.sgy s_vz.sgy s_p.sgy; do
        if [ ! -s "$d/$f" ]; then
            fail "$name: no $f ($(grep -m1 'streamcl' "$d.log"))"
            return
        elif ! cmp -s "$ref/$f" "$d/$f"; then
            fail "$name: $f differs from one rank's"
            return
        fi
    done
    if ! grep -q "MPI ranks" "$d.log"; then
        fail "$name: not the decomposed run"
    else
        ok "$name"
    fi
}

# a live signal, or the comparisons prove little
run a_ref 0 a
peak=$(sed -n 's/^peak |receiver value| //p' "$work/a_ref.log")
if awk -v p="$peak" 'BEGIN { exit !(p > 1e-3) }'; then ok "one-rank reference: peak $peak"
else fail "one-rank reference: no signal (peak '$peak')"; fi

for p in "" 64; do
    prec=${p:-32}
    run a${p}_ref 0 a$p
    run a${p}_1 1 a$p
    same "fp$prec 16x12x14 at 1 rank" a${p}_ref a${p}_1
    run a${p}_x2 2 a$p --decomp 2x1x1
    same "fp$prec 2 x slabs (the moment source on the cut, the force beside it)" a${p}_ref a${p}_x2
    run a${p}_y3 3 a$p --decomp 1x3x1
    same "fp$prec 3 y slabs" a${p}_ref a${p}_y3
    run a${p}_z4 4 a$p --decomp 1x1x4
    same "fp$prec 4 z slabs under a free surface (4,4,3,3)" a${p}_ref a${p}_z4
    run a${p}_auto 3 a$p
    same "fp$prec 3 ranks, automatic split" a${p}_ref a${p}_auto
    run b${p}_ref 0 b$p
    run b${p}_x3 3 b$p --decomp 3x1x1
    same "fp$prec 13x7x9, 3 x slabs of the prime axis (5,4,4)" b${p}_ref b${p}_x3
    run c${p}_ref 0 c$p
    run c${p}_z4 4 c$p --decomp 1x1x4
    same "fp$prec CPML corner over 4 z slabs" c${p}_ref c${p}_z4
done
run b2_ref 0 b2
run b2_y4 4 b2 --decomp 1x4x1
same "fp32 order 2, 7 y planes over 4 (2,2,2,1: a one-plane rank)" b2_ref b2_y4
run b2_y4n 4 b2 --decomp 1x4x1 --no-overlap
same "fp32 order 2, a one-plane rank, --no-overlap" b2_ref b2_y4n
run a_z4n 4 a --decomp 1x1x4 --no-overlap
same "fp32 4 z slabs, --no-overlap" a_ref a_z4n
run a64_x3n 3 a64 --decomp 3x1x1 --no-overlap
same "fp64 3 x slabs, --no-overlap" a64_ref a64_x3n
# launches of a few z planes each, from their own 64-bit base (the path of
# grids above 2^31 points, plan planes=N): the same bits
run a_z2p 2 a --decomp 1x1x2 --plan planes=2
same "fp32 2 z slabs, launches of 2 planes" a_ref a_z2p
run a64_x2p 2 a64 --decomp 2x1x1 --plan planes=3
same "fp64 2 x slabs, launches of 3 planes" a64_ref a64_x2p
# the halos as MPI messages (--halo mpi) instead of through the node's
# shared memory window (the default above): the same bits
run a_z4m 4 a --decomp 1x1x4 --halo mpi --verbose
same "fp32 4 z slabs, --halo mpi" a_ref a_z4m
says "4 ranks of one node: halos through shared memory" "$work/a_z4n.log" "through shared memory"
says "--halo mpi: halos as MPI messages" "$work/a_z4m.log" "through MPI messages"
# the window's planes copied by several threads (each face's bytes cut
# into pieces at other offsets), the device reading into pinned memory
run a_z4t 4 a --decomp 1x1x4 --halo shm --halo-threads 3
same "fp32 4 z slabs, the window's copies on 3 threads" a_ref a_z4t
says "--halo-threads 3: 3 copy threads" "$work/a_z4t.log" "through shared memory (3 copy threads"
run a64_x3t 3 a64 --decomp 3x1x1 --halo-threads 2
same "fp64 3 x slabs, the window's copies on 2 threads" a64_ref a64_x3t
# each face's planes as several messages in flight (pieces of unequal
# length, and more pieces than bytes would split evenly)
run a_z4p 4 a --decomp 1x1x4 --halo mpi --halo-pieces 5
same "fp32 4 z slabs, --halo mpi in 5 pieces a face" a_ref a_z4p
says "--halo-pieces 5: 5 messages a face" "$work/a_z4p.log" "5 messages a face"
run a64_x3p 3 a64 --decomp 3x1x1 --halo mpi --halo-pieces 64 --no-overlap
same "fp64 3 x slabs, --halo mpi in 64 pieces a face, --no-overlap" a64_ref a64_x3p
# where the step's time went: rank 0's by default, every rank's with --verbose
says "rank 0's time per step" "$work/a_z2p.log" "rank 0 per step: .* in MPI.* device ms: interior"
says "--verbose: rank 3's time per step" "$work/a_z4m.log" "rank 3 per step: .* MiB sent"

# failures: the command writes into WORK/NAME/out
seis() { local d=$1 m=$2; shift 2; echo "$streamcl" seismic "$work/in/$m.run" --tune 0 \
    --segy "$work/$d/out/s" --csv "$work/$d/out/r.csv" "$@"; }
expect_fail fail_path "a bad output path on rank 0 stops all 3 ranks" "no/such/dir" 3 \
    "$streamcl" seismic "$work/in/a.run" --tune 0 --segy "$work/no/such/dir/s" --csv "$work/fail_path/out/r.csv"
expect_fail fail_device "a bad device on rank 1 stops all 3 ranks" "no OpenCL device matches '7:7'" 3 \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --device 7:7; fi; exec "$@"' sh \
    $(seis fail_device a)
expect_fail fail_ranks "10 ranks over 9 z planes refused" "the z axis has 9 cells: it cannot be split over 10" 10 \
    $(seis fail_ranks b --decomp 1x1x10)
expect_fail fail_order4 "a one-plane rank at order 4 refused" "at least 2 cells per rank" 4 \
    $(seis fail_order4 b --decomp 1x4x1)
expect_fail fail_2d "a 2-D split refused" "cuts more than one axis" 4 \
    $(seis fail_2d a --decomp 2x2x1)
expect_fail fail_png "--png refused under mpirun" "--png is for one-rank runs" 2 \
    $(seis fail_png a --png "$work/fail_png/out/p")

mpi_ranks_end seismic_mpi_ranks
