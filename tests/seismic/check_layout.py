#!/usr/bin/env python3
"""The layout of streamcl seismic outputs, read back by a reader that shares
no code with the writer (Python's struct and csv; segyio too when it is
importable): the CSV's column labels and time columns, each SEG-Y file's
binary and trace headers (sample interval with the decimation, sample count,
IEEE format, receiver coordinates) and its samples against the CSV column of
the same receiver and component.

  check_layout.py PREFIX CSV DT DECIMATE STEPS "x,y,z;x,y,z;..." [--need-segyio]

PREFIX_vx.sgy ... PREFIX_p.sgy and CSV come from one run with --decimate
DECIMATE; DT is the run's time step (s), STEPS its step count, the receiver
list its receivers in metres. Prints "check_layout: N passed, M failed"."""
import csv
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tally import Tally  # noqa: E402 (tests/tally.py, beside the checkers' folders)

COMPS = ["vx", "vy", "vz", "p"]
TALLY = Tally("check_layout")
check = TALLY.check


def close(a, b, rel, absolute=0.0):
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= absolute + rel * abs(b)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    need_segyio = "--need-segyio" in sys.argv
    prefix, csv_path, dt, dec, steps, rx_text = args
    dt, dec, steps = float(dt), int(dec), int(steps)
    receivers = [tuple(float(v) for v in r.split(",")) for r in rx_text.split(";") if r]
    nrx = len(receivers)

    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    want = ["t_velocity", "t_pressure"] + [
        "r%d_%s" % (r + 1, c) for r in range(nrx) for c in COMPS]
    check(header == want, "CSV header %s, want %s" % (header[:8], want[:8]))
    nrows = (steps + dec - 1) // dec
    check(len(body) == nrows, "CSV rows %d, want %d (steps %d, decimation %d)"
          % (len(body), nrows, steps, dec))
    for n, row in enumerate(body):
        check(close(float(row[0]), (n * dec + 0.5) * dt, 1e-7)
              and close(float(row[1]), (n * dec + 1.0) * dt, 1e-7),
              "CSV row %d times %s %s, want %.9g %.9g" % (n, row[0], row[1],
                                                          (n * dec + 0.5) * dt, (n * dec + 1) * dt))
        if n > 3:
            break
    column = {name: i for i, name in enumerate(header)}

    dt_us = round(dt * dec * 1e6)
    ns = steps // dec
    for comp in COMPS:
        path = "%s_%s.sgy" % (prefix, comp)
        with open(path, "rb") as f:
            data = f.read()
        binh = data[3200:3600]
        interval, interval_orig, nsamp, nsamp_orig, fmt = struct.unpack(">hhhhh", binh[16:26])
        check(interval == dt_us and interval_orig == dt_us,
              "%s: sample interval %d us, want %d (dt %g s x decimation %d)"
              % (path, interval, dt_us, dt, dec))
        check(nsamp == ns, "%s: %d samples per trace, want %d" % (path, nsamp, ns))
        check(fmt == 5, "%s: format code %d, want 5 (IEEE float)" % (path, fmt))
        ntr = struct.unpack(">h", binh[12:14])[0]
        check(ntr == nrx, "%s: %d traces per ensemble, want %d" % (path, ntr, nrx))
        size = 240 + 4 * ns
        check(len(data) == 3600 + nrx * size, "%s: %d bytes, want %d" % (path, len(data),
                                                                     3600 + nrx * size))
        for r in range(min(nrx, (len(data) - 3600) // size)):
            th = data[3600 + r * size:3600 + r * size + 240]
            seq = struct.unpack(">i", th[0:4])[0]
            scalar = struct.unpack(">h", th[70:72])[0]
            gx, gy = struct.unpack(">ii", th[80:88])
            t_ns, t_dt = struct.unpack(">hh", th[114:118])
            factor = 1.0 / -scalar if scalar < 0 else float(scalar or 1)
            x, y = gx * factor, gy * factor
            check(seq == r + 1, "%s trace %d: sequence %d" % (path, r, seq))
            check(t_ns == ns and t_dt == dt_us, "%s trace %d: header ns %d dt %d, want %d %d"
                  % (path, r, t_ns, t_dt, ns, dt_us))
            check(abs(x - receivers[r][0]) < 0.011 and abs(y - receivers[r][1]) < 0.011,
                  "%s trace %d: receiver at (%g, %g) m, want (%g, %g)"
                  % (path, r, x, y, receivers[r][0], receivers[r][1]))
            samples = struct.unpack(">%df" % ns, th[0:0] + data[3600 + r * size + 240:
                                                               3600 + (r + 1) * size])
            col = column.get("r%d_%s" % (r + 1, comp))
            bad = [n for n in range(ns) if col is None or
                   not close(samples[n], float(body[n][col]), 1e-7, 1e-30)]
            check(not bad, "%s trace %d: %d samples differ from CSV column r%d_%s, first at %s"
                  % (path, r, len(bad), r + 1, comp, bad[:1]))
        try:
            import segyio
        except ImportError:
            check(not need_segyio, "segyio not importable (the peers venv is missing)")
            continue
        with segyio.open(path, ignore_geometry=True) as s:
            check(int(s.bin[segyio.BinField.Interval]) == dt_us,
                  "segyio %s: interval %s" % (path, s.bin[segyio.BinField.Interval]))
            check(len(s.samples) == ns and s.tracecount == nrx,
                  "segyio %s: %d samples, %d traces" % (path, len(s.samples), s.tracecount))
            for r in range(s.tracecount):
                col = column["r%d_%s" % (r + 1, comp)]
                tr = s.trace[r]
                check(all(close(float(tr[n]), float(body[n][col]), 1e-7, 1e-30)
                          for n in range(ns)), "segyio %s trace %d differs from the CSV"
                      % (path, r))
    return TALLY.finish()


if __name__ == "__main__":
    sys.exit(main())
