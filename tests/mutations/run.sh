#!/bin/bash
# Injected bugs (issue 27), one at a time, on a scratch copy of the tree: each
# is a small sed edit that must change its file; the copy is rebuilt and the
# ctest subset that should see the bug is run. A mutation is "caught" when at
# least one test of its subset fails, "MISSED" when all pass (the tests cannot
# see it), "not applied" when the edit no longer matches the source (update
# this list), "no build" when the mutant does not compile.
#   tests/mutations/run.sh [NAME-REGEX]      (default: every mutation)
# Env: MUT_DIR (scratch, default /tmp/streamcl-mutations), JOBS (make -j, 2),
#      STREAMCL_TEST_DEVICE passes through to the tests' configuration.
# Prints a Markdown table and writes it to $MUT_DIR/results.md. Exits 1 when
# a mutation is missed. The scratch build has no LAMMPS and no -Werror (a
# mutant may leave a variable unused).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
mut=${MUT_DIR:-/tmp/streamcl-mutations}
only=${1:-.}
jobs=${JOBS:-2}

# NAME || FILE || SED SCRIPT || CTEST REGEX   (the sed script uses # as delimiter)
mutations=$(cat <<'LIST'
eri_jk_reduction_drops_half || cl/eri.cl || s#jsum\[lid\] += jsum\[lid + step\];#jsum[lid] += step > 1 ? jsum[lid + step] : 0;# || ^(eri_cli|eri_device)$
eri_plan_rules_removed || src/eri/engine.c || s#\.rules = eri_rules,#.rules = NULL,# || ^eri_cli$
eri_nuclear_repulsion_za_squared || src/eri/reference.c || s#s->atoms\[a\]\.Z \* s->atoms\[b\]\.Z#s->atoms[a].Z * s->atoms[a].Z# || ^eri_integrals$
nbody_plan_rules_removed || src/nbody/driver.c || s#\.rules = nbody_rules,#.rules = NULL,#;s#\.check = nbody_check#.check = NULL# || ^(nbody_plans|nbody_cli_bad_plan_.*)$
plan_cache_key_without_device || src/core/plan.c || s#ctx->info\.platform, ctx->info\.name, ctx->info\.driver,#ctx->info.platform, "any device", ctx->info.driver,# || ^core_plan_devices$
cpml_high_face_low_thickness || src/grid3d/cpml.c || s#L = Lhi;#L = Llo;# || ^(grid3d_cpml_profile|fdtd_vs_reference)$
pppm_mirrored_weights || src/pppm/reference.c || s#coeff\[l \* order + m\] = a\[l\]\[c + k\];#coeff[l * order + m] = a[l][c - k];# || ^pppm_device_vs_reference$
pppm_nan_virial || src/pppm/solve.c || s#virial\[c\] = sum\[1 + c\];#virial[c] = c == 5 ? NAN : sum[1 + c];# || ^pppm_device_vs_reference$
seismic_record_vx_vy_swapped || cl/seismic.cl || s#t\[0\] = (float)vx\[c\];#t[0] = (float)vy[c];#;s#t\[steps\] = (float)vy\[c\];#t[steps] = (float)vx[c];# || ^seismic_vs_reference$
seismic_csv_labels_vx_vy_swapped || src/seismic/output.c || s#fprintf(f, ",r%d_%s", r + 1, comp_name\[q\]);#fprintf(f, ",r%d_%s", r + 1, comp_name[q < 2 ? 1 - q : q]);# || ^seismic_cli$
seismic_segy_interval_ignores_decimation || src/seismic/output.c || s#const double us = c->dt \* decimate \* 1e6;#const double us = c->dt * 1e6;# || ^seismic_cli$
fdtd_record_hx_times_1.1 || cl/fdtd.cl || s#dst\[3\] = hx\[o\];#dst[3] = (real)1.1 * hx[o];# || ^(fdtd_vs_reference|fdtd_cli)$
fdtd_record_nan_once || cl/fdtd.cl || s#dst\[5\] = hz\[o\];#dst[5] = slot == 3 ? NAN : hz[o];# || ^(fdtd_vs_reference|fdtd_cli)$
fdtd_h5_hx_hy_swapped || src/fdtd/output.c || s#{"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}#{"Ex", "Ey", "Ez", "Hy", "Hx", "Hz"}# || ^fdtd_cli$
fdtd_receiver_moved_in_solver || src/fdtd/solver.c || s#scl_grid3d_index(g, m->rx_ijk\[r\]\[0\],#scl_grid3d_index(g, m->rx_ijk[r][0] + 1,# || ^(fdtd_vs_reference|fdtd_cli)$
fdtd_receiver_moved_on_input || src/fdtd/input.c || s#memcpy(m->rx_ijk\[r\], ijk, sizeof ijk);#memcpy(m->rx_ijk[r], ijk, sizeof ijk); m->rx_ijk[r][0] += 1;# || ^fdtd_cli$
pair_nan_virial || src/pair/charmm_engine.c || s#result->virial\[k\] = 0\.5 \* sums\[2 + k\];#result->virial[k] = k == 2 ? NAN : 0.5 * sums[2 + k];# || ^(test_charmm_identical|test_charmm_forces)$
LIST
)

