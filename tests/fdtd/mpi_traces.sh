#!/bin/bash
# streamcl fdtd -n N --mpi-traces: a B-scan's traces farmed over MPI ranks
# (trace k on rank k mod R) against the one-rank run without mpirun. The
# same files, each the same: every HDF5 object, attribute and dataset equal
# bit for bit (h5_tree_same.py: HDF5's own time stamps are all that differ
# between any two runs), the radargram PNG equal byte for byte:
#  - 1, 2 and 3 ranks over 5 traces (#src_steps/#rx_steps, two receivers,
#    a #geometry_view that rank 0 writes), in fp32; 2 ranks in fp64;
#    --no-merge (no merged file, as one rank)
# Failures: non-zero, the message, no files left:
#  - an output path rank 2 cannot write (its trace file is a directory)
#  - trace 4's file a FIFO: refused in the second round, after the first
#    round's three trace files were written (they go too)
#  - a bad device on rank 1
#  - a trace that leaves the domain
#  - --decomp with --mpi-traces; -n under mpirun without --mpi-traces;
#    --mpi-traces without mpirun
#   mpi_traces.sh STREAMCL MPIEXEC WORKDIR HAVE_MPI      (ctest passes them)
. "$(dirname "$0")/../mpi_ranks_lib.sh" "$@"
py=$(. "$(dirname "$0")/../peers_python.sh" h5py > "$work/peers.log" 2>&1; echo "$peer_py")
if ! "$py" -c "import h5py" 2> /dev/null; then
    echo "SKIP: no h5py for the HDF5 comparison ($(tail -1 "$work/peers.log"))"
    exit 77
fi
tree_same=$(dirname "$0")/h5_tree_same.py

# 16 x 12 x 8 cells, CPML 3 in x and y, a soil half space; the dipole and
# two receivers move 1 cell in x per trace (the fifth trace still inside)
cat > "$work/in/m.in" <<'IN'
#title: B-scan farmed over ranks
#domain: 0.032 0.024 0.016
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 40
#pml_cells: 3 3 1 3 3 1
#material: 5 0.005 1 0 soil
#box: 0 0 0 0.032 0.010 0.016 soil
#waveform: ricker 1 7e9 w1
#hertzian_dipole: z 0.010 0.014 0.008 w1
#rx: 0.014 0.014 0.008
#rx: 0.012 0.008 0.006
#src_steps: 0.002 0 0
#rx_steps: 0.002 0 0
#geometry_view: 0 0 0 0.032 0.024 0.016 0.002 0.002 0.002 m_view n
IN

# run NAME NP ARGS...: the B-scan in WORK/NAME (the input copied there, so
# that the geometry view lands there too), under NP ranks (0: no mpirun)
run() {
    local d="$work/$1" np=$2
    shift 2
    mkdir -p "$d" && cp "$work/in/m.in" "$d/"
    if [ "$np" = 0 ]; then
        "$streamcl" fdtd "$d/m.in" --no-tune "$@" > "$d.log" 2>&1
    else
        mpi "$np" "$streamcl" fdtd "$d/m.in" --no-tune --mpi-traces "$@" > "$d.log" 2>&1
    fi
}

# same NAME REF: the run in WORK/NAME wrote the files of WORK/REF, each the same
same() {
    local d="$work/$1" r="$work/$2" f bad=
    if [ "$(cd "$d" && ls)" != "$(cd "$r" && ls)" ]; then
        fail "$1: files $(cd "$d" && ls | tr '\n' ' ') vs $(cd "$r" && ls | tr '\n' ' ')"
        return
    fi
    for f in $(cd "$r" && ls); do
        case $f in
            *.h5 | *.vtkhdf) "$py" "$tree_same" "$r/$f" "$d/$f" > "$d.$f.cmp" 2>&1 || bad="$bad $f: $(cat "$d.$f.cmp")" ;;
            *) cmp -s "$r/$f" "$d/$f" || bad="$bad $f" ;;
        esac
    done
    if [ -n "$bad" ]; then fail "$1: differs from $2:$bad"; else ok "$1: $(cd "$d" && ls | wc -l) files as $2's"; fi
}

if run ref 0 -n 5 --radargram "$work/ref/r.png" && [ -f "$work/ref/m_merged.h5" ] && [ -f "$work/ref/m_view.vtkhdf" ]; then
    ok "one rank without mpirun: the reference B-scan"
else
    fail "the reference B-scan: $(tail -2 "$work/ref.log")"
fi
for np in 1 2 3; do
    if run r$np "$np" -n 5 --radargram "$work/r$np/r.png"; then
        same r$np ref
    else
        fail "$np ranks: exit status $?: $(grep -m1 streamcl "$work/r$np.log")"
    fi
