#!/usr/bin/env python3
"""LAMMPS's rhodopsin benchmark (bench/in.rhodo + data.rhodo) as an OpenMM System.

The all-GPU peer for issue 21: the same 32,000 atoms, the same CHARMM force
field term by term, the same constraints and the same PME parameters, so that
OpenMM's time per 100 steps on a GPU can stand next to LAMMPS's.

Usage
  Energy check (CPU; Reference platform, double precision), per-term step-0
  energies next to LAMMPS's own:
      python3 rhodo_openmm.py --verify data.rhodo
      python3 rhodo_openmm.py --verify --lammps-log log.lammps data.rhodo
      python3 rhodo_openmm.py --verify --pme-grid 108 144 144 data.rhodo
  (the LAMMPS run is bench/openmm/in.rhodo.energy, with -var fine 1 for the
  converged reciprocal space that the last line compares; without --lammps-log
  the values that input gave with Debian's lmp, 29 Sep 2021, are used.)

  Timing (GPU): a warm-up run, then REPEAT runs of STEPS steps, each timed to a
  device sync; prints seconds per STEPS steps (each, median) and ns/day:
      python3 rhodo_openmm.py --platform OpenCL --steps 100 --repeat 3 data.rhodo
      python3 rhodo_openmm.py --platform CUDA   --steps 100 --repeat 3 data.rhodo
  Options: --precision single|mixed|double (default mixed), --device N,
  --opencl-platform N, --integrator nh|langevin (default nh), --lj custom|native
  (default custom), --no-barostat, --warmup STEPS.
  bench/openmm/gpu.sh runs the timings on the GPU machine from carried wheels.

What is converted, and how (LAMMPS real units -> OpenMM kJ/mol, nm, ps)
  bond harmonic      E = K (r - r0)^2            HarmonicBondForce, k = 2K
  angle charmm       E = K (th - th0)^2          HarmonicAngleForce, k = 2K
                       + Kub (r13 - rub)^2       HarmonicBondForce on 1-3, k = 2Kub
  dihedral charmm    E = K [1 + cos(n phi - d)]  PeriodicTorsionForce
                     plus, per dihedral with weight w > 0, its 1-4 pair:
                     w * LJ(eps14, sigma14) + w * qq/r (plain Coulomb, no
                     cutoff), which LAMMPS adds to evdwl and ecoul
  improper harmonic  E = K (chi - chi0)^2        CustomTorsionForce; LAMMPS's chi
                     is acos of the cosine of the i-j-k-l dihedral, |phi|
  pair lj/charmm/coul/long 8 10, mix arithmetic, special_bonds charmm (0 0 0):
     LJ with CHARMM's switch on r^2 between 8 and 10 A
        S = (rc^2 - r^2)^2 (rc^2 + 2r^2 - 3ri^2) / (rc^2 - ri^2)^3
        CustomNonbondedForce (OpenMM's own switch is a different polynomial;
        --lj native uses it for a timing of OpenMM's fastest path only)
     Coulomb: NonbondedForce PME, real-space cutoff 10 A, alpha and grid as
        LAMMPS's pppm 1e-4 picks them (G vector 0.24883488 1/A, grid 25 32 32,
        order 5: from LAMMPS's log for this data file). 1-2, 1-3, 1-4 pairs of
        the bond graph are excluded from both (LAMMPS subtracts their erf part,
        as OpenMM does); the dihedral 1-4 pairs are NonbondedForce exceptions
        (weights summed where a pair is the 1-4 pair of several dihedrals).
  fix shake 0.0001 5 0 m 1.0 a 232: built as FixShake::find_clusters does: a
     bond is constrained when either atom's mass is within 0.1 of 1.0; a centre
     with exactly two such bonds whose angle is of type 232 is an angle cluster
     (third distance by the law of cosines). Constrained bonds and angles drop
     out of the force field, as LAMMPS sets their types negative. 23,823
     constraints (LAMMPS: 1617 size-2, 3633 size-3, 747 size-4, 4233 angles).
     OpenMM's tolerance is set to LAMMPS's 1e-4 (it SETTLEs the waters).
  fix npt temp 300 300 100 z 0 0 1000 mtk no pchain 0 tchain 1: OpenMM has no
     Nose-Hoover barostat on one axis. Thermostat: NoseHooverIntegrator, one
     chain bead, collision frequency 1/Tdamp = 10/ps, one MTS/Yoshida-Suzuki
     step (LAMMPS's tchain 1, tloop 1); --integrator langevin uses
     LangevinMiddleIntegrator (friction 1/ps), OpenMM's usual choice.
     Barostat: MonteCarloAnisotropicBarostat, z only, 0 bar, every 25 steps,
     rigid molecules. Either way the integrator and barostat are a few percent
     of OpenMM's step (a barostat trial is one extra energy every 25 steps); the
     step is the nonbonded + PME work, which is the same work as LAMMPS's.
     So the peer is fair for time; the ensembles differ in detail.
Positions are unwrapped with the data file's image flags (OpenMM constrains
and builds molecules from whole coordinates); velocities A/fs -> nm/ps.
"""
import argparse
import math
import os
import statistics
import sys
import time

