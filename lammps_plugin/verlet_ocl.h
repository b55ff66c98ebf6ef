/* -*- c++ -*-
 * run_style verlet/ocl: LAMMPS's Verlet loop, owned by the plugin so that
 * the per-step host work the device styles make unnecessary is skipped
 * (issue 21, the device-resident step). `-sf ocl` selects it by itself
 * (register_ocl.cpp re-creates the default `verlet` with the suffix).
 *
 * First slice (one rank): between re-neighborings the ghost atoms' x is not
 * communicated on the host (comm->forward_comm), because every style of the
 * run reads its ghost rows from the device, where the pair style fills them
 * from the owned rows (its ghost gather). Output steps communicate as
 * before, so thermo, dump and restart see LAMMPS's ghost x.
 * Where some style of the run would read the host's ghost x (not a device
 * style, or one that runs LAMMPS's host code), or with several ranks, the
 * run is Verlet's own loop. After each run (below thermo's lines) the log
 * says which loop ran, and why, or on how many steps the comm was skipped. A step on
 * which a device style read the host's x after all is an error (it would be
 * silently wrong): `run_style verlet` is the way around it.
 *
 * Arguments: none, `host` (always Verlet's loop: the A/B switch of the
 * tests; STREAMCL_LOOP=host does the same for inputs run with -sf ocl,
 * bench/rhodo/step-gpu.sh's mode hostloop), `noresident` (never x, v
 * resident: the loop of the first slice) or `resident` (the default, named).
 *
 * Resident (verlet_ocl_resident.cpp; `run_style verlet/ocl noresident` or
 * STREAMCL_LOOP=noresident: not): where the only fixes are fix nve on group all and fix shake/ocl solving in
 * the pair's rows (no other fix of LAMMPS, no box change, no restart output), x and v stay on the device
 * between re-neighborings: fix nve's two halves run there (scl_integrate),
 * the pair copies the owned x rows from them (its position source), the
 * re-neighbor decision reads the largest displacement from the device (one
 * double a checked step), and x, v come down only before re-neighboring,
 * output (fix shake's statistics too) and at the end of the run; fix
 * shake/ocl reads the device v. LAMMPS's f (after reverse comm) goes up
 * once a step for the integrator. Otherwise the loop above, with a log line.
 */
#ifndef LMP_VERLET_OCL_H
#define LMP_VERLET_OCL_H

#include "verlet.h"

#include "streamcl/integrate.h"

#include <string>
#include <vector>

namespace LAMMPS_NS {

class VerletOCL : public Verlet {
 public:
  static const char *const STYLE;   // "verlet/ocl"
  static Integrate *creator(LAMMPS *lmp, int narg, char **arg);

  VerletOCL(LAMMPS *lmp, int narg, char **arg);
  void setup(int flag) override;
  void run(int n) override;
  void cleanup() override;

 private:
  bool host_only = false;   // `run_style verlet/ocl host`
  bool resident_off = false;      // `run_style verlet/ocl noresident`
  std::string resident_blocker;   // why not resident ("": resident)
  scl_integrate *integ = nullptr; // x, v on the device (resident runs)
  scl_stream *fdev = nullptr;     // LAMMPS's f, 4 doubles a row, for integ
  std::vector<double> f4, mass_i;
  long resident_uploads = 0;      // integrator set_atoms in this run
  long disp_checks = 0;           // displacement reads from the device
  std::string blocker;      // why this run is Verlet's loop ("" : ours)
  long steps_skipped = 0;   // steps of this run whose forward comm was skipped
  long steps_run = 0;       // steps of this run in this loop

  std::string find_blocker();
  std::string fix_blocker();
  void one_step(int sortflag);
  void reneighbor(bigint ntimestep, int sortflag);
  void forces();
  bool skip_forward_comm(bigint ntimestep);
  void check_no_host_x(bigint ntimestep, const long before[2]);

  // verlet_ocl_resident.cpp
  std::string find_resident_blocker();
  void resident_begin();
  void resident_set_atoms();
  void resident_upload_f();
  void resident_read_xv(bool with_x = true, bool with_v = true);
  bool resident_decide();
  void resident_step(int sortflag);
  void resident_end();
  void resident_fail(const char *what, scl_status st);
};

}    // namespace LAMMPS_NS

#endif
