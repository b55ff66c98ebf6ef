#!/usr/bin/env python3
"""report.py MANIFEST OUTDIR [DEVICE]: the Markdown table of bench/pppm/gpu.sh
(loop, Kspace and Pair seconds per run from each log) and the ratios of the
goals of issue 13, computed from runs of the same session."""
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rhodo"))
import lammps_log  # noqa: E402


def main():
    manifest, outdir = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else "?"
    rows = []
    for line in open(manifest):
        name, kind, np, scale, rc, cmd = line.rstrip("\n").split("\t")
        log = os.path.join(outdir, name, "log.lammps")
        r = {"name": name, "kind": kind, "np": int(np), "scale": int(scale), "rc": rc, "cmd": cmd}
        if os.path.exists(log):
            p = lammps_log.parse_file(log)
            runs = [x for x in p["runs"] if x["steps"] > 0]
            if runs and rc == "0":
                r["loop"] = runs[-1]["loop"]
                r["atoms"] = runs[-1]["atoms"]
                b = runs[-1].get("breakdown", {})
                r["kspace"], r["pair"] = b.get("Kspace"), b.get("Pair")
            r["thermo"] = p["thermo"]
        rows.append(r)
    fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else "-"
    date = datetime.date.today().isoformat()
    print(f"\n## pppm/ocl vs the GPU package: rhodo, {device}, {date}\n")
    print("| run | ranks | atoms | loop s | Kspace s | Pair s | command |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        st = "" if r["rc"] == "0" else f" (rc {r['rc']})"
        print(f"| {r['name']}{st} | {r['np']} | {r.get('atoms', '-')} | {fmt(r.get('loop'))} | "
              f"{fmt(r.get('kspace'))} | {fmt(r.get('pair'))} | `{r['cmd']}` |")

    def pick(kind, scale, np=None):
        return [r for r in rows if r["kind"] == kind and r["scale"] == scale and "loop" in r
                and (np is None or r["np"] == np)]

    print("\n| goal (issue 13) | measured | target | met |")
    print("|---|---|---|---|")
    for scale, label in ((1, "rhodo 32k"), (2, "rhodo.scaled 256k")):
        o1, g1 = pick("ocl", scale, 1), pick("gpu", scale, 1)
        if o1 and g1 and o1[0]["kspace"] and g1[0]["kspace"]:
            k = o1[0]["kspace"] / g1[0]["kspace"]
            print(f"| {label} 1 rank Kspace ocl/pppm-gpu | {o1[0]['kspace']:.3f}/{g1[0]['kspace']:.3f}"
                  f" = {k:.2f} | <= 0.5 | {'yes' if k <= 0.5 else 'no'} |")
            l = o1[0]["loop"] / g1[0]["loop"]
            print(f"| {label} 1 rank loop ocl/gpu default | {o1[0]['loop']:.3f}/{g1[0]['loop']:.3f}"
                  f" = {l:.2f} | <= 0.8 | {'yes' if l <= 0.8 else 'no'} |")
        ob = pick("ocl", scale)
        gb = pick("gpu", scale) + pick("gpu-po", scale)
        if ob and gb:
            bo = min(ob, key=lambda r: r["loop"])
            bg = min(gb, key=lambda r: r["loop"])
            x = bo["loop"] / bg["loop"]
            print(f"| {label} best loop ocl ({bo['name']}) / GPU pkg best ({bg['name']}) | "
                  f"{bo['loop']:.3f}/{bg['loop']:.3f} = {x:.2f} | <= 0.6 | {'yes' if x <= 0.6 else 'no'} |")
    # kspace on the device changes nothing physical: same pair, CPU pppm vs pppm/ocl
    a, b = pick("ocl", 1, 1), pick("ocl-cpuk", 1, 1)
    if a and b:
        ta, tb = a[0]["thermo"], b[0]["thermo"]
        for step, key in ((0, "E_long"), (0, "PotEng"), (100, "PotEng")):
            va, vb = ta.get(step, {}).get(key), tb.get(step, {}).get(key)
            if va is not None and vb is not None:
                print(f"| {key}@{step} ocl vs ocl+CPU pppm (1 rank) | rel "
                      f"{lammps_log.rel_diff(va, vb):.1e} | <= 1e-5 | "
                      f"{'yes' if lammps_log.rel_diff(va, vb) <= 1e-5 else 'no'} |")


if __name__ == "__main__":
    main()
