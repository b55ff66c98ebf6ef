#!/bin/bash
# Survey: which of gprMax's own shipped example models (every .in file of the
# installed gprMax package: _examples/ and toolboxes/) `streamcl fdtd` runs
# unchanged. Each model is copied with the files of its folder (CSV, JSON,
# HDF5 it may read) into a scratch folder and run for STEPS iterations
# (--steps; default 2: reading and building the model is what is surveyed),
# and the first line of a refusal is kept. Prints a Markdown table (model,
# result, why) and the count of models that run.
#   bench/fdtd/gprmax_examples.sh STREAMCL [STEPS]
# gprMax from $GPRMAX_VENV (default /var/cache/streamcl/venv-gprmax, else
# /var/cache/streamcl/venv-peers when that one holds gprMax); SURVEY_TIMEOUT
# seconds per model (default 300); SURVEY_ARGS extra streamcl arguments.
streamcl=$(readlink -f "$1"); steps=${2:-2}
[ -x "$streamcl" ] || { echo "usage: $0 STREAMCL [STEPS]"; exit 2; }
venv=${GPRMAX_VENV:-/var/cache/streamcl/venv-gprmax}
if ! "$venv/bin/python" -c "import gprMax" 2>/dev/null; then
    venv=/var/cache/streamcl/venv-peers
    "$venv/bin/python" -c "import gprMax" 2>/dev/null || { echo "no gprMax in \$GPRMAX_VENV or $venv"; exit 2; }
fi
pkg=$("$venv/bin/python" -c "import gprMax, os; print(os.path.dirname(gprMax.__file__))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=0 total=0
echo "| model | result | why (streamcl's first message) |"
echo "|---|---|---|"
while IFS= read -r rel; do
    total=$((total + 1))
    dir=$work/$total
    mkdir -p "$dir"
    # the model's folder (its side files), without sub-folders' bulk
    find "$pkg/$(dirname "$rel")" -maxdepth 1 -type f -exec cp {} "$dir/" \;
    name=$(basename "$rel")
    # shellcheck disable=SC2086
    (cd "$dir" && timeout "${SURVEY_TIMEOUT:-300}" "$streamcl" fdtd "$name" --steps "$steps" \
        -o out.h5 ${SURVEY_ARGS:-} > log 2>&1)
    rc=$?
    why=$(grep -m1 -i 'streamcl fdtd:\|error\|refused\|unknown' "$dir/log" | sed -e 's/|/\\|/g' \
          -e "s#$dir/##g" -e 's/^streamcl fdtd: //' | cut -c1-160)
    if [ "$rc" = 0 ]; then
        result=runs; why=""; runs=$((runs + 1))
    elif [ "$rc" = 124 ]; then
        result="timeout"; why="more than ${SURVEY_TIMEOUT:-300} s for $steps steps"
    else
        result="refused"
    fi
    echo "| \`$rel\` | $result | $why |"
done < <(cd "$pkg" && find . -name '*.in' | sed 's#^\./##' | sort)
echo
echo "$runs of $total models run (gprMax package: $pkg; $steps steps each)"
