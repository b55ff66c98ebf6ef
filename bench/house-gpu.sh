#!/bin/bash
# Issue 25's "speed unchanged": the solvers' own benchmarks of a BASE commit
# and of this tree, built side by side and run interleaved in one sitting
# (old, new, old, new, ...: ROUNDS rounds, medians), with the new/old speed
# ratio per solver (>1: the new tree is faster); with BITS=1 also the pair
# module's answers compared bit for bit (tests/pair/test_charmm_bits of this
# tree against both libraries).
#
# The base tree is a `git archive` of BASE unpacked into build-house/base-src;
# the device machine has no git history, so make it here and carry it:
#   bash bench/house-gpu.sh --prepare [BASE]        (here; default BASE below)
#   then on the GPU (device tool, carry ["build-house/base-src"]):
#   bash bench/house-gpu.sh                          (~150 s on one H100)
# Local dry run on PoCL (tiny sizes, both steps at once):
#   DEVICE=cpu TINY=1 JOBS=2 bash bench/house-gpu.sh --prepare && DEVICE=cpu TINY=1 JOBS=2 bash bench/house-gpu.sh
# Environment: ROUNDS (3), SOLVERS ("pair fdtd seismic lbm nbody eri"),
# DEVICE (gpu), TINY (1: sizes for a CPU), JOBS (make -j, default nproc),
# BITS (1: the bits comparison), PAIR_ARGS (pair-bench's size and plan, e.g.
# to fix the plan on both sides: "--atoms 32000 --steps 200 --tpa 8 --wg 128").
# Builds: the modules these solvers need, Release, no tests (build-house/old,
# build-house/new; the configuration of bench/gpu-setup.sh otherwise).
# Logs and results.tsv: $OUT/house (or build-house/out).
cd "$(dirname "$0")/.." || exit 1
# 3e97066: main at the GPU session of 2026-11-26 (bench/RESULTS.md), before
# the issue-25 kernel splits
BASE_DEFAULT=3e97066
work=build-house
if [ "${1:-}" = "--prepare" ]; then
    base=${2:-$BASE_DEFAULT}
    rm -rf "$work/base-src" && mkdir -p "$work/base-src" || exit 1
    git archive "$base" | tar -x -C "$work/base-src" || exit 1
    git rev-parse "$base" > "$work/base-src/.base-commit"
    echo "base $(cat "$work/base-src/.base-commit") in $work/base-src ($(du -sh "$work/base-src" | cut -f1))"
    exit 0
