#!/bin/bash
# streamcl lbm end to end on bad input: every case must exit non-zero, print
# an error naming the file (and line, where there is one), and leave nothing
# in the output directory or the working directory (no half-written files).
# One good run checks the files that a successful run does write.
#   cli_bad_input.sh STREAMCL WORKDIR      (ctest passes both)
. "$(dirname "$0")/../cli_lib.sh"
cli_begin lbm_cli_bad_input "$1" "$2" in

good_params() { printf '16\n8\n40\n16\n0.1\n0.005\n1.85\n'; }
good_obstacles() { printf '3 4 1\n5 1 1\n'; }

# case NAME REGEX PARAMS_TEXT OBSTACLES_TEXT [extra args]; a text of "-" means
# the file does not exist
case_() {
    local name=$1 regex=$2 ptext=$3 otext=$4
    shift 4
    local d="$work/$name" p="$work/in/$name.params" o="$work/in/$name.obst"
    mkdir -p "$d/out" "$d/cwd"
    [ -d "$p" ] || rm -f "$p"
    rm -f "$o"
    [ "$ptext" != "-" ] && printf '%b' "$ptext" > "$p"
    [ "$otext" != "-" ] && printf '%b' "$otext" > "$o"
    local rc
    (cd "$d/cwd" && "$streamcl" lbm "$p" "$o" --out "$d/out" --png "$d/out/u.png" --every 5 \
        "$@" > "$d/stdout" 2> "$d/stderr")
    rc=$?
    local msg
    msg=$(grep -m1 'streamcl lbm:' "$d/stderr")
    if [ "$rc" -eq 0 ]; then
        fail "$name: exit status 0"
    elif ! grep -Eq -- "$regex" "$d/stderr"; then
        fail "$name: message '$msg' does not match '$regex'"
    elif [ -n "$(find "$d/out" "$d/cwd" -mindepth 1)" ]; then
        fail "$name: left files: $(find "$d/out" "$d/cwd" -mindepth 1 | tr '\n' ' ')"
    else
        ok "$name (exit $rc): $msg"
    fi
}

P=$work/in
case_ missing_params "$P/missing_params.params: cannot open parameter file" - "$(good_obstacles)"
case_ missing_obstacles "$P/missing_obstacles.obst: cannot open obstacle file" "$(good_params)" -
case_ short_params "$P/short_params.params:6: file ends before accel" '16\n8\n40\n16\n0.1\n' "$(good_obstacles)"
case_ empty_params "$P/empty_params.params:1: file ends before nx" '' "$(good_obstacles)"
case_ nonnumeric_int "$P/nonnumeric_int.params:3: maxIters must be an integer, got 'lots'" \
    '16\n8\nlots\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ fractional_int "$P/fractional_int.params:2: ny must be an integer, got '8.5'" \
    '16\n8.5\n40\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ nonnumeric_real "$P/nonnumeric_real.params:6: accel must be a finite number, got '0.005x'" \
    '16\n8\n40\n16\n0.1\n0.005x\n1.85\n' "$(good_obstacles)"
case_ nan_real "$P/nan_real.params:5: density must be a finite number" \
    '16\n8\n40\n16\nnan\n0.005\n1.85\n' "$(good_obstacles)"
case_ nx_zero "$P/nx_zero.params:1: .*nx must be in" '0\n8\n40\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ ny_negative "$P/ny_negative.params:2: .*ny must be in" '16\n-3\n40\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ nx_huge "$P/nx_huge.params:1: .*nx must be in" '70000\n8\n40\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ grid_over_indexing "$P/grid_over_indexing.params:1: .*exceeds 32-bit indexing" \
    '65536\n65536\n40\n16\n0.1\n0.005\n1.85\n' "$(good_obstacles)"
case_ omega_two "$P/omega_two.params:7: .*omega must be in \(0, 2\)" \
    '16\n8\n40\n16\n0.1\n0.005\n2\n' "$(good_obstacles)"
case_ omega_zero "$P/omega_zero.params:7: .*omega must be in \(0, 2\)" \
    '16\n8\n40\n16\n0.1\n0.005\n0\n' "$(good_obstacles)"
case_ omega_negative "$P/omega_negative.params:7: .*omega must be in \(0, 2\)" \
    '16\n8\n40\n16\n0.1\n0.005\n-0.5\n' "$(good_obstacles)"
case_ obstacle_two_values "$P/obstacle_two_values.obst:2: expected 'x y 1', got 2 values" \
    "$(good_params)" '1 1 1\n3 4\n'
case_ obstacle_four_values "$P/obstacle_four_values.obst:3: expected 'x y 1', got 4 values" \
    "$(good_params)" '1 1 1\n\n3 4 1 1\n'
case_ obstacle_not_integer "$P/obstacle_not_integer.obst:1: expected three integers" \
    "$(good_params)" '1.5 1 1\n'
case_ obstacle_x_outside "$P/obstacle_x_outside.obst:2: cell \(16, 4\) outside the 16x8 grid" \
    "$(good_params)" '1 1 1\n16 4 1\n'
case_ obstacle_y_outside "$P/obstacle_y_outside.obst:1: cell \(3, 8\) outside the 16x8 grid" \
    "$(good_params)" '3 8 1\n'
case_ obstacle_negative "$P/obstacle_negative.obst:1: cell \(-1, 0\) outside" \
    "$(good_params)" '-1 0 1\n'
case_ obstacle_value_zero "$P/obstacle_value_zero.obst:2: blocked value must be 1, got 0" \
    "$(good_params)" '1 1 1\n2 2 0\n'
