#!/bin/sh
# streamcl lbm on bad input: a message naming file and line, a non-zero exit,
# and no output file (not even half of one). Usage: cli_bad_input.sh STREAMCL
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
pass=0
printf '16\n8\n10\n16\n0.1\n0.005\n1.85\n' > "$dir/p.txt"
printf '2 2 1\n3 3 1\n' > "$dir/o.txt"
expect() { # name, expected text in stderr, args...
    name=$1; want=$2; shift 2
    out="$dir/out"; rm -rf "$out"; mkdir "$out"
    if "$bin" lbm "$@" --out "$out" 2> "$dir/err" > /dev/null; then
        echo "FAIL $name: exit status 0"; fail=$((fail + 1)); return
    fi
    if ! grep -q -- "$want" "$dir/err"; then
        echo "FAIL $name: stderr lacks '$want':"; cat "$dir/err"; fail=$((fail + 1)); return
    fi
    if [ -n "$(ls -A "$out")" ]; then
        echo "FAIL $name: files written: $(ls "$out")"; fail=$((fail + 1)); return
    fi
    echo "ok $name: $(head -1 "$dir/err")"; pass=$((pass + 1))
}
printf '16\n8\n10\n16\n0.1\n0.005\n2.5\n' > "$dir/bad_omega.txt"
printf '16\n8\n10\n' > "$dir/short.txt"
printf '2 2 1\n3 3\n' > "$dir/arity.txt"
printf '2 2 1\n16 3 1\n' > "$dir/range.txt"
printf '2 2 7\n' > "$dir/value.txt"
expect "missing parameter file" "$dir/none.txt" "$dir/none.txt" "$dir/o.txt"
expect "missing obstacle file" "$dir/none.txt" "$dir/p.txt" "$dir/none.txt"
expect "omega outside (0,2)" "bad_omega.txt:7:" "$dir/bad_omega.txt" "$dir/o.txt"
expect "short parameter file" "short.txt:4:" "$dir/short.txt" "$dir/o.txt"
expect "obstacle arity" "arity.txt:2:" "$dir/p.txt" "$dir/arity.txt"
expect "obstacle out of range" "range.txt:2:" "$dir/p.txt" "$dir/range.txt"
expect "blocked value" "value.txt:1:" "$dir/p.txt" "$dir/value.txt"
expect "unknown option" "unknown" "$dir/p.txt" "$dir/o.txt" --bogus
# and a good run writes both files
mkdir -p "$dir/good"
if "$bin" lbm "$dir/p.txt" "$dir/o.txt" --out "$dir/good" > /dev/null &&
   [ "$(wc -l < "$dir/good/av_vels.dat")" -eq 10 ] &&
   [ "$(wc -l < "$dir/good/final_state.dat")" -eq 128 ]; then
    pass=$((pass + 1)); echo "ok good run writes av_vels.dat and final_state.dat"
else
    fail=$((fail + 1)); echo "FAIL good run"
fi
echo "lbm_cli_bad_input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
