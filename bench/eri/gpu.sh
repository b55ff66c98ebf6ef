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
# Kernel times are OpenCL/CUDA events, medians after warm-up. About 2-3 minutes.
# PySCF needs PyPI, which this machine lacks: it is measured on the CPU host.
cd "$(dirname "$0")/../.." || exit 1
. bench/gpu-setup.sh || { echo "gpu-setup failed"; exit 1; }
dest=${OUT:+$OUT/eri}
dest=${dest:-build-gpu/eri}
mkdir -p "$dest"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
date -u +%Y-%m-%dT%H:%MZ > "$dest/date.txt"

echo "== peer: CUDA, one thread per contracted quartet"
if command -v nvcc > /dev/null &&
   nvcc -O3 -arch=native -o build-gpu/peer_eri bench/eri/peer_eri.cu > "$dest/peer_build.log" 2>&1; then
    { timeout 60 build-gpu/peer_eri 4 4 4; timeout 60 build-gpu/peer_eri 5 5 5; } | tee "$dest/peer.txt"
else
    echo "peer not built (see peer_build.log)" | tee "$dest/peer.txt"
fi

run() { # run NAME ARGS...: streamcl eri on the GPU, output to $dest/NAME.txt
    local name=$1
    shift
    echo "== streamcl eri $*"
    timeout 120 "$STREAMCL" eri --device gpu "$@" 2>&1 | tee "$dest/$name.txt"
}
run t444_fp64 --lattice 4x4x4 --tensor --scf 0
run t444_fp32 --lattice 4x4x4 --tensor --scf 0 --precision single
run rhf444 --lattice 4x4x4 --jk 5 --e-tol 1e-12 --g-tol 1e-9
run t555 --lattice 5x5x5 --tensor --jk 5 --scf 0
echo "== host C reference, $OMP_NUM_THREADS threads, 4x4x4 tensor"
timeout 120 "$STREAMCL" eri --lattice 4x4x4 --engine reference --tensor --scf 0 2>&1 | tee "$dest/ref444.txt"

# the table
dev=$(grep -o "device: [^;]*" "$dest/t444_fp64.txt" | head -1 | cut -c9-)
num() { grep -o -- "$2" "$dest/$1.txt" 2> /dev/null | head -1 | grep -o "[-0-9.e+]*" | tail -1; }
numk() { grep -- "$2" "$dest/$1.txt" 2> /dev/null | head -1 | grep -o -- "$3" | grep -o "[-0-9.e+]*" | head -1; }
echo
echo "| figure | streamcl eri (OpenCL) | CUDA peer | device | command |"
echo "|---|---|---|---|---|"
p64=$(grep "fp64" "$dest/peer.txt" | head -1)
p32=$(grep "fp32" "$dest/peer.txt" | head -1)
p64b=$(grep "fp64" "$dest/peer.txt" | sed -n 2p)
echo "| 4x4x4 tensor FP64, s | $(numk t444_fp64 "tensor (double)" "[0-9.e+-]* s device") | $(grep -o "[0-9.]* ms" <<< "$p64" | awk '{print $1/1000}') | $dev | eri --lattice 4x4x4 --tensor |"
echo "| 4x4x4 FP64 primitive quartets/s | $(numk t444_fp64 "tensor (double)" "s (median of 5), [0-9.e+]*") | $(grep -o "[0-9.e+]* primitive" <<< "$p64" | awk '{print $1}') | $dev | same |"
echo "| 4x4x4 FP32 primitive quartets/s | $(numk t444_fp32 "tensor (single)" "s (median of 5), [0-9.e+]*") | $(grep -o "[0-9.e+]* primitive" <<< "$p32" | awk '{print $1}') | $dev | --precision single |"
echo "| 4x4x4 FP32 max abs error, hartree | $(num t444_fp32 "max |difference| [0-9.e+-]*") | | $dev | same |"
echo "| 4x4x4 sum of unique integrals | $(numk t444_fp64 "tensor (double)" "sum [-0-9.e+]*") | $(grep -o "sum [-0-9.e+]*" <<< "$p64" | awk '{print $2}') | $dev | |"
echo "| 4x4x4 RHF energy, hartree (direct) | $(num rhf444 "RHF energy: [-0-9.]*") | | $dev | eri --lattice 4x4x4 --jk 5 |"
echo "| 4x4x4 RHF SCF total / J/K, s | $(numk rhf444 "timings:" "SCF total [0-9.]*") / $(numk rhf444 "timings:" "J/K [0-9.]*") | | $dev | same |"
echo "| 4x4x4 one J/K build, s (device) | $(numk rhf444 "J/K integral-direct" "[0-9.e+-]* s device") | | $dev | same |"
echo "| 5x5x5 tensor FP64, s | $(numk t555 "tensor (double)" "[0-9.e+-]* s device") | $(grep -o "[0-9.]* ms" <<< "$p64b" | awk '{print $1/1000}') | $dev | eri --lattice 5x5x5 --tensor --jk 5 |"
echo "| 5x5x5 one J/K build (integrals included), s device / wall | $(numk t555 "J/K integral-direct" "[0-9.e+-]* s device") / $(numk t555 "J/K integral-direct" "[0-9.e+-]* s wall") | | $dev | same |"
echo "| 5x5x5 J/K primitive quartets/s | $(numk t555 "J/K integral-direct" "), [0-9.e+]*") | | $dev | same |"
echo "| 4x4x4 tensor, C reference $OMP_NUM_THREADS threads, s | $(numk ref444 "C reference" "[0-9.e+-]* s wall") | | host CPU | --engine reference |"
echo "date: $(cat "$dest/date.txt"); plan: $(grep -o "plan [^(]*" "$dest/t444_fp64.txt" | head -1)"
