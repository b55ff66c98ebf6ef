# Sourced by the tests that compare against Python peers (gprMax, ObsPy,
# segyio, h5py):   . tests/peers_python.sh MODULE...
# Sets peer_py to the python of the cached peers venv that .ci/peers.sh makes
# ($STREAMCL_CACHE/venv-peers), making it first if it lacks a module. When it
# cannot be made (offline, no pip): under CI=true that is a failure (exit 1),
# elsewhere a skip that says why (exit 77). Never a silent pass.
peers_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peer_py=${STREAMCL_CACHE:-/var/cache/streamcl}/venv-peers/bin/python
peers_imports=$(IFS=,; echo "$*")
if ! "$peer_py" -c "import $peers_imports" > /dev/null 2>&1; then
    echo "peers venv lacks $peers_imports: running .ci/peers.sh (PyPI)"
    peers_log=$(mktemp)
    if ! bash "$peers_root/.ci/peers.sh" > "$peers_log" 2>&1 ||
       ! "$peer_py" -c "import $peers_imports" > /dev/null 2>&1; then
        tail -5 "$peers_log"
        rm -f "$peers_log"
        if [ "${CI:-}" = true ]; then
            echo "FAIL: the Python peers ($peers_imports) cannot be installed and CI=true"
            exit 1
        fi
        echo "SKIP: the Python peers ($peers_imports) cannot be installed (offline?); run .ci/peers.sh"
        exit 77
    fi
    rm -f "$peers_log"
fi
