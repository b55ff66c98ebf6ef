"""Roofline-style plot of an lbm sweep: achieved MLUPS per grid side for each
implementation, under the bandwidth ceilings peak / bytes-per-cell-update
(73 bytes fp32, 37 bytes fp16): a bandwidth-bound kernel at its roof sits on
its line.  usage: plot.py results.tsv PEAK_GBS out.png [title]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

path, peak, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
title = sys.argv[4] if len(sys.argv) > 4 else "lbm D2Q9"
rows = list(csv.DictReader(open(path), delimiter="\t"))
impls = sorted({r["impl"] for r in rows})
fig, ax = plt.subplots(figsize=(7, 4.5))
for impl in impls:
    pts = sorted((int(r["side"]), float(r["mlups"])) for r in rows if r["impl"] == impl)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=impl)
sides = sorted({int(r["side"]) for r in rows})
for nbytes, style in ((73, "k--"), (37, "k:")):
    roof = peak * 1e3 / nbytes
    ax.plot([sides[0], sides[-1]], [roof, roof], style, lw=1)
    ax.annotate(f"{peak:.0f} GB/s / {nbytes} B = {roof:.0f} MLUPS", (sides[0], roof * 1.05), fontsize=8)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(sides)
ax.set_xticklabels([f"{s}²" for s in sides])
ax.set_xlabel("grid")
ax.set_ylabel("MLUPS (million lattice updates / s)")
ax.set_title(title, fontsize=9)
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=120)
print("wrote", out)
