#!/bin/bash
# What every command does with the paths it writes and reads (issue 27):
#  - an output that is the input, or another output of the run, is refused
#    before computing and the input is left as it was;
#  - a symlinked output is written through (the link stays a link), a
#    dangling one is refused; planted "PATH.part"/"PATH.tmp" symlinks are
#    never followed;
#  - /dev/null and a FIFO are written straight and stay what they are;
#    /dev/full fails the run; HDF5 to a device is refused;
#  - a run that turns non-finite stops, exits non-zero and writes nothing;
#    an interrupted run (SIGTERM) leaves no file;
#  - fdtd --dt keeps gprMax's time window; an absurd dt is refused;
#  - input files are read with a bound: /dev/zero does not hang;
#  - run-file conflicts and a missing source are refused.
# Real /dev entries are never named: a buggy writer run as root would turn
# /dev/null into a file for the whole machine. The device cases use private
# nodes made with mknod in WORKDIR (the null and full devices, 1:3 and 1:7),
# which a bad rename could only replace there; without the privilege to make
# them those cases are skipped and say so.
#   cli_outputs.sh STREAMCL WORKDIR
. "$(dirname "$0")/../cli_lib.sh"
cli_begin cli_outputs "$1" "$2"
cd "$work" || exit 2
# check NAME CONDITION...: ok when the command list succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
# no temporary of any writer left in a directory (ours start with a dot)
clean() { [ -z "$(find "$1" -name '.*' -o -name '*.part' -o -name '*.tmp*' | grep -v "^$1\$")" ]; }
has() { grep -Eq -- "$1" "$2"; }

cat > g.in <<'E'
#domain: 0.04 0.03 0.03
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 2e-10
#pml_cells: 4
#waveform: ricker 1 6e9 w1
#hertzian_dipole: z 0.02 0.014 0.014 w1
#rx: 0.03 0.014 0.014
E
cp g.in g.orig
null=$work/null full=$work/full
if mknod -m 666 "$null" c 1 3 2> /dev/null && mknod -m 666 "$full" c 1 7 2> /dev/null; then
    devices=1
else
    devices=0
    echo "skip device-node cases: mknod needs root"
fi
fdtd() { "$streamcl" fdtd "$@" --engine reference; }

# ---- fdtd: outputs that are inputs or each other
fdtd g.in -o g.in > o1 2> e1; rc=$?
check "fdtd -o INPUT refused, input intact" \
    eval '[ $rc -ne 0 ] && cmp -s g.in g.orig && has "same file as the input" e1'
cp g.in run.h5
fdtd run.h5 > o2 2> e2; rc=$?
check "fdtd input run.h5 without -o refused, input intact" \
    eval '[ $rc -ne 0 ] && cmp -s run.h5 g.orig && has "same file as the input" e2'
ln -s g.in alias.h5
fdtd g.in -o alias.h5 > o3 2> e3; rc=$?
check "fdtd -o SYMLINK-TO-INPUT refused" eval '[ $rc -ne 0 ] && cmp -s g.in g.orig && [ -L alias.h5 ]'
fdtd g.in -o same.out --text same.out > o4 2> e4; rc=$?
check "fdtd -o X --text X refused, nothing written" \
    eval '[ $rc -ne 0 ] && [ ! -e same.out ] && has "same file as the output" e4'

# ---- symlinks: written through; dangling refused; planted temporaries not followed
echo victim > victim
ln -s victim link.txt
fdtd g.in -o l.h5 --text link.txt > o5 2> e5; rc=$?
check "fdtd --text SYMLINK writes through, the link stays" \
    eval '[ $rc -eq 0 ] && [ -L link.txt ] && has "^# streamcl fdtd receivers" victim'
ln -s missing/nowhere dangling.txt
fdtd g.in -o d.h5 --text dangling.txt > o6 2> e6; rc=$?
check "fdtd --text DANGLING-SYMLINK refused" \
    eval '[ $rc -ne 0 ] && [ ! -e d.h5 ] && has "symbolic link to a missing file" e6'
# someone else's link in a sticky world-writable directory (/tmp) is a trap
mkdir -p sticky && chmod 1777 sticky && echo secret > sticky/victim && ln -s victim sticky/out.txt
if chown -h nobody sticky/out.txt 2> /dev/null; then
    fdtd g.in -o sticky/o.h5 --text sticky/out.txt > o6b 2> e6b; rc=$?
    check "fdtd --text: another user's symlink in a sticky directory not followed" \
        eval '[ $rc -ne 0 ] && [ "$(cat sticky/victim)" = secret ] && [ ! -e sticky/o.h5 ] &&
              has "owned by another user in the sticky directory" e6b'