import openmm as mm

KCAL = 4.184          # kJ per kcal
ANG = 0.1             # nm per Angstrom
# LAMMPS pppm 1e-4 on data.rhodo (Debian lmp 29Sep2021, 1 rank):
#   G vector (1/distance) = 0.24883488, grid = 25 32 32, stencil order = 5
PPPM_G_EWALD = 0.24883488     # 1/Angstrom
PPPM_GRID = (25, 32, 32)
CUT_LJ_INNER, CUT_LJ, CUT_COUL = 8.0, 10.0, 10.0   # Angstrom
SHAKE_MASS, SHAKE_MASSDELTA, SHAKE_ANGLE_TYPES = 1.0, 0.1, (232,)
SHAKE_TOL = 1e-4
QQRD2E_LAMMPS = 332.06371                      # kcal/mol A / e^2, LAMMPS real units
ONE_4PI_EPS0 = 138.935457644382                # kJ/mol nm / e^2, OpenMM 8's value
COUL_RATIO = QQRD2E_LAMMPS / (ONE_4PI_EPS0 / KCAL / ANG)   # 1 - 1.0e-8
# Step-0 energies (kcal/mol) LAMMPS gives for bench/openmm/in.rhodo.energy
# (no fix shake; pair_modify table 0), Debian lmp 29 Sep 2021 - Update 2.
LAMMPS_REF = {'ebond': 2538.00323337, 'eangle': 10921.3750041,
              'edihed': 5211.78649955, 'eimp': 213.511585445,
              'evdwl': -2307.86341546, 'ecoul': 207025.894808,
              'elong': -270403.733286, 'pe': -46801.025571}
# The same with -var fine 1 (reciprocal space converged: G vector as above,
# mesh 108 144 144, order 7); used when --pme-grid 108 144 144.
LAMMPS_REF_FINE = dict(LAMMPS_REF, ecoul=207025.898483, elong=-270403.561769,
                       pe=-46800.8503786)
FINE_GRID = (108, 144, 144)

SECTIONS = ('Masses', 'Pair Coeffs', 'Bond Coeffs', 'Angle Coeffs',
            'Dihedral Coeffs', 'Improper Coeffs', 'Atoms', 'Velocities',
            'Bonds', 'Angles', 'Dihedrals', 'Impropers')


class DataError(Exception):
    pass


def read_data(path):
    """Reads a LAMMPS data file (atom_style full, orthogonal box).

    Returns a dict: 'box' [(lo, hi)]*3, 'counts' from the header, and one list
    per section: each row (line number, tokens). Errors name file and line.
    """
    d = {'box': [None, None, None], 'counts': {}, 'path': path}
    with open(path) as f:
        lines = f.read().split('\n')
    section = None
    rows = None
    for num, raw in enumerate(lines[1:], start=2):   # line 1 is the title
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        if line in SECTIONS:
            section = line
            rows = d.setdefault(section, [])
            continue
        tok = line.split()
        if section is None:
            if len(tok) == 4 and tok[2][1:] == 'lo' and tok[3][1:] == 'hi':
                axis = 'xyz'.index(tok[2][0])
                d['box'][axis] = (float(tok[0]), float(tok[1]))
            elif len(tok) == 6 and tok[3:] == ['xy', 'xz', 'yz']:
                if any(float(t) != 0.0 for t in tok[:3]):
                    raise DataError('%s:%d: triclinic box not supported' % (path, num))
            elif len(tok) >= 2 and tok[0].isdigit():
                d['counts'][' '.join(tok[1:])] = int(tok[0])
            else:
                raise DataError('%s:%d: header line not understood: %s' % (path, num, raw))
        else:
            if tok[0][0].isalpha():
                raise DataError('%s:%d: unknown section %r' % (path, num, line))
            rows.append((num, tok))
    if None in d['box']:
        raise DataError('%s: box bounds xlo xhi / ylo yhi / zlo zhi missing' % path)
    for sec, key in (('Atoms', 'atoms'), ('Bonds', 'bonds'), ('Angles', 'angles'),
                     ('Dihedrals', 'dihedrals'), ('Impropers', 'impropers')):
        n = d['counts'].get(key, 0)
        if len(d.get(sec, [])) != n:
            raise DataError('%s: %d lines in %s, header says %d %s'
                            % (path, len(d.get(sec, [])), sec, n, key))
    return d


def _table(d, sec, ncols, conv):
    """Type-indexed coefficient table {type: tuple}; each row 1 + ncols tokens."""
    out = {}
    for num, tok in d.get(sec, []):
        if len(tok) != ncols + 1:
            raise DataError('%s:%d: %s line needs %d values, has %d'
                            % (d['path'], num, sec, ncols + 1, len(tok)))
        try:
            out[int(tok[0])] = tuple(c(t) for c, t in zip(conv, tok[1:]))
        except ValueError as e:
            raise DataError('%s:%d: %s: %s' % (d['path'], num, sec, e))
    return out


