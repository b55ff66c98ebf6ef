"""Two HDF5 files hold the same tree bit for bit: the same groups and
datasets by name, every attribute of every object and every dataset's
type, shape and raw bytes equal (so -0.0 against 0.0, or NaN payloads,
count as different). Only what HDF5 itself stamps (object modification
times) may differ: that is why this reader rather than cmp.

  h5_tree_same.py A.h5 B.h5    exit 0 when equal, 1 with the first difference
"""
import sys

import h5py
import numpy as np


def same_value(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype == object:  # variable-length strings: their values, not the pointers
        return x.tolist() == y.tolist()
    return x.tobytes() == y.tobytes()


def same_datasets(a, b, names):
    """The datasets `names` of files a and b: their count of non-zero values
    where each holds the same bits in both, else None after a line saying
    which differs first."""
    count = 0
    for name in names:
        x, y = np.asarray(a[name][()]), np.asarray(b[name][()])
        if not same_value(x, y):
            at = np.flatnonzero(x.view(np.uint8) != y.view(np.uint8))[:1] if x.shape == y.shape else []
            print(f"/{name}: dataset differs ({x.dtype} {x.shape} vs {y.dtype} {y.shape}; first byte {at})")
            return None
        count += 0 if x.dtype == object else int(np.count_nonzero(x))
    return count


def verdict(nonzero, same_line):
    """0 after same_line (formatted with the count) where the datasets compared
    equal and hold a non-zero value, else 1: all-zero outputs would prove
    nothing. nonzero: what same_datasets returned."""
    if nonzero is None:
        return 1
    if nonzero == 0:
        print("no non-zero value compared: the comparison would prove nothing")
        return 1
    print(same_line.format(nonzero))
    return 0


def objects(f):
    names = [""]
    f.visit(names.append)
    return names


def main(a_path, b_path):
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        na, nb = objects(a), objects(b)
        if na != nb:
            print(f"objects differ: {sorted(set(na) ^ set(nb))[:5]}")
            return 1
        datasets = []
        for name in na:
            x, y = (a[name], b[name]) if name else (a, b)
            if sorted(x.attrs) != sorted(y.attrs):
                print(f"/{name}: attributes {sorted(x.attrs)} vs {sorted(y.attrs)}")
                return 1
            for k in x.attrs:
                if not same_value(x.attrs[k], y.attrs[k]):
                    print(f"/{name}: attribute {k} differs: {x.attrs[k]} vs {y.attrs[k]}")
                    return 1
            if isinstance(x, h5py.Dataset) != isinstance(y, h5py.Dataset):
                print(f"/{name}: a dataset in one file only")
                return 1
            if isinstance(x, h5py.Dataset):
                datasets.append(name)
        values = same_datasets(a, b, datasets)
    return verdict(values, f"same tree ({len(na)} objects, {{}} non-zero values)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
