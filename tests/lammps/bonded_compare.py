#!/usr/bin/env python3
"""Compare two LAMMPS runs of tests/lammps/bonded_test.sh: thermo columns of
the logs and the per-atom columns of the dumps (forces, per-atom energies and
stresses), frame by frame, NaN-safe.

usage: bonded_compare.py LOG_A LOG_B DUMP_A DUMP_B TOL0 TOLN [COLUMNS]
  TOL0: relative bound at step 0 (same positions: the styles' own error);
  TOLN: relative bound at later steps (trajectories drift apart by rounding).
  COLUMNS: comma-separated thermo columns to compare (default: all).
Thermo values are relative to the largest |value| of their column; per-atom
values to max(|value|, rms of the column) for forces and to the
column's largest |value| for energies and stresses. Exit 1 on a failure."""
import math
import sys


def thermo(path):
    rows, header = [], None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "Step":
                header = w
                continue
            if header and w and len(w) == len(header):
                try:
                    rows.append([float(v) for v in w])
                except ValueError:
                    header = None
            elif header and rows:
                break
    if not header or not rows:
        sys.exit(f"FAIL: no thermo table in {path}")
    return header, rows


def dump(path):
    frames, step, cols, atoms, mode = {}, None, None, [], None
    with open(path) as f:
        for line in f:
            if line.startswith("ITEM: TIMESTEP"):
                mode = "step"
                continue
            if line.startswith("ITEM: ATOMS"):
                cols = line.split()[2:]
                atoms = []
                frames[step] = (cols, atoms)
                mode = "atoms"
                continue
            if line.startswith("ITEM:"):
                mode = None
                continue
            if mode == "step":
                step = int(line)
                mode = None
            elif mode == "atoms":
                atoms.append([float(v) for v in line.split()])
    return frames


def bad(a, b, tol, scale):
    return not (abs(a - b) <= tol * scale)   # NaN-safe


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    log_a, log_b, dump_a, dump_b = sys.argv[1:5]
    tol0, toln = float(sys.argv[5]), float(sys.argv[6])
    want = sys.argv[7].split(",") if len(sys.argv) > 7 and sys.argv[7] else None
    fails = 0
    ha, ra = thermo(log_a)
    hb, rb = thermo(log_b)
    if ha != hb or len(ra) != len(rb):
        sys.exit(f"FAIL: thermo tables differ in shape: {ha} x {len(ra)} vs {hb} x {len(rb)}")
    for c, name in enumerate(ha):
        if name == "Step" or (want and name not in want):
            continue
        scale = max(abs(r[c]) for r in rb) or 1.0
        for ia, ib in zip(ra, rb):
            tol = tol0 if ib[0] == rb[0][0] else toln
            if bad(ia[c], ib[c], tol, scale):
                print(f"FAIL thermo {name} step {int(ib[0])}: {ia[c]!r} vs {ib[c]!r} "
                      f"(tol {tol} of {scale:.6g})")
                fails += 1
    if dump_a != "-":
        fa, fb = dump(dump_a), dump(dump_b)
        if sorted(fa) != sorted(fb) or not fa:
            sys.exit(f"FAIL: dump frames differ: {sorted(fa)} vs {sorted(fb)}")
        first = min(fb)
        worst = {}
        for step in sorted(fb):
            cols, aa = fa[step]
            _, bb = fb[step]
            if len(aa) != len(bb) or any(x[0] != y[0] for x, y in zip(aa, bb)):
                sys.exit(f"FAIL: dump step {step}: atoms differ")
            tol = tol0 if step == first else toln
            for c in range(1, len(cols)):
                col = [y[c] for y in bb]
                if cols[c] in ("fx", "fy", "fz"):
                    rms = math.sqrt(sum(v * v for v in col) / len(col))
                    scales = [max(abs(v), rms) for v in col]
                else:
                    m = max(abs(v) for v in col) or 1.0
                    scales = [m] * len(col)
                nbad, w = 0, 0.0
                for x, y, s in zip(aa, bb, scales):
                    e = abs(x[c] - y[c]) / s
                    if bad(x[c], y[c], tol, s):
                        nbad += 1
                    w = max(w, e) if e == e else float("nan")
                worst[(step, cols[c])] = w
                if nbad:
                    print(f"FAIL dump step {step} {cols[c]}: {nbad} atoms beyond {tol} "
                          f"(worst {w:.3g})")
                    fails += 1
        for step in sorted(fb):
            print(f"step {step}: worst relative per-atom difference "
                  f"{max(v for (s, _), v in worst.items() if s == step):.3g}")
    print("ok" if not fails else f"{fails} failures")
    sys.exit(1 if fails else 0)


main()
