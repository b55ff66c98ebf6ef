#!/bin/bash
# ObsPy (from PyPI, in a venv under the build folder) reads our SEG-Y.
# Exit 77 (skip) when the venv cannot be made or ObsPy cannot be installed
# (offline machine).
set -u
venv=$1 segy=$2 csvf=$3 here=$(dirname "$0")
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import obspy" 2>/dev/null; then
    python3 -m venv "$venv" >/dev/null 2>&1 || { echo "SKIP: no python3 venv"; exit 77; }
    timeout 600 "$venv/bin/pip" install -q obspy >/dev/null 2>&1 ||
        { echo "SKIP: cannot install obspy (offline?)"; exit 77; }
fi
exec "$venv/bin/python" "$here/obspy_read.py" "$segy" "$csvf"
