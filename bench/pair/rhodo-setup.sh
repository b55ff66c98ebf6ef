# Sourced by the bench/pair/*-gpu.sh scripts (GPU machine, repository root):
# builds the streamcl command (pair module only) into $B, makes the results
# folder $RES ($OUT/$1 when $OUT is set, else $B/results) and finds rhodo's
# data file (bench/data.rhodo of .gpu/lammps-trim.tar.xz) as $DATA; sets
# STREAMCL, DEV (the GPU's name) and T0. Usage: B=build-dir; . bench/pair/rhodo-setup.sh NAME
T0=$(date +%s)
if [ -f .gpu/device/setup.sh ]; then . .gpu/device/setup.sh; fi
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSTREAMCL_MODULES=pair -DSTREAMCL_TESTS=OFF \
    > $B.log 2>&1 && make -C $B -j16 streamcl_cli >> $B.log 2>&1 || { tail -40 $B.log; exit 1; }
STREAMCL=$PWD/$B/streamcl
RES=${OUT:+$OUT/$1}
RES=${RES:-$B/results}
mkdir -p "$RES"
DATA=$B/lammps-trim/lammps/bench/data.rhodo
if [ ! -f "$DATA" ]; then
    mkdir -p $B/lammps-trim
    tar -xJf .gpu/lammps-trim.tar.xz -C $B/lammps-trim 2>/dev/null
    [ -f "$DATA" ] || DATA=$(find $B/lammps-trim -name data.rhodo | head -1)
fi
if [ ! -f "$DATA" ]; then
    echo "$0: data.rhodo not found (.gpu/lammps-trim.tar.xz missing or without bench/)" >&2
    exit 1
fi
export XDG_CACHE_HOME=$PWD/$B/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "build $(( $(date +%s) - T0 )) s; device ${DEV:-?}"