else
    echo "skip sticky-directory case: chown needs root"
fi
echo keep > keep
for t in p.txt.part p.txt.tmp p.txt.tmp.1 .p.txt.tmp p.h5.part p.h5.tmp; do ln -s keep "$t"; done
fdtd g.in -o p.h5 --text p.txt > o7 2> e7; rc=$?
check "fdtd: planted .part/.tmp symlinks not followed" \
    eval '[ $rc -eq 0 ] && [ "$(cat keep)" = keep ] && [ -s p.txt ] && [ -s p.h5 ]'
rm -f p.txt.part p.txt.tmp p.txt.tmp.1 .p.txt.tmp p.h5.part p.h5.tmp

# ---- devices and FIFOs: written straight, never replaced
if [ $devices = 1 ]; then
    fdtd g.in -o n.h5 --text "$null" > o8 2> e8; rc=$?
    check "fdtd --text NULL-DEVICE works, the node stays a character device" \
        eval '[ $rc -eq 0 ] && [ -c "$null" ]'
    fdtd g.in -o "$null" > o9 2> e9; rc=$?
    check "fdtd -o NULL-DEVICE (HDF5) refused, the node a character device" \
        eval '[ $rc -ne 0 ] && [ -c "$null" ] && has "needs a regular file" e9'
    fdtd g.in -o f.h5 --text "$full" > o10 2> e10; rc=$?
    check "fdtd --text FULL-DEVICE fails, leaves no HDF5, the node a character device" \
        eval '[ $rc -ne 0 ] && [ ! -e f.h5 ] && [ -c "$full" ] && has "No space left" e10'
fi
mkfifo pipe
(timeout 60 cat pipe > from_pipe) &
reader=$!
timeout 60 "$streamcl" fdtd g.in --engine reference -o fifo.h5 --text pipe > o11 2> e11; rc=$?
wait $reader
check "fdtd --text FIFO streams through, the FIFO stays a FIFO" \
    eval '[ $rc -eq 0 ] && [ -p pipe ] && has "^# streamcl fdtd receivers" from_pipe'
: > log.txt
ino=$(stat -c %i log.txt)
fdtd g.in -o so.h5 --text /dev/stdout > log.txt 2> e12a; rc=$?
check "fdtd --text /dev/stdout into a log file: appended beside the run's lines, not renamed over" \
    eval '[ $rc -eq 0 ] && [ "$(stat -c %i log.txt)" = "$ino" ] && has "^# streamcl fdtd receivers" log.txt &&
          has "^fdtd: 1 receivers" log.txt'
check "fdtd leaves no temporaries" clean "$work"

# ---- non-finite: stop early, exit non-zero, write nothing
sed 's/ricker 1 6e9/ricker 1e308 6e9/' g.in > nan.in
mkdir -p png
fdtd nan.in -o nan.h5 --text nan.txt --png png --png-every 1 > o12 2> e12; rc=$?
check "fdtd NaN run: exit non-zero, no PNG, no HDF5, stopped early" \
    eval '[ $rc -ne 0 ] && [ -z "$(ls -A png)" ] && [ ! -e nan.h5 ] && [ ! -e nan.txt ] &&
          has "not finite at step [1-9] " e12'
fdtd nan.in -o nan.h5 > o13 2> e13; rc=$?
check "fdtd NaN run without --png: exit non-zero, no HDF5" \
    eval '[ $rc -ne 0 ] && [ ! -e nan.h5 ] && has "not finite" e13'

# ---- --dt keeps the time window: 2e-10 s at 2e-12 s is ceil(100) + 1 = 101 steps
fdtd g.in --dt 2e-12 -o dt.h5 > o14 2> e14; rc=$?
check "fdtd --dt 2e-12 on a 2e-10 s window runs 101 steps" \
    eval '[ $rc -eq 0 ] && has " 101 steps, dt 2.000000e-12" o14'
fdtd g.in --dt 1e-30 -o dt2.h5 > o15 2> e15; rc=$?
check "fdtd --dt 1e-30 refused (iterations beyond 1e8)" \
    eval '[ $rc -ne 0 ] && [ ! -e dt2.h5 ] && has "at most 1e8" e15'
fdtd g.in --dt 1e-11 -o dt3.h5 > o16 2> e16; rc=$?
check "fdtd --dt above the Courant limit refused" \
    eval '[ $rc -ne 0 ] && [ ! -e dt3.h5 ] && has "Courant" e16'

