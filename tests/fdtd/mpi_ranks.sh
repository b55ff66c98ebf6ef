#!/bin/bash
# streamcl fdtd over MPI ranks (mpirun -np N, slabs along one axis) against
# the one-rank run without mpirun: the receivers' HDF5 datasets bitwise
# equal (h5py, raw bytes) and the text output identical, in fp32 and fp64:
#  - 1, 2, 3 and 4 ranks, slabs along x, y and z (auto and --decomp)
#  - sources (a z and an x dipole) and receivers on slab boundaries
#  - uneven slabs: a prime axis (13 cells over 3, 7 over 4: a one-cell slab)
#  - a CPML corner over 4 ranks (z0 CPML of 8 cells on a 10-cell axis)
#  - halo swaps behind the interior updates (default) and --no-overlap; through
#    shared memory (default) and as MPI messages (--halo mpi)
#  - voltage sources (resistive, hard) and a Debye material on cuts; 2D TMz
# Failures: a bad output path (rank 0), a bad device on rank 1, more ranks
# than cells, a 2-D --decomp: non-zero, the message, no files left.
#   mpi_ranks.sh STREAMCL MPIEXEC WORKDIR HAVE_MPI      (ctest passes them)
. "$(dirname "$0")/../mpi_ranks_lib.sh" "$@"
# h5py for the bitwise comparison of the HDF5 datasets; without it the text
# (10 significant digits: every fp32 bit) is compared, fp64 runs are skipped
py=$(. "$(dirname "$0")/../peers_python.sh" h5py > "$work/peers.log" 2>&1; echo "$peer_py")
"$py" -c "import h5py" 2> /dev/null || py=
h5same=$(dirname "$0")/h5_same.py

# 12 x 10 x 9 cells, CPML 3, a soil half space; dipoles on slab boundaries:
# Ez at node (6,5,6) (x: 2 slabs, z: 3 slabs), Ex at (4,5,3) (x: 3 slabs,
# z: 3 slabs); receivers on boundaries and inside
cat > "$work/in/a.in" <<'IN'
#domain: 0.024 0.02 0.018
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 50
#pml_cells: 3
#material: 4 0.01 1 0 soil
#box: 0 0 0 0.024 0.02 0.008 soil
#waveform: ricker 1 6e9 w1
#waveform: gaussiandot 0.5 8e9 w2
#hertzian_dipole: z 0.012 0.01 0.012 w1
#hertzian_dipole: x 0.008 0.01 0.006 w2
#rx: 0.012 0.012 0.006
#rx: 0.016 0.012 0.012
#rx: 0.004 0.004 0.004
#rx: 0.008 0.01 0.012
#rx: 0.012 0.01 0.012
IN
# 13 x 6 x 7 cells (prime x and z), CPML 2, a PEC box edge on slab cuts
cat > "$work/in/b.in" <<'IN'
#domain: 0.026 0.012 0.014
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 40
#pml_cells: 2
#material: 6 0 1 0 rock
#box: 0.01 0 0.004 0.018 0.012 0.008 rock
#box: 0.014 0.004 0.002 0.016 0.008 0.006 pec
#waveform: ricker 1 7e9 w1
#hertzian_dipole: y 0.008 0.006 0.006 w1
#rx: 0.02 0.006 0.006
#rx: 0.01 0.004 0.012
IN
# 8 x 8 x 10 cells, a z0 CPML of 8 cells: the x0 y0 z0 corner spans all of
# 4 z slabs (3, 3, 2, 2 cells; the CPML's inner face on the last one)
cat > "$work/in/c.in" <<'IN'
#domain: 0.016 0.016 0.02
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 40
#pml_cells: 2 2 8 2 2 1
#waveform: ricker 1 8e9 w1
#hertzian_dipole: z 0.008 0.008 0.018 w1
#rx: 0.004 0.004 0.004
#rx: 0.008 0.008 0.012
#rx: 0.002 0.002 0.018
IN

