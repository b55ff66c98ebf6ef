# shellcheck shell=bash
# Sourced by the comparisons with gprMax 4.0.1 (tests/fdtd/gprmax_*.sh), the
# frame they share:
#   . "$(dirname "$0")/gprmax_lib.sh"
#   gprmax_begin "$1" "$2" [make]   STREAMCL and WORKDIR from ctest
#   gprmax_run LOG ARGS...          gprMax ARGS (its OpenMP solver, 2 threads)
#   streamcl_run LOG ARGS...        streamcl fdtd ARGS
#   gprmax_python ARGS...           the venv's python, which imports tally
#                                   (tests/tally.py) and gprmax_compare
# gprmax_begin checks the arguments (exit 2 with the usage), makes WORKDIR and
# sets streamcl, work (absolute) and py, the python of gprMax's venv
# ($GPRMAX_VENV, default /var/cache/streamcl/venv-gprmax). A venv without
# gprMax is a skip (exit 77) that says why, or under CI=true a failure; with
# "make" the venv is made first (pip, PyPI) and only an unreachable PyPI
# skips. The run functions write the output to LOG and stop the test (exit 1,
# the log's end shown) when the program fails.
gprmax_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

gprmax_missing() { # what is missing: a skip, or under CI=true a failure
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* (CI=true)"; exit 1
    fi
    echo "SKIP: $*"; exit 77
}

gprmax_begin() {
    streamcl=$1 work=$2
    [ -x "$streamcl" ] && [ -n "$work" ] || { echo "usage: $0 STREAMCL WORKDIR"; exit 2; }
    mkdir -p "$work" || exit 2
    work=$(cd "$work" && pwd)
    local venv=${GPRMAX_VENV:-/var/cache/streamcl/venv-gprmax}
    py=$venv/bin/python
    "$py" -c "import gprMax, h5py, numpy" 2>/dev/null && return 0
    [ "${3:-}" = make ] || gprmax_missing "no gprMax 4.0.1 in $venv (.ci/run makes it)"
    if ! timeout 60 python3 -m pip download --no-deps -d "$work/probe" gprMax==4.0.1 \
            > "$work/probe.log" 2>&1; then
        gprmax_missing "gprMax is not in $venv and PyPI is unreachable ($(tail -1 "$work/probe.log"))"
    fi
    python3 -m venv "$venv" || { echo "FAIL: python3 -m venv $venv"; exit 1; }
    if ! timeout 1500 "$venv/bin/pip" install -q gprMax==4.0.1 h5py > "$work/install.log" 2>&1; then
        echo "FAIL: pip install gprMax==4.0.1 into $venv"; tail -20 "$work/install.log"; exit 1
    fi
}

gprmax_run() {
    local log=$1
    shift
    if ! OMP_NUM_THREADS=2 "$py" -m gprMax "$@" > "$log" 2>&1; then
        echo "FAIL: gprMax $*"; tail -20 "$log"; exit 1
    fi
}

streamcl_run() {
    local log=$1
    shift
    if ! "$streamcl" fdtd "$@" > "$log" 2>&1; then
        echo "FAIL: streamcl fdtd $*"; cat "$log"; exit 1
    fi
}

gprmax_python() {
    PYTHONPATH="$gprmax_dir:$gprmax_dir/..${PYTHONPATH:+:$PYTHONPATH}" "$py" "$@"
}
