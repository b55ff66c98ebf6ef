/* Internal fix of pair_style lj/charmm/coul/long/ocl: see the header. */
#include "fix_streamcl_collect.h"

#include "device_styles.h"

#include "force.h"
#include "kspace.h"
#include "lammps.h"
#include "modify.h"
#include "pair.h"
#include "timer.h"

#include <string>

using namespace LAMMPS_NS;
using namespace FixConst;

const char *const FixStreamclCollect::STYLE = "STREAMCL/COLLECT";
const char *const FixStreamclCollect::ID = "streamcl_collect";

Fix *FixStreamclCollect::creator(LAMMPS *lmp, int narg, char **arg)
{
  return new FixStreamclCollect(lmp, narg, arg);
}

FixStreamclCollect::FixStreamclCollect(LAMMPS *lmp, int narg, char **arg) : Fix(lmp, narg, arg) {}

void FixStreamclCollect::ensure(LAMMPS *lmp)
{
  Modify *modify = lmp->modify;
  if (modify->find_fix(ID) >= 0) return;
  (*modify->fix_map)[STYLE] = &creator;
  modify->add_fix(std::string(ID) + " all " + STYLE, 0);
}

void FixStreamclCollect::remove(LAMMPS *lmp)
{
  Modify *modify = lmp->modify;
  if (modify && modify->find_fix(ID) >= 0) modify->delete_fix(ID);
}

int FixStreamclCollect::setmask()
{
  return PRE_FORCE | PRE_REVERSE | MIN_PRE_REVERSE;
}

// the ocl pair style (nullptr for another)
StreamclCollected *FixStreamclCollect::pair()
{
  return dynamic_cast<StreamclCollected *>(force->pair);
}

// kspace_style pppm/ocl (nullptr for another)
StreamclCollected *FixStreamclCollect::kspace()
{
  return dynamic_cast<StreamclCollected *>(force->kspace);
}

// end of setup: the device statistics of the run cover the timed loop only
void FixStreamclCollect::setup(int)
{
  if (auto p = pair()) p->begin_run_stats();
  if (auto k = kspace()) k->begin_run_stats();
}

void FixStreamclCollect::min_setup(int vflag)
{
  setup(vflag);
}

// kspace_style pppm/ocl queues its whole device step here (one rank), so it
// overlaps the pair and bonded computes; its host time is kspace time
void FixStreamclCollect::pre_force(int vflag)
{
  if (auto k = kspace()) {
    timer->stamp(Timer::MODIFY);
    k->prestart(vflag);
    timer->stamp(Timer::KSPACE);
  }
}

void FixStreamclCollect::setup_pre_reverse(int, int)
{
  if (auto p = pair()) p->collect();
  if (auto k = kspace()) k->collect();
}

void FixStreamclCollect::pre_reverse(int, int)
{
  if (auto p = pair()) {
    p->collect();
    // the wait for the device is pair time, not fix time, in LAMMPS's breakdown
    timer->stamp(Timer::PAIR);
  }
  if (auto k = kspace()) {
    k->collect();
    timer->stamp(Timer::KSPACE);
  }
}

void FixStreamclCollect::min_pre_reverse(int eflag, int vflag)
{
  pre_reverse(eflag, vflag);
}

void FixStreamclCollect::post_run()
{
  if (auto p = pair()) {
    p->collect();
    p->report_run();
  }
  if (auto k = kspace()) {
    k->collect();
    k->report_run();
  }
}