def _topology(d, sec, natom):
    """[(type, (atom indices 0-based))] from a Bonds/Angles/... section."""
    out = []
    for num, tok in d.get(sec, []):
        if len(tok) != 2 + natom:
            raise DataError('%s:%d: %s line needs %d values' % (d['path'], num, sec, 2 + natom))
        out.append((int(tok[1]), tuple(int(t) - 1 for t in tok[2:])))
    return out


class Rhodo:
    """The LAMMPS model, read and checked: atoms, parameters, topology, SHAKE."""

    def __init__(self, path):
        d = read_data(path)
        self.path = path
        self.box = [hi - lo for lo, hi in d['box']]
        f = float
        self.mass_of_type = {t: v[0] for t, v in _table(d, 'Masses', 1, (f,)).items()}
        self.pair = _table(d, 'Pair Coeffs', 4, (f, f, f, f))   # eps sig eps14 sig14
        self.bond_coeff = _table(d, 'Bond Coeffs', 2, (f, f))    # K r0
        self.angle_coeff = _table(d, 'Angle Coeffs', 4, (f, f, f, f))  # K th0 Kub rub
        self.dihed_coeff = _table(d, 'Dihedral Coeffs', 4, (f, int, int, f))  # K n d w
        self.impr_coeff = _table(d, 'Improper Coeffs', 2, (f, f))  # K chi0
        n = d['counts']['atoms']
        self.natoms = n
        self.type = [0] * n
        self.q = [0.0] * n
        self.pos = [None] * n          # Angstrom, unwrapped by image flags
        for num, tok in d['Atoms']:
            if len(tok) not in (7, 10):
                raise DataError('%s:%d: Atoms (full) line needs 7 or 10 values' % (path, num))
            i = int(tok[0]) - 1
            if not 0 <= i < n or self.pos[i] is not None:
                raise DataError('%s:%d: atom ID %s out of range or repeated' % (path, num, tok[0]))
            self.type[i] = int(tok[2])
            self.q[i] = float(tok[3])
            img = [int(t) for t in tok[7:10]] if len(tok) == 10 else [0, 0, 0]
            self.pos[i] = tuple(float(tok[4 + k]) + img[k] * self.box[k] for k in range(3))
            if self.type[i] not in self.pair or self.type[i] not in self.mass_of_type:
                raise DataError('%s:%d: atom type %d has no Masses or Pair Coeffs line'
                                % (path, num, self.type[i]))
        self.vel = [(0.0, 0.0, 0.0)] * n   # Angstrom/fs
        for num, tok in d.get('Velocities', []):
            self.vel[int(tok[0]) - 1] = tuple(float(t) for t in tok[1:4])
        self.mass = [self.mass_of_type[t] for t in self.type]
        self.bonds = _topology(d, 'Bonds', 2)
        self.angles = _topology(d, 'Angles', 3)
        self.diheds = _topology(d, 'Dihedrals', 4)
        self.imprs = _topology(d, 'Impropers', 4)
        for name, topo, coeff in (('bond', self.bonds, self.bond_coeff),
                                  ('angle', self.angles, self.angle_coeff),
                                  ('dihedral', self.diheds, self.dihed_coeff),
                                  ('improper', self.imprs, self.impr_coeff)):
            for t, _ in topo:
                if t not in coeff:
                    raise DataError('%s: %s type %d has no coefficients' % (path, name, t))
        self._check_whole()
        self._find_shake()

    def _check_whole(self):
        """Unwrapped bonded atoms must be close: OpenMM takes coordinates whole."""
        worst = 0.0
        for _, (i, j) in self.bonds:
            r = math.dist(self.pos[i], self.pos[j])
            worst = max(worst, r)
        if worst > 0.5 * min(self.box):
            raise DataError('%s: a bond spans %.2f A after unwrapping with image flags'
                            % (self.path, worst))

    def _find_shake(self):
        """Constraints as LAMMPS FixShake::find_clusters builds them for
        'm 1.0 a 232' (see the module comment). Sets self.constraints
        [(i, j, r0 Angstrom)], self.shake_bonds (set of bond indices) and
        self.shake_angles (set of angle indices), and self.clusters counts."""
        n = self.natoms
        partners = [[] for _ in range(n)]     # (partner, bond index)
        for b, (t, (i, j)) in enumerate(self.bonds):
            partners[i].append((j, b))
            partners[j].append((i, b))
        heavy_ok = [abs(m - SHAKE_MASS) > SHAKE_MASSDELTA for m in self.mass]
        shake_b = [[(j, b) for j, b in partners[i] if not (heavy_ok[i] and heavy_ok[j])]
                   for i in range(n)]
        nshake = [len(s) for s in shake_b]
        if max(nshake) > 3:
            raise DataError('%s: SHAKE cluster of more than 4 atoms' % self.path)
        for i in range(n):
            if nshake[i] > 1 and any(nshake[j] > 1 for j, _ in shake_b[i]):
                raise DataError('%s: SHAKE clusters are connected (atom %d)' % (self.path, i + 1))
        angle_at = {}
        for a, (t, (i, j, k)) in enumerate(self.angles):
            angle_at[(j, min(i, k), max(i, k))] = a
        self.constraints, self.shake_bonds, self.shake_angles = [], set(), set()
        self.clusters = {2: 0, 3: 0, 4: 0, 'angle': 0}
        for i in range(n):
            if nshake[i] == 1:
                j, b = shake_b[i][0]
                if nshake[j] == 1 and i < j:
                    self.clusters[2] += 1
                    self.shake_bonds.add(b)
            elif nshake[i] > 1:
                for j, b in shake_b[i]:
                    self.shake_bonds.add(b)
                ang = None
                if nshake[i] == 2:
                    (j, b1), (k, b2) = shake_b[i]
                    ang = angle_at.get((i, min(j, k), max(j, k)))
                    if ang is not None and self.angles[ang][0] not in SHAKE_ANGLE_TYPES:
                        ang = None
                if ang is not None:
                    self.clusters['angle'] += 1
                    self.shake_angles.add(ang)
                    r1 = self.bond_coeff[self.bonds[b1][0]][1]
                    r2 = self.bond_coeff[self.bonds[b2][0]][1]
                    th = math.radians(self.angle_coeff[self.angles[ang][0]][1])
                    self.constraints.append((j, k, math.sqrt(r1 * r1 + r2 * r2 - 2 * r1 * r2 * math.cos(th))))
                else:
                    self.clusters[nshake[i] + 1] += 1
        for b in sorted(self.shake_bonds):
            t, (i, j) = self.bonds[b]
            self.constraints.append((i, j, self.bond_coeff[t][1]))

    def exclusions(self):
        """Pairs (i<j) within three bonds: special_bonds charmm's 0 0 0."""
        nbr = [[] for _ in range(self.natoms)]
        for _, (i, j) in self.bonds:
            nbr[i].append(j)
            nbr[j].append(i)
        out = set()
        for i in range(self.natoms):
            seen = {i}
            front = [i]
            for _ in range(3):
                nxt = []
                for a in front:
                    for b in nbr[a]:
                        if b not in seen:
                            seen.add(b)
                            nxt.append(b)
                front = nxt
            out.update((i, j) for j in seen if j > i)
        return out