case_ obstacle_value_two "$P/obstacle_value_two.obst:1: blocked value must be 1, got 2" \
    "$(good_params)" '2 2 2\n'
all_blocked=$(awk 'BEGIN { for (y = 0; y < 8; y++) for (x = 0; x < 16; x++) printf "%d %d 1\\n", x, y }')
case_ obstacle_all_blocked "$P/obstacle_all_blocked.obst: every cell is blocked" "$(good_params)" "$all_blocked"
case_ out_dir_missing "output directory .*/nowhere does not exist" "$(good_params)" "$(good_obstacles)" \
    --out "$work/nowhere"
case_ trailing_lines "$P/trailing_lines.params:8: unexpected text after the 7 parameters" \
    '16\n8\n40\n16\n0.1\n0.005\n1.85\n3 4 1\n' "$(good_obstacles)"
mkdir -p "$P/dir_params.params"
case_ dir_params "$P/dir_params.params: is a directory; expected a parameter file" - "$(good_obstacles)"
# a state that overflows: stopped at the step where it happened, nothing written
case_ density_overflow "the flow became non-finite at step [0-9]+ \\(mean \\|u\\| -?nan\\)" \
    '16\n8\n40\n16\n1e38\n0.005\n1.85\n' "$(good_obstacles)"
# output paths are checked before computing: nothing is written when one is bad
case_ png_dir_missing "cannot write $work/nowhere/u.png" "$(good_params)" "$(good_obstacles)" \
    --png "$work/nowhere/u.png"
case_ out_is_file "output directory $P/out_is_file.params is not a directory" "$(good_params)" \
    "$(good_obstacles)" --out "$P/out_is_file.params"
case_ steps_huge "--steps 1099511627776: out of host memory" "$(good_params)" "$(good_obstacles)" \
    --steps 1099511627776
# a read-only --out (root writes anywhere: run as nobody when we can) is found
# before computing: the message is about the directory, nothing is written
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    d=$work/readonly_out
    mkdir -p "$d/out" "$d/cache" && chmod 555 "$d/out" && chmod 777 "$d/cache"
    good_params > "$P/readonly_out.params"; good_obstacles > "$P/readonly_out.obst"
    chmod 755 "$work" "$P"; chmod 644 "$P"/readonly_out.*
    msg=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_CACHE_HOME="$d/cache" \
          "$streamcl" lbm "$P/readonly_out.params" "$P/readonly_out.obst" --out "$d/out" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && grep -q "cannot write $d/out/av_vels.dat: .*Permission denied" <<< "$msg" &&
       ! grep -q "Reynolds" <<< "$msg" && [ -z "$(find "$d/out" -mindepth 1)" ]; then
        ok "readonly_out (exit $rc): $(head -1 <<< "$msg")"
    else
        fail "readonly_out: exit $rc, '$msg'"
    fi
fi
# too large for the device (not just for 32-bit indexing): 65536 x NY with
# one fp32 lattice 5% over the device's per-buffer limit (PoCL's follows the
# free memory: 2-4 GiB here), when 32-bit indexing still allows that size
max_gib=$("$streamcl" devices 2>/dev/null |
          awk '/type CPU/ { cpu = 1 } cpu && /max allocation/ {
                 sub(/.*max allocation /, ""); print $1; exit }')
ny_big=$(awk -v g="${max_gib:-0}" 'BEGIN { ny = int(g * 1073741824 * 1.05 / 36 / 65536) + 1;
                                          if (g > 0 && 65536 * ny * 9 <= 4294967295) print ny }')
if [ "${STREAMCL_DEVICE:-cpu}" != cpu ]; then
    echo "skip too_large_for_device: only on the CPU device"
elif [ -n "$ny_big" ]; then
    case_ too_large_for_device "$P/too_large_for_device.params:1: nx 65536, ny $ny_big too large for the device" \
        "65536\n$ny_big\n40\n16\n0.1\n0.005\n1.85\n" "$(good_obstacles)"
else
    echo "skip too_large_for_device: max allocation '${max_gib}' GiB holds any 32-bit-indexed lattice"
fi

# the good run: both files, complete, in the benchmark's formats
d=$work/good
mkdir -p "$d/out"
good_params > "$P/good.params"
good_obstacles > "$P/good.obst"
if "$streamcl" lbm "$P/good.params" "$P/good.obst" --out "$d/out" --png "$d/out/u.png" --every 20 \
    > "$d/stdout" 2> "$d/stderr"; then
    n_av=$(grep -Ec '^[0-9]+:	[0-9]\.[0-9]{12}E[-+][0-9]{2}$' "$d/out/av_vels.dat")
    n_st=$(grep -Ec '^[0-9]+ [0-9]+ (-?[0-9]\.[0-9]{12}E[-+][0-9]{2} ){4}[01]$' "$d/out/final_state.dat")
    snaps=$(find "$d/out" -name 'state_0*.dat' | wc -l)
    if [ "$n_av" -eq 40 ] && [ "$n_st" -eq 128 ] && [ "$(wc -l < "$d/out/final_state.dat")" -eq 128 ] &&
       [ "$snaps" -eq 1 ] && [ -s "$d/out/u.png" ] && grep -q '^Reynolds number:' "$d/stdout" &&
       [ -z "$(find "$d/out" -name '*.tmp')" ]; then
        ok "good run: 40 av_vels lines, 128 state lines, 1 snapshot, PNG, Reynolds number"
    else
        fail "good run: av_vels $n_av/40, state $n_st/128, snapshots $snaps, files: $(ls "$d/out" | tr '\n' ' ')"
    fi
else
    fail "good run exited non-zero: $(tail -2 "$d/stderr")"
fi
cli_end
