"""Devito's elastic velocity-stress example (PyPI devito, examples.seismic.elastic)
on an N^3 grid (N - 2*nbl interior + nbl damping cells per side), constant model,
OpenMP: prints grid points per second of the whole operator (Devito's own
PerformanceSummary) in a Markdown row.
    DEVITO_LANGUAGE=openmp OMP_NUM_THREADS=T python devito_elastic.py N ORDER TN_MS"""
import sys
import time

import numpy as np
from devito import configuration
from examples.seismic.elastic.elastic_example import elastic_setup

n, so, tn = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
nbl = 10
configuration["log-level"] = "WARNING"
solver = elastic_setup(shape=(n - 2 * nbl,) * 3, spacing=(10.0,) * 3, tn=tn,
                       space_order=so, nbl=nbl, constant=True, dtype=np.float32)
solver.forward()  # compile + warm-up
t0 = time.perf_counter()
rec1, rec2, v, tau, summary = solver.forward()
wall = time.perf_counter() - t0
steps = solver.geometry.nt
sec = summary.globals.get("fdlike")
gpts = sec.gpointss if sec is not None and sec.gpointss else n ** 3 * steps / wall / 1e9
print(f"| Devito {__import__('devito').__version__} elastic example (OpenMP, {wall:.2f} s) | {so} | {n} "
      f"| {steps} | {gpts:.4f} |")
