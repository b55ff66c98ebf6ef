#!/usr/bin/env python3
"""report.py MANIFEST OUTDIR: side-by-side tables (Markdown + CSV) and a PNG bar
chart of the rhodo runs listed in MANIFEST (name, dir, status, command; tab
separated), differences taken against the first CPU run. The headline is best
versus best: each code (cpu = LAMMPS's own style, opt = its OPT package, ocl,
gpu...) at its fastest rank count (medians over the rounds of run.sh ROUNDS),
and the best ocl loop over the best host-only one, taken round by round."""
import csv
import datetime
import os
import platform
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lammps_log  # noqa: E402

SECTIONS = ["Pair", "Kspace", "Bond", "Neigh", "Comm", "Modify", "Other"]
ENERGIES = ["E_vdwl", "E_coul", "PotEng"]
STEPS = [0, 50, 100]
DEVICE_KEYS = [("neighbor build", "dev nbr build s"), ("data transfer", "dev transfer s"),
               ("neighbor copy", "dev nbr copy s"), ("force calc", "dev force s"),
               ("idle (host wait)", "host wait s"), ("device overhead", "dev overhead s")]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def load(name, d, status, cmd):
    row = {"run": name, "status": status, "command": cmd}
    text = ""
    for f in ("log.lammps", "screen.txt"):
        p = os.path.join(d, f)
        if os.path.exists(p):
            text += open(p, errors="replace").read() + "\n"
    log = lammps_log.parse(open(os.path.join(d, "log.lammps"), errors="replace").read()) \
        if os.path.exists(os.path.join(d, "log.lammps")) else {"thermo": {}, "runs": [], "device": []}
    scr = lammps_log.parse(text)
    run = log["runs"][-1] if log["runs"] else None
    row["ranks"] = run["procs"] if run else None
    row["atoms"] = run["atoms"] if run else None
    row["loop s"] = run["loop"] if run else None
    for s in SECTIONS:
        row[s + " s"] = run["breakdown"].get(s) if run else None
    last = max(log["thermo"]) if log["thermo"] else None
    for st in STEPS:
        for e in ENERGIES:
            row[f"{e}@{st}"] = log["thermo"].get(st, {}).get(e)
    row["last step"] = last
    dev = {}
    blocks = scr["device"]
    for b in blocks:
        for k, v in lammps_log.device_times(b).items():
            dev[k.lower()] = v
    for k, col in DEVICE_KEYS:
        row[col] = dev.get(k)
    m = re.search(r"^Device: (.*?), \d+ rank", text, re.M)          # ours
    g = re.search(r"^\s*GPU \d+: (.*)$|^Device \d+: (.*)$", text, re.M)  # GPU package
    row["device"] = m.group(1) if m else (next(x for x in g.groups() if x) if g else "host CPU")
    return row


def case_of(name):
    """'ocl-2rank-r3' -> ('ocl', 'ocl-2rank', 3)"""
    m = re.match(r"^(.*?)-r(\d+)$", name)
    base, rnd = (m.group(1), int(m.group(2))) if m else (name, 1)
    return base.split("-", 1)[0], base, rnd


def median(v):
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


HOST_CODES = ("cpu", "opt")  # LAMMPS on the host cores only: what ocl is measured against


def best_versus_best(rows):
    """Markdown lines: per code its fastest case (median loop over rounds),
    and per round the best ocl loop over the best host-only loop."""
    cases = {}
    for r in rows:
        code, base, rnd = case_of(r["run"])
        if r["loop s"]:
            cases.setdefault((code, base), []).append((rnd, r))
    best = {}
    for (code, base), runs in cases.items():
        med = median([r["loop s"] for _, r in runs])
        if code not in best or med < best[code][1]:
            best[code] = (base, med, runs)
    if not best:
        return []
    host = [best[c] for c in HOST_CODES if c in best]
    host_best = min(host, key=lambda b: b[1]) if host else None
    md = ["\n## Best versus best\n",
          "Each code at its fastest rank count (median over the rounds: "
          f"{max(len(b[2]) for b in best.values())}). Pair and Kspace: LAMMPS's timers, medians.\n",
          "| code | fastest case | ranks | loop s | Pair s | Kspace s | loop / best host-only LAMMPS |",
          "|---|---|---|---|---|---|---|"]
    for code, (base, med, runs) in sorted(best.items(), key=lambda kv: kv[1][1]):
        ratio = med / host_best[1] if host_best else None
        md.append(f"| {code} | {base} | {runs[0][1]['ranks']} | {med:.2f} | "
                  f"{median([r['Pair s'] for _, r in runs]) or 0:.2f} | "
                  f"{median([r['Kspace s'] for _, r in runs]) or 0:.2f} | "
                  + (f"{ratio:.2f}x" if ratio else "-") + " |")
    # the same ratio round by round (both sides of a ratio from one round)
    per_round = {}
    for (code, base), runs in cases.items():
        for rnd, r in runs:
            slot = per_round.setdefault(rnd, {})
            key = "ocl" if code == "ocl" else ("host" if code in HOST_CODES else None)
            if key and (key not in slot or r["loop s"] < slot[key][1]):
                slot[key] = (base, r["loop s"])
    ratios = [(rnd, v["ocl"], v["host"]) for rnd, v in sorted(per_round.items())
              if "ocl" in v and "host" in v]
    if ratios:
        md.append("\nBest ocl / best of `lmp` and `lmp -sf opt`, round by round: " + ", ".join(
            f"round {rnd}: {o[1]:.2f} s ({o[0]}) / {h[1]:.2f} s ({h[0]}) = {o[1] / h[1]:.2f}x"
            for rnd, o, h in ratios)
            + f"; median **{median([o[1] / h[1] for _, o, h in ratios]):.2f}x**.")
    # Pair against OPT's Pair at the same rank count, round by round
    pair = {}
    for (code, base), runs in cases.items():
        for rnd, r in runs:
            if code in ("ocl", "opt") and r["Pair s"]:
                pair.setdefault((r["ranks"], rnd), {})[code] = r["Pair s"]
    for ranks in sorted({k[0] for k in pair}):
        q = [v["ocl"] / v["opt"] for (n, _), v in sorted(pair.items()) if n == ranks
             and "ocl" in v and "opt" in v]
        if q:
            md.append(f"\nocl Pair / `-sf opt` Pair at {ranks} rank(s), round by round: "
                      + ", ".join(f"{x:.2f}x" for x in q) + f"; median **{median(q):.2f}x**.")
    return md


