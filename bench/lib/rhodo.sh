# shellcheck shell=bash
# Sourced by the bench scripts that run rhodo (LAMMPS bench/in.rhodo, data.rhodo)
# on the GPU machine:  . "$(dirname "$0")/../lib/rhodo.sh"
# The pieces they all had written out: the results and work folders, the LAMMPS
# build (bench/rhodo/gpu-build.sh), the rhodo inputs, a LAMMPS log's timing
# rows, medians of interleaved rounds, a value of `streamcl pair-bench`'s
# RESULT line. Defines functions only; sets nothing until one is called.

# rhodo_begin NAME [WORK]: cd to the repository root; OUTDIR=$OUT/NAME (OUT
# defaults to ./out); W=$GPU_WORK, else ./WORK (default build-rhodo-gpu: not
# under .gpu/, which carrying .gpu replaces); both made; starts stamp's clock.
rhodo_begin() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cd "$ROOT" || exit 1
  OUTDIR=${OUT:-$ROOT/out}/$1
  W=${GPU_WORK:-$ROOT/${2:-build-rhodo-gpu}}
  mkdir -p "$OUTDIR" "$W"
  RHODO_TAG=$1 RHODO_T0=$(date +%s)
}

# stamp TEXT: a progress line with the seconds since rhodo_begin
stamp() { echo "[$RHODO_TAG +$(( $(date +%s) - RHODO_T0 ))s] $*"; }

# rhodo_build: LAMMPS (GPU package + PLUGIN) and streamcl + lmp_ocl, once per
# script; sets LMP, LMP_OCL, LAMMPS_SOURCE_DIR (bench/rhodo/gpu-build.sh, which
# exits when the tarball or the rhodo inputs are missing)
rhodo_build() {
  . "$ROOT/bench/rhodo/gpu-build.sh"
}

# gpu_info FIELDS FILE: nvidia-smi's FIELDS of each GPU, shown and kept in FILE
gpu_info() {
  nvidia-smi --query-gpu="$1" --format=csv,noheader 2>/dev/null | tee "$2"
}

# rhodo_data DIR: prints the path of data.rhodo, unpacked from
# .gpu/lammps-trim.tar.xz into DIR/lammps-trim when not there yet; fails
# (saying why) when there is none
rhodo_data() {
  local d=$1/lammps-trim f
  f=$d/lammps/bench/data.rhodo
  if [ ! -f "$f" ]; then
    mkdir -p "$d"
    tar -xJf .gpu/lammps-trim.tar.xz -C "$d" 2>/dev/null
    [ -f "$f" ] || f=$(find "$d" -name data.rhodo | head -1)
  fi
  [ -f "$f" ] || { echo "data.rhodo not found (.gpu/lammps-trim.tar.xz missing or without bench/): the rhodo input is missing" >&2; return 1; }
  echo "$f"
}

# rhodo_inputs SRC STEPS: in the current folder, data.rhodo (a link into SRC's
# bench/) and two inputs of STEPS steps: in.device (in.rhodo as it is) and
# in.host (its fix shake line between `suffix off` / `suffix on`, so that -sf
# ocl leaves it LAMMPS's CPU fix shake); fails when in.rhodo has no fix shake
rhodo_inputs() {
  local in=$1/bench/in.rhodo
  [ -f "$in" ] && [ -f "$1/bench/data.rhodo" ] || { echo "no bench/in.rhodo, data.rhodo in $1" >&2; return 1; }
  ln -sf "$1/bench/data.rhodo" data.rhodo
  sed -E "s/^run.*/run $2/" "$in" > in.device
  sed -E -e "s/^run.*/run $2/" -e 's/^(fix\s+\S+\s+\S+\s+shake\s.*)$/suffix off\n\1\nsuffix on/' "$in" > in.host
  grep -q "^suffix off" in.host || { echo "no fix shake line in $in" >&2; return 1; }
}

# ranked NP BIN: CMD=(BIN), or the MPI launch of NP ranks of it
ranked() { # sets CMD, which the caller runs
  # shellcheck disable=SC2034
  CMD=("$2")
  if [ "$1" -gt 1 ]; then CMD=("${MPIEXEC:-mpirun}" -np "$1" "$2"); fi
}

# log_rows LOG ROW...: the loop time and the seconds (the min time column) of
# each named row of LAMMPS's timing breakdown (Pair, Bond, Kspace, Modify, ...),
# one line; an empty field reads "-"
log_rows() {
  local log=$1; shift
  awk -v rows="$*" 'BEGIN {n = split(rows, R, " ")} /^Loop time/ {v["loop"] = $4}
    /^[A-Z][a-z]+ +\|/ {v[$1] = $3}
    END {s = v["loop"] == "" ? "-" : v["loop"]
         for (i = 1; i <= n; i++) s = s " " (v[R[i]] == "" ? "-" : v[R[i]]); print s}' "$log"
}

# medians TABLE KEYS FIRST LAST: TABLE has a header line, then a row per run:
# its first KEYS columns name the case, columns FIRST..LAST are numbers; prints
# a line per case, sorted: the key, then the median of each of those columns
medians() {
  awk -v keys="$2" -v c0="$3" -v c1="$4" 'NR > 1 {
      k = $1; for (c = 2; c <= keys; c++) k = k " " $c
      for (c = c0; c <= c1; c++) V[k, c] = V[k, c] " " $c; K[k] = 1 }
    function med(s,  a, n, i, j, t) { n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { for (k in K) { printf "%s", k; for (c = c0; c <= c1; c++) printf " %7.3f", med(V[k, c]); print "" } }' "$1" | sort -n
}

# result_get FILE KEY: KEY's value on the RESULT line of a pair-bench output
result_get() {
  grep '^RESULT' "$1" 2>/dev/null | tr ' ' '\n' | grep "^$2=" | cut -d= -f2
}

# ratio A B: B / A to three places, "?" when either is no number
ratio() {
  python3 -c "print(f'{float(\"$2\")/float(\"$1\"):.3f}')" 2>/dev/null || echo "?"
}

# copy_logs FROM TO: each run folder's log.lammps, screen.txt, stdout.txt
# under FROM into TO/<run>/
copy_logs() {
  local d n
  for d in "$1"/*/; do
    [ -d "$d" ] || continue
    n=$(basename "$d"); mkdir -p "$2/$n"
    cp "$d"/log.lammps "$d"/screen.txt "$d"/stdout.txt "$2/$n/" 2>/dev/null
  done
}

# pb_run NAME ARGS...: `streamcl pair-bench $PB_COMMON ARGS` into $RES/NAME.txt
# (timeout PB_TIMEOUT, default 300 s), then shows its lines matching PB_SHOW
# (default all) but not PB_HIDE (default the RESULT line), PB_LINES at most
pb_run() {
  local name=$1; shift
  echo "== pair-bench $name: $*"
  # PB_COMMON is a list of words on purpose
  # shellcheck disable=SC2086
  timeout "${PB_TIMEOUT:-300}" "$STREAMCL" pair-bench ${PB_COMMON:-} "$@" > "$RES/$name.txt" 2>&1
  grep -E "${PB_SHOW:-.}" "$RES/$name.txt" | grep -Ev "${PB_HIDE:-^RESULT}" | head -n "${PB_LINES:-100000}"
}

# pb_get NAME KEY: KEY of the pair-bench run NAME (pb_run's output)
pb_get() { result_get "$RES/$1.txt" "$2"; }
