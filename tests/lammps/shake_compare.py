#!/usr/bin/env python3
"""shake_compare.py LOG REF TOL DUMP DUMPREF DXMAX SHAKETOL
fix shake/ocl against fix shake: every thermo value of every step of LOG
within relative TOL of REF (|a-b| / max(|b|, 1); Press, a small difference
of large terms, against the sum of the magnitudes of its kinetic, pair,
kspace and fix (SHAKE) parts when the log has them as c_pke, c_ppair, c_pksp,
c_pfix), the final positions (write_dump id x y z, sorted
by id) within DXMAX Angstrom, and SHAKE's own statistics (its "SHAKE stats"
blocks: per bond/angle type the average length and the spread) in LOG: the
spread of every bond type <= SHAKETOL Angstrom (the constraints hold), the
averages equal to REF's to 1e-5. NaN or a missing value never passes."""
import math
import re
import sys



def thermo(path):
    """{step: {column: value}} of thermo_style custom/one tables; rows may be
    interrupted (SHAKE stats): the last header holds until "Loop time" """
    out, header = {}, None
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[:1] == ["Step"]:
                header = p
            elif line.startswith("Loop time"):
                header = None
            elif header and len(p) == len(header) and p[0].isdigit():
                try:
                    out[int(p[0])] = {k: float(v) for k, v in zip(header[1:], p[1:])}
                except ValueError:
                    pass
    return out


def positions(path):
    out, on = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("ITEM: ATOMS"):
                on = True
                continue
            if line.startswith("ITEM:"):
                on = False
            elif on:
                p = line.split()
                out[int(p[0])] = [float(v) for v in p[1:4]]
    return out


def shake_stats(path):
    """[(step, type, ave, delta, kind)] where kind is 'b' (bond) or 'a'"""
    out, step = [], None
    with open(path) as f:
        for line in f:
            # 2022+ names the style in capitals ("SHAKE/OCL stats ...")
            m = re.match(r"SHAKE(?:/OCL)? stats \(type/ave/delta/count\) on step (\d+)", line)
            if m:
                step = int(m.group(1))
                continue
            p = line.split()
            # 2022+ LAMMPS labels the rows ("Bond:", "Angle:"); 29Sep2021 does not
            label = p.pop(0) if p and p[0] in ("Bond:", "Angle:") else None
            if step is not None and len(p) == 4 and p[0].isdigit():
                ave = float(p[1])
                # unlabelled: angle rows are in degrees (> 10), bond rows first
                kind = {"Bond:": "b", "Angle:": "a"}.get(label, "a" if ave > 10 else "b")
                out.append((step, int(p[0]), ave, float(p[2]), kind))
            elif step is not None:
                step = None
    return out


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    log, ref, tol, dump, dumpref, dxmax, shaketol = sys.argv[1:]
    tol, dxmax, shaketol = float(tol), float(dxmax), float(shaketol)
    bad = 0
    got, want = thermo(log), thermo(ref)
    if not want or set(got) != set(want):
        print(f"FAIL thermo steps differ: {sorted(got)[:5]}... vs {sorted(want)[:5]}...")
        bad += 1
    worst = (0.0, None, None)
    for step in sorted(want):
        for key, b in want[step].items():
            a = got.get(step, {}).get(key)
            scale = max(abs(b), 1.0)
            if key == "Press":
                scale = max(scale, sum(abs(want[step].get(k, 0.0)) for k in ("c_pke", "c_ppair", "c_pksp", "c_pfix")))
            d = abs(a - b) / scale if a is not None else math.inf
            if not d <= tol:
                bad += 1
                print(f"FAIL step {step} {key}: {a} vs {b} (rel {d:.3g}, tol {tol:.0e})")
            if not d <= worst[0]:
                worst = (d, step, key)
    print(f"thermo: {len(want)} steps, worst rel diff {worst[0]:.3g} ({worst[2]} at step {worst[1]})")
    pa, pb = positions(dump), positions(dumpref)
    if not pb or set(pa) != set(pb):
        print(f"FAIL dumps hold different atoms ({len(pa)} vs {len(pb)})")
        bad += 1
    else:
        dx = 0.0
        for i, xb in pb.items():
            for u, v in zip(pa[i], xb):
                e = abs(u - v)
                if not e <= dx:
                    dx = e
        ok = dx <= dxmax
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} final positions: max |dx| {dx:.3g} A (bound {dxmax:.0e})")
    sa, sb = shake_stats(log), shake_stats(ref)
    if not sb or len(sa) != len(sb):
        print(f"FAIL SHAKE stats: {len(sa)} rows vs {len(sb)} in the reference")
        bad += 1
    for (st, t, ave, delta, kind), (_, _, ave_b, _, _) in zip(sa, sb):
        if kind == "b" and not delta <= shaketol:
            bad += 1
            print(f"FAIL step {st} bond type {t}: spread {delta} > {shaketol}")
        if not abs(ave - ave_b) <= 1e-5 * abs(ave_b):
            bad += 1
            print(f"FAIL step {st} type {t}: average {ave} vs {ave_b}")
    print(f"SHAKE stats: {len(sa)} rows, bond spreads <= {max([r[3] for r in sa if r[4] == 'b'] or [math.nan]):.3g} A")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
