/* run_style verlet/ocl (verlet_ocl.h says what it skips and when). The loop
 * is Verlet::run's sequence of hooks, step by step, with one difference:
 * forward_comm of x on steps that neither re-neighbor nor write output. */
#include "verlet_ocl.h"

#include "bonded_ocl.h"
#include "device_styles.h"
#if STREAMCL_LAMMPS_SHAKE_OCL
#include "fix_shake_ocl.h"
#endif
#include "streamcl_context.h"
#include "strf.h"

#include "angle.h"
#include "atom.h"
#include "bond.h"
#include "comm.h"
#include "dihedral.h"
#include "domain.h"
#include "error.h"
#include "fix.h"
#include "force.h"
#include "improper.h"
#include "kspace.h"
#include "modify.h"
#include "neighbor.h"
#include "output.h"
#include "pair.h"
#include "timer.h"
#include "update.h"

#include <cstring>

using namespace LAMMPS_NS;

const char *const VerletOCL::STYLE = "verlet/ocl";

Integrate *VerletOCL::creator(LAMMPS *lmp, int narg, char **arg)
{
  return new VerletOCL(lmp, narg, arg);
}

VerletOCL::VerletOCL(LAMMPS *lmp, int narg, char **arg) : Verlet(lmp, narg, arg)
{
  for (int i = 0; i < narg; i++) {
    if (!strcmp(arg[i], "host"))
      host_only = true;
    else if (!strcmp(arg[i], "resident"))
      resident_off = false;
    else if (!strcmp(arg[i], "noresident"))
      resident_off = true;
    else
      error->all(FLERR, strf("run_style verlet/ocl: unknown argument '%s' (none, 'host': "
                             "LAMMPS's Verlet loop, 'noresident': x and v on the host, or "
                             "'resident', the default)", arg[i]));
  }
}

namespace {

// post_force hooks: n_post_force_any since 2023, n_post_force before
template <class M> auto post_force_hooks(M *m, int) -> decltype(m->n_post_force_any)
{
  return m->n_post_force_any;
}
template <class M> int post_force_hooks(M *m, long) { return m->n_post_force; }

// the fixes whose hooks read or write owned atoms only (never ghost x)
bool owned_only_fix(const char *style)
{
  static const char *const ok[] = {"nve",  "nvt",         "npt",          "nph",     "langevin",
                                   "temp/berendsen", "temp/rescale", "momentum", "enforce2d"};
  for (const char *s : ok)
    if (!strcmp(style, s)) return true;
  // the plugin's internal fixes (pair and bonded collection)
  return !strncmp(style, "STREAMCL/", 9);
}

}    // namespace

std::string VerletOCL::fix_blocker()
{
  for (int i = 0; i < modify->nfix; i++) {
    Fix *f = modify->fix[i];
#if STREAMCL_LAMMPS_SHAKE_OCL
    if (auto *s = dynamic_cast<FixShakeOCL *>(f)) {
      if (!s->may_solve_in_rows())
        return strf("fix %s (shake/ocl) solves on the host or with its own transfers "
                    "(STREAMCL_SHAKE, STREAMCL_SHAKE_ROWS, a CPU device's default)", f->id);
      continue;
    }
#endif
    if (!owned_only_fix(f->style))
      return strf("fix %s (%s) is not known to read owned atoms only", f->id, f->style);
  }
  return "";
}

