#!/bin/bash
# Several benchmarks on the GPU machine in one sitting (device time comes in
# few minutes): registers the device's OpenCL, builds the streamcl command
# once (build-gpu, the configuration of bench/gpu-setup.sh), then runs each
# named script with STREAMCL set, each under its own time limit, and ends with
# every script's closing table, one after the other. Full logs: $OUT/NAME.log
# (or build-gpu/session/NAME.log).
#   bash bench/gpu-session.sh fdtd/gpu.sh:150 seismic/gpu.sh:150 eri/gpu.sh:120
# An argument is a script under bench/ with an optional ":SECONDS" (default
# 180); TAIL_LINES (default 22) is how much of each log the end shows.
cd "$(dirname "$0")/.." || exit 1
t0=$(date +%s)
logs=${OUT:-build-gpu/session}
mkdir -p "$logs" build-gpu
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
if [ ! -x "${STREAMCL:-}" ]; then
    { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_TEST_DEVICE=gpu \
          ${STREAMCL_GPU_CMAKE_ARGS:-} && make -C build-gpu -j"$(nproc)" streamcl_cli; } \
        > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
    export STREAMCL=$PWD/build-gpu/streamcl
fi
echo "[session] streamcl built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
names=()
for arg in "$@"; do
    script=${arg%%:*}
    limit=${arg#"$script"}; limit=${limit#:}; limit=${limit:-180}
    name=$(echo "${script%.sh}" | tr '/' '-')
    names+=("$name")
    s0=$(date +%s)
    timeout "$limit" bash "bench/$script" > "$logs/$name.log" 2>&1
    rc=$?
    echo "[session] $script: rc $rc, $(( $(date +%s) - s0 )) s (limit $limit s)"
done
for name in "${names[@]}"; do
    echo
    echo "==== $name (last ${TAIL_LINES:-22} lines of $logs/$name.log)"
    tail -n "${TAIL_LINES:-22}" "$logs/$name.log"
done
echo "[session] total $(( $(date +%s) - t0 )) s"
