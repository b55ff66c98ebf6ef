#!/usr/bin/env python3
"""PySCF peer for streamcl eri: RHF of a hydrogen lattice (or an XYZ file)
and the time of its libcint unique-integral tensor (aosym='s8').

  python pyscf_peer.py NX NY NZ [--spacing 1.4] [--basis sto-6g] [--no-scf]
                                [--ints] [--jk]
Prints 'key value' lines: energy, iterations, seconds per phase, threads.
"""
import argparse
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nx", type=int)
    ap.add_argument("ny", type=int)
    ap.add_argument("nz", type=int)
    ap.add_argument("--spacing", type=float, default=1.4, help="bohr")
    ap.add_argument("--basis", default="sto-6g")
    ap.add_argument("--no-scf", action="store_true")
    ap.add_argument("--ints", action="store_true", help="time the s8 unique tensor")
    ap.add_argument("--jk", action="store_true", help="time one J/K build from the tensor")
    a = ap.parse_args()
    from pyscf import gto, scf, lib
    atoms = []
    for z in range(a.nz):
        for y in range(a.ny):
            for x in range(a.nx):
                atoms.append(("H", (x * a.spacing, y * a.spacing, z * a.spacing)))
    mol = gto.M(atom=atoms, basis=a.basis, unit="Bohr", verbose=0)
    print("functions", mol.nao_nr())
    print("threads", lib.num_threads())
    if a.ints or a.jk:
        t = time.perf_counter()
        eri = mol.intor("int2e", aosym="s8")
        print("seconds_integrals", time.perf_counter() - t)
        print("unique_integrals", eri.size)
        if a.jk:
            import numpy
            dm = numpy.random.default_rng(1).standard_normal((mol.nao_nr(),) * 2)
            dm = dm + dm.T
            t = time.perf_counter()
            scf.hf.dot_eri_dm(eri, dm, hermi=1)
            print("seconds_jk_from_tensor", time.perf_counter() - t)
    if not a.no_scf:
        mf = scf.RHF(mol)
        mf.init_guess = "1e"
        mf.conv_tol = 1e-12
        mf.conv_tol_grad = 1e-8
        mf.max_cycle = 200
        t = time.perf_counter()
        e = mf.kernel()
        print("seconds_scf", time.perf_counter() - t)
        print("converged", int(mf.converged))
        print("energy %.12f" % e)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
