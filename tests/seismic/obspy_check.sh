#!/bin/bash
# ObsPy (from PyPI, in the peers venv that .ci/peers.sh caches) reads our
# SEG-Y. Offline: a skip that says so (exit 77), a failure under CI=true.
#   obspy_check.sh SEGY CSV
set -u
segy=$1 csvf=$2 here=$(dirname "$0")
. "$here/../peers_python.sh" obspy
exec "$peer_py" "$here/obspy_read.py" "$segy" "$csvf"
