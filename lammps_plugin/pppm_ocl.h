/* -*- c++ -*-
 * kspace_style pppm/ocl: LAMMPS's pppm with the particle-mesh work (charge
 * assignment and force interpolation) done by libstreamcl (OpenCL).
 *
 * Everything else is LAMMPS's own PPPM: grid and g_ewald selection, accuracy
 * estimate, kspace_modify options, grid communication, the FFTs and Poisson
 * solve, energy and virial. compute() queues the interpolation and returns;
 * FixStreamclCollect adds the forces in pre_reverse (after bonds, before
 * reverse communication), as it does for pair_style lj/charmm/coul/long/ocl.
 * Per-atom energy/virial (when requested) are interpolated on the host.
 * Refused with an error: triclinic boxes, kspace_modify slab, kspace_modify
 * diff ad, compute group/group, run_style respa.
 */
#ifndef LMP_PPPM_OCL_H
#define LMP_PPPM_OCL_H

#include "pppm.h"

#include "streamcl/pppm.h"

#include <string>
#include <vector>

namespace LAMMPS_NS {

class PPPMOCL : public PPPM {
 public:
  static const char *const STYLE;    // "pppm/ocl"
  static KSpace *creator(LAMMPS *lmp);

  PPPMOCL(LAMMPS *lmp);
  ~PPPMOCL() override;
  void settings(int narg, char **arg) override;
  void init() override;
  void compute(int eflag, int vflag) override;
  void compute_group_group(int, int, int) override;

  // Add the forces of the step compute() started; no-op when none is pending.
  void collect();
  void begin_run_stats();
  // "Device Time Info" of the kspace part of the run (rank 0 prints; collective).
  void report_run();

 private:
  std::string device_spec;
  int fp64;                      // precision double
  scl_context *ctx;
  std::string ctx_device_spec;
  scl_pppm *engine;
  scl_pppm_params engine_params;
  bool pending;
  int pending_nlocal;
  scl_pppm_stats stats_base;
  double wait_time, host_time;   // host seconds in collect() / in compute()

  void read_env();
  void parse_keywords(int narg, char **arg);
  void ensure_engine();
  [[noreturn]] void fail(const char *file, int line, const std::string &what, scl_status st);
};

}    // namespace LAMMPS_NS

#endif