# resistive and hard voltage sources on cuts, a dispersive (Debye) half space
cat > "$work/in/v.in" <<'IN'
#domain: 0.024 0.02 0.018
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 50
#pml_cells: 3
#material: 5 0.001 1 0 sand
#add_dispersion_debye: 1 20 1e-11 sand
#box: 0 0 0 0.024 0.02 0.008 sand
#waveform: gaussian 1 6e9 w1
#voltage_source: z 0.012 0.01 0.012 50 w1
#voltage_source: x 0.008 0.012 0.006 0 w1
#rx: 0.012 0.012 0.006
#rx: 0.008 0.01 0.012
IN
# 2D TMz (one cell thick along z)
cat > "$work/in/t.in" <<'IN'
#domain: 0.04 0.03 0.002
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 60
#pml_cells: 4
#waveform: ricker 1 6e9 w1
#hertzian_dipole: z 0.02 0.014 0 w1
#rx: 0.026 0.016 0
IN

# run NAME NP MODEL ARGS...  (NP 0: no mpirun, the one-rank reference)
run() {
    local name=$1 np=$2 model=$3
    shift 3
    local d="$work/$name"
    mkdir -p "$d"
    ranks "$np" "$streamcl" fdtd "$work/in/$model.in" -o "$d/r.h5" --text "$d/r.txt" --no-tune "$@" \
        > "$d.log" 2>&1
}

# same NAME REF DIR FP64
same() {
    local name=$1 ref=$work/$2 d=$work/$3 fp64=$4
    if [ ! -s "$d/r.h5" ] || [ ! -s "$d/r.txt" ]; then
        fail "$name: no output ($(grep -m1 'streamcl' "$d.log"))"
    elif [ -n "$py" ] && ! "$py" "$h5same" "$ref/r.h5" "$d/r.h5" > "$d.cmp" 2>&1; then
        fail "$name: HDF5 receivers differ from one rank's: $(tail -1 "$d.cmp")"
    elif [ -z "$py" ] && [ "$fp64" = 1 ]; then
        ok "$name: ran (no h5py: fp64 bits not compared)"
    elif ! cmp -s "$ref/r.txt" "$d/r.txt"; then
        fail "$name: text receivers differ from one rank's"
    else
        ok "$name${py:+: $(tail -1 "$d.cmp")}"
    fi
}

for prec in fp32 fp64; do
    args=()
    [ $prec = fp64 ] && args=(--fp64)
    f=$([ $prec = fp64 ] && echo 1 || echo 0)
    run a_ref_$prec 0 a "${args[@]}"
    for np in 1 2 3 4; do
        run a_np${np}_$prec "$np" a "${args[@]}"
        same "$prec 12x10x9, $np rank(s) (auto: slabs along x)" a_ref_$prec a_np${np}_$prec $f
    done
    run a_y_$prec 4 a --decomp 1x4x1 "${args[@]}"
    same "$prec 12x10x9, --decomp 1x4x1 (y: 3,3,2,2)" a_ref_$prec a_y_$prec $f
    run a_z_$prec 3 a --decomp 1x1x3 "${args[@]}"
    same "$prec 12x10x9, --decomp 1x1x3 (z: dipoles and receivers on the cuts)" a_ref_$prec a_z_$prec $f
    run b_ref_$prec 0 b "${args[@]}"
    run b_x_$prec 3 b "${args[@]}"
    same "$prec 13x6x7, 3 ranks along the prime x (5,4,4)" b_ref_$prec b_x_$prec $f
    run b_z_$prec 4 b --decomp 1x1x4 "${args[@]}"
    same "$prec 13x6x7, --decomp 1x1x4 (2,2,2,1: a one-cell slab)" b_ref_$prec b_z_$prec $f
    run c_ref_$prec 0 c "${args[@]}"
    run c_z_$prec 4 c --decomp 1x1x4 "${args[@]}"
    same "$prec CPML corner over 4 z slabs" c_ref_$prec c_z_$prec $f