done
if grep -q "trace 5/5" "$work/r3.log" && [ "$(grep -c "fdtd: trace" "$work/r3.log")" = 5 ]; then
    ok "3 ranks: rank 0 says every trace once"
else
    fail "3 ranks: trace lines: $(grep -c "fdtd: trace" "$work/r3.log")"
fi
run ref64 0 -n 5 --fp64 && run r64 2 -n 5 --fp64 && same r64 ref64 || fail "fp64: $(tail -1 "$work/r64.log")"
run refnm 0 -n 5 --no-merge && run rnm 3 -n 5 --no-merge && same rnm refnm || fail "--no-merge: $(tail -1 "$work/rnm.log")"

# failures
mkdir -p "$work/fail_path/out/m3.h5"
cp "$work/in/m.in" "$work/fail_path/"
sed -i '/#geometry_view/d' "$work/fail_path/m.in"
mpi 3 "$streamcl" fdtd "$work/fail_path/m.in" -n 5 --mpi-traces -o "$work/fail_path/out/m.h5" \
    --radargram "$work/fail_path/out/r.png" > "$work/fail_path.log" 2>&1
rc=$?
left=$(find "$work/fail_path/out" -mindepth 1 ! -path "$work/fail_path/out/m3.h5")
if [ "$rc" -ne 0 ] && grep -q "m3.h5" "$work/fail_path.log" && [ -z "$left" ]; then
    ok "an output path rank 2 cannot write stops all 3 ranks"
else
    fail "an output path rank 2 cannot write: status $rc, left: $left, $(grep -m1 streamcl "$work/fail_path.log")"
fi
# a failure after a round of traces was written: trace 4's path is a FIFO
# (HDF5 needs a regular file), refused when rank 0 writes it in round 2 of 3
# ranks: the temporaries of traces 1-3 on ranks 0-2 go too
mkdir -p "$work/fail_late/out" && mkfifo "$work/fail_late/out/m4.h5"
cp "$work/in/m.in" "$work/fail_late/" && sed -i '/#geometry_view/d' "$work/fail_late/m.in"
mpi 3 "$streamcl" fdtd "$work/fail_late/m.in" -n 5 --mpi-traces -o "$work/fail_late/out/m.h5" \
    > "$work/fail_late.log" 2>&1
rc=$?
left=$(find "$work/fail_late" -mindepth 1 ! -path "$work/fail_late/out" ! -path "$work/fail_late/out/m4.h5" ! -name m.in)
if [ "$rc" -ne 0 ] && grep -q "trace 3/5" "$work/fail_late.log" && grep -q "needs a regular file" "$work/fail_late.log" &&
    ! grep -q "trace 4/5" "$work/fail_late.log" && [ -z "$left" ]; then
    ok "a failure in the second round (rank 0) stops all 3 ranks, the first round's files removed"
else
    fail "a failure in the second round: status $rc, left: $left, $(grep -m1 streamcl "$work/fail_late.log")"
fi
noview() { cp "$work/in/m.in" "$work/$1.in" && sed -i '/#geometry_view/d' "$work/$1.in" && echo "$work/$1.in"; }
expect_fail fail_device "a bad device on rank 1 stops all 3 ranks" "no OpenCL device matches '7:7'" 3 \
    sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --device 7:7; fi; exec "$@"' sh \
    "$streamcl" fdtd "$(noview fail_device)" -n 5 --mpi-traces -o "$work/fail_device/out/m.h5"
expect_fail fail_domain "a trace outside the domain" "domain" 2 \
    "$streamcl" fdtd "$(noview fail_domain)" -n 20 --mpi-traces -o "$work/fail_domain/out/m.h5"
expect_fail fail_decomp "--decomp refused with --mpi-traces" "--decomp .*does not go with it" 2 \
    "$streamcl" fdtd "$(noview fail_decomp)" -n 5 --mpi-traces --decomp 1x1x2 -o "$work/fail_decomp/out/m.h5"
expect_fail fail_n "-n under mpirun without --mpi-traces refused" "farmed over the ranks with --mpi-traces" 2 \
    "$streamcl" fdtd "$(noview fail_n)" -n 5 -o "$work/fail_n/out/m.h5"
mkdir -p "$work/fail_plain/out"
"$streamcl" fdtd "$(noview fail_plain)" -n 5 --mpi-traces -o "$work/fail_plain/out/m.h5" > "$work/fail_plain.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "start it under mpirun" "$work/fail_plain.log" && [ -z "$(ls "$work/fail_plain/out")" ]; then
    ok "--mpi-traces without mpirun refused"
else
    fail "--mpi-traces without mpirun: status $rc, $(cat "$work/fail_plain.log" | head -2)"
fi

mpi_ranks_end fdtd_mpi_traces
