#!/bin/bash
# streamcl seismic on the GPU machine (run from the repository root, bare H100/H200, ~90 s
# with the build):
#   bash bench/seismic/gpu.sh
# Builds only the streamcl command into build-gpu (same configuration as
# bench/gpu-setup.sh; the CUDA peer compiles meanwhile), then at N^3 (default
# 512), FP32, CPML 10 cells, one explosive source: order 2 with the separate
# velocity + stress kernels, the fused scheme recomputing neighbours'
# velocities and the fused scheme sharing them in local memory (each tuned
# over the work-group and the z walk kz), order 4 with the tuner choosing
# everything;
# order 2 without CPML (rigid walls: what the peer runs, and what the CPML
# costs); and the peer (bench/seismic/peer_vs.cu: plain CUDA separate kernels, one
# thread per cell, rows as first written and padded to 128 B; it also measures
# the device-to-device copy bandwidth). Gcells/s from wall time over the steps
# after set-up and tuning. Markdown table last; logs in $OUT/seismic.
# The C/OpenMP reference and Devito are CPU figures: bench/seismic/cpu.sh.
# Dry run elsewhere: STREAMCL=build/streamcl DEVICE=cpu N=64 bash bench/seismic/gpu.sh
cd "$(dirname "$0")/../.." || exit 1
t0=$(date +%s)
DEVICE=${DEVICE:-gpu} N=${N:-512} STEPS=${STEPS:-50}
dest=${OUT:+$OUT/seismic}
dest=${dest:-build-gpu/seismic}
mkdir -p "$dest"
date -u +%Y-%m-%dT%H:%MZ > "$dest/date.txt"

peer_pid=
if command -v nvcc > /dev/null; then
    nvcc -O3 -arch=native -o "$dest/peer_vs" bench/seismic/peer_vs.cu > "$dest/peer_build.log" 2>&1 &
    peer_pid=$!
fi
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
if [ -z "${STREAMCL:-}" ]; then
    { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TEST_DEVICE=gpu \
          ${STREAMCL_GPU_CMAKE_ARGS:-} && make -C build-gpu -j"$(nproc)" streamcl_cli; } \
        > "$dest/build.log" 2>&1 || { tail -30 "$dest/build.log"; echo "build failed"; exit 1; }
    STREAMCL=$PWD/build-gpu/streamcl
fi
echo "build: $(($(date +%s) - t0)) s"

echo "== peer: plain CUDA velocity-stress kernels"
if [ -n "$peer_pid" ] && wait "$peer_pid"; then
    timeout 40 "$dest/peer_vs" "$N" 20 | tee "$dest/peer.txt"
else
    echo "peer not built (no nvcc, or see peer_build.log)" | tee "$dest/peer.txt"
fi

run() { # name, args...
    local name=$1; shift
    echo "== streamcl seismic $*"
    timeout 75 "$STREAMCL" seismic "$@" > "$dest/$name.txt" 2>&1
    tail -3 "$dest/$name.txt"
}
common=(--bench "$N" --steps "$STEPS" --device "$DEVICE")
run o2sep "${common[@]}" --order 2 --plan fused=0
run o2fus "${common[@]}" --order 2 --plan fused=1
run o2lds "${common[@]}" --order 2 --plan fused=2
run o4 "${common[@]}" --order 4
run o2nopml "${common[@]}" --order 2 --pml 0

copy=$(sed -n 's/.*of copy \([0-9.]*\) GB\/s.*/\1/p' "$dest/peer.txt")
dev=$(sed -n 's/^device: \([^,]*\),.*/\1/p' "$dest/o2sep.txt" | cut -c1-40)
echo
echo "### seismic on $(cat "$dest/date.txt"), ${dev:-?} (copy ${copy:-?} GB/s, CUDA D2D), $(($(date +%s) - t0)) s in all"
echo
echo "| what | order | Gcells/s | B/cell | GB/s | of copy | command |"
echo "|---|---|---|---|---|---|---|"
for name in o2sep o2fus o2lds o4 o2nopml; do
    f="$dest/$name.txt"
    g=$(sed -n 's/.* s: \([0-9.]*\) Gcells\/s/\1/p' "$f")
    o=$(sed -n 's/.*order \([24]\),.*/\1/p' "$f" | head -1)
    how=$(sed -n 's/^device: [^,]*, work-group \([0-9x]*\), kz \([0-9]*\), \([a-z ]*\), \([0-9]*\) bytes.*/\3, wg \1, kz \2|\4/p' "$f")
    args=$(case $name in o2sep) echo "--order 2 --plan fused=0";; o2fus) echo "--order 2 --plan fused=1";;
           o2lds) echo "--order 2 --plan fused=2";;
           o4) echo "--order 4";; *) echo "--order 2 --pml 0";; esac)
    cpml=", CPML 10"; [ "$name" = o2nopml ] && cpml=", no CPML"
    awk -v w="OpenCL fp32 ${how%|*}$cpml" -v o="$o" -v g="$g" -v b="${how#*|}" -v c="$copy" -v n="$N" \
        -v s="$STEPS" -v a="$args" -v name="$name" 'BEGIN {
        if (g == "") { printf "| %s | | failed (see %s.txt) | | | | |\n", w, name; exit }
        bw = g * b; printf "| %s | %s | %.4g | %s | %.0f | %s | streamcl seismic --bench %s --steps %s %s |\n",
        w, o, g, b, bw, (c > 0 ? sprintf("%.2f", bw / c) : "?"), n, s, a }'
done
grep '^| CUDA' "$dest/peer.txt" |
    awk -F'|' '{ printf "| peer: %s | %s | %s | 120 | %s | %s | peer_vs '"$N"' 20 |\n", $2, $5, $8, $9, $10 }'
