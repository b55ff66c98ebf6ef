#!/bin/bash
# streamcl seismic on the GPU machine (run from the repository root, bare H100/H200):
#   bash bench/seismic/gpu.sh
# Builds streamcl (bench/gpu-setup.sh), then at N^3 (default 512): the OpenCL
# velocity-stress kernels (fp32, tuned work-group, CPML 10 cells, one explosive
# source) at 2nd and 4th order, the peer in the same run (plain CUDA
# velocity + stress kernels, bench/seismic/peer_vs.cu, which also measures the
# device-to-device copy bandwidth), and the C/OpenMP reference on all host
# cores (few steps). Devito needs PyPI and is measured on the CPU host instead
# (bench/seismic/devito_elastic.py). Prints a Markdown table last. ~3 minutes.
cd "$(dirname "$0")/../.." || exit 1
# STREAMCL=path skips the build (for trying the script elsewhere, DEVICE=cpu)
if [ -z "${STREAMCL:-}" ]; then . bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }; fi
DEVICE=${DEVICE:-gpu} N=${N:-512} STEPS=${STEPS:-100} REF_STEPS=${REF_STEPS:-3}
dest=${OUT:+$OUT/seismic}
dest=${dest:-build-gpu/seismic}
mkdir -p "$dest"
threads=$(nproc)
date -u +%Y-%m-%dT%H:%MZ > "$dest/date.txt"

echo "== peer: plain CUDA velocity-stress kernels"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o "$dest/peer_vs" bench/seismic/peer_vs.cu > "$dest/peer_build.log" 2>&1; then
    timeout 90 "$dest/peer_vs" "$N" 20 | tee "$dest/peer.txt"
else
    echo "peer not built (see peer_build.log)" | tee "$dest/peer.txt"
fi

run() { # name, args...
    local name=$1; shift
    echo "== streamcl seismic $*"
    timeout 150 "$STREAMCL" seismic "$@" > "$dest/$name.txt" 2>&1
    tail -4 "$dest/$name.txt"
}
run ocl2 --bench "$N" --order 2 --steps "$STEPS" --device "$DEVICE"
run ocl4 --bench "$N" --order 4 --steps "$STEPS" --device "$DEVICE"
# the 2nd-order scheme the tuner did not pick, same work-group, for the comparison
wg2=$(sed -n 's/.*work-group \([0-9]*\)x\([0-9]*\), .*/lx=\1,ly=\2/p' "$dest/ocl2.txt")
if grep -q "fused," "$dest/ocl2.txt"; then other=0; else other=1; fi
run ocl2x --bench "$N" --order 2 --steps "$STEPS" --device "$DEVICE" --plan "${wg2:-lx=64,ly=4},fused=$other"
OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores \
    run ref2 --bench "$N" --order 2 --steps "$REF_STEPS" --engine reference --threads "$threads"
OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores \
    run ref4 --bench "$N" --order 4 --steps "$REF_STEPS" --engine reference --threads "$threads"

copy=$(sed -n 's/.*of copy \([0-9.]*\) GB\/s.*/\1/p' "$dest/peer.txt")
dev=$(sed -n 's/^device: \([^,]*\),.*/\1/p' "$dest/ocl2.txt")
echo
echo "### seismic on $(cat "$dest/date.txt"), ${dev:-?} (copy ${copy:-?} GB/s, CUDA D2D), host $threads cores"
echo
echo "| what | order | steps | Gcells/s | B/cell | GB/s | of copy | command |"
echo "|---|---|---|---|---|---|---|---|"
for name in ocl2 ocl2x ocl4 ref2 ref4; do
    f="$dest/$name.txt"
    g=$(sed -n 's/.* s: \([0-9.]*\) Gcells\/s/\1/p' "$f")
    o=$(sed -n 's/.*order \([24]\),.*/\1/p' "$f" | head -1)
    s=$(sed -n 's/^\([0-9]*\) steps in.*/\1/p' "$f")
    how=$(sed -n 's/^device: [^,]*, work-group \([0-9x]*\), \([a-z ]*\), \([0-9]*\) bytes.*/wg \1, \2|\3/p' "$f")
    what="OpenCL fp32 ${how%|*}" b=${how#*|}
    if [ "${name#ref}" != "$name" ]; then what="C/OpenMP reference, $threads threads"; b=120; fi
    extra=""; [ "$name" = ocl2x ] && extra=" --plan ${wg2:-lx=64,ly=4},fused=$other"
    awk -v w="$what" -v o="$o" -v s="$s" -v g="$g" -v b="$b" -v c="$copy" -v n="$N" -v name="$name" -v x="$extra" 'BEGIN {
        if (g == "") { printf "| %s | %s | - | failed (see %s.txt) | | | | |\n", w, o, name; exit }
        bw = g * b; printf "| %s | %s | %s | %.3f | %s | %.0f | %s | streamcl seismic --bench %s --order %s%s |\n",
        w, o, s, g, b, bw, (c > 0 ? sprintf("%.2f", bw / c) : "?"), n, o, x }'
done
sed -n 's/^| CUDA/| CUDA/p' "$dest/peer.txt" |
    awk -F'|' '{ printf "| peer: CUDA plain v/s kernels (%s) | %s | %s | %s | 120 | %s | %s | peer_vs '"$N"' 20 |\n", $3, $5, $6, $8, $9, $10 }'
