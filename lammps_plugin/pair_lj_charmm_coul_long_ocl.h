/* -*- c++ -*-
 * pair_style lj/charmm/coul/long/ocl: LAMMPS's lj/charmm/coul/long with the
 * pair forces computed by libstreamcl's charmm engine (OpenCL).
 *
 * Thin by design: coefficients, mixing, init_one, restart, write_data and
 * extract() are inherited from LAMMPS's own PairLJCharmmCoulLong; all pair
 * physics runs in libstreamcl. The class only moves data:
 *   compute()      re-neighbor steps: hand atoms + specials to the engine;
 *                  every step: enqueue the device work and return at once
 *   collect()      called by FixStreamclCollect::pre_reverse (after bond and
 *                  kspace, before reverse comm and post_force/fix shake):
 *                  wait, add forces, energies, virial, per-atom tallies.
 */
#ifndef LMP_PAIR_LJ_CHARMM_COUL_LONG_OCL_H
#define LMP_PAIR_LJ_CHARMM_COUL_LONG_OCL_H

#include "device_styles.h"
#include "pair_lj_charmm_coul_long.h"

#include "streamcl/charmm.h"

#include <cstdint>
#include <string>
#include <vector>

namespace LAMMPS_NS {

class PairLJCharmmCoulLongOCL : public PairLJCharmmCoulLong, public StreamclDevicePair {
 public:
  static const char *const STYLE;   // "lj/charmm/coul/long/ocl"
  static Pair *creator(LAMMPS *lmp);

  PairLJCharmmCoulLongOCL(LAMMPS *lmp);
  ~PairLJCharmmCoulLongOCL() override;
  void compute(int eflag, int vflag) override;
  void settings(int narg, char **arg) override;
  void init_style() override;

  // Finish the step started by compute(): add forces/energies/virial. No-op
  // when nothing is pending.
  void collect() override;
  // Start the per-run statistics (end of setup: the timed loop follows).
  void begin_run_stats() override;
  // "Device Time Info" of the run that just ended (rank 0 prints; collective).
  void report_run() override;
  // This step's positions on the device (see scl_charmm_positions) for
  // another style on the same context, when compute() started a step with
  // natoms atoms; nullptr otherwise (then that style uploads x itself).
  const scl_stream *device_positions(const scl_context *other, int natoms) const override;
  const scl_context *context() const override { return ctx; }
  scl_status set_position_source(const scl_stream *x) override
  {
    return engine ? scl_charmm_set_position_source(engine, x) : (x ? SCL_ERR_ARGUMENT : SCL_OK);
  }
  bool ghosts_gathered() const override { return engine && ghosts_on; }
  // The engine whose step forces another style on context `other` adds into
  // (scl_charmm_set_force_hook); nullptr on another context or without one.
  scl_charmm *force_engine(const scl_context *other) const override
  {
    return other == ctx ? engine : nullptr;
  }
  // Another style's forces summed into this step's device forces before
  // their one download: `adder` (user BONDED, KSPACE or SHAKE of
  // StreamclContext; SHAKE's is called last, on the others' sums)
  // is called by the engine's finish, in user order, with the extra rows
  // the earlier ones left (see scl_charmm_force_hook); set on the engine and
  // on every engine made after. nullptr removes it. Returns the status.
  // (ForceAdder: device_styles.h)
  scl_status set_force_adder(int user, ForceAdder adder, int extra_rows) override;
  // The step in flight calls the adders: the extra rows they may write
  // (-1: no step in flight, or it does not call them).
  int adder_rows() const override;
  // The same after the step's collection (post_force: x unchanged since
  // compute), until the next compute; nullptr where the pair did not
  // compute on this timestep.
  const scl_stream *last_device_positions(const scl_context *other, int natoms) const override;

 private:
  std::string device_spec;
  scl_precision precision;
  int tpa, chunks, tune;
  std::string kernel, engine_kernel; // force kernel kind: "" (tuned), "charmm" or "cpu"; the engine's
  int gpus;                // GPUs of a node the ranks spread over (0: all)

  scl_context *ctx;
  std::string ctx_device_spec;  // the resolved device spec of ctx (shared: StreamclContext)
  std::string rank_device;      // the device spec this rank resolved to
  int gpus_used;               // GPUs this node's ranks use (0: no GPU assignment)
  scl_charmm *engine;
  scl_charmm_params engine_params;
  std::vector<double> eps_mixed, sigma_mixed;  // the arrays engine_params points to
  bool engine_stale;       // init_style ran since the engine was made
  ForceAdder adders[3] = {nullptr, nullptr, nullptr};   // BONDED, KSPACE, SHAKE (called in that order)
  int adder_extra[3] = {0, 0, 0};
  static int dispatch(void *self, scl_stream *f, scl_type type, int nlocal, int extra);
  scl_status apply_hook();
  bool pending;            // compute() enqueued a step not yet collected
  bigint computed_step = -1;   // timestep of the last compute()
  int last_nlocal, last_nghost;
  int host_threads;        // threads of the engine's host copies (its share of the node's cores)
  scl_charmm_stats stats_base;
  bool stats_base_taken;
  double wait_time;        // host seconds blocked in scl_charmm_finish this run
  double compute_time;     // host seconds in compute() (pack + enqueue) this run

  // ghost rows from the owned rows on the device (one rank; off with
  // STREAMCL_GHOST_GATHER=0): enabled for the atom set of the last
  // set_atoms; with STREAMCL_GHOST_CHECK=1 every gathered step's device
  // ghost rows are compared with atom->x's (forward_comm's) in collect()
  bool ghosts_on = false;
  bool ghost_noted = false;     // the log said why the rows go up
  bool ghost_step = false;      // the step in flight gathered
  long ghost_base = 0;          // scl_charmm_ghost_steps at the run's start
  long ghost_checked = 0;       // steps compared this run (STREAMCL_GHOST_CHECK)
  std::vector<int> ghost_src;   // each ghost's owned source row (atom->map of its tag)
  std::vector<double> ghost_rows;   // the device's ghost rows (check)
  void set_ghost_sources();
  void set_ghost_box();
  void check_ghosts();

  void read_env();
  std::string resolve_device();
  int rank_host_threads(int local_ranks);
  void create_context(const std::string &spec);   // the instance's shared context (collective)
  void ensure_engine();
  void set_atoms();
  std::string report_shared(double steps);
  [[noreturn]] void fail(const char *file, int line, const std::string &what, scl_status st);
};

}    // namespace LAMMPS_NS

#endif
