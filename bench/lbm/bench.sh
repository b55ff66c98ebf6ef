#!/bin/bash
# D2Q9 lattice-Boltzmann sweep: MLUPS and bandwidth fraction of the OpenCL
# solver and of the C references (serial, OpenMP) on the same machine.
#   bash bench/lbm/bench.sh [DEST]        (from anywhere; needs a built streamcl)
# Environment (defaults are for the 2-core PoCL machine):
#   STREAMCL   the streamcl binary (default build-lbm2/streamcl)
#   DEVICE     OpenCL device spec (cpu)
#   SIZES      square grid sides (128 256 1024 4096 8192)
#   MAX_SIDE   sides above this are skipped and noted (PoCL: 4096)
#   UPDATES    cell updates per timed run (2e8); steps = UPDATES / side^2, >= 10
#   MAX_STEPS  cap on timed steps of one run (20000)
#   REF_UPDATES, SERIAL_UPDATES  cell updates of the OpenMP / serial reference
#              runs (default UPDATES)
#   REF_MAX    largest side run with the serial reference (1024)
#   VARIANTS   extra OpenCL variants: "fp16 inplace fp16-inplace" (all by default)
#   OPENCL_ARGS extra options of the OpenCL runs (e.g. --no-tune: PoCL times each
#              work-group shape with one step, ~2 s a step at 4096^2)
#   PEAK_GBS   peak device bandwidth for the fraction; default: measured host
#              copy bandwidth (bench/lbm/stream_copy.c), right for CPU devices
# Each run: `streamcl lbm P O --no-output --warmup W --steps S`, a plate obstacle
# in a periodic channel (params of the classic benchmark: density 0.1,
# accel 0.005, omega 1.85). MLUPS = side^2 * steps / compute seconds (host wall
# clock around the timed steps, after the warm-up and tuning); bandwidth =
# MLUPS * bytes per cell update (73 fp32, 37 fp16). Writes DEST/results.tsv,
# DEST/table.md and, when matplotlib is there, DEST/roofline.png.
cd "$(dirname "$0")/../.." || exit 1
dest=${1:-build-lbm2/bench-lbm}
mkdir -p "$dest/inputs"
STREAMCL=${STREAMCL:-$PWD/build-lbm2/streamcl}
DEVICE=${DEVICE:-cpu}
SIZES=${SIZES:-128 256 1024 4096 8192}
MAX_SIDE=${MAX_SIDE:-4096}
UPDATES=${UPDATES:-2e8}
REF_MAX=${REF_MAX:-1024}
MAX_STEPS=${MAX_STEPS:-20000}
REF_UPDATES=${REF_UPDATES:-$UPDATES}
SERIAL_UPDATES=${SERIAL_UPDATES:-$REF_UPDATES}
VARIANTS=${VARIANTS-fp16 inplace fp16-inplace}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}

if [ -z "$PEAK_GBS" ]; then
    cc -O2 -fopenmp -o "$dest/stream_copy" bench/lbm/stream_copy.c &&
        "$dest/stream_copy" | tee "$dest/stream_copy.txt"
    PEAK_GBS=$(awk '{print $4}' "$dest/stream_copy.txt")
    PEAK_WHAT="host copy (bench/lbm/stream_copy.c, $OMP_NUM_THREADS threads)"
fi
PEAK_WHAT=${PEAK_WHAT:-given PEAK_GBS}

inputs() { # side -> writes params and obstacles, prints their paths
    local s=$1 p="$dest/inputs/lbm_${1}.params" o="$dest/inputs/lbm_${1}.obstacles"
    printf '%d\n%d\n%d\n%d\n%s\n%s\n%s\n' "$s" "$s" 1000 "$s" 0.1 0.005 1.85 > "$p"
    # a channel: walls on rows 0 and s-1 (without them the accelerated flow
    # runs away to NaN within ~10^4 steps) and a plate across its middle half,
    # 1/64 of the side thick
    [ -f "$o" ] || awk -v s="$s" 'BEGIN { t = int(s/64); if (t < 1) t = 1;
        for (x = 0; x < s; x++) { print x, 0, 1; print x, s - 1, 1 }
        for (y = int(s/4); y < int(3*s/4); y++) for (x = int(s/4); x < int(s/4) + t; x++)
            print x, y, 1 }' > "$o"
    echo "$p $o"
}

