#!/usr/bin/env python3
"""compare_logs.py [--floor F] LOG REF TOL STEP:KEY[,KEY...] ...
Checks that thermo values KEY at STEP of LOG agree with REF within relative
TOL: |a-b| / max(|b|, F) <= TOL (F, default 0, is the scale of the system's
energies, for values that are small differences of large terms). Exits 1 on any miss, a missing value, or a non-finite value (NaN never
passes)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench", "rhodo"))
import lammps_log  # noqa: E402


def main():
    args = sys.argv[1:]
    floor = 0.0
    if args[:1] == ["--floor"]:
        floor, args = float(args[1]), args[2:]
    if len(args) < 4:
        sys.exit(__doc__)
    log, ref, tol = args[0], args[1], float(args[2])
    got = lammps_log.parse_file(log)["thermo"]
    want = lammps_log.parse_file(ref)["thermo"]
    bad = 0
    for spec in args[3:]:
        step, keys = spec.split(":")
        for key in keys.split(","):
            a = got.get(int(step), {}).get(key)
            b = want.get(int(step), {}).get(key)
            d = lammps_log.rel_diff(a, b)
            if floor and b is not None and abs(b) < floor and d != float("inf"):
                d = abs(a - b) / floor
            ok = d <= tol
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} step {step:>4} {key:<8} {a!s:>20} vs {b!s:>20}"
                  f"  rel {d:.2e} (tol {tol:.0e})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
