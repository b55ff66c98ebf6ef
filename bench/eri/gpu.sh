#!/bin/bash
# streamcl eri on the GPU machine (run from the repository root, bare H100/H200):
#   bash bench/eri/gpu.sh
# Builds streamcl (bench/gpu-setup.sh) and the CUDA peer (bench/eri/peer_eri.cu),
# then on STO-6G hydrogen lattices, spacing 1.4 bohr:
#   4x4x4  unique tensor, FP64 and FP32 (time, primitive quartets/s, sum of integrals),
#          integral-direct RHF energy (compare: PySCF -> bench/RESULTS.md ## eri)
#   5x5x5  unique tensor + integral-direct J/K builds (125 electrons: no RHF)
#   peer   CUDA, one thread per contracted quartet, CUDA erf, 4x4x4 and 5x5x5
#   host   the C reference on all cores, 4x4x4 tensor
# Kernel times are OpenCL/CUDA events, medians after warm-up. About a minute
# after the build (the tuner compiles 12 variants per precision on a GPU).
# PySCF needs PyPI, which this machine lacks: it is measured on the CPU host.
# Testing elsewhere: STREAMCL=path/to/streamcl DEVICE=cpu SMALL=2x2x2 BIG=2x2x3 bash bench/eri/gpu.sh
cd "$(dirname "$0")/../.." || exit 1
if [ -z "${STREAMCL:-}" ]; then
    . bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
fi
device=${DEVICE:-gpu}
small=${SMALL:-4x4x4}
big=${BIG:-5x5x5}
dest=${OUT:+$OUT/eri}
dest=${dest:-$(dirname "$STREAMCL")/eri-gpu}
mkdir -p "$dest"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
date -u +%Y-%m-%dT%H:%MZ > "$dest/date.txt"
start=$SECONDS

echo "== peer: CUDA, one thread per contracted quartet"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o "$dest/peer_eri" bench/eri/peer_eri.cu > "$dest/peer_build.log" 2>&1; then
    { timeout 60 "$dest/peer_eri" ${small//x/ }; timeout 60 "$dest/peer_eri" ${big//x/ }; } 2>&1 | tee "$dest/peer.txt"
else
    echo "peer not built (see peer_build.log)" | tee "$dest/peer.txt"
fi

run() { # run NAME ARGS...: streamcl eri on the GPU, output to $dest/NAME.txt
    local name=$1
    shift
    echo "== streamcl eri $*"
    timeout 120 "$STREAMCL" eri --device "$device" "$@" 2>&1 | tee "$dest/$name.txt"
}
run t444_fp64 --lattice "$small" --tensor --scf 0
run t444_fp32 --lattice "$small" --tensor --scf 0 --precision single
run rhf444 --lattice "$small" --jk 5 --e-tol 1e-12 --g-tol 1e-9
run t555 --lattice "$big" --tensor --jk 5 --scf 0
echo "== host C reference, $OMP_NUM_THREADS threads, $small tensor"
timeout 120 "$STREAMCL" eri --lattice "$small" --engine reference --tensor --scf 0 2>&1 | tee "$dest/ref444.txt"

# the table
dev=$(grep -o "device: [^;]*" "$dest/t444_fp64.txt" | head -1 | cut -c9-)
# get FILE GREP SED: the sed capture \1 of the first line of $dest/FILE.txt matching GREP
get() { grep -F -- "$2" "$dest/$1.txt" 2> /dev/null | head -1 | sed -n "s/$3/\1/p"; }
secs='.* \([0-9.e+-]*\) s device.*'
rate='.* \([0-9.e+-]*\) primitive quartets\/s.*'
wall='.* \([0-9.e+-]*\) s wall.*'
sum='.*sum \([-0-9.e+]*\).*'
echo
echo "goals (issue 16): FP64 >= 3e11 primitive quartets/s; $big integrals + J/K <= ~1.45 s (100x PySCF's ~145 s estimate on 16 cores)"
echo
echo "| figure | streamcl eri (OpenCL) | CUDA peer | device | command |"
echo "|---|---|---|---|---|"
p64=$(grep "fp64" "$dest/peer.txt" | head -1)
p32=$(grep "fp32" "$dest/peer.txt" | head -1)
p64b=$(grep "fp64" "$dest/peer.txt" | sed -n 2p)
pms() { sed -n 's/.* \([0-9.]*\) ms .*/\1/p' <<< "$1" | awk '{print $1 / 1000}'; }
prate() { sed -n "s/$rate/\1/p" <<< "$1"; }
echo "| $small tensor FP64, s | $(get t444_fp64 "tensor (double)" "$secs") | $(pms "$p64") | $dev | eri --lattice $small --tensor --scf 0 |"
echo "| $small FP64 primitive quartets/s | $(get t444_fp64 "tensor (double)" "$rate") | $(prate "$p64") | $dev | same |"
echo "| $small FP32 primitive quartets/s | $(get t444_fp32 "tensor (single)" "$rate") | $(prate "$p32") | $dev | --precision single |"
echo "| $small FP32 max abs error vs FP64, hartree | $(get t444_fp32 "single vs double" '.*difference| \([0-9.e+-]*\) hartree.*') | | $dev | same |"
echo "| $small sum of unique integrals | $(get t444_fp64 "tensor (double)" "$sum") | $(sed -n "s/$sum/\1/p" <<< "$p64") | $dev | |"
echo "| $small RHF energy, hartree (direct J/K) | $(get rhf444 "RHF energy:" '.*RHF energy: \([-0-9.]*\).*') | | $dev | eri --lattice $small --jk 5 |"
echo "| $small RHF: SCF total / J/K, s | $(get rhf444 "timings:" '.*SCF total \([0-9.]*\) s.*') / $(get rhf444 "timings:" '.*J\/K \([0-9.]*\) s.*') | | $dev | same |"
echo "| $small one J/K build, s device | $(get rhf444 "J/K integral-direct" "$secs") | | $dev | same |"
echo "| $big tensor FP64, s | $(get t555 "tensor (double)" "$secs") | $(pms "$p64b") | $dev | eri --lattice $big --tensor --jk 5 --scf 0 |"
echo "| $big FP64 primitive quartets/s | $(get t555 "tensor (double)" "$rate") | $(prate "$p64b") | $dev | same |"
echo "| $big one J/K build (integrals included), s device / wall | $(get t555 "J/K integral-direct" "$secs") / $(get t555 "J/K integral-direct" "$wall") | | $dev | same |"
echo "| $big J/K primitive quartets/s | $(get t555 "J/K integral-direct" "$rate") | | $dev | same |"
echo "| $small tensor, C reference, $OMP_NUM_THREADS threads, s | $(get ref444 "C reference" "$wall") | | host CPU | --engine reference --tensor --scf 0 |"
echo "| set-up incl. tuning, s: $small FP64 / FP32 | $(get t444_fp64 "set-up" '.*set-up \([0-9.]*\) s.*') / $(get t444_fp32 "set-up" '.*set-up \([0-9.]*\) s.*') | | $dev | |"
echo "date: $(cat "$dest/date.txt"); $(grep -o "plan [^(]*" "$dest/t444_fp64.txt" | head -1)(fp64), $(grep -o "plan [^(]*" "$dest/t444_fp32.txt" | head -1)(fp32); script $((SECONDS - start)) s after the build"