mkdir -p "$mut" || exit 2
echo "copying the tree to $mut/tree"
rm -rf "$mut/tree"
mkdir -p "$mut/tree"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 cp -p --parents -t "$mut/tree") || exit 2
cmake -S "$mut/tree" -B "$mut/build" -DCMAKE_BUILD_TYPE=Release \
      ${STREAMCL_TEST_DEVICE:+-DSTREAMCL_TEST_DEVICE=$STREAMCL_TEST_DEVICE} > "$mut/cmake.log" 2>&1 ||
    { echo "cmake failed: $mut/cmake.log"; exit 2; }
echo "building the unmutated copy"
nice make -C "$mut/build" -j"$jobs" > "$mut/build.log" 2>&1 || { echo "build failed"; exit 2; }

table="| mutation | file | tests | result |
|---|---|---|---|"
missed=0
while IFS= read -r entry; do
    [ -n "$entry" ] || continue
    name=${entry%% || *} entry=${entry#* || }
    file=${entry%% || *} entry=${entry#* || }
    script=${entry%% || *} regex=${entry#* || }
    [[ "$name" =~ $only ]] || continue
    f=$mut/tree/$file
    # the copy's own text is the original (the source tree may move on meanwhile)
    [ -f "$f.orig" ] || cp "$f" "$f.orig"
    cp "$f.orig" "$f"
    sed -i "$script" "$f"
    if cmp -s "$f.orig" "$f"; then
        result="not applied"
    elif ! nice make -C "$mut/build" -j"$jobs" > "$mut/$name.build.log" 2>&1; then
        result="no build"
    else
        # a test that fails, times out or crashes catches the mutant; one
        # that skips does not
        (cd "$mut/build" && nice ctest -R "$regex" --timeout 600 > "$mut/$name.ctest.log" 2>&1)
        if grep -qE "tests failed out of|\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception" "$mut/$name.ctest.log" &&
           ! grep -q "100% tests passed" "$mut/$name.ctest.log"; then
            failing=$(grep -oE "[0-9]+ - [A-Za-z0-9_.]+ \((Failed|Timeout|Exception|SEGFAULT)" \
                      "$mut/$name.ctest.log" | sed 's/^[0-9]* - //; s/ (Failed$//' | tr '\n' ' ')
            result="caught: $failing"
        elif grep -q "No tests were found" "$mut/$name.ctest.log"; then
            result="no tests match"
            missed=$((missed + 1))
        else
            result="MISSED"
            missed=$((missed + 1))
        fi
    fi
    cp "$f.orig" "$f" # restore before the next one
    line="| $name | $file | \`$regex\` | $result |"
    echo "$line"
    table="$table
$line"
done <<< "$mutations"
# leave the copy built unmutated
nice make -C "$mut/build" -j"$jobs" > /dev/null 2>&1
printf '%s\n' "$table" > "$mut/results.md"
echo
printf '%s\n' "$table"
[ "$missed" -eq 0 ]