def build_system(m, shake=True, lj='custom', split14=False, grid=PPPM_GRID):
    """OpenMM System for the model. Force groups: 0 bond, 1 angle (+UB),
    2 dihedral, 3 improper, 4 LJ (+1-4 LJ if split14), 5 Coulomb real space
    (+ 1-4 pairs: both LJ and Coulomb unless split14), 6 PME reciprocal+self.
    shake=False keeps every bond and angle as a force (the energy check
    compares that with LAMMPS without fix shake)."""
    s = mm.System()
    L = [x * ANG for x in m.box]
    s.setDefaultPeriodicBoxVectors(mm.Vec3(L[0], 0, 0), mm.Vec3(0, L[1], 0), mm.Vec3(0, 0, L[2]))
    for mass in m.mass:
        s.addParticle(mass)
    if shake:
        for i, j, r0 in m.constraints:
            s.addConstraint(i, j, r0 * ANG)
    skip_b = m.shake_bonds if shake else set()
    skip_a = m.shake_angles if shake else set()

    bond = mm.HarmonicBondForce()
    for b, (t, (i, j)) in enumerate(m.bonds):
        if b not in skip_b:
            K, r0 = m.bond_coeff[t]
            bond.addBond(i, j, r0 * ANG, 2 * K * KCAL / ANG ** 2)
    bond.setForceGroup(0)
    s.addForce(bond)

    angle = mm.HarmonicAngleForce()
    ub = mm.HarmonicBondForce()
    for a, (t, (i, j, k)) in enumerate(m.angles):
        if a in skip_a:
            continue
        K, th0, Kub, rub = m.angle_coeff[t]
        angle.addAngle(i, j, k, math.radians(th0), 2 * K * KCAL)
        if Kub != 0.0:
            ub.addBond(i, k, rub * ANG, 2 * Kub * KCAL / ANG ** 2)
    angle.setForceGroup(1)
    ub.setForceGroup(1)
    s.addForce(angle)
    s.addForce(ub)

    tors = mm.PeriodicTorsionForce()
    w14 = {}                                   # (i, l) -> summed weight
    for t, (i, j, k, l) in m.diheds:
        K, n, dg, w = m.dihed_coeff[t]
        if n < 1:
            raise DataError('%s: dihedral type %d: n = %d, OpenMM needs n >= 1' % (m.path, t, n))
        tors.addTorsion(i, j, k, l, n, math.radians(dg), K * KCAL)
        if w > 0.0:
            key = (min(i, l), max(i, l))
            w14[key] = w14.get(key, 0.0) + w
    tors.setForceGroup(2)
    s.addForce(tors)

    impr = mm.CustomTorsionForce('k*(abs(theta)-chi0)^2')
    impr.addPerTorsionParameter('k')
    impr.addPerTorsionParameter('chi0')
    for t, (i, j, k, l) in m.imprs:
        K, chi0 = m.impr_coeff[t]
        impr.addTorsion(i, j, k, l, [K * KCAL, math.radians(chi0)])
    impr.setForceGroup(3)
    s.addForce(impr)

    excl = m.exclusions()
    missing = [p for p in w14 if p not in excl]
    if missing:
        raise DataError('%s: dihedral 1-4 pair %d-%d is not within 3 bonds'
                        % (m.path, missing[0][0] + 1, missing[0][1] + 1))

    def mixed14(i, j):
        _, _, e1, s1 = m.pair[m.type[i]]
        _, _, e2, s2 = m.pair[m.type[j]]
        return math.sqrt(e1 * e2) * KCAL, 0.5 * (s1 + s2) * ANG

    nb = mm.NonbondedForce()
    nb.setNonbondedMethod(mm.NonbondedForce.PME)
    nb.setCutoffDistance(CUT_COUL * ANG)
    nb.setPMEParameters(PPPM_G_EWALD / ANG, *grid)
    nb.setUseDispersionCorrection(False)
    nb.setReciprocalSpaceForceGroup(6)
    nb.setForceGroup(5)
    native = (lj == 'native')
    for i in range(m.natoms):
        eps, sig, _, _ = m.pair[m.type[i]]
        if native:
            nb.addParticle(m.q[i], sig * ANG, eps * KCAL)
        else:
            nb.addParticle(m.q[i], 1.0, 0.0)
    if native:
        nb.setUseSwitchingFunction(True)
        nb.setSwitchingDistance(CUT_LJ_INNER * ANG)
    for (i, j) in sorted(excl):
        w = 0.0 if split14 else w14.get((i, j), 0.0)
        if w > 0.0:
            e14, s14 = mixed14(i, j)
            nb.addException(i, j, w * m.q[i] * m.q[j], s14, w * e14)
        else:
            nb.addException(i, j, 0.0, 1.0, 0.0)
    s.addForce(nb)

    if not native:
        ri2, rc2 = (CUT_LJ_INNER * ANG) ** 2, (CUT_LJ * ANG) ** 2
        expr = ('4*eps*(sr6*sr6-sr6)*sw;'
                'sw=select(step(r2-%.17g),(%.17g-r2)^2*(%.17g+2*r2-%.17g)/%.17g,1);'
                'sr6=(sig*sig/r2)^3; r2=r*r; eps=e1*e2; sig=s1+s2'
                % (ri2, rc2, rc2, 3 * ri2, (rc2 - ri2) ** 3))
        ljf = mm.CustomNonbondedForce(expr)
        ljf.addPerParticleParameter('e')     # sqrt(eps), so eps_ij = e1*e2
        ljf.addPerParticleParameter('s')     # sigma/2, so sigma_ij = s1+s2
        ljf.setNonbondedMethod(mm.CustomNonbondedForce.CutoffPeriodic)
        ljf.setCutoffDistance(CUT_LJ * ANG)
        ljf.setUseLongRangeCorrection(False)
        for i in range(m.natoms):
            eps, sig, _, _ = m.pair[m.type[i]]
            ljf.addParticle([math.sqrt(eps * KCAL), 0.5 * sig * ANG])
        for (i, j) in sorted(excl):
            ljf.addExclusion(i, j)
        ljf.setForceGroup(4)
        s.addForce(ljf)

    if split14:
        # The same 1-4 pairs as two bond forces so LJ and Coulomb report apart.
        lj14 = mm.CustomBondForce('4*eps*((sig/r)^12-(sig/r)^6)')
        lj14.addPerBondParameter('eps')
        lj14.addPerBondParameter('sig')
        c14 = mm.CustomBondForce('%.17g*qq/r' % ONE_4PI_EPS0)
        c14.addPerBondParameter('qq')
        for (i, j), w in sorted(w14.items()):
            e14, s14 = mixed14(i, j)
            lj14.addBond(i, j, [w * e14, s14])
            c14.addBond(i, j, [w * m.q[i] * m.q[j]])
        lj14.setForceGroup(4)
        c14.setForceGroup(5)
        s.addForce(lj14)
        s.addForce(c14)
    return s


