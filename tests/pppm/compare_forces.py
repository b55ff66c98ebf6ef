#!/usr/bin/env python3
"""compare_forces.py DUMP REF TOL [BASE]
Per-atom forces of two LAMMPS custom dumps (id fx fy fz, last snapshot),
matched by atom id: RMS relative difference sqrt(sum|f-f_ref|^2 / sum|f_ref|^2)
<= TOL. With BASE, both have BASE's forces subtracted first (isolates one
force term: e.g. kspace = run with kspace - run with kspace_modify compute no).
Exits 1 on a miss, different atom sets, or any non-finite value."""
import math
import sys


def load(path):
    text = open(path).read()
    block = text.split("ITEM: ATOMS")[-1].strip().split("\n")
    cols = block[0].split()
    i = {c: k for k, c in enumerate(cols)}
    out = {}
    for line in block[1:]:
        v = line.split()
        out[int(v[i["id"]])] = [float(v[i[c]]) for c in ("fx", "fy", "fz")]
    return out


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    got, ref, tol = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
    if sorted(got) != sorted(ref) or not ref:
        sys.exit(f"FAIL: atom ids differ ({len(got)} vs {len(ref)} atoms)")
    if len(sys.argv) == 5:
        base = load(sys.argv[4])
        for d in (got, ref):
            for a in d:
                d[a] = [x - y for x, y in zip(d[a], base[a])]
    num = sum((x - y) ** 2 for a in ref for x, y in zip(got[a], ref[a]))
    den = sum(y * y for a in ref for y in ref[a])
    rel = math.sqrt(num / den) if den > 0 else float("inf")
    ok = math.isfinite(rel) and rel <= tol
    print(f"{'ok  ' if ok else 'FAIL'} forces {sys.argv[1]} vs {sys.argv[2]}: RMS relative "
          f"{rel:.2e} (tol {tol:.0e}, {len(ref)} atoms, RMS |f_ref| {math.sqrt(den / len(ref)):.3g})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
