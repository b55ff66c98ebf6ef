"""The HDF5 of `streamcl fdtd` read back by h5py (a reader that shares no
code with the writer) for the good model of tests/fdtd/cli.sh: file
attributes, receiver names and positions as the input declares them, six
datasets per receiver named Ex..Hz with Iterations samples equal to the
text output's columns of the same names, and labels that fit the physics of
a z-directed dipole (the receiver beside it along x sees Hy, not Hx, and Ez
above Ex; no dipole of this kind makes Hz), so that components swapped in
both writers are caught too.

  check_h5.py FILE.h5 FILE.txt NX,NY,NZ "name@x,y,z;name@x,y,z"
"""
import math
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally  # noqa: E402 (tests/tally.py, beside the checkers' folders)

COMPS = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
TALLY = Tally("check_h5")
check = TALLY.check


def read_text(path):
    """{rx index: {component: [values]}} and the dt of the text output."""
    out, dt, rx = {}, None, 0
    labels = None
    for line in open(path):
        if line.startswith("# streamcl fdtd receivers"):
            dt = float(line.split("dt ")[1].split()[0])
        elif line.startswith("# rx"):
            rx = int(line.split()[1][2:])
            out[rx] = {c: [] for c in COMPS}
        elif line.startswith("# time"):
            labels = line.split()[2:]
        elif line.strip() and not line.startswith("#"):
            v = [float(x) for x in line.split()]
            for c, x in zip(labels, v[1:]):
                out[rx][c].append(x)
    return out, dt


def main():
    h5path, txtpath, nxyz, rx_text = sys.argv[1:5]
    nxyz = [int(v) for v in nxyz.split(",")]
    want_rx = []
    for item in rx_text.split(";"):
        name, pos = item.split("@")
        want_rx.append((name, [float(v) for v in pos.split(",")]))
    text, dt = read_text(txtpath)
    f = h5py.File(h5path, "r")
    its = int(f.attrs["Iterations"])
    check(list(f.attrs["nx_ny_nz"]) == nxyz, "nx_ny_nz %s, want %s" % (f.attrs["nx_ny_nz"], nxyz))
    check(int(f.attrs["nrx"]) == len(want_rx), "nrx %s" % f.attrs["nrx"])
    check(dt is not None and math.isclose(float(f.attrs["dt"]), dt, rel_tol=1e-9),
          "dt %s vs the text's %s" % (f.attrs["dt"], dt))
    check(sorted(f["rxs"].keys()) == ["rx%d" % (i + 1) for i in range(len(want_rx))],
          "receiver groups %s" % list(f["rxs"].keys()))
    peaks = {}
    for i, (name, pos) in enumerate(want_rx):
        g = f["rxs/rx%d" % (i + 1)]
        got_name = g.attrs["Name"]
        got_name = got_name.decode() if isinstance(got_name, bytes) else str(got_name)
        check(got_name == name, "rx%d Name '%s', want '%s'" % (i + 1, got_name, name))
        check(all(abs(a - b) < 1e-9 for a, b in zip(g.attrs["Position"], pos)),
              "rx%d Position %s, want %s" % (i + 1, list(g.attrs["Position"]), pos))
        check(sorted(g.keys()) == sorted(COMPS), "rx%d datasets %s" % (i + 1, list(g.keys())))
        for c in COMPS:
            d = [float(x) for x in g[c][:]]
            t = text.get(i + 1, {}).get(c, [])
            check(len(d) == its and len(t) == its,
                  "rx%d %s: %d samples in HDF5, %d in text, Iterations %d" % (i + 1, c, len(d),
                                                                             len(t), its))
            peak = max([abs(x) for x in t] or [0])
            bad = [n for n in range(min(len(d), len(t)))
                   if not (math.isfinite(d[n]) and math.isfinite(t[n]) and
                           abs(d[n] - t[n]) <= 1e-6 * abs(t[n]) + 1e-9 * peak)]
            check(not bad, "rx%d %s: HDF5 differs from the text column at %d samples, first %s"
                  % (i + 1, c, len(bad), bad[:1]))
            peaks[i, c] = max([abs(x) for x in d] or [0])
    # the first receiver sits beside the z dipole along x: H is azimuthal (y)
    check(peaks[0, "Hy"] > 2 * peaks[0, "Hx"], "rx1: peak Hy %g not above 2 x peak Hx %g (Hx/Hy "
          "swapped?)" % (peaks[0, "Hy"], peaks[0, "Hx"]))
    check(peaks[0, "Ez"] > 2 * peaks[0, "Ex"], "rx1: peak Ez %g not above 2 x peak Ex %g"
          % (peaks[0, "Ez"], peaks[0, "Ex"]))
    for i in range(len(want_rx)):
        check(peaks[i, "Hz"] < 1e-3 * max(peaks[i, "Hx"], peaks[i, "Hy"]),
              "rx%d: a z dipole makes no Hz, peak %g" % (i + 1, peaks[i, "Hz"]))
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
