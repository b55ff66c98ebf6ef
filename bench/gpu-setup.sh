#!/bin/bash
# Source on the GPU machine from the repository root:  . bench/gpu-setup.sh
# Registers NVIDIA OpenCL (via the carried copy of shared/device in .gpu/device)
# and builds streamcl into build-gpu (Release, tests on the GPU) unless
# $STREAMCL already names a built command (a script run by another). Defines
# gpu_dest NAME: the results folder $OUT/NAME (what the device tool brings
# back), else build-gpu/NAME, created.
set -e
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ ! -x "${STREAMCL:-}" ]; then
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TEST_DEVICE=gpu \
          ${STREAMCL_GPU_CMAKE_ARGS:-} > build-gpu.log 2>&1 || { cat build-gpu.log; return 1; }
    make -C build-gpu -j16 >> build-gpu.log 2>&1 || { tail -50 build-gpu.log; return 1; }
    export STREAMCL=$PWD/build-gpu/streamcl
fi
gpu_dest() {
    local d=${OUT:+$OUT/$1}
    d=${d:-build-gpu/$1}
    mkdir -p "$d" && echo "$d"
}
set +e
