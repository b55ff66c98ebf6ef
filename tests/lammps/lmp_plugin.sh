#!/bin/bash
# `lmp` with the streamcl plugin loaded before the input: runs
#   $LMP_PLUGIN_HOST ARGS...  with -in FILE replaced by a file that does
#   `plugin load $PLUGIN_SO` and then `include FILE`
# so that every LAMMPS test that runs lmp_ocl can run through `plugin load` in
# a LAMMPS with PLUGIN instead (tests/lammps and tests/pppm: LMP_OCL=this).
set -u
: "${LMP_PLUGIN_HOST:?}" "${PLUGIN_SO:?}"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
  -in|-i)
    in=$2; shift 2
    wrapped="$(dirname "$in")/.plugin.$(basename "$in")"
    # written aside and renamed: the ranks of an mpirun all write it, and a
    # rank must never read another's half-written copy
    tmp=$(mktemp "$(dirname "$in")/.plugin.XXXXXX")
    printf 'plugin load %s\ninclude %s\n' "$PLUGIN_SO" "$in" > "$tmp" && mv -f "$tmp" "$wrapped"
    args+=(-in "$wrapped") ;;
  *) args+=("$1"); shift ;;
  esac
done
exec $LMP_PLUGIN_HOST "${args[@]}"
