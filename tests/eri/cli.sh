#!/bin/bash
# streamcl eri end to end: good runs checked by their numbers, bad input
# refused with messages naming file and line, no output left by failures.
#   cli.sh STREAMCL WORKDIR
. "$(dirname "$0")/../cli_lib.sh"
cli_begin eri_cli "$1" "$2"
check() { # check NAME CONDITION-STATUS DETAIL
    if [ "$2" = 0 ]; then passed=$((passed + 1)); else fail "$1: $3"; fi
}
# expect_fail NAME MESSAGE ARGS...: non-zero exit and MESSAGE in the output
expect_fail() {
    local name=$1 msg=$2
    shift 2
    out=$("$streamcl" eri "$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && grep -qF -- "$msg" <<< "$out"; then check "$name" 0 ""
    else check "$name" 1 "exit $rc, output: $out"; fi
}
# value KEY TEXT: the number after KEY
value() { grep -o -- "$1 [-+0-9.e]*" <<< "$2" | head -1 | awk '{print $NF}'; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

# H2 in STO-3G at 1.4 bohr from an XYZ file in bohr: Szabo & Ostlund's -1.1167
printf '2\nH2\nH 0 0 0\nH 0 0 1.4\n' > "$work/h2.xyz"
out=$("$streamcl" eri --xyz "$work/h2.xyz" --units bohr --basis sto-3g --tune 0 2>&1)
e=$(value "RHF energy:" "$out")
within "$e" -1.1167 5e-5; check h2_energy $? "E = '$e' ($out)"

# a 2x2x1 lattice: device tensor vs C reference, J/K timing, FCIDUMP whose
# energy (ecore + 2 sum h_ii + sum_ij 2(ii|jj) - (ij|ij) over occupied) is the RHF energy
out=$("$streamcl" eri --lattice 2x2x1 --basis sto-3g --tensor --check --jk 2 --tune 0 \
      --fcidump "$work/h4.fcidump" 2>&1)
rc=$?
check h4_exit $rc "$out"
d=$(value "device vs C reference: max |difference|" "$out")
within "$d" 0 1e-12; check h4_tensor_check $? "difference '$d'"
grep -q "J/K integral-direct: .* primitive quartets/s" <<< "$out"; check h4_jk $? "$out"
# --check also compares the device J/K with the reference tensor's (a bad
# work-group reduction of the J/K kernel never shows in the tensor)
d=$(grep -o "J/K device vs C reference: max |difference| [-+0-9.e]* (J) [-+0-9.e]* (K)" <<< "$out")
dj=$(awk '{print $(NF-3)}' <<< "$d"); dk=$(awk '{print $(NF-1)}' <<< "$d")
within "$dj" 0 1e-10 && within "$dk" 0 1e-10; check h4_jk_check $? "J/K check '$d'"
e=$(value "RHF energy:" "$out")
efci=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /NELEC=/) { split($i, a, "[=,]"); nocc = a[2] / 2 } }
  /&END/ { body = 1; next }
  body { v = $1; i = $2; j = $3; k = $4; l = $5
         if (i == 0) ecore = v
         else if (k == 0) { if (i == j && i <= nocc) h += 2 * v }
         else if (i <= nocc && k <= nocc) {
           if (i == j && k == l) c += (i == k ? 2 : 4) * v
           if (i == k && j == l) x += (i == j ? 1 : 2) * v } }
  END { printf "%.12f", ecore + h + c - x }' "$work/h4.fcidump")
