/* -*- c++ -*-
 * The streamcl context of the /ocl styles: ONE per LAMMPS instance, rank and
 * device, shared by the pair style, pppm/ocl, the bonded /ocl styles and
 * fix shake/ocl. A context is an OpenCL context with its in-order queue:
 * sharing it puts the kernels of one step on one queue (no time-slicing
 * between contexts of one rank on one GPU, no cross-context waits) and
 * builds each program once.
 *
 * Reference counted by the styles: acquire() in a style's init (or first
 * compute), release() in its destructor; `clear` deletes the styles and so,
 * with the last one, the context. Keyed by the LAMMPS instance, so two
 * instances in one process (library users) get their own.
 *
 * Also the per-instance books of the run for "Device Time Info": each
 * style's host seconds, and the context's transfers (scl_transfer_stats)
 * and program builds (scl_build_stats).
 */
#ifndef LMP_STREAMCL_CONTEXT_H
#define LMP_STREAMCL_CONTEXT_H

#include "streamcl.h"

#include <mpi.h>
#include <string>

namespace LAMMPS_NS {

class LAMMPS;

namespace StreamclContext {

enum User { PAIR = 0, KSPACE, BONDED, SHAKE, USERS };
const char *user_name(int user);

// This process's rank among the ranks of world on its node, and their count.
// Collective over world: call it where every rank is (a style's init).
int node_rank(MPI_Comm world, int *local_ranks);

// The device spec of this rank for a style's spec: "" or "gpu" is the
// node's GPUs shared round robin by node-local rank (the first `gpus` of
// them, 0: all; scl_charmm_rank_device); another spec is returned as given.
// Without a GPU: "" stays "" (the library's default device); "gpu" fails
// (returns false, *err says why). *gpus_used (optional): GPUs of the rule.
bool resolve(const std::string &spec, int local_rank, int gpus, std::string &out,
             std::string *err, int *gpus_used = nullptr);

// STREAMCL_GPUS (0: unset or not a positive integer), for the styles
// without a `gpus` keyword.
int env_gpus();

// The styles read x (and q) from the pair style's device copy of the step
// where they can (STREAMCL_SHARE_X=0: each uploads its own, for A/B).
bool share_x();
// The bonded styles add their forces into the pair's device forces, which
// come down once per step (STREAMCL_ONE_DOWNLOAD=0: each downloads its
// own, for A/B). Needs share_x.
bool one_download();
// Ghost rows from the owned rows on the device between re-neighborings
// (one rank; STREAMCL_GHOST_GATHER=0: every row uploaded each step, for A/B),
// and the test switch STREAMCL_GHOST_CHECK=1 (the device's ghost rows
// compared with LAMMPS's after each gathered step).
bool ghost_gather();
// STREAMCL_LOOP=host: run_style verlet/ocl runs LAMMPS's Verlet loop (the
// A/B switch of bench/rhodo/step-gpu.sh; as `run_style verlet/ocl host`)
bool loop_host();
// STREAMCL_LOOP=noresident: verlet/ocl keeps x and v on the host even where
// fix nve could run on the device (as `run_style verlet/ocl noresident`)
bool loop_noresident();
// fix shake/ocl solves inside the pair's device force rows where it can (one
// rank; STREAMCL_SHAKE_ROWS=0: in post_force with its own transfers, A/B).
bool shake_rows();
bool ghost_check();
// STREAMCL_BONDED, the one reading of it: unset or auto, the bonded /ocl
// styles on a GPU and LAMMPS's host code in them on a CPU device (PoCL runs
// the "device" on the same cores, slower than LAMMPS's own loops); 1 or
// device: on the device whatever it is; 0 or host: -sf ocl leaves LAMMPS's
// CPU bonded styles in place. Another value: *bad (optional) points at it
// and the result is AUTO.
enum BondedMode { BONDED_AUTO, BONDED_DEVICE, BONDED_OFF };
int bonded_mode(const char **bad = nullptr);
// STREAMCL_SHAKE, read here only: unset or auto, fix shake/ocl's default for
// the device type (fix_shake_ocl.cpp); 1 or device: the device solve; 0 or
// host: LAMMPS's fix shake code in it. Another value: *bad, and AUTO.
enum ShakeMode { SHAKE_AUTO, SHAKE_DEVICE, SHAKE_HOST };
int shake_mode(const char **bad = nullptr);

// The context of (lmp, resolved device spec) for `user`; made by the first
// acquire (STREAMCL_* environment options, profiling on), shared after.
// nullptr on failure: *st and err say why.
scl_context *acquire(LAMMPS *lmp, const std::string &spec, int user, scl_status *st,
                     std::string &err);
// One reference of `user` fewer; the last frees the context (after its
// engines: free them first).
void release(LAMMPS *lmp, scl_context *ctx, int user);

// Live contexts of this instance (on this rank), and of the whole process.
int count(LAMMPS *lmp);
int count_process();
// "pair, kspace, bonded, shake": the users of this instance's contexts.
std::string users(LAMMPS *lmp);

// Run books (this rank): host seconds a style spent in its hooks and the
// transfers they queued, since the start of a run's loop.
void begin_run(LAMMPS *lmp);
// One hook of a style, from construction to destruction: its wall seconds
// and the host <-> device copies queued on the instance's contexts meanwhile
// (the hooks of one instance do not overlap) go to `user`'s books.
class Span {
 public:
  Span(LAMMPS *lmp, int user);
  ~Span();
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;

 private:
  LAMMPS *lmp;
  int user;
  double t0;
  scl_transfer_stats at_start;
};
// An evaluation of `user` (bonded, kspace, shake) read x from the pair's
// device copy (shared) or uploaded it.
void note_x(LAMMPS *lmp, int user, bool shared);
struct RunBooks {
  double host[USERS];        // seconds since begin_run
  scl_transfer_stats moved;  // all this instance's contexts, since begin_run
  scl_transfer_stats moved_by[USERS];   // of those, queued in each style's Spans
  long x_shared[USERS], x_uploaded[USERS];   // evaluations by style since begin_run
  // programs built and kernel objects made since begin_run (the styles make
  // theirs at set-up: a build in the loop is a first-step stall, on a GPU
  // up to seconds)
  scl_build_stats built;
};
RunBooks run_books(LAMMPS *lmp);

}    // namespace StreamclContext
}    // namespace LAMMPS_NS

#endif