fi
[ -d "$work/base-src" ] || { echo "no $work/base-src: run bash bench/house-gpu.sh --prepare [BASE] first" >&2; exit 1; }
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
t0=$(date +%s)
device=${DEVICE:-gpu}
rounds=${ROUNDS:-3}
solvers=${SOLVERS:-pair fdtd seismic lbm nbody eri}
jobs=${JOBS:-$(nproc)}
dest=${OUT:+$OUT/house}
dest=${dest:-$work/out}
mkdir -p "$dest"
rm -f "$dest"/*.log "$dest"/bits-*.txt "$dest"/bits-*.err # (no figures of an earlier run)
modules="pair;fdtd;seismic;grid3d;lbm;nbody;eri"

# build SRC DIR: the streamcl command of SRC into DIR (its log beside)
build() {
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TESTS=OFF \
        "-DSTREAMCL_MODULES=$modules" > "$2.log" 2>&1 &&
        make -C "$2" -j"$jobs" streamcl_cli streamcl_shared >> "$2.log" 2>&1
}
mkdir -p "$work"
build "$work/base-src" "$work/old" & old_pid=$!
build . "$work/new" && wait "$old_pid" || {
    echo "build failed: see $work/old.log, $work/new.log" >&2
    tail -20 "$work/old.log" "$work/new.log" >&2
    exit 1
}
old=$PWD/$work/old/streamcl new=$PWD/$work/new/streamcl
echo "[house] base $(cat "$work/base-src/.base-commit" 2>/dev/null), built in $(( $(date +%s) - t0 )) s;" \
     "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# Sizes: small step counts (each run a few seconds on an H100), TINY for PoCL.
if [ -n "${TINY:-}" ]; then
    pair_args="--atoms 3000 --steps 5 --rebuild 5" fdtd_n="32 32 32" fdtd_steps=10
    seis_n=32 seis_steps=10 lbm_side=128 lbm_steps=50 nbody_n=1024 nbody_steps=2 eri_lat=1x1x1
else
    pair_args="--atoms 32000 --steps 200 --rebuild 20" fdtd_n="256 256 256" fdtd_steps=100
    seis_n=256 seis_steps=100 lbm_side=4096 lbm_steps=500 nbody_n=65536 nbody_steps=20 eri_lat=2x2x2
fi
bits_limit=${TINY:+400}
bits_limit=${bits_limit:-60}
pair_args=${PAIR_ARGS:-$pair_args}
p="$dest/lbm.params" o="$dest/lbm.obstacles"
printf '%d\n%d\n%d\n%d\n0.1\n0.005\n1.85\n' "$lbm_side" "$lbm_side" 1000 "$lbm_side" > "$p"
awk -v s="$lbm_side" 'BEGIN { for (x = 0; x < s; x++) { print x, 0, 1; print x, s - 1, 1 } }' > "$o"

# metric SOLVER BIN LOG: runs the solver's benchmark, prints its figure
# (higher is better: rates, or 1/ms for times) or nothing on failure
metric() {
    local s=$1 bin=$2 log=$3
    case $s in
    pair) # force kernel ms per step (mixed, the tuner's kind): its inverse
        timeout 40 "$bin" pair-bench $pair_args --precision mixed --no-reference --device "$device" > "$log" 2>&1 &&
            awk '/^RESULT/ { for (i = 1; i <= NF; i++) if ($i ~ /^force_ms=/) { split($i, a, "="); print 1 / a[2] } }' "$log" ;;
    fdtd) # Gcells/s
        timeout 40 "$bin" fdtd --bench $fdtd_n --steps "$fdtd_steps" --device "$device" > "$log" 2>&1 &&
            awk '/Gcells\/s$/ { v = $(NF - 1) } END { if (v != "") print v }' "$log" ;;
    seismic) # Gcells/s
        timeout 40 "$bin" seismic --bench "$seis_n" --steps "$seis_steps" --device "$device" > "$log" 2>&1 &&
            awk '/Gcells\/s$/ { v = $(NF - 1) } END { if (v != "") print v }' "$log" ;;
    lbm) # MLUPS
        timeout 40 "$bin" lbm "$p" "$o" --no-output --warmup 20 --steps "$lbm_steps" --device "$device" > "$log" 2>&1 &&
            awk '/^MLUPS/ { print $NF }' "$log" ;;
    nbody) # interactions/s
        timeout 40 "$bin" nbody --n "$nbody_n" --steps "$nbody_steps" --dt 1e-3 --eps 0.01 --device "$device" > "$log" 2>&1 &&
            awk '/interactions\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^interactions\/s/) print $i }' "$log" ;;
    eri) # the ERI tensor's device seconds (median of 5): its inverse
        timeout 40 "$bin" eri --lattice "$eri_lat" --tensor --scf 0 --device "$device" > "$log" 2>&1 &&
            awk '/^tensor \(/ { for (i = 2; i <= NF; i++) if ($i == "device" && $(i - 1) == "s") print 1 / $(i - 2) }' "$log" ;;
    esac
}

printf 'solver\tround\tbuild\tvalue\n' > "$dest/results.tsv"
for s in $solvers; do
    for r in $(seq 1 "$rounds"); do
        for b in old new; do
            bin=$old
            [ "$b" = new ] && bin=$new
            v=$(metric "$s" "$bin" "$dest/$s-$b-$r.log")
            printf '%s\t%d\t%s\t%s\n' "$s" "$r" "$b" "${v:-FAILED}" >> "$dest/results.tsv"
        done
    done
done

echo "[house] runs done at $(( $(date +%s) - t0 )) s; figures (higher is better): pair 1/force_ms," \
     "fdtd seismic Gcells/s, lbm MLUPS, nbody interactions/s, eri 1/tensor s"
awk -F'\t' 'NR > 1 { k = $1 SUBSEP $3; n[k]++; v[k, n[k]] = $4; if ($4 == "FAILED") bad[$1] = 1 }
    function median(k,   m, i, j, t, a) {
        m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i] + 0
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END {
        printf "%-8s %14s %14s %10s\n", "solver", "old (median)", "new (median)", "new/old"
        split("pair fdtd seismic lbm nbody eri", order, " ")
        for (q = 1; q <= 6; q++) { s = order[q]; if (!((s SUBSEP "old") in n)) continue
            if (bad[s]) { printf "%-8s FAILED (see its logs)\n", s; continue }
            mo = median(s SUBSEP "old"); mn = median(s SUBSEP "new")
            printf "%-8s %14.6g %14.6g %10.4f%s\n", s, mo, mn, mn / mo,
                   (mn / mo < 0.97 ? "  SLOWER by more than 3%" : "") }
    }' "$dest/results.tsv" | tee "$dest/summary.txt"

# the pair plans in use (the tuner's, cached per build after the first run):
# a different plan on either side makes the pair ratio a plan comparison
for b in old new; do
    [ -f "$dest/pair-$b-1.log" ] && echo "pair $b: $(grep -m1 '^plan:' "$dest/pair-$b-1.log")"
done

# BITS=1: the pair module's bits, this tree's test against both libraries
# (same device; ~27 engines with their kernel builds each: beyond the
# 150 s budget on a GPU, so not by default)
if [ "${BITS:-0}" = 1 ]; then
    for b in old new; do
        src=$PWD
        [ "$b" = old ] && src=$PWD/$work/base-src
        cc -O2 -std=c11 -D_GNU_SOURCE -I"$src/include" -I"$src/src" -Itests -Itests/pair \
            -o "$work/bits-$b" tests/pair/test_charmm_bits.c -L"$work/$b" -lstreamcl -lm \
            -Wl,-rpath,"$PWD/$work/$b" > "$dest/bits-$b.build.log" 2>&1 || { echo "bits: $b not built"; continue; }
        XDG_CACHE_HOME=$PWD/$work/cache-bits-$b STREAMCL_DEVICE=$device timeout "$bits_limit" "$work/bits-$b" \
            > "$dest/bits-$b.txt" 2> "$dest/bits-$b.err"
    done
    if [ -s "$dest/bits-old.txt" ] && cmp -s "$dest/bits-old.txt" "$dest/bits-new.txt"; then
        echo "pair bits: identical ($(grep -c ' [0-9a-f]\{16\}$' "$dest/bits-new.txt") configurations)"
    else
        echo "pair bits: DIFFER or not run (diff $dest/bits-old.txt $dest/bits-new.txt)"
    fi
fi
echo "[house] total $(( $(date +%s) - t0 )) s; logs in $dest"