def main():
    manifest, out = sys.argv[1], sys.argv[2]
    rows = []
    for line in open(manifest):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 4:
            rows.append(load(*parts[:4]))
    if not rows:
        sys.exit("no runs")
    ref = next((r for r in rows if r["run"].startswith("cpu") and r["loop s"]), None)
    for r in rows:
        for st in STEPS:
            for e in ENERGIES:
                k = f"{e}@{st}"
                r["rel " + k] = (lammps_log.rel_diff(r[k], ref[k]) if ref and r[k] is not None
                                 else None)
        r["speedup vs " + (ref["run"] if ref else "cpu")] = (
            ref["loop s"] / r["loop s"] if ref and r["loop s"] else None)
    # LAMMPS's Pair timer against the CPU style's at the same rank count, same sitting
    for r in rows:
        peer = next((c for c in rows if c["run"].startswith("cpu") and c["ranks"] == r["ranks"]
                     and c["Pair s"]), None)
        r["Pair / cpu Pair (same ranks)"] = (r["Pair s"] / peer["Pair s"]
                                             if peer and r["Pair s"] else None)

    cols = list(rows[0].keys())
    with open(os.path.join(out, "rhodo.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)

    def fmt(v, key):
        if v is None:
            return "-"
        if isinstance(v, float):
            if key.startswith("Pair /"):
                return f"{v:.2f}x"
            if key.startswith("rel "):
                return f"{v:.1e}"
            if key.startswith(("E_", "PotEng")):
                return f"{v:.4f}"
            return f"{v:.4g}"
        return str(v)

    md = []
    md.append(f"# rhodo benchmark — {datetime.date.today().isoformat()}, host `{platform.node()}` "
              f"({cpu_model()}, {os.cpu_count()} cores)\n")
    md.append("Loop time and LAMMPS's timing breakdown (avg over ranks, seconds, 100 steps). "
              "ocl: device wait is stamped as Pair; GPU package: its device wait lands in Modify.\n")
    md += best_versus_best(rows)
    timing = ["ranks", "atoms", "device", "loop s", "speedup vs " + (ref["run"] if ref else "cpu"),
              "Pair / cpu Pair (same ranks)"] + [s + " s" for s in SECTIONS]
    energy = [f"{e}@{st}" for st in STEPS for e in ENERGIES]
    rel = ["rel " + k for k in energy]
    devc = [c for _, c in DEVICE_KEYS]
    for title, keys in (("Timing", timing), ("Device time (per run; ocl: max over ranks, "
                                             "GPU package: average)", devc),
                        ("Energies (kcal/mol)", energy),
                        (f"Relative difference from {ref['run'] if ref else 'CPU'}", rel)):
        md.append(f"\n## {title}\n")
        md.append("| quantity | " + " | ".join(r["run"] for r in rows) + " |")
        md.append("|---|" + "---|" * len(rows))
        for k in keys:
            md.append(f"| {k} | " + " | ".join(fmt(r.get(k), k) for r in rows) + " |")
    md.append("\n## Commands\n")
    for r in rows:
        md.append(f"- `{r['run']}` ({r['status']}): `{r['command']}`")
    with open(os.path.join(out, "rhodo.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib missing: no PNG)")
        return
    ok = [r for r in rows if r["loop s"]]
    fig, ax = plt.subplots(figsize=(1.6 * len(ok) + 3, 4.5))
    bottom = [0.0] * len(ok)
    for s in SECTIONS:
        vals = [r[s + " s"] or 0.0 for r in ok]
        ax.bar([r["run"] for r in ok], vals, bottom=bottom, label=s)
        bottom = [b + v for b, v in zip(bottom, vals)]
    for i, r in enumerate(ok):
        ax.text(i, bottom[i], f"{r['loop s']:.2f} s", ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("seconds (100 steps)")
    ax.set_title("LAMMPS rhodo: loop time breakdown")
    ax.legend(fontsize=8, ncol=2)
    plt.xticks(rotation=20, fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "rhodo.png"), dpi=110)


if __name__ == "__main__":
    main()
