#!/usr/bin/env python3
"""Table and log-log plot of n-body interactions/s vs N from nbody_bench.csv."""
import csv
import sys

import os

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # the GPU machine may lack it: the table still prints
    plt = None

FLOPS = 20  # per interaction, the GPU Gems 3 convention (include/streamcl/nbody.h)


def main(src, png):
    rows = list(csv.DictReader(open(src)))
    series = {}
    print(f"{'engine':<18}{'prec':<8}{'N':>9}{'steps':>7}{'interactions/s':>16}{'GFLOP/s':>10}  plan")
    for r in rows:
        rate = float(r["interactions_per_s"])
        print(f"{r['engine']:<18}{r['precision']:<8}{int(r['n']):>9}{int(r['steps']):>7}"
              f"{rate:>16.4e}{float(r['gflops']):>10.2f}  {r['plan']}")
        series.setdefault(f"{r['engine']} {r['precision']}", []).append((int(r["n"]), rate))
    # OpenCL vs reference in the same precision (double), same N
    for peer in ("reference double", "reference-native double"):
        ref = dict(series.get(peer, []))
        for n, rate in series.get("opencl double", []):
            if n in ref:
                print(f"N={n}: OpenCL double / {peer} = {rate / ref[n]:.2f}x")
    if plt is None:
        print("matplotlib not available: no plot written")
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (bodies)")
    ax.set_ylabel("interactions / s")
    ax.set_title("streamcl all-pairs n-body")
    ax.grid(True, which="both", alpha=0.3)
    right = ax.secondary_yaxis("right", functions=(lambda y: y * FLOPS * 1e-9,
                                                   lambda g: g / (FLOPS * 1e-9)))
    right.set_ylabel(f"GFLOP/s ({FLOPS} FLOPs/interaction)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png + ".tmp.png", dpi=120)
    os.replace(png + ".tmp.png", png)
    print(f"wrote {png}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
