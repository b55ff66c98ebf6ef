#!/usr/bin/env python3
"""Plot the receivers of `streamcl fdtd --text FILE` (time Ex Ey Ez Hx Hy Hz per
receiver block): Ez of every receiver against time.
usage: plot_rx.py RECEIVERS.txt OUT.png"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def blocks(path):
    name, rows = None, []
    for line in open(path):
        if line.startswith("# rx"):
            if rows:
                yield name, rows
            name, rows = line[2:].strip(), []
        elif line.strip() and not line.startswith("#"):
            rows.append([float(v) for v in line.split()])
    if rows:
        yield name, rows


def main():
    src, out = sys.argv[1], sys.argv[2]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for name, rows in blocks(src):
        ax.plot([r[0] * 1e9 for r in rows], [r[3] for r in rows], label=name)
    ax.set_xlabel("time (ns)")
    ax.set_ylabel("Ez (V/m)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    main()