done
run a_x2 2 a --decomp 2x1x1
same "fp32 12x10x9, --decomp 2x1x1 (the z dipole on the cut)" a_ref_fp32 a_x2 0
run v_ref 0 v
run v_z 3 v --decomp 1x1x3
same "fp32 voltage sources (50 ohm, hard) and a Debye half space, --decomp 1x1x3" v_ref v_z 0
run t_ref 0 t
run t_x 2 t
same "fp32 2D TMz, 2 ranks (slabs along x)" t_ref t_x 0
# the halo swaps between the half steps (--no-overlap) instead of behind the
# interior updates (the default above): the same bits
run a_noov 3 a --no-overlap
same "fp32 12x10x9, 3 ranks, --no-overlap" a_ref_fp32 a_noov 0
run b_noov 4 b --decomp 1x1x4 --no-overlap --fp64
same "fp64 13x6x7, --decomp 1x1x4 (a one-cell slab), --no-overlap" b_ref_fp64 b_noov 1
run c_noov 4 c --decomp 1x1x4 --no-overlap
same "fp32 CPML corner over 4 z slabs, --no-overlap" c_ref_fp32 c_noov 0
# the halos as MPI messages (--halo mpi) instead of through the node's
# shared memory window (the default above): the same bits
run a_mpi 3 a --halo mpi
same "fp32 12x10x9, 3 ranks, --halo mpi" a_ref_fp32 a_mpi 0
says "3 ranks of one node: halos through shared memory" "$work/a_noov.log" "through shared memory"
says "--halo mpi: halos as MPI messages" "$work/a_mpi.log" "through MPI messages"

# a #geometry_view: written by rank 0 as one rank writes it (beside the input)
{ cat "$work/in/a.in"; echo "#geometry_view: 0 0 0 0.024 0.02 0.018 0.002 0.002 0.002 g_geo n"; } \
    > "$work/in/g.in"
run g_np3 3 g
if [ -s "$work/in/g_geo.vtkhdf" ] && [ -s "$work/g_np3/r.h5" ]; then
    ok "#geometry_view at 3 ranks: $(grep -c 'geometry view' "$work/g_np3.log") file written by rank 0"
else
    fail "#geometry_view at 3 ranks: no g_geo.vtkhdf ($(grep -m1 streamcl "$work/g_np3.log"))"
fi

# out DIR: the command's text output and untuned plan, into WORK/DIR/out
out() { echo --text "$work/$1/out/r.txt" --no-tune; }
expect_fail fail_path "a bad output path on rank 0 stops all 3 ranks" "no/such/dir" 3 \
    "$streamcl" fdtd "$work/in/a.in" -o "$work/no/such/dir/r.h5" $(out fail_path)
expect_fail fail_device "a bad device on rank 1 stops all 3 ranks" "no OpenCL device matches '7:7'" 3 \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --device 7:7; fi; exec "$@"' sh \
    "$streamcl" fdtd "$work/in/a.in" -o "$work/fail_device/out/r.h5" $(out fail_device)
expect_fail fail_ranks "8 ranks over 7 z cells refused" "the z axis has 7 cells: it cannot be split over 8" 8 \
    "$streamcl" fdtd "$work/in/b.in" -o "$work/fail_ranks/out/r.h5" --decomp 1x1x8 $(out fail_ranks)
expect_fail fail_2d "a 2-D split refused" "cuts more than one axis" 4 \
    "$streamcl" fdtd "$work/in/b.in" -o "$work/fail_2d/out/r.h5" --decomp 2x2x1 $(out fail_2d)
expect_fail fail_png "--png refused under mpirun" "--png is for one-rank runs" 2 \
    "$streamcl" fdtd "$work/in/b.in" -o "$work/fail_png/out/r.h5" --png "$work/fail_png/out" $(out fail_png)

mpi_ranks_end fdtd_mpi_ranks
