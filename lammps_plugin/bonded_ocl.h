/* -*- c++ -*-
 * bond_style harmonic/ocl, angle_style charmm/ocl, dihedral_style charmm/ocl
 * and improper_style harmonic/ocl: LAMMPS's CPU styles with compute() done
 * by libstreamcl's bonded module (OpenCL).
 *
 * Thin by design: coefficients, restart, write_data, init_style (the 1-4
 * checks of dihedral charmm) are LAMMPS's own (the classes derive from the
 * CPU styles). The four styles of one LAMMPS share one engine: the first of
 * them LAMMPS calls in a force evaluation uploads x once and queues every
 * active kind of term on the device, returning at once; an internal fix
 * (STREAMCL/BONDED) collects in pre_reverse (after kspace, before reverse
 * communication): all the forces into atom->f, and each style its own
 * energies, virial and per-atom tallies (the 1-4 pairs of dihedral charmm
 * into the pair style's books, as LAMMPS's CPU style does). The term lists go up only when LAMMPS rebuilds them
 * (neighbor->ago == 0, or their sizes changed).
 *
 * Device: STREAMCL_DEVICE (default: this rank's GPU, the node's GPUs shared
 * round robin as the pair style does, else the default device). Precision:
 * STREAMCL_PRECISION (mixed, the default, or double; single means mixed).
 * Steps that ask for the centroid per-atom virial (compute
 * centroid/stress/atom) run LAMMPS's CPU code, and so does every step on a
 * CPU device (OpenCL there shares LAMMPS's cores and is slower than its own
 * loops) unless STREAMCL_BONDED=1 (StreamclContext::bonded_mode).
 */
#ifndef LMP_BONDED_OCL_H
#define LMP_BONDED_OCL_H

#include "angle_charmm.h"
#include "bond_harmonic.h"
#include "dihedral_charmm.h"
#include "improper_harmonic.h"

#include "streamcl/bonded.h"

#include <vector>

namespace LAMMPS_NS {

class BondedOCLEngine;

class BondHarmonicOCL : public BondHarmonic {
 public:
  static const char *const STYLE;   // "harmonic/ocl"
  static Bond *creator(LAMMPS *lmp);
  BondHarmonicOCL(LAMMPS *lmp);
  ~BondHarmonicOCL() override;
  void compute(int eflag, int vflag) override;
  void init_style() override;
  void coeffs(scl_bonded_coeffs &c);
  void deliver();   // the engine's results of this kind into this style's tallies
  BondedOCLEngine *engine;
};

class AngleCharmmOCL : public AngleCharmm {
 public:
  static const char *const STYLE;   // "charmm/ocl"
  static Angle *creator(LAMMPS *lmp);
  AngleCharmmOCL(LAMMPS *lmp);
  ~AngleCharmmOCL() override;
  void compute(int eflag, int vflag) override;
  void init_style() override;
  void coeffs(scl_bonded_coeffs &c);
  void deliver();   // the engine's results of this kind into this style's tallies
  BondedOCLEngine *engine;
};

class DihedralCharmmOCL : public DihedralCharmm {
 public:
  static const char *const STYLE;   // "charmm/ocl"
  static Dihedral *creator(LAMMPS *lmp);
  DihedralCharmmOCL(LAMMPS *lmp);
  ~DihedralCharmmOCL() override;
  void compute(int eflag, int vflag) override;
  void init_style() override;
  void coeffs(scl_bonded_coeffs &c);
  void deliver();   // the engine's results of this kind into this style's tallies
  BondedOCLEngine *engine;

 private:
  std::vector<double> shift_deg, lj14[4];
};

class ImproperHarmonicOCL : public ImproperHarmonic {
 public:
  static const char *const STYLE;   // "harmonic/ocl"
  static Improper *creator(LAMMPS *lmp);
  ImproperHarmonicOCL(LAMMPS *lmp);
  ~ImproperHarmonicOCL() override;
  void compute(int eflag, int vflag) override;
  void init_style() override;
  void coeffs(scl_bonded_coeffs &c);
  void deliver();   // the engine's results of this kind into this style's tallies
  BondedOCLEngine *engine;
};

// Whether the bonded evaluation in flight adds its forces into the pair's
// device rows (one download); *ghosts / *n then receive the ghost atom of
// each extra row it writes (row nlocal + j: (*ghosts)[j]). For fix
// shake/ocl's solve inside those rows. false when none is in flight.
// run_style verlet/ocl: the bonded style of `kind` (0 bond, 1 angle, 2
// dihedral, 3 improper) is an /ocl style that reads the step's x, ghost rows
// included, from the pair style's device copy (not LAMMPS's arrays).
bool bonded_ocl_reads_device_x(LAMMPS *lmp, int kind);
bool bonded_ocl_forces_in_pair(LAMMPS *lmp, const int **ghosts, int *n);

}    // namespace LAMMPS_NS

// Adds the four styles to lmp's style tables (and so to -sf ocl), unless the
// environment has STREAMCL_BONDED=0 (then -sf ocl keeps the CPU styles).

#endif
