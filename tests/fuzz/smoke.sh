#!/bin/bash
# Run every fuzz target for SECONDS each (libFuzzer, ASan + UBSan, leak checks).
#   tests/fuzz/smoke.sh SECONDS [BUILD_DIR] [TARGET...]
# Configures and builds BUILD_DIR (default build-fuzz) with clang and
# STREAMCL_FUZZ=ON, then runs each target from its seed corpus in
# tests/fuzz/corpus/<target>/ (read only: new inputs go to BUILD_DIR/corpus/).
# A crash, leak, sanitizer report or timeout leaves the input in
# BUILD_DIR/artifacts/ and makes the script exit 1 after the other targets ran.
# The mutation sequence starts from FUZZ_SEED (default 1) so that a CI run is
# reproducible: a commit that passed passes again, and a faster machine only
# explores further along the same sequence. Hunt with other seeds and longer
# runs (FUZZ_SEED=0 lets libFuzzer pick one) and add what they find to the corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:?usage: tests/fuzz/smoke.sh SECONDS [BUILD_DIR] [TARGET...]}
seed=${FUZZ_SEED:-1}
build=${2:-build-fuzz}
shift $(( $# >= 2 ? 2 : 1 ))

mkdir -p "$build"   # logs stay inside the (git-ignored) build folder
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSTREAMCL_FUZZ=ON > "$build/fuzz-cmake.log" 2>&1 || { cat "$build/fuzz-cmake.log"; exit 1; }
make -C "$build" -j"$(nproc)" fuzz_targets > "$build/fuzz-make.log" 2>&1 ||
  { tail -50 "$build/fuzz-make.log"; exit 1; }

if (( $# )); then
  targets=("$@")
else
  targets=()
  for exe in "$build"/tests/fuzz/fuzz_*; do
    [[ -x $exe && -f $exe ]] && targets+=("$(basename "$exe")")
  done
fi
(( ${#targets[@]} )) || { echo "no fuzz targets built in $build/tests/fuzz"; exit 1; }

failed=()
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  mkdir -p "$work" "$build/artifacts"
  log="$build/fuzz-$t.log"
  if "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=8192 -seed="$seed" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
       "$work" "tests/fuzz/corpus/$t" > "$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz $t: ${seconds} s, $runs inputs, no crash, leak or sanitizer report"
  else
    echo "fuzz $t: FAILED; log $log, input:"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20
    failed+=("$t")
  fi
done
if (( ${#failed[@]} )); then
  echo "fuzz targets that failed: ${failed[*]} (reproduce: $build/tests/fuzz/TARGET $build/artifacts/FILE)"
  exit 1
fi
echo "fuzz smoke: all ${#targets[@]} targets clean"
