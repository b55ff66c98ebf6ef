#!/bin/bash
# streamcl seismic end to end: a small two-layer run writes SEG-Y, CSV, a
# gather and slices; the reference engine gives the same traces; bad run
# files and options fail with file:line messages and leave no files.
set -u
cli=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

cat > "$out/layers.txt" <<'L'
0 1800 700 1900
40 3200 1800 2400
L
cat > "$out/small.run" <<'R'
grid 40 20 24 5
model layered layers.txt
time 0.12
pml 6
source force 50 50 5 0 0 1 ricker 9 1e8
receivers 20 50 0 180 50 0 9
R
if "$cli" seismic "$out/small.run" --tune 0 --segy "$out/shot" --csv "$out/shot.csv" \
       --gather "$out/gather.png" --png "$out/slice" --every 100 > "$out/run.log" 2>&1; then ok
else bad "good run failed: $(tail -3 "$out/run.log")"; fi
grep -q "Gcells/s" "$out/run.log" && ok || bad "no rate in the log"
for f in shot_vx.sgy shot_vy.sgy shot_vz.sgy shot_p.sgy shot.csv gather.png slice_000100.png; do
    [ -s "$out/$f" ] && ok || bad "missing $f"
done
ls "$out" | grep -q "\.tmp" && bad "temporary files left" || ok
peak=$(sed -n 's/^peak |receiver value| //p' "$out/run.log")
awk -v p="$peak" 'BEGIN { exit !(p > 1e-9 && p < 1e7) }' && ok || bad "peak '$peak'"

# the reference engine: same traces within float rounding
if "$cli" seismic "$out/small.run" --engine reference --csv "$out/ref.csv" > "$out/ref.log" 2>&1; then ok
else bad "reference run failed: $(tail -3 "$out/ref.log")"; fi
# per unit: velocity columns against the velocities' peak, pressure columns
# against the pressure peak (u = 1 for p); a non-number in either file fails
awk -F, 'NR == FNR { for (i = 3; i <= NF; i++) a[FNR, i] = $i; next }
         FNR > 1 { for (i = 3; i <= NF; i++) { u = (i - 3) % 4 == 3
                   if ($i !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ ||
                       a[FNR, i] !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) nan++
                   d = $i - a[FNR, i]; if (d < 0) d = -d
                   if (d > m[u]) m[u] = d; v = $i < 0 ? -$i : $i; if (v > pk[u]) pk[u] = v } }
         END { printf "opencl vs reference: velocities max diff %.3e of peak %.3e, pressure %.3e of %.3e, %d non-numbers\n",
                      m[0], pk[0], m[1], pk[1], nan;
               exit !(nan == 0 && pk[0] > 0 && pk[1] > 0 && m[0] <= 1e-3 * pk[0] && m[1] <= 1e-3 * pk[1]) }' \
    "$out/shot.csv" "$out/ref.csv" && ok || bad "opencl and reference traces differ"

# the layout read back by an independent reader (struct; segyio from the
# peers venv when .ci/peers.sh made it; under CI it must be there): CSV
# labels, SEG-Y headers with a decimation of 3, receiver coordinates, samples
if "$cli" seismic "$out/small.run" --tune 0 --segy "$out/dec" --csv "$out/dec.csv" --decimate 3 \
       > "$out/dec.log" 2>&1; then ok; else bad "decimated run failed: $(tail -3 "$out/dec.log")"; fi
dt=$(sed -n 's/.* dt = \([0-9.e+-]*\) s .*/\1/p' "$out/dec.log")
steps=$(sed -n 's/.*, \([0-9]*\) steps, .*/\1/p' "$out/dec.log")
py=python3 need=
peers=${STREAMCL_CACHE:-/var/cache/streamcl}/venv-peers
[ -x "$peers/bin/python" ] && py=$peers/bin/python
[ "${CI:-}" = true ] && need=--need-segyio
rx=$(for k in 0 1 2 3 4 5 6 7 8; do printf '%d,50,0;' $((20 + 20 * k)); done)
if "$py" "$(dirname "$0")/check_layout.py" "$out/dec" "$out/dec.csv" "$dt" 3 "$steps" "$rx" $need \
       > "$out/layout.log" 2>&1; then ok; else bad "layout: $(grep -m5 FAIL "$out/layout.log"; tail -1 "$out/layout.log")"; fi

# bad input: message and exit status, nothing written
expect_fail() { # name, expected message, run-file text or '' , extra args...
    local name=$1 msg=$2 text=$3; shift 3
    [ -n "$text" ] && printf "%b" "$text" > "$out/$name.run"
    if "$cli" seismic "$out/$name.run" --tune 0 --csv "$out/$name.csv" "$@" > "$out/$name.log" 2>&1; then
        bad "$name: succeeded"
    elif ! grep -qF -- "$msg" "$out/$name.log"; then
        bad "$name: wanted '$msg', got '$(cat "$out/$name.log")'"
    elif [ -e "$out/$name.csv" ]; then
        bad "$name: wrote $name.csv"
    else ok; fi
}
base='grid 30 20 20 5\nmodel homogeneous 3000 1700 2400\nsteps 20\npml 4\n'
expect_fail unknown "unknown.run:5: unknown command 'shoot'" "${base}shoot 1 2 3\n"
# plan values the kernels cannot take, refused by the core's plan rules
expect_fail plan_kz0 "kz=0: must be between 1 and 4096" "${base}source force 50 50 5 0 0 1 ricker 9 1e8\n" --plan kz=0
expect_fail plan_fused9 "fused=9: must be between 0 and 2" "${base}source force 50 50 5 0 0 1 ricker 9 1e8\n" --plan fused=9
expect_fail cfl "cfl.run:5: dt = 0.01 s violates the CFL condition" "${base}dt 0.01\n"
expect_fail recv "recv.run:6: receiver 2: y = -10 m is outside" "${base}receiver 5 5 0\nreceiver 5 -10 0\n"
expect_fail bulk "bulk.run:2: vs 2900 >= (sqrt(3)/2) vp" 'grid 30 20 20 5\nmodel homogeneous 3000 2900 2400\nsteps 5\n'
expect_fail rho "rho.run:2: vp 3000 and density -5 must be positive" 'grid 30 20 20 5\nmodel homogeneous 3000 1700 -5\nsteps 5\n'
expect_fail notime "notime.run:2: no 'time' or 'steps' line" 'grid 30 20 20 5\nmodel homogeneous 3000 1700 2400\n'
expect_fail missing "missing.run" ""
expect_fail outdir "no_such_dir" "${base}" --segy "$out/no_such_dir/shot"
expect_fail comp "--component is vx, vy, vz or p" "${base}" --component q
expect_fail pmlrun "--pml is for --bench" "${base}" --pml 3
# the benchmark cube without CPML (rigid walls), and a CPML too wide for it
if "$cli" seismic --bench 24 --pml 0 --order 2 --steps 3 --tune 0 > "$out/bench0.log" 2>&1 &&
   grep -q "Gcells/s" "$out/bench0.log" && grep -q "pml 0" "$out/bench0.log"; then ok
else bad "bench --pml 0: $(tail -3 "$out/bench0.log")"; fi
if "$cli" seismic --bench 24 --pml 11 > "$out/bench11.log" 2>&1; then bad "bench --pml 11 succeeded"
elif grep -qF -- "--pml 11 leaves no interior in a 24^3 cube" "$out/bench11.log"; then ok
else bad "bench --pml 11: $(head -1 "$out/bench11.log")"; fi

echo "seismic_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
