# Sourced by the grid solvers' MPI tests (tests/*/mpi_ranks.sh): their
# arguments, the skip without MPI, the tally and mpirun.
#   . mpi_ranks_lib.sh "$@"    (STREAMCL MPIEXEC WORKDIR HAVE_MPI)
# sets streamcl, mpiexec, work (emptied, with in/), XDG_CACHE_HOME; defines
# ok, fail, mpi NP CMD..., ranks NP CMD..., expect_fail, says and mpi_ranks_end NAME.
streamcl=$1 mpiexec=$2 work=$3 have_mpi=$4
[ -x "$streamcl" ] && [ -n "$work" ] || { echo "usage: $0 STREAMCL MPIEXEC WORKDIR HAVE_MPI"; exit 2; }
if [ "$have_mpi" != 1 ] || [ ! -x "$mpiexec" ]; then
    echo "SKIP: streamcl was built without MPI (no libopenmpi-dev at configure time)"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work/in" || exit 2
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
mpi() { local np=$1; shift; timeout 300 "$mpiexec" --oversubscribe --allow-run-as-root -np "$np" "$@"; }
# ranks NP CMD...: CMD under mpirun -np NP, or alone for NP 0 (the one-rank reference)
ranks() { local np=$1; shift; if [ "$np" = 0 ]; then "$@"; else mpi "$np" "$@"; fi; }

# says NAME LOG TEXT: the run's log names the halo transport (TEXT) it used
says() { if grep -q "$3" "$2"; then ok "$1"; else fail "$1: no '$3' in $(grep -m1 halo "$2")"; fi; }

# expect_fail DIR NAME REGEX NP CMD... : non-zero, the message, nothing
# left in WORK/DIR/out (the command writes its outputs there)
expect_fail() {
    local d="$work/$1" name=$2 regex=$3 np=$4
    shift 4
    mkdir -p "$d/out"
    mpi "$np" "$@" > "$d.log" 2>&1
    local rc=$?
    if [ "$rc" -eq 0 ]; then
        fail "$name: exit status 0"
    elif ! grep -Eq -- "$regex" "$d.log"; then
        fail "$name: no message matching '$regex' in: $(grep -m1 streamcl "$d.log")"
    elif [ -n "$(find "$d/out" -mindepth 1)" ]; then
        fail "$name: left files: $(find "$d/out" -mindepth 1 | tr '\n' ' ')"
    else
        ok "$name"
    fi
}

# the tally line ctest looks for, and the exit status
mpi_ranks_end() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