within "$e" "$efci" 1e-9; check h4_fcidump_energy $? "RHF '$e' vs FCIDUMP '$efci'"
grep -q "NORB=4,NELEC=4" "$work/h4.fcidump"; check h4_fcidump_header $? "header"
out2=$("$streamcl" eri --lattice 2x2x1 --basis sto-3g --engine reference 2>&1)
e2=$(value "RHF energy:" "$out2")
within "$e" "$e2" 1e-10; check h4_reference_engine $? "opencl '$e' vs reference '$e2'"
# single precision integrals: error reported, energies still double
out=$("$streamcl" eri --lattice 2x2x1 --basis sto-3g --tensor --precision single --tune 0 2>&1)
d=$(value "single vs double: max |difference|" "$out")
within "$d" 0 1e-5; check single_error $? "difference '$d'"
e3=$(value "RHF energy:" "$out")
within "$e" "$e3" 1e-10; check single_scf_double $? "'$e' vs '$e3'"

# bad input
printf 'H S\n 1.0 1.0\nH P\n 0.5 1.0\n' > "$work/p.nw"
expect_fail p_shell "$work/p.nw:3: P shell of H: only s shells" --basis "$work/p.nw"
printf 'H S\n 1.0 1.0\n 0.5 1.0 2.0\n' > "$work/bad.nw"
expect_fail basis_row "$work/bad.nw:3: expected exponent and 1 coefficient, got 3 numbers" --basis "$work/bad.nw"
printf '2\n\nH 0 0 0\nQq2 0 0 1\n' > "$work/el.xyz"
expect_fail unknown_element "$work/el.xyz:4: unknown element 'Qq2'" --xyz "$work/el.xyz"
printf '2\n\nH 0 0 0\nH 0 0 0\n' > "$work/ov.xyz"
expect_fail overlap "$work/ov.xyz:4: the nucleus overlaps the one of line 3" --xyz "$work/ov.xyz"
printf '2\n\nH 0 0 0\nH 0 0 x1\n' > "$work/co.xyz"
expect_fail coordinate "$work/co.xyz:4: bad coordinate 'x1'" --xyz "$work/co.xyz"
printf '3\n\nH 0 0 0\nH 0 0 1\n' > "$work/tr.xyz"
expect_fail truncated "$work/tr.xyz:5: the file declares 3 atoms but holds 2" --xyz "$work/tr.xyz"
printf '2\n\nHe 0 0 0\nH 0 0 1.4\n' > "$work/he.xyz"
expect_fail no_basis "he.xyz: scl_eri_system_build: atom 1 (He): basis STO-6G has no functions" --xyz "$work/he.xyz"
printf '3\n\nH 0 0 0\nH 0 0 1.4\nH 0 1.4 0\n' > "$work/h3.xyz"
expect_fail odd "3 electrons: closed-shell RHF needs an even count" --xyz "$work/h3.xyz" --units bohr
expect_fail lattice "--lattice needs NXxNYxNZ" --lattice 2x2
# plan values the kernels cannot take are refused before anything runs (a
# wg of 96 or 3 gave a wrong RHF energy with exit 0; boys=9 was accepted)
expect_fail plan_wg96 "wg=96: must be a power of two" --lattice 2x2x1 --plan wg=96
expect_fail plan_wg3 "wg=3: must be a power of two" --lattice 2x1x1 --plan wg=3
expect_fail plan_boys9 "boys=9: must be between 0 and 2" --lattice 2x1x1 --plan boys=9
expect_fail plan_vw3 "vw=3: must be" --lattice 2x1x1 --plan vw=3
STREAMCL_FORCE=wg=96 expect_fail force_wg96 "wg=96: must be a power of two" --lattice 2x1x1
STREAMCL_FORCE=boys=9 expect_fail force_boys9 "boys=9: must be between 0 and 2" --lattice 2x1x1
expect_fail schwarz "--schwarz must be >= 0" --schwarz -1
expect_fail missing "$work/none.nw: cannot open" --basis "$work/none.nw"
expect_fail outdir "directory $work/no/such does not exist" --fcidump "$work/no/such/x.fcidump"
expect_fail single_ref "--precision single applies to --tensor" --precision single
ls "$work"/*.tmp* > /dev/null 2>&1; [ $? -ne 0 ]; check no_temp_files $? "temporary files left"

cli_end