// Why this run must be Verlet's loop ("": it need not).
std::string VerletOCL::find_blocker()
{
  if (host_only) return "run_style verlet/ocl host";
  if (StreamclContext::loop_host()) return "STREAMCL_LOOP=host";
  if (comm->nprocs > 1) return "several ranks (the ghost rows come from other ranks)";
  if (update->whichflag != 1) return "not a dynamics run";
  if (comm->ghost_velocity) return "comm_modify vel yes (ghost velocities go with x)";
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  if (!pair)
    return strf("pair_style %s is not a streamcl device style",
                force->pair_style ? force->pair_style : "none");
  if (StreamclContext::ghost_check())
    return "STREAMCL_GHOST_CHECK=1 compares the device's ghost rows with LAMMPS's";
  if (!StreamclContext::ghost_gather()) return "STREAMCL_GHOST_GATHER=0";
  const char *bonded[] = {force->bond_style, force->angle_style, force->dihedral_style,
                          force->improper_style};
  const bool present[] = {force->bond != nullptr, force->angle != nullptr,
                          force->dihedral != nullptr, force->improper != nullptr};
  for (int k = 0; k < 4; k++)
    if (present[k] && !bonded_ocl_reads_device_x(lmp, k))
      return strf("%s_style %s reads LAMMPS's x (not an /ocl style, or its host code)",
                  k == 0 ? "bond" : k == 1 ? "angle" : k == 2 ? "dihedral" : "improper",
                  bonded[k]);
  // these read owned atoms only (not so pppm/tip4p: its M sites use ghost H)
  static const char *const kspace_ok[] = {"pppm", "pppm/ocl", "pppm/cg", "ewald"};
  bool kspace_known = !force->kspace;
  for (const char *k : kspace_ok)
    kspace_known = kspace_known || !strcmp(force->kspace_style, k);
  if (!kspace_known)
    return strf("kspace_style %s is not known to read owned atoms only", force->kspace_style);
  return fix_blocker();
}

// (the styles' state after set-up decides: fix shake/ocl sets up its solve
// in the rows there)
void VerletOCL::setup(int flag)
{
  Verlet::setup(flag);
  blocker = find_blocker();
  steps_skipped = 0;
  steps_run = 0;
  if (blocker.empty())
    resident_begin();
  else
    resident_blocker = "LAMMPS's Verlet loop";
}

// The run's line, after the loop: thermo's block must stay unbroken
void VerletOCL::cleanup()
{
  const bool resident = integ != nullptr;
  resident_end();
  Verlet::cleanup();
  if (comm->me != 0) return;
  if (resident)
    utils::logmesg(lmp, strf("run_style verlet/ocl resident: x and v stayed on the device "
                             "(fix nve there): forward comm of x skipped on %ld of %ld steps, "
                             "x and v up %ld times, the displacement read %ld times\n",
                             steps_skipped, steps_run, resident_uploads, disp_checks));
  else if (blocker.empty())
    utils::logmesg(lmp, "run_style verlet/ocl: x and v on the host: " + resident_blocker + "\n");
  if (blocker.empty())
    utils::logmesg(lmp, strf("run_style verlet/ocl: ghost x stayed on the device between "
                             "re-neighborings: forward comm of x skipped on %ld of %ld steps\n",
                             steps_skipped, steps_run));
  else
    utils::logmesg(lmp, "run_style verlet/ocl: LAMMPS's Verlet loop: " + blocker + "\n");
}

// On this step the host's ghost x may stay stale: one rank, no re-neighbor
// (checked by the caller), no output (nor fix shake's statistics), and the
// pair gathers the ghost rows.
bool VerletOCL::skip_forward_comm(bigint ntimestep)
{
  if (ntimestep == output->next) return false;
#if STREAMCL_LAMMPS_SHAKE_OCL
  for (int i = 0; i < modify->nfix; i++)
    if (auto *s = dynamic_cast<FixShakeOCL *>(modify->fix[i]))
      if (s->stats_step() == ntimestep) return false;
#endif
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  return pair && pair->ghosts_gathered();
}

// After a step without forward comm: no style uploaded LAMMPS's x (whose
// ghost rows are stale), and fix shake/ocl solved in the pair's rows.
void VerletOCL::check_no_host_x(bigint ntimestep, const long before[2])
{
  using SC = StreamclContext::RunBooks;
  const SC b = StreamclContext::run_books(lmp);
  const long now[2] = {b.x_uploaded[StreamclContext::BONDED], b.x_uploaded[StreamclContext::SHAKE]};
  bool stale = now[0] != before[0] || now[1] != before[1];
#if STREAMCL_LAMMPS_SHAKE_OCL
  for (int i = 0; i < modify->nfix; i++)
    if (auto *s = dynamic_cast<FixShakeOCL *>(modify->fix[i]))
      stale = stale || !s->solved_in_rows(ntimestep);
#endif
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  stale = stale || !pair || !pair->ghosts_gathered();
  if (stale)
    error->one(FLERR, strf("run_style verlet/ocl: on step %ld a style read LAMMPS's ghost x, "
                           "which this loop had not communicated (a case its checks at set-up "
                           "missed): use run_style verlet, and report it",
                           (long) ntimestep));
}