# ---- seismic
cat > s.run <<'R'
grid 30 20 20 5
model homogeneous 2000 1000 2000
time 0.03
pml 4
source force 50 50 50 0 0 1 ricker 9 1e3
receivers 10 10 10 20 10 10 2
R
seis() { "$streamcl" seismic "$@" --engine reference; }
seis s.run --segy col --csv col_vx.sgy > o20 2> e20; rc=$?
check "seismic --segy col --csv col_vx.sgy refused, nothing written" \
    eval '[ $rc -ne 0 ] && [ -z "$(ls col* 2>/dev/null)" ] && has "same file as the output" e20'
seis s.run --csv s.csv --gather /proc/no/g.png > o21 2> e21; rc=$?
check "seismic: a bad --gather leaves no CSV" eval '[ $rc -ne 0 ] && [ ! -e s.csv ]'
sed 's/ricker 9 1e3/ricker 9 1e308/' s.run > snan.run
mkdir -p spng
seis snan.run --csv snan.csv --segy snan --png spng/sl --every 2 > o22 2> e22; rc=$?
check "seismic NaN run: exit non-zero, no CSV/SEG-Y/PNG" \
    eval '[ $rc -ne 0 ] && [ -z "$(ls -A spng)" ] && [ -z "$(ls snan*.csv snan*.sgy 2>/dev/null)" ] &&
          has "not finite" e22'
seis snan.run --csv snan.csv > o23 2> e23; rc=$?
check "seismic NaN run without --png: exit non-zero, no CSV" \
    eval '[ $rc -ne 0 ] && [ ! -e snan.csv ] && ! has "^peak" o23'
printf 'steps 40\n' | cat s.run - > both.run
seis both.run > o24 2> e24; rc=$?
check "seismic run file with 'time' and 'steps' refused" \
    eval '[ $rc -ne 0 ] && has "both.run:7: .steps. and .time. \(line 3\)" e24'
grep -v '^source' s.run > nosrc.run
seis nosrc.run > o25 2> e25; rc=$?
check "seismic run without a source refused" eval '[ $rc -ne 0 ] && has "no .source. line" e25'
if [ $devices = 1 ]; then
    seis s.run --csv "$null" --gather "$null" > o26 2> e26; rc=$?
    check "seismic --csv and --gather NULL-DEVICE work, the node a character device" \
        eval '[ $rc -eq 0 ] && [ -c "$null" ]'
fi
check "seismic leaves no temporaries" clean "$work"

# ---- lbm: SIGTERM leaves nothing; --no-tune without a cache on 16x8
printf '16\n8\n40\n16\n0.1\n0.005\n1.85\n' > l.params
printf '3 4 1\n5 1 1\n' > l.obst
mkdir -p lout
XDG_CACHE_HOME="$work/empty-cache" "$streamcl" lbm l.params l.obst --out lout --no-tune > o30 2> e30; rc=$?
check "lbm --no-tune 16x8 without a cache" eval '[ $rc -eq 0 ] && [ -s lout/final_state.dat ]'
printf '16\n8\n100000000\n16\n0.1\n0.005\n1.85\n' > long.params
mkdir -p lsig
"$streamcl" lbm long.params l.obst --out lsig --png lsig/u.png --every 1000 > o31 2> e31 &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
rc=$?
check "lbm SIGTERM: killed by the signal, no file left" \
    eval '[ $rc -ne 0 ] && [ -z "$(ls -A lsig)" ]'

# ---- nbody: a planted .part/.tmp symlink is not followed
echo precious > precious
ln -s precious res.csv.part
ln -s precious res.csv.tmp
"$streamcl" nbody --n 64 --steps 2 --engine reference --out res.csv > o40 2> e40; rc=$?
check "nbody --out: planted res.csv.part/.tmp symlinks not followed" \
    eval '[ $rc -eq 0 ] && [ "$(cat precious)" = precious ] && has "^x,y,z" res.csv'
rm -f res.csv.part res.csv.tmp
if [ $devices = 1 ]; then
    "$streamcl" nbody --n 64 --steps 2 --engine reference --out "$null" > o41 2> e41; rc=$?
    check "nbody --out NULL-DEVICE works, the node a character device" \
        eval '[ $rc -eq 0 ] && [ -c "$null" ]'
fi

# ---- eri
"$streamcl" eri --lattice 2x1x1 --xyz g.in > o50 2> e50; rc=$?
check "eri --xyz with --lattice refused" eval '[ $rc -ne 0 ] && has "choose one" e50'
echo old > fci.target
ln -s fci.target fci.link
"$streamcl" eri --lattice 2x1x1 --engine reference --fcidump fci.link > o51 2> e51; rc=$?
check "eri --fcidump SYMLINK writes through" \
    eval '[ $rc -eq 0 ] && [ -L fci.link ] && has "&FCI" fci.target'