def positions_nm(m):
    return [mm.Vec3(*(c * ANG for c in p)) for p in m.pos]


def velocities_nm_ps(m):
    return [mm.Vec3(*(c * 100.0 for c in v)) for v in m.vel]   # A/fs -> nm/ps


def lammps_erfc_shift(m, plat, props):
    """kcal/mol that LAMMPS's real-space Coulomb differs by from the exact one:
    lj/charmm/coul/long (table 0) uses the Abramowitz-Stegun 7.1.26 polynomial
    for erfc (|error| <= 1.5e-7), for every pair within the cutoff (excluded
    pairs too: it subtracts prefactor*(1 - erfc_poly) from them). Summed here
    with OpenMM as qq/r (erfc_poly - erfc) over all pairs within 10 A."""
    s = mm.System()
    L = [x * ANG for x in m.box]
    s.setDefaultPeriodicBoxVectors(mm.Vec3(L[0], 0, 0), mm.Vec3(0, L[1], 0), mm.Vec3(0, 0, L[2]))
    f = mm.CustomNonbondedForce(
        '%.17g*q1*q2/r*(t*(0.254829592+t*(-0.284496736+t*(1.421413741+t*(-1.453152027'
        '+t*1.061405429))))*exp(-x*x)-erfc(x)); t=1/(1+0.3275911*x); x=%.17g*r'
        % (ONE_4PI_EPS0, PPPM_G_EWALD / ANG))
    f.addPerParticleParameter('q')
    f.setNonbondedMethod(mm.CustomNonbondedForce.CutoffPeriodic)
    f.setCutoffDistance(CUT_COUL * ANG)
    for i in range(m.natoms):
        s.addParticle(m.mass[i])
        f.addParticle([m.q[i]])
    s.addForce(f)
    ctx = mm.Context(s, mm.VerletIntegrator(0.001), plat, props)
    ctx.setPositions(positions_nm(m))
    return ctx.getState(getEnergy=True).getPotentialEnergy().value_in_unit(
        mm.unit.kilojoule_per_mole) / KCAL


