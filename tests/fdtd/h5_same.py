"""Two streamcl fdtd HDF5 outputs hold the same receivers bit for bit: the
same attributes and, per receiver, the same Ex..Hz datasets compared as raw
bytes (so that -0.0 against 0.0 or NaN payloads would count as different).
HDF5 files themselves differ in their object time stamps, hence this
reader rather than cmp.

  h5_same.py A.h5 B.h5      exit 0 when equal, 1 with the first difference
"""
import sys

import h5py
import numpy as np

from h5_tree_same import same_datasets, verdict  # raw bytes compared; all-zero refused


def main(a_path, b_path):
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        for k in a.attrs:
            if k not in b.attrs or not np.array_equal(np.asarray(a.attrs[k]), np.asarray(b.attrs[k])):
                print(f"attribute {k} differs")
                return 1
        if sorted(a["rxs"].keys()) != sorted(b["rxs"].keys()) or len(a["rxs"]) == 0:
            print(f"receivers: {sorted(a['rxs'].keys())} vs {sorted(b['rxs'].keys())}")
            return 1
        components = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
        samples = same_datasets(a, b, [f"rxs/{rx}/{c}" for rx in a["rxs"] for c in components])
    return verdict(samples, "same bits ({} non-zero samples)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