printf 'side\timpl\tsteps\tmlups\tgbs\tbytes\tfraction\tseconds\twg\n' > "$dest/results.tsv"
run() { # side impl updates args...
    local side=$1 impl=$2 updates=$3; shift 3
    local cells=$((side * side))
    local steps warm
    steps=$(awk -v u="$updates" -v c="$cells" -v m="$MAX_STEPS" \
        'BEGIN { s = int(u / c); if (s > m) s = m; print s < 10 ? 10 : s }')
    warm=$(( steps / 10 > 2 ? steps / 10 : 2 ))
    read -r p o < <(inputs "$side")
    local log="$dest/${impl}_${side}.log"
    if ! "$STREAMCL" lbm "$p" "$o" --no-output --warmup "$warm" --steps "$steps" "$@" > "$log" 2>&1; then
        echo "FAILED: $impl $side (see $log)"; tail -3 "$log"; return
    fi
    awk -v side="$side" -v impl="$impl" -v steps="$steps" -v peak="$PEAK_GBS" '
        /^Elapsed compute time/ { sec = $(NF-1) }
        /^MLUPS/ { m = $NF }
        /^lattice:/ { wg = $NF }
        /^Bandwidth/ { b = $4; sub(/\(/, "", b) }
        END { g = m * b * 1e-3
              printf "%d\t%s\t%d\t%.1f\t%.3f\t%d\t%.3f\t%.3f\t%s\n", side, impl, steps, m, g, b, g / peak, sec, wg ? wg : "-" }' \
        "$log" | tee -a "$dest/results.tsv"
}

"$STREAMCL" devices > "$dest/devices.txt" 2>&1
for side in $SIZES; do
    if [ "$side" -gt "$MAX_SIDE" ]; then
        echo "skipped: $side^2 (MAX_SIDE=$MAX_SIDE)" | tee -a "$dest/skipped.txt"
        continue
    fi
    # shellcheck disable=SC2086
    run "$side" opencl-fp32 "$UPDATES" --device "$DEVICE" $OPENCL_ARGS
    for v in $VARIANTS; do
        case $v in
            fp16) run "$side" opencl-fp16 "$UPDATES" --device "$DEVICE" --storage fp16 $OPENCL_ARGS ;;
            inplace) run "$side" opencl-fp32-aa "$UPDATES" --device "$DEVICE" --inplace $OPENCL_ARGS ;;
            fp16-inplace) run "$side" opencl-fp16-aa "$UPDATES" --device "$DEVICE" --storage fp16 --inplace $OPENCL_ARGS ;;
        esac
    done
    run "$side" omp-ref "$REF_UPDATES" --reference omp
    [ "$side" -le "$REF_MAX" ] && run "$side" serial-ref "$SERIAL_UPDATES" --reference serial
done

{
    echo "device: $(sed -n 's/^device: //p' "$dest"/opencl-fp32_*.log 2> /dev/null | head -1), $(date -u +%F)"
    echo "peak bandwidth for the fraction: $PEAK_GBS GB/s, $PEAK_WHAT; OpenMP threads: $OMP_NUM_THREADS"
    echo
    echo "| grid | implementation | work-group | steps | MLUPS | GB/s | bytes/cell | fraction of peak | vs OpenMP ref |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 1 { row[NR] = $0; if ($2 == "omp-ref") omp[$1] = $4 }
        END { for (i = 2; i <= NR; i++) { split(row[i], f, "\t");
              r = omp[f[1]] > 0 ? sprintf("%.2fx", f[4] / omp[f[1]]) : "-";
              printf "| %d² | %s | %s | %d | %.1f | %.2f | %d | %.1f%% | %s |\n",
                     f[1], f[2], f[9], f[3], f[4], f[5], f[6], 100 * f[7], r } }' "$dest/results.tsv"
    [ -f "$dest/skipped.txt" ] && sed 's/^/\n/' "$dest/skipped.txt"
} > "$dest/table.md"
cat "$dest/table.md"
py=python3
python3 -c 'import matplotlib' 2> /dev/null || py=/usr/bin/python3
if $py -c 'import matplotlib' 2> /dev/null; then
    $py bench/lbm/plot.py "$dest/results.tsv" "$PEAK_GBS" "$dest/roofline.png" "$(head -1 "$dest/table.md")"
fi
