/* -*- c++ -*-
 * fix shake/ocl: LAMMPS's fix shake with the per-step constraint solve (the
 * loop over clusters of post_force: shake, shake3, shake4, shake3angle) done
 * by libstreamcl on an OpenCL device, one work-item per cluster.
 *
 * Everything else is FixShake's own: the arguments, cluster finding, bond and
 * angle distances, the unconstrained update and its communication, setup's
 * coordinate correction, statistics output, restart, dof. The cluster list
 * goes up on re-neighbor steps only (pre_neighbor); each step uploads
 * xshake and x (the atoms the clusters touch; x instead copied on the device
 * from the pair style's copy of the step where it has one on this context:
 * x is unchanged from its compute to post_force; not under respa;
 * STREAMCL_SHARE_X=0 uploads), downloads the per-cluster force
 * increments (and, when the virial is wanted, per-work-group virial sums).
 * One rank, where every force of the step is in the pair style's device
 * force rows (bonded styles all /ocl, pppm/ocl, no earlier post_force fix):
 * the whole of post_force inside those rows before their one download (the
 * pair's force adder, solve_in_rows; STREAMCL_SHAKE_ROWS=0: as above).
 * On the host instead, with a note in the log: STREAMCL_SHAKE=0 (host), a
 * CPU device shared by several ranks of the node under STREAMCL_SHAKE auto
 * (the default; 1 forces the device: bench/RESULTS.md has the measurement),
 * run_style respa (its
 * post_force_respa is FixShake's), steps that want per-atom virial, a device
 * without fp64. Minimization is FixShake's: refused (29Sep2021) or its
 * harmonic restraints on the host (2022+, noted in the log).
 * The clusters are indexed as the LAMMPS being built against indexes them
 * (lammps_compat.h, STREAMCL_LAMMPS_SHAKE_CLOSEST); the solve in the rows
 * takes them by their owned atoms with the minimum image (2022+ lists a
 * cluster across the boundary by ghost images). The adder and its kernels
 * are set in setup, so the loop's first step solves in the rows too.
 * Device and precision: STREAMCL_DEVICE as the other streamcl styles; the
 * solve is in double in every precision (it matches fix shake to rounding).
 * After each run the log gets the device path's wall time per step and the
 * device seconds of solve and transfers.
 */
#ifndef LMP_FIX_SHAKE_OCL_H
#define LMP_FIX_SHAKE_OCL_H

#include "fix_shake.h"

#include "streamcl/shake.h"
#include "streamcl/charmm.h"

#include <vector>

namespace LAMMPS_NS {

class FixShakeOCL : public FixShake {
 public:
  static const char *const STYLE;    // "shake/ocl"
  static Fix *creator(LAMMPS *lmp, int narg, char **arg);

  FixShakeOCL(LAMMPS *lmp, int narg, char **arg);
  ~FixShakeOCL() override;
  void init() override;
  void setup(int vflag) override;
  void pre_neighbor() override;
  void post_force(int vflag) override;
  void post_run() override;
  // run_style verlet/ocl: the loop's steps may be solved inside the pair's
  // device force rows (set up for it), and step `step` was
  bool may_solve_in_rows() const { return rows_pair != nullptr && !host_only && engine; }
  bool solved_in_rows(bigint step) const { return rows_step == step; }
  // the step of FixShake's next statistics line (it reads ghost x)
  bigint stats_step() const { return next_output; }
  // the velocities on the device (run_style verlet/ocl resident), read
  // instead of LAMMPS's v by the solve in the rows; nullptr: LAMMPS's
  void set_device_velocities(const scl_stream *v) { device_v = v; }

 private:
  const scl_stream *device_v = nullptr;
  scl_context *ctx;
  scl_shake *engine;
  bool clusters_dirty;
  int natoms_used;                          // 1 + the largest atom index of a cluster
  std::vector<scl_shake_cluster> clusters;
  bool noted_host_virial;
  int share_x = -1;                         // x from the pair's device copy (STREAMCL_SHARE_X)
  bool host_code_chosen();   // STREAMCL_SHAKE / the device type choose FixShake's code
  bool host_only;                           // no usable device (noted in the log)
  double wall;                              // seconds in the device path of post_force this run
  long steps_device, steps_host;
  int local_rank;                           // node-local rank (init())
  int node_ranks = 1;                       // ranks on this node (init())

  void create_engine();
  bool clusters_owned = false;             // the engine's clusters: by owned atoms (rows)
  void add_cluster(int m, const int *idx);
  bool upload_clusters(bool owned);
  bool clusters_stale(bool owned) const;
  void note(const char *msg);
  scl_shake_input solve_input(int nlocal, bool periodic) const;
  void check_solve(scl_status st);

  // One rank: the unconstrained update, the solve and the constraint forces
  // inside the pair style's device force rows before its one download (its
  // force adder, called last), where every force of the step is in those
  // rows; post_force then only books the virial. STREAMCL_SHAKE_ROWS=0:
  // post_force's path (x shared, xshake up, forces down), for A/B.
  static int rows_adder(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int extra);
  int solve_in_rows(scl_stream *f, scl_type type, int nlocal);
  bool forces_in_rows(const int **ghosts, int *nghosts);
  bool set_extra_rows(const int *ghosts, int nghosts, int nlocal);
  void ensure_rows_adder();
  int rows_mode = -1;                   // STREAMCL_SHAKE_ROWS (1 unless "0")
  const void *rows_pair = nullptr;      // the pair style our adder is set on
  bigint rows_step = -1;                // the step solved in the rows
  bool rows_tallied = false;
  double rows_virial[6] = {0, 0, 0, 0, 0, 0};
  long steps_rows = 0;
  bigint extra_step = -1;               // extra rows of the bonded ghosts set for this
  int extra_nlocal = -1;
  std::vector<int> extra_ghosts, extra_start, extra_rows;
};

}    // namespace LAMMPS_NS

#endif
