"""ObsPy reads the SEG-Y file test_files wrote: trace count, samples, sample
interval, receiver coordinates, and every sample equal to the CSV's."""
import csv
import sys

import numpy as np
import obspy

segy, csv_path = sys.argv[1], sys.argv[2]
st = obspy.read(segy, format="SEGY")
assert len(st) == 7, len(st)
tr = st[6]
assert tr.stats.npts == 40, tr.stats.npts
assert abs(tr.stats.delta - 742e-6) < 1e-9, tr.stats.delta
h = tr.stats.segy.trace_header
assert h.group_coordinate_x == 12000 and h.scalar_to_be_applied_to_all_coordinates == -100, h
assert st.stats.binary_file_header.data_sample_format_code == 5
with open(csv_path) as f:
    rows = list(csv.DictReader(f))
for r in range(7):
    col = np.array([float(row[f"r{r + 1}_vz"]) for row in rows], dtype=np.float32)
    got = st[r].data[::4]
    assert np.array_equal(got, col), (r, got[:3], col[:3])
print("obspy_read: 7 traces, 40 samples, delta %.6g s, samples equal to the CSV" % tr.stats.delta)
