#!/bin/bash
# Interactions/s and GFLOP/s vs N for the OpenCL kernel (single and double,
# tuned plan) and for the C/OpenMP reference (double) on the host: as built
# into libstreamcl (project flags) and rebuilt with native flags (host_peer.c).
#   STREAMCL=path/to/streamcl bench/nbody/bench.sh [OUTDIR]
# Environment (defaults for the 2-core PoCL machine; gpu.sh sets its own):
#   LOG2_MIN=12 LOG2_MAX=16        N = 2^LOG2_MIN .. 2^LOG2_MAX (single)
#   DOUBLE_LOG2_MAX=16 REF_LOG2_MAX=15   largest N for double / the reference
#   DEVICE=cpu                     --device for the OpenCL runs
#   TARGET_INTERACTIONS=1e9        steps chosen so an OpenCL run does about this
#   REF_TARGET_INTERACTIONS=1e9    many interactions (the reference: this many)
# Writes OUTDIR/nbody_bench.csv, OUTDIR/nbody_bench.png and prints a table.
set -u
STREAMCL=${STREAMCL:-build/streamcl}
OUT=${1:-build-nbody-bench}
LOG2_MIN=${LOG2_MIN:-12}
LOG2_MAX=${LOG2_MAX:-16}
DOUBLE_LOG2_MAX=${DOUBLE_LOG2_MAX:-16}
REF_LOG2_MAX=${REF_LOG2_MAX:-15}
DEVICE=${DEVICE:-cpu}
TARGET=${TARGET_INTERACTIONS:-1e9}
REF_TARGET=${REF_TARGET_INTERACTIONS:-1e9}
mkdir -p "$OUT"
csv="$OUT/nbody_bench.csv"
echo "engine,precision,n,steps,evaluations,median_seconds,interactions_per_s,gflops,plan" > "$csv.tmp"

steps_for() { # log2n target: steps so that (steps + 1) * N^2 ~ target, 1..50
    awk -v k="$1" -v t="$2" 'BEGIN { n = 2 ^ k; s = int(t / (n * n)) - 1;
        print (s < 1 ? 1 : (s > 50 ? 50 : s)) }'
}

run() { # engine precision log2n
    local engine=$1 prec=$2 n=$((1 << $3)) steps log
    if [ "$engine" = reference ]; then
        steps=$(steps_for "$3" "$REF_TARGET")
    else
        steps=$(steps_for "$3" "$TARGET")
    fi
    log=$("$STREAMCL" nbody --n "$n" --steps "$steps" --precision "$prec" --engine "$engine" \
          --device "$DEVICE" --eps 0.01 --dt 1e-4 2>&1)
    if [ $? -ne 0 ]; then
        echo "FAILED: $engine $prec n=$n" >&2
        echo "$log" | tail -5 >&2
        return
    fi
    local force plan
    force=$(echo "$log" | grep '^force:')
    plan=$(echo "$log" | sed -n 's/^plan: \(V=[0-9]* wg=[0-9]* tile=[0-9]*\).*/\1/p')
    echo "$engine $prec n=$n ${plan:-host}: $force" >&2 # progress, survives a timeout
    # "force: E evaluations, median S s -> R interactions/s, G GFLOP/s ..."
    echo "$force" | awk -v e="$engine" -v p="$prec" -v n="$n" -v s="$steps" -v plan="${plan:-host}" \
        '{print e "," p "," n "," s "," $2 "," $5 "," $8 "," $10 "," plan}' >> "$csv.tmp"
}

# the same reference compiled with native flags: vectorised sqrt (host_peer.c)
native_peer() { # log2n
    [ -x "$OUT/host_peer" ] || return
    "$OUT/host_peer" "$1" | while read -r n sec; do
        awk -v n="$n" -v s="$sec" 'BEGIN { r = n * n / s;
            printf "reference-native,double,%d,0,4,%.6f,%.4e,%.2f,host -march=native\n", n, s, r, r * 20e-9 }'
    done | tee -a "$csv.tmp" >&2
}
root=$(cd "$(dirname "$0")/../.." && pwd)
${CC:-gcc} -O3 -march=native -fno-math-errno -fno-trapping-math -fopenmp -std=c11 \
    -D_XOPEN_SOURCE=700 -I"$root/include" -o "$OUT/host_peer" "$root/bench/nbody/host_peer.c" \
    "$root/src/nbody/reference.c" "$root/src/nbody/initial.c" -lm ||
    echo "host_peer not built: no native-flags reference" >&2

for ((k = LOG2_MIN; k <= LOG2_MAX; k++)); do
    run opencl single $k
    [ $k -le "$DOUBLE_LOG2_MAX" ] && run opencl double $k
    [ $k -le "$REF_LOG2_MAX" ] && run reference double $k && native_peer $k
done
mv "$csv.tmp" "$csv"
PYTHON=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
"$PYTHON" "$(dirname "$0")/plot.py" "$csv" "$OUT/nbody_bench.png"