def read_lammps_log(path):
    """The step-0 row of 'thermo_style custom step ebond ... pe' in a log."""
    keys = {'E_bond': 'ebond', 'E_angle': 'eangle', 'E_dihed': 'edihed',
            'E_impro': 'eimp', 'E_vdwl': 'evdwl', 'E_coul': 'ecoul',
            'E_long': 'elong', 'PotEng': 'pe'}
    with open(path) as f:
        lines = f.readlines()
    for n, line in enumerate(lines):
        tok = line.split()
        if tok and tok[0] == 'Step' and 'E_bond' in tok:
            vals = lines[n + 1].split()
            return {keys[k]: float(v) for k, v in zip(tok, vals) if k in keys}
    raise DataError('%s: no "Step ... E_bond ..." thermo header' % path)


def verify(m, args):
    if args.lammps_log:
        ref = read_lammps_log(args.lammps_log)
    else:
        ref = LAMMPS_REF_FINE if tuple(args.pme_grid) == FINE_GRID else LAMMPS_REF
    plat = mm.Platform.getPlatformByName(args.platform or 'Reference')
    props = {'Precision': 'double'} if plat.getName() in ('CUDA', 'OpenCL') else {}
    if plat.getName() == 'CPU':
        props = {'Threads': str(args.threads)} if args.threads else {}
    t0 = time.time()
    for split14 in (True, False):
        sysm = build_system(m, shake=False, split14=split14, grid=args.pme_grid)
        ctx = mm.Context(sysm, mm.VerletIntegrator(0.001), plat, props)
        ctx.setPositions(positions_nm(m))

        def e(groups):
            st = ctx.getState(getEnergy=True, groups=set(groups))
            return st.getPotentialEnergy().value_in_unit(mm.unit.kilojoule_per_mole) / KCAL
        if split14:
            got = {'ebond': e([0]), 'eangle': e([1]), 'edihed': e([2]), 'eimp': e([3]),
                   'evdwl': e([4]), 'ecoul': e([5]), 'elong': e([6])}
            got['pe'] = sum(got.values())
        else:
            pe_exc = e(range(7))
        del ctx
    print('platform %s; %d atoms, box %s A; PME grid %s; build+energies %.1f s'
          % (plat.getName(), m.natoms, ' x '.join('%.4f' % b for b in m.box),
             ' '.join(map(str, args.pme_grid)), time.time() - t0))
    print('%-7s %18s %18s %12s %10s' % ('term', 'LAMMPS kcal/mol', 'OpenMM kcal/mol', 'diff', 'rel'))
    rel = {}
    for k in ('ebond', 'eangle', 'edihed', 'eimp', 'evdwl', 'ecoul', 'elong', 'pe'):
        diff = got[k] - ref[k]
        rel[k] = abs(diff) / max(abs(ref[k]), 1e-300)
        print('%-7s %18.8f %18.8f %12.3e %10.2e' % (k, ref[k], got[k], diff, rel[k]))
    ec = got['ecoul'] + got['elong']
    rc = ref['ecoul'] + ref['elong']
    print('%-7s %18.8f %18.8f %12.3e %10.2e' % ('coul+long', rc, ec, ec - rc, abs(ec - rc) / abs(rc)))
    # The same, as LAMMPS computes them: its Coulomb constant (1e-8 below
    # OpenMM's) and its erfc polynomial. What is left is the conversion.
    shift = lammps_erfc_shift(m, plat, props)
    for k, v in (('ecoul', got['ecoul'] * COUL_RATIO + shift), ('elong', got['elong'] * COUL_RATIO)):
        rel[k + '*'] = abs(v - ref[k]) / abs(ref[k])
        print('%-7s %18.8f %18.8f %12.3e %10.2e' % (k + '*', ref[k], v, v - ref[k], rel[k + '*']))
    print('(* = OpenMM x %.10f, LAMMPS\'s qqrd2e %.5f over OpenMM\'s; ecoul* also + %.6f, '
          'LAMMPS\'s erfc polynomial)' % (COUL_RATIO, QQRD2E_LAMMPS, shift))
    print('pe with the 1-4 pairs as NonbondedForce exceptions (the timed system): %.8f '
          '(vs split: %.3e)' % (pe_exc, pe_exc - got['pe']))
    rel['exceptions'] = abs(pe_exc - got['pe']) / abs(got['pe'])
    fine = tuple(args.pme_grid) == FINE_GRID
    if not fine:
        print('(elong: PPPM and PME on the 25x32x32 mesh each err by their own ~1e-4; '
              'both converge to the same value: --pme-grid 108 144 144, in.rhodo.energy -var fine 1)')
    tol = args.tol
    bounds = [('ebond', tol), ('eangle', tol), ('edihed', tol), ('eimp', tol), ('evdwl', tol),
              ('ecoul*', tol), ('exceptions', tol), ('elong*', tol if fine else 2e-4)]
    failed = 0
    for k, b in bounds:
        ok = rel[k] <= b           # False for NaN
        failed += not ok
        print('check %-10s relative %.2e <= %.0e: %s' % (k, rel[k], b, 'ok' if ok else 'FAIL'))
    print('verify: %d passed, %d failed' % (len(bounds) - failed, failed))
    return 1 if failed else 0


