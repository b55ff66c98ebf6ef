#!/bin/bash
# streamcl seismic on this machine's CPU cores, beside its peers in one run:
# the OpenCL kernels on PoCL (tuned), the C/OpenMP reference and Devito's
# elastic velocity-stress example (OpenMP), all on the same N^3 cube and the
# same threads. Devito comes from PyPI into bench/seismic/.venv:
#   python3 -m venv bench/seismic/.venv && bench/seismic/.venv/bin/pip install devito pytest scipy
#   bash bench/seismic/cpu.sh [BUILD_DIR] [N] [STEPS]
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build} N=${2:-96} STEPS=${3:-40} threads=${THREADS:-$(nproc)}
cli=$build/streamcl
venv=bench/seismic/.venv
echo "### seismic on $(date -u +%Y-%m-%dT%H:%MZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads threads, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| what | order | N^3 | steps | Gcells/s | command |"
echo "|---|---|---|---|---|---|"
for order in 2 4; do
    g=$(STREAMCL_DEVICE=cpu "$cli" seismic --bench "$N" --order "$order" --steps "$STEPS" 2>&1 | tee /tmp/seis_cpu_ocl.txt |
        sed -n 's/.* s: \([0-9.]*\) Gcells\/s/\1/p')
    how=$(sed -n 's/^device: [^,]*, \(.*\), [0-9]* bytes.*/\1/p' /tmp/seis_cpu_ocl.txt)
    echo "| OpenCL on PoCL ($how) | $order | $N | $STEPS | $g | streamcl seismic --bench $N --order $order --steps $STEPS |"
    g=$(OMP_NUM_THREADS=$threads "$cli" seismic --bench "$N" --order "$order" --steps "$STEPS" \
        --engine reference --threads "$threads" 2>&1 | sed -n 's/.* s: \([0-9.]*\) Gcells\/s/\1/p')
    echo "| C/OpenMP reference, $threads threads | $order | $N | $STEPS | $g | ... --engine reference --threads $threads |"
    if [ -x "$venv/bin/python" ]; then
        DEVITO_LANGUAGE=openmp OMP_NUM_THREADS=$threads "$venv/bin/python" bench/seismic/devito_elastic.py \
            "$N" "$order" 150 2>/dev/null | grep '^|' | sed "s/\$/ devito_elastic.py $N $order 150 |/"
    fi
done