void VerletOCL::reneighbor(bigint ntimestep, int sortflag)
{
  if (modify->n_pre_exchange) {
    timer->stamp();
    modify->pre_exchange();
    timer->stamp(Timer::MODIFY);
  }
  if (triclinic) domain->x2lamda(atom->nlocal);
  domain->pbc();
  if (domain->box_change) {
    domain->reset_box();
    comm->setup();
    if (neighbor->style) neighbor->setup_bins();
  }
  timer->stamp();
  comm->exchange();
  if (sortflag && ntimestep >= atom->nextsort) atom->sort();
  comm->borders();
  if (triclinic) domain->lamda2x(atom->nlocal + atom->nghost);
  timer->stamp(Timer::COMM);
  if (modify->n_pre_neighbor) {
    modify->pre_neighbor();
    timer->stamp(Timer::MODIFY);
  }
  neighbor->build(1);
  timer->stamp(Timer::NEIGH);
  if (modify->n_post_neighbor) {
    modify->post_neighbor();
    timer->stamp(Timer::MODIFY);
  }
}

// pair first (bonded styles tally into its books), as Verlet does
void VerletOCL::forces()
{
  force_clear();
  timer->stamp();
  if (modify->n_pre_force) {
    modify->pre_force(vflag);
    timer->stamp(Timer::MODIFY);
  }
  if (pair_compute_flag) {
    force->pair->compute(eflag, vflag);
    timer->stamp(Timer::PAIR);
  }
  if (atom->molecular != Atom::ATOMIC) {
    if (force->bond) force->bond->compute(eflag, vflag);
    if (force->angle) force->angle->compute(eflag, vflag);
    if (force->dihedral) force->dihedral->compute(eflag, vflag);
    if (force->improper) force->improper->compute(eflag, vflag);
    timer->stamp(Timer::BOND);
  }
  if (kspace_compute_flag) {
    force->kspace->compute(eflag, vflag);
    timer->stamp(Timer::KSPACE);
  }
  if (modify->n_pre_reverse) {
    modify->pre_reverse(eflag, vflag);
    timer->stamp(Timer::MODIFY);
  }
  if (force->newton) {
    comm->reverse_comm();
    timer->stamp(Timer::COMM);
  }
}

void VerletOCL::one_step(int sortflag)
{
  const bigint ntimestep = ++update->ntimestep;
  ev_set(ntimestep);
  timer->stamp();
  modify->initial_integrate(vflag);
  if (modify->n_post_integrate) modify->post_integrate();
  timer->stamp(Timer::MODIFY);

  bool skipped = false;
  long before[2] = {0, 0};
  if (neighbor->decide()) {
    reneighbor(ntimestep, sortflag);
  } else if (skip_forward_comm(ntimestep)) {
    skipped = true;
    const StreamclContext::RunBooks b = StreamclContext::run_books(lmp);
    before[0] = b.x_uploaded[StreamclContext::BONDED];
    before[1] = b.x_uploaded[StreamclContext::SHAKE];
  } else {
    timer->stamp();
    comm->forward_comm();
    timer->stamp(Timer::COMM);
  }

  forces();
  if (post_force_hooks(modify, 0)) modify->post_force(vflag);
  modify->final_integrate();
  if (modify->n_end_of_step) modify->end_of_step();
  timer->stamp(Timer::MODIFY);
  if (skipped) {
    check_no_host_x(ntimestep, before);
    steps_skipped++;
  }

  if (ntimestep == output->next) {
    timer->stamp();
    output->write(ntimestep);
    timer->stamp(Timer::OUTPUT);
  }
}

void VerletOCL::run(int n)
{
  if (!blocker.empty()) {
    Verlet::run(n);
    return;
  }
  const int sortflag = atom->sortfreq > 0;
  for (int i = 0; i < n; i++) {
    if (timer->check_timeout(i)) {
      update->nsteps = i;
      break;
    }
    if (integ)
      resident_step(sortflag);
    else
      one_step(sortflag);
    steps_run++;
  }
}