def make_integrator(args):
    dt = 0.002   # ps (timestep 2.0 fs)
    if args.integrator == 'nh':
        integ = mm.NoseHooverIntegrator(300.0, 10.0, dt, 1, 1, 1)
    else:
        integ = mm.LangevinMiddleIntegrator(300.0, 1.0, dt)
    integ.setConstraintTolerance(SHAKE_TOL)
    return integ


def start_state(m, ctx, sysm, integ):
    """LAMMPS's positions and velocities, as its step 0 has them. LAMMPS's
    velocities are at t (velocity Verlet); OpenMM's NoseHooverIntegrator and
    LangevinMiddleIntegrator keep them half a step back, so they get
    v(-dt/2) = v(0) - (dt/2) F/m: without it the first step gives the
    hydrogens an extra half kick (T jumps to ~330 K, PE drops ~1700 kcal/mol)."""
    ctx.setPositions(positions_nm(m))
    ctx.applyConstraints(SHAKE_TOL)
    f = ctx.getState(getForces=True).getForces()
    half = 0.5 * integ.getStepSize().value_in_unit(mm.unit.picosecond)
    unit = mm.unit.kilojoule_per_mole / mm.unit.nanometer
    vel = []
    for i, v in enumerate(velocities_nm_ps(m)):
        k = half / sysm.getParticleMass(i).value_in_unit(mm.unit.dalton)
        fi = f[i].value_in_unit(unit)
        vel.append(mm.Vec3(v[0] - k * fi[0], v[1] - k * fi[1], v[2] - k * fi[2]))
    ctx.setVelocities(vel)
    ctx.applyVelocityConstraints(SHAKE_TOL)


def thermo(ctx, sysm, m):
    """(T in K, PE in kcal/mol, box z in A), T with LAMMPS's degrees of freedom."""
    st = ctx.getState(getEnergy=True)
    ke = st.getKineticEnergy().value_in_unit(mm.unit.kilojoule_per_mole)
    ndf = 3 * m.natoms - sysm.getNumConstraints() - 3
    return (2 * ke / (ndf * 0.00831446261815324),
            st.getPotentialEnergy().value_in_unit(mm.unit.kilojoule_per_mole) / KCAL,
            st.getPeriodicBoxVectors()[2][2].value_in_unit(mm.unit.nanometer) * 10)