# ---- bounded reads: an endless or binary input is refused quickly
for c in "eri --basis /dev/zero" "eri --xyz /dev/zero" "eri --basis /dev/urandom" \
         "pair-bench --data /dev/zero" "fdtd /dev/zero -o zero.h5" "seismic /dev/zero" \
         "nbody --init /dev/zero"; do
    timeout 20 "$streamcl" $c > o60 2> e60; rc=$?
    check "$c: refused within 20 s (exit $rc)" eval '[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]'
done
# ---- device-memory budgets: refused with the grid and the bytes before any
# allocation (PoCL's POCL_MEMORY_LIMIT=1 makes a 1 GiB device)
if POCL_MEMORY_LIMIT=1 "$streamcl" devices 2> /dev/null | grep -q "global mem 1.00 GiB"; then
    POCL_MEMORY_LIMIT=1 "$streamcl" fdtd --bench 330 330 330 > o70 2> e70; rc=$?
    check "fdtd --bench 330^3 on a 1 GiB device refused with the bytes needed" \
        eval '[ $rc -ne 0 ] && has "330 x 330 x 330 grid .* needs [0-9]+ MiB per field buffer and [0-9]+ MiB in all" e70'
    printf 'grid 300 300 300 5\nmodel homogeneous 2000 1000 2000\nsteps 10\nsource force 50 50 50 0 0 1 ricker 9 1e3\n' > mid.run
    POCL_MEMORY_LIMIT=1 "$streamcl" seismic mid.run --tune 0 > o71 2> e71; rc=$?
    check "seismic 300^3 on a 1 GiB device refused with the bytes needed" \
        eval '[ $rc -ne 0 ] && has "300 x 300 x 300 grid .* needs [0-9]+ MiB per field buffer" e71'
else
    echo "skip device-memory cases: POCL_MEMORY_LIMIT does not shape this device"
fi
printf 'grid 100000 100000 100000 5\nmodel homogeneous 2000 1000 2000\nsteps 10\nsource force 50 50 50 0 0 1 ricker 9 1e3\n' > huge.run
"$streamcl" seismic huge.run --tune 0 > o72 2> e72; rc=$?
check "seismic grid beyond the host's memory refused at its line" \
    eval '[ $rc -ne 0 ] && has "huge.run:1: .* GiB of host memory" e72'

# ---- messages that name the real problem
printf 'H S\nnan 1.0\nEND\n' > nan.basis
"$streamcl" eri --lattice 2x1x1 --engine reference --basis nan.basis > o80 2> e80; rc=$?
check "eri: a nan exponent is called a bad exponent" \
    eval '[ $rc -ne 0 ] && has "nan.basis:2: bad exponent .nan." e80'
sed 's/^receivers.*/receiver_grid 10 10 100 90 0 500 500/' s.run > rgrid.run
seis rgrid.run > o81 2> e81; rc=$?
check "seismic receiver_grid 500 x 500: the cap is named" \
    eval '[ $rc -ne 0 ] && has "rgrid.run:6: receiver_grid 500 x 500 is 250000 receivers: at most" e81'
"$streamcl" seismic s.run --plan kz=0 > o82 2> e82; rc=$?
check "seismic --plan kz=0 blames the plan, not the device" \
    eval '[ $rc -ne 0 ] && has "forced plan value kz=0: must be between 1" e82 && ! has "device" e82'
"$streamcl" seismic s.run --plan fused=1 > o83 2> e83; rc=$?
check "seismic --plan fused=1 with a force source names the source" \
    eval '[ $rc -ne 0 ] && has "fused=1: this run has no fused interior \(a force source" e83'
"$streamcl" pair-bench --replicate 100,100,100 > o84 2> e84; rc=$?
check "pair-bench --replicate 100,100,100 names the copy limit, once" \
    eval '[ $rc -ne 0 ] && has "1000000 copies: at most 4096" e84 && [ "$(grep -c "streamcl pair-bench:" e84)" = 1 ]'
(cat g.in; echo '#messages: maybe') > msg.in
fdtd msg.in -o msg.h5 > o85 2> e85; rc=$?
check "fdtd '#messages: maybe' refused at its line" \
    eval '[ $rc -ne 0 ] && has "msg.in:8: #messages: expected y or n" e85 && [ ! -e msg.h5 ]'

check "no temporaries left anywhere" clean "$work"

cli_end
