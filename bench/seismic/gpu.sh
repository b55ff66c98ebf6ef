#!/bin/bash
# streamcl seismic on the GPU machine (run from the repository root, bare H100/H200, ~90 s
# with the build):
#   bash bench/seismic/gpu.sh
# Builds only the streamcl command into build-gpu (same configuration as
# bench/gpu-setup.sh; the CUDA peer compiles meanwhile), then at N^3 (default
# 512), FP32, one explosive source: order 2 and 4 with CPML 10 cells, order 2
# without CPML (rigid walls: what the peer runs, and what the CPML costs).
# Each run tunes each scheme (separate velocity + stress kernels; fused
# recomputing neighbours' velocities; fused sharing them in local memory)
# over the work-group and the z walk kz and keeps the fastest: the table has
# its wall-clock rate and the tuner's device time per step for every scheme.
# The peer (bench/seismic/peer_vs.cu: plain CUDA separate kernels, one thread
# per cell, rows as first written and padded to 128 B) also measures the
# device-to-device copy bandwidth. Markdown table last; logs in $OUT/seismic.
# Then the separate scheme's two CPML forms forced at order 2 and 4 (each
# still tuned over the work-group and kz): the general kernels over the
# boxes around the interior (--plan fused=0,cpml=0) and the CPML shell
# (--plan fused=0,cpml=1: interior kernels everywhere, the CPML terms in
# one launch per phase over the slab cells); the default runs time the
# shell beside the other schemes (SHELL_RUNS=0 skips the forced runs).
# The C/OpenMP reference and Devito are CPU figures: bench/seismic/cpu.sh.
# Dry run elsewhere: STREAMCL=build/streamcl DEVICE=cpu N=64 bash bench/seismic/gpu.sh
cd "$(dirname "$0")/../.." || exit 1
t0=$(date +%s)
DEVICE=${DEVICE:-gpu} N=${N:-512} STEPS=${STEPS:-100}
dest=${OUT:+$OUT/seismic}
dest=${dest:-build-gpu/seismic}
mkdir -p "$dest"
date -u +%Y-%m-%dT%H:%MZ > "$dest/date.txt"

if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
mkdir -p build-gpu
peer_pid=
if command -v nvcc > /dev/null; then
    nvcc -O3 -arch=native -o build-gpu/peer_vs bench/seismic/peer_vs.cu > "$dest/peer_build.log" 2>&1 &
    peer_pid=$!
fi
if [ -z "${STREAMCL:-}" ]; then
    { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TEST_DEVICE=gpu \
          ${STREAMCL_GPU_CMAKE_ARGS:-} && make -C build-gpu -j"$(nproc)" streamcl_cli; } \
        > "$dest/build.log" 2>&1 || { tail -30 "$dest/build.log"; echo "build failed"; exit 1; }
    STREAMCL=$PWD/build-gpu/streamcl
fi
echo "build: $(($(date +%s) - t0)) s"

echo "== peer: plain CUDA velocity-stress kernels"
if [ -n "$peer_pid" ] && wait "$peer_pid"; then
    timeout 40 build-gpu/peer_vs "$N" 20 | tee "$dest/peer.txt"
else
    echo "peer not built (no nvcc, or see peer_build.log)" | tee "$dest/peer.txt"
fi

run() { # name, args...
    local name=$1; shift
    echo "== streamcl seismic $*"
    timeout 100 "$STREAMCL" seismic "$@" > "$dest/$name.txt" 2>&1
    tail -3 "$dest/$name.txt"
}
common=(--bench "$N" --steps "$STEPS" --device "$DEVICE")
run o2 "${common[@]}" --order 2
run o4 "${common[@]}" --order 4
run o2nopml "${common[@]}" --order 2 --pml 0
names="o2 o4 o2nopml"
if [ "${SHELL_RUNS:-1}" != 0 ]; then
    run o2sep "${common[@]}" --order 2 --plan fused=0,cpml=0
    run o2shell "${common[@]}" --order 2 --plan fused=0,cpml=1
    run o4shell "${common[@]}" --order 4 --plan fused=0,cpml=1
    names="$names o2sep o2shell o4shell"
fi

copy=$(sed -n 's/.*of copy \([0-9.]*\) GB\/s.*/\1/p' "$dest/peer.txt")
dev=$(sed -n 's/^device: \([^,]*\),.*/\1/p' "$dest/o2.txt" | cut -c1-40)
echo
echo "### seismic on $(cat "$dest/date.txt"), ${dev:-?} (copy ${copy:-?} GB/s, CUDA D2D), $(($(date +%s) - t0)) s in all"
echo
echo "| what | order | Gcells/s | B/cell | GB/s | of copy | command |"
echo "|---|---|---|---|---|---|---|"
row() { # what, order, Gcells/s, B/cell, command
    awk -v w="$1" -v o="$2" -v g="$3" -v b="$4" -v c="$copy" -v cmd="$5" 'BEGIN {
        if (g == "") { printf "| %s | %s | failed | | | | %s |\n", w, o, cmd; exit }
        bw = g * b; printf "| %s | %s | %.4g | %s | %.0f | %s | %s |\n", w, o, g, b, bw,
        (c > 0 ? sprintf("%.2f", bw / c) : "?"), cmd }'
}
for name in $names; do
    f="$dest/$name.txt"
    o=${name:1:1}
    cpml="CPML 10" args="--order $o"
    case $name in
    o2nopml) cpml="no CPML" args="--order 2 --pml 0" ;;
    o2sep) cpml="CPML 10 general kernels" args="--order 2 --plan fused=0,cpml=0" ;;
    *shell) cpml="CPML 10 shell" args="--order $o --plan fused=0,cpml=1" ;;
    esac
    cmd="streamcl seismic --bench $N --steps $STEPS $args"
    g=$(sed -n 's/.* s: \([0-9.]*\) Gcells\/s/\1/p' "$f")
    how=$(sed -n 's/^device: [^,]*, work-group \([0-9x]*\), kz \([0-9]*\), \([a-zA-Z ,]*\), \([0-9]*\) bytes.*/\3, wg \1, kz \2|\4/p' "$f")
    row "OpenCL fp32, tuned: ${how%|*}, $cpml, wall clock" "$o" "$g" "${how#*|}" "$cmd"
    sed -n 's/^tuned \([a-zA-Z ,]*\): \([0-9.]*\) ms per step.*/\1|\2/p' "$f" | while IFS='|' read -r sch ms; do
        b=84; case $sch in separate*) b=120 ;; esac
        row "  tuner's best $sch, $cpml, device time" "$o" \
            "$(awk -v n="$N" -v ms="$ms" 'BEGIN { printf "%.4f", n * n * n / (ms * 1e-3) / 1e9 }')" "$b" "$cmd"
    done
done
grep '^| CUDA' "$dest/peer.txt" |
    awk -F'|' '{ printf "| peer: %s, no CPML | %s | %s | 120 | %s | %s | peer_vs '"$N"' 20 |\n", $2, $5, $8, $9, $10 }'