def timing(m, args):
    t_build = time.time()
    sysm = build_system(m, shake=True, lj=args.lj, grid=args.pme_grid)
    if not args.no_barostat:
        sysm.addForce(mm.MonteCarloAnisotropicBarostat(mm.Vec3(0.0, 0.0, 0.0), 300.0,
                                                       False, False, True, 25))
    plat = mm.Platform.getPlatformByName(args.platform)
    props = {}
    if plat.getName() in ('CUDA', 'OpenCL', 'HIP'):
        props['Precision'] = args.precision
        if args.device is not None:
            props['DeviceIndex'] = str(args.device)
    if plat.getName() == 'OpenCL' and args.opencl_platform is not None:
        props['OpenCLPlatformIndex'] = str(args.opencl_platform)
    if plat.getName() == 'CPU' and args.threads:
        props['Threads'] = str(args.threads)
    integ = make_integrator(args)
    ctx = mm.Context(sysm, integ, plat, props)
    start_state(m, ctx, sysm, integ)
    t_build = time.time() - t_build
    info = {name: plat.getPropertyValue(ctx, name) for name in plat.getPropertyNames()
            if name in ('DeviceName', 'OpenCLPlatformName', 'Precision', 'DeviceIndex',
                        'Threads', 'UseCpuPme')}
    print('OpenMM %s, platform %s %s' % (mm.__version__, plat.getName(),
                                          ' '.join('%s=%s' % kv for kv in sorted(info.items()))))
    print('system: %d atoms, %d constraints (%s), integrator %s, barostat %s, LJ %s; '
          'context ready in %.1f s' % (m.natoms, sysm.getNumConstraints(), m.clusters,
                                       args.integrator, 'off' if args.no_barostat else 'MC z/25',
                                       args.lj, t_build))

    if args.dynamics:
        # OpenMM's KE is of the half-step velocities: compare T loosely, PE closely.
        print('step %10s %14s %10s' % ('T', 'PE kcal/mol', 'Lz A'))
        print('%4d %10.3f %14.3f %10.5f' % ((0,) + thermo(ctx, sysm, m)))
        for n in range(1, args.dynamics + 1):
            integ.step(1)
            print('%4d %10.3f %14.3f %10.5f' % ((n,) + thermo(ctx, sysm, m)))
        return 0

    def sync():
        ctx.getState(getVelocities=True)   # a download: waits for the queue

    t0 = time.time()
    integ.step(args.warmup)
    sync()
    print('warm-up %d steps: %.3f s' % (args.warmup, time.time() - t0))
    times = []
    for r in range(args.repeat):
        t0 = time.perf_counter()
        integ.step(args.steps)
        sync()
        times.append(time.perf_counter() - t0)
        print('run %d: %d steps %.4f s' % (r + 1, args.steps, times[-1]))
    med = statistics.median(times)
    temp, pe, lz = thermo(ctx, sysm, m)
    print('after: PE %.1f kcal/mol, T %.1f K, box z %.4f A' % (pe, temp, lz))
    per100 = med * 100.0 / args.steps
    print('RESULT platform=%s precision=%s integrator=%s lj=%s: median %.4f s per %d steps '
          '(%.4f s per 100 steps; runs %s), %.1f ns/day'
          % (plat.getName(), info.get('Precision', '-'), args.integrator, args.lj, med, args.steps,
             per100, ' '.join('%.4f' % t for t in times),
             args.steps * 2e-6 / med * 86400))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('data', help='LAMMPS data file (data.rhodo)')
    p.add_argument('--verify', action='store_true', help='step-0 energies per term vs LAMMPS')
    p.add_argument('--lammps-log', help='LAMMPS log of bench/openmm/in.rhodo.energy')
    p.add_argument('--tol', type=float, default=1e-6,
                   help='relative bound for bonded, LJ, Coulomb real space (verify)')
    p.add_argument('--platform', help='Reference (verify default), CPU, OpenCL, CUDA')
    p.add_argument('--precision', default='mixed', choices=('single', 'mixed', 'double'))
    p.add_argument('--device', type=int)
    p.add_argument('--opencl-platform', type=int)
    p.add_argument('--threads', type=int)
    p.add_argument('--steps', type=int, default=100)
    p.add_argument('--repeat', type=int, default=3)
    p.add_argument('--warmup', type=int, default=100)
    p.add_argument('--integrator', default='nh', choices=('nh', 'langevin'))
    p.add_argument('--lj', default='custom', choices=('custom', 'native'))
    p.add_argument('--no-barostat', action='store_true')
    p.add_argument('--dynamics', type=int, default=0, metavar='N',
                   help='instead of timing, print T, PE, Lz for each of N steps')
    p.add_argument('--pme-grid', type=int, nargs=3, default=list(PPPM_GRID), metavar='N',
                   help='PME grid (default LAMMPS pppm 1e-4: %d %d %d)' % PPPM_GRID)
    args = p.parse_args(argv)
    try:
        t0 = time.time()
        m = Rhodo(args.data)
        print('read %s in %.1f s: %d atoms, %d bonds, %d angles, %d dihedrals, %d impropers; '
              'SHAKE: %d size-2, %d size-3, %d size-4 clusters, %d angles = %d constraints'
              % (args.data, time.time() - t0, m.natoms, len(m.bonds), len(m.angles),
                 len(m.diheds), len(m.imprs), m.clusters[2], m.clusters[3], m.clusters[4],
                 m.clusters['angle'], len(m.constraints)))
        if args.verify:
            return verify(m, args)
        if not args.platform:
            p.error('--platform is needed for timing (or give --verify)')
        return timing(m, args)
    except (DataError, OSError) as e:
        print('rhodo_openmm: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
