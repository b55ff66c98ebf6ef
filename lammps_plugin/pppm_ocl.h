/* -*- c++ -*-
 * kspace_style pppm/ocl: LAMMPS's pppm with the particle-mesh work (charge
 * assignment and force interpolation) done by libstreamcl (OpenCL).
 *
 * Everything else is LAMMPS's own PPPM: grid and g_ewald selection, accuracy
 * estimate, kspace_modify options, Green's function. On one rank (fft device,
 * the default) the whole step stays on the device: FFTs by VkFFT, Poisson,
 * energy and virial too. With several ranks (or fft host) LAMMPS's grid
 * communication, FFTs and Poisson solve run on the host between the device's
 * assignment and interpolation. compute() queues the device work and returns;
 * FixStreamclCollect adds forces (and, on one rank, energy/virial) in
 * pre_reverse (after bonds, before reverse communication), as it does for
 * pair_style lj/charmm/coul/long/ocl. Steps that want per-atom energy/virial
 * take the host-FFT path, with the per-atom interpolation on the host.
 * With several ranks the keyword ranks chooses:
 *   gather  every rank sends its atoms' x and q to rank 0, whose device runs
 *           the whole step as on one rank; the forces are scattered back
 *           (Greens function pieces gathered at each setup). One device does
 *           the kspace of all ranks: meant for the ranks of one node sharing
 *           GPUs, where the grid is small and the host FFTs plus grid
 *           communication cost more than moving the atoms.
 *   device  each rank assigns and interpolates its atoms on its device;
 *           LAMMPS's grid communication, FFTs and Poisson run on the host.
 *   host    LAMMPS's own host PPPM.
 * Default (auto): gather when all ranks are on one node and rank 0's device
 * is a GPU; host otherwise (a CPU device's PPPM is slower than LAMMPS's).
 * Refused with an error: triclinic boxes, kspace_modify slab, kspace_modify
 * diff ad, compute group/group, run_style respa.
 */
#ifndef LMP_PPPM_OCL_H
#define LMP_PPPM_OCL_H

#include "device_styles.h"
#include "pppm.h"

#include "streamcl/pppm.h"

#include <string>
#include <vector>

namespace LAMMPS_NS {

class PPPMOCL : public PPPM, public StreamclCollected {
 public:
  static const char *const STYLE;    // "pppm/ocl"
  static KSpace *creator(LAMMPS *lmp);

  PPPMOCL(LAMMPS *lmp);
  ~PPPMOCL() override;
  void settings(int narg, char **arg) override;
  void init() override;
  void setup() override;
  void compute(int eflag, int vflag) override;
  void compute_group_group(int, int, int) override;

  // Queue this step's device work from FixStreamclCollect::pre_force, so that
  // it overlaps the pair and bonded computes on the host; compute() then only
  // checks the energy/virial flags. Only with the whole step on the device
  // (one rank), no per-atom tallies, and no other pre_force fix (those may
  // change x or q, e.g. fix qeq). Not when the step reads x and q from the
  // pair style's device copy (shares_x(): that copy exists only once the
  // pair computed, so the step is queued in compute(), after the pair's, on
  // the one in-order queue; STREAMCL_SHARE_X=0 uploads and prestarts).
  void prestart(int vflag) override;
  // The pending step's forces go into the pair's device rows (its force
  // adder adds them before the pair's one download).
  bool forces_in_pair() const { return pending && deferred; }
  // Add the forces of the step compute() started; no-op when none is pending.
  void collect() override;
  void begin_run_stats() override;
  // "Device Time Info" of the kspace part of the run (rank 0 prints; collective).
  void report_run() override;

 private:
  std::string device_spec;
  int fp64;                      // precision double
  int fft_device;                // keyword fft: 1 device (one rank or gather), 0 host
  enum RanksMode { RANKS_AUTO, RANKS_HOST, RANKS_DEVICE, RANKS_GATHER };
  RanksMode ranks_keyword;       // keyword ranks as given
  RanksMode ranks_mode;          // as resolved by init() (never AUTO)
  bool host_only() const;        // several ranks, ranks host: LAMMPS's own PPPM
  bool gathered() const;         // several ranks, ranks gather: rank 0's device
  bool whole_device() const;     // the whole step on a device (one rank or gather)
  bool has_engine() const;       // this rank drives a device engine
  // gather mode: rank 0's whole-grid Green's function and wave numbers
  std::vector<double> gf_full, fk_full;
  std::vector<int> gather_counts, gather_displs;   // rank 0: atoms per rank (x3 for x, f)
  std::vector<double> gather_x, gather_q, gather_f, scatter_f;
  bool kspace_dirty;             // setup() ran: Green's function etc. to upload
  bool pending_solve;            // the pending step is a whole device step
  bool pending_energy, pending_virial;
  double pending_volume, pending_qscale;
  bigint prestarted;             // timestep of the step prestart() queued, -1 none
  scl_context *ctx;               // the instance's shared context (StreamclContext)
  std::string ctx_device_spec;   // its resolved device spec
  scl_pppm *engine;
  scl_pppm_params engine_params;
  bool pending;
  int share_x = -1;              // read x, q from the pair's device copy (STREAMCL_SHARE_X)
  int pending_nlocal;
  int pending_gathered;          // ranks gather, rank 0: atoms of the pending step
  int local_rank;                // node-local rank (init())
  scl_pppm_stats stats_base;
  double wait_time, host_time;   // host seconds in collect() / in compute()

  void read_env();
  bool shares_x();
  void account(double &into, double t0);
  RanksMode resolve_ranks_mode();
  void create_context();
  void gather_kspace();            // collective: rank 0's gf_full, fk_full
  void gather_extent(int lo[3], int hi[3]) const;
  void gather_atoms_and_start(bool tally);   // collective
  void scatter_forces(double e, const double v[6], double *eout, double vout[6]);
  void parse_keywords(int narg, char **arg);
  void ensure_engine();
  bool charges_present();
  bool compute_device_step();   // false: no device FFTs, use the host path
  bool start_own_step(bool tally);
  bool set_device_kspace();      // false: no device FFTs
  void prepare_device_step();
  void drain_stale_step();
  void tally_sums(int nlocal);
  scl_status set_kspace_on_device();
  bool device_gf();   // the device computes the Green's function (one rank, device FFTs)
  // PPPM::setup's host Green's function: skipped while the device computes
  // it, computed when a host path needs it (per-atom tallies, an upload)
  void compute_gf_ik() override;
  void ensure_host_gf();
  int upload_kspace = -1;   // 1: upload the host's Green's function (no fp64, VkFFT; A/B)
  bool gf_host_stale = false;
  // the pending step's forces go into the pair's download (its force adder)
  bool deferred = false;
  const void *adder_pair = nullptr;   // the pair style our adder was set on
  static int force_adder(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int extra);
  bool defer_forces(StreamclDevicePair *pair);
  [[noreturn]] void fail(const char *file, int line, const std::string &what, scl_status st);
};

}    // namespace LAMMPS_NS

#endif
