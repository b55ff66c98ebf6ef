#!/bin/bash
# Issue 21 on the bare GPU machine, from the repository root:
#   bash bench/rhodo/step-gpu.sh            (OUT: results folder, default ./out)
# Builds LAMMPS (GPU package + PLUGIN) and lmp_ocl (bench/rhodo/gpu-build.sh),
# then rhodo 32k, 100 steps, ROUNDS interleaved rounds at each of RANKS:
#   old     -sf ocl with the bonded terms and fix shake on the host (the path
#           before the device bonded styles: STREAMCL_BONDED=0, shake suffix off)
#   bonded  -sf ocl, bonded styles on the device, fix shake on the host
#   all     -sf ocl, bonded styles and fix shake/ocl on the device; -sf ocl
#           also makes the run style verlet/ocl (no forward comm of x between
#           re-neighborings on one rank: the ghost rows come from the device)
#   hostloop as all, with LAMMPS's Verlet loop (STREAMCL_LOOP=host: the path
#           before verlet/ocl; add it to MODES beside all for the A/B)
#   allnox  as all, but the bonded styles upload x themselves instead of reading
#           the pair's device copy (STREAMCL_SHARE_X=0; not in the default MODES)
#   sepdown as all, with the bonded forces downloaded on their own and PPPM's
#           Green's function uploaded after each box change (STREAMCL_ONE_DOWNLOAD=0
#           STREAMCL_KSPACE_UPLOAD=1: the path before resident2; not in the default MODES)
#   nogather as all, with every ghost row uploaded each step instead of gathered
#           from the owned rows on the device (STREAMCL_GHOST_GATHER=0; not in
#           the default MODES)
#   norows  as all, with fix shake/ocl solving in post_force (xshake up, forces
#           down) instead of inside the pair's force rows (STREAMCL_SHAKE_ROWS=0;
#           not in the default MODES)
#   predev  as all with both of those off: the path before devstep (not in the
#           default MODES)
#   nveres  rhodo with `fix 2 all nve` instead of its npt (in.nve, made here by
#           sed; bench only: the OpenMM comparison stays the npt one) and
#           `run_style verlet/ocl resident` (verlet/ocl's default, named): fix
#           nve on the device, x and v resident between re-neighborings (not
#           in the default MODES)
#   nveocl  in.nve under verlet/ocl without resident (STREAMCL_LOOP=noresident:
#           the loop of verlet/ocl's first slice, the A/B)
#   nvehost in.nve under LAMMPS's Verlet loop (STREAMCL_LOOP=host)
#   gpudef  LAMMPS's GPU package, default (-sf gpu -pk gpu 1: pair + pppm/gpu)
# Prints loop and LAMMPS's Pair/Bond/Kspace/Modify/Neigh/Comm rows, medians;
# devinfo.txt: each ocl run's streamcl contexts per rank, host ms per step by
# style, transfers per step and program builds in the run loop (Device Time
# Info; 0: every kernel built at set-up, so a cold cache costs the loop nothing:
# compare rounds with STREAMCL_NO_CACHE=1, which compiles every run from source).
# Env: RANKS (default "1 8"), ROUNDS (default 3), MODES, STEPS (default 100).
set -uo pipefail
. "$(dirname "$0")/../lib/rhodo.sh"
rhodo_begin step
if [ -z "${LMP_OCL:-}" ] || [ ! -x "${LMP_OCL:-}" ]; then rhodo_build; fi
gpu_info name,driver_version "$OUTDIR/gpu.txt"
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-gpu} OMPI_MCA_rmaps_base_oversubscribe=1
STEPS=${STEPS:-100}
cd "$OUTDIR" || exit 1
rhodo_inputs "${LAMMPS_SOURCE_DIR:-$W/lammps}" "$STEPS" || exit 1
# in.nve: npt (two lines, the second a continuation) -> nve; in.nveres: the same
# with the resident run style
sed -E -e '/^fix\s+2\s+all\s+npt.*&\s*$/{N;s/.*/fix             2 all nve/}' in.device > in.nve
grep -q "^fix  *2 all nve$" in.nve || { echo "in.nve: no fix npt to replace" >&2; exit 1; }
sed -E 's/^(run\s.*)$/run_style verlet\/ocl resident\n\1/' in.nve > in.nveres
fmt="%-6s %-7s %-5s %8s %7s %7s %7s %7s %7s %7s\n"
# shellcheck disable=SC2059
printf "$fmt" ranks mode round loop Pair Bond Kspace Modify Neigh Comm | tee table.txt
for np in ${RANKS:-1 8}; do
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for mode in ${MODES:-old bonded all gpudef}; do
      log=log.$mode.np$np.r$r
      case $mode in
        old)    env=(STREAMCL_BONDED=0); args=(-sf ocl -in in.host); bin=$LMP_OCL ;;
        bonded) env=(STREAMCL_BONDED=1); args=(-sf ocl -in in.host); bin=$LMP_OCL ;;
        all)    env=(STREAMCL_BONDED=1); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        hostloop) env=(STREAMCL_BONDED=1 STREAMCL_LOOP=host); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        allnox) env=(STREAMCL_BONDED=1 STREAMCL_SHARE_X=0); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        sepdown) env=(STREAMCL_BONDED=1 STREAMCL_ONE_DOWNLOAD=0 STREAMCL_KSPACE_UPLOAD=1)
                 args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        nogather) env=(STREAMCL_BONDED=1 STREAMCL_GHOST_GATHER=0); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        norows) env=(STREAMCL_BONDED=1 STREAMCL_SHAKE_ROWS=0); args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        predev) env=(STREAMCL_BONDED=1 STREAMCL_GHOST_GATHER=0 STREAMCL_SHAKE_ROWS=0)
                args=(-sf ocl -in in.device); bin=$LMP_OCL ;;
        nveres) env=(STREAMCL_BONDED=1); args=(-sf ocl -in in.nveres); bin=$LMP_OCL ;;
        nveocl) env=(STREAMCL_BONDED=1 STREAMCL_LOOP=noresident); args=(-sf ocl -in in.nve); bin=$LMP_OCL ;;
        nvehost) env=(STREAMCL_BONDED=1 STREAMCL_LOOP=host); args=(-sf ocl -in in.nve); bin=$LMP_OCL ;;
        gpudef) env=(); args=(-sf gpu -pk gpu 1 -in in.device); bin=$LMP ;;
      esac
      ranked "$np" "$bin"
      env "${env[@]}" timeout 300 "${CMD[@]}" "${args[@]}" -log "$log" -screen none ||
        { echo "run failed: $log"; tail -5 "$log"; continue; }
      # shellcheck disable=SC2046,SC2059
      printf "$fmt" "$np" "$mode" "$r" $(log_rows "$log" Pair Bond Kspace Modify Neigh Comm) | tee -a table.txt
      [ "$mode" = gpudef ] || { echo "== $log"; grep -E "^(streamcl contexts|Host per step, by style|Transfers per step|  by style|Shared x|Ghost rows|run_style verlet/ocl|Program builds in the run loop)" "$log"; } >> devinfo.txt
    done
  done
done
echo "medians (rhodo $STEPS steps, seconds):"
medians table.txt 2 4 10 | sed '1i np mode       loop    Pair    Bond  Kspace  Modify   Neigh    Comm' | tee medians.txt
