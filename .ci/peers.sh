#!/bin/bash
# The Python peers the tests compare against, from PyPI into one cached venv:
# gprMax 4.0.1 (a binary wheel: no Cython build), ObsPy, segyio and h5py
# (independent readers of our SEG-Y and HDF5). Cached in
# $STREAMCL_CACHE/venv-peers (default /var/cache/streamcl) and rebuilt only
# when this list changes. Any failure exits non-zero: under CI a peer that
# cannot be installed is a failure, never a skip.
#   .ci/peers.sh            prints the venv's path last
set -euo pipefail
cache=${STREAMCL_CACHE:-/var/cache/streamcl}
venv=$cache/venv-peers
want="gprMax==4.0.1 obspy segyio h5py numpy"
stamp=$venv/peers-ok
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "$venv"; exit 0
fi
mkdir -p "$cache"
# made in place (a venv's scripts name its path); the stamp, written last,
# marks it complete, so an interrupted install is redone
rm -rf "$venv"
python3 -m venv "$venv"
# --only-binary gprMax: the wheel exists for this Python; building from source
# takes minutes of Cython on two cores (the old probe timed out doing so)
timeout 1200 "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --only-binary gprMax $want >&2
"$venv/bin/python" -c "import gprMax, obspy, segyio, h5py, numpy" >&2
echo "$want" > "$stamp"
echo "$venv"
