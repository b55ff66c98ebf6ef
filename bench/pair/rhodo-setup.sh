# shellcheck shell=bash
# Sourced by the bench/pair/*.sh scripts (GPU machine, repository root):
#   B=build-dir; . bench/pair/rhodo-setup.sh NAME   builds the streamcl command
#                                                    alone (pair module) into $B
#   . bench/pair/rhodo-setup.sh NAME                builds everything, tests too,
#                                                    into build-gpu (bench/gpu-setup.sh)
# then makes the results folder RES ($OUT/NAME when OUT is set, else $B/NAME),
# finds rhodo's data file (bench/data.rhodo of .gpu/lammps-trim.tar.xz) as DATA
# and sets STREAMCL, DEV (the GPU's name and driver, also in $RES/device.txt),
# T0, XDG_CACHE_HOME ($B/cache: the plan cache) and OMP_NUM_THREADS (16 unless
# set); the functions of bench/lib/rhodo.sh (pb_run, pb_get, ratio) come with it.
. bench/lib/rhodo.sh
T0=$(date +%s)
if [ -n "${B:-}" ]; then
    if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_MODULES=pair -DSTREAMCL_TESTS=OFF \
        > "$B.log" 2>&1 && make -C "$B" -j16 streamcl_cli >> "$B.log" 2>&1 || { tail -40 "$B.log"; exit 1; }
    STREAMCL=$PWD/$B/streamcl
else
    B=build-gpu
    . bench/gpu-setup.sh || exit 1
fi
RES=${OUT:+$OUT/$1}
RES=${RES:-$B/$1}
mkdir -p "$RES"
DATA=$(rhodo_data "$B") || exit 1
export XDG_CACHE_HOME=$PWD/$B/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
DEV=$(gpu_info name,driver_version "$RES/device.txt" | head -1)
echo "build $(( $(date +%s) - T0 )) s; device ${DEV:-?}"
