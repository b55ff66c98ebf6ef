/* Internal fix of pair_style lj/charmm/coul/long/ocl: see the header. */
#include "fix_streamcl_collect.h"

#include "pair_lj_charmm_coul_long_ocl.h"
#include "pppm_ocl.h"

#include "force.h"
#include "timer.h"

using namespace LAMMPS_NS;
using namespace FixConst;

const char *const FixStreamclCollect::STYLE = "STREAMCL/COLLECT";
const char *const FixStreamclCollect::ID = "streamcl_collect";

Fix *FixStreamclCollect::creator(LAMMPS *lmp, int narg, char **arg)
{
  return new FixStreamclCollect(lmp, narg, arg);
}

FixStreamclCollect::FixStreamclCollect(LAMMPS *lmp, int narg, char **arg) : Fix(lmp, narg, arg) {}

int FixStreamclCollect::setmask()
{
  return PRE_FORCE | PRE_REVERSE | MIN_PRE_REVERSE;
}

PairLJCharmmCoulLongOCL *FixStreamclCollect::pair()
{
  return dynamic_cast<PairLJCharmmCoulLongOCL *>(force->pair);
}

PPPMOCL *FixStreamclCollect::kspace()
{
  return dynamic_cast<PPPMOCL *>(force->kspace);
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
