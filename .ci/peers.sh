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
rm -rf "$venv.new"
python3 -m venv "$venv.new"
# --only-binary gprMax: the wheel exists for this Python; building from source
# takes minutes of Cython on two cores (the old probe timed out doing so)
timeout 1200 "$venv.new/bin/pip" install -q --disable-pip-version-check \
    --only-binary gprMax $want >&2
"$venv.new/bin/python" -c "import gprMax, obspy, segyio, h5py, numpy" >&2
echo "$want" > "$venv.new/peers-ok"
rm -rf "$venv"
mv "$venv.new" "$venv"
echo "$venv"
