/* -*- c++ -*-
 * Internal fix added by pair_style lj/charmm/coul/long/ocl and kspace_style
 * pppm/ocl: collects the device's pair and kspace forces in pre_reverse, i.e. after the pair, bond and kspace
 * computes and before reverse communication and post_force (fix shake, ...),
 * in runs, setup, and minimization. Prints "Device Time Info" after each run.
 * It knows those styles only as StreamclCollected (device_styles.h), so they
 * include this header and it includes none of theirs.
 */
#ifndef LMP_FIX_STREAMCL_COLLECT_H
#define LMP_FIX_STREAMCL_COLLECT_H

#include "fix.h"

namespace LAMMPS_NS {

class FixStreamclCollect : public Fix {
 public:
  static const char *const STYLE;   // "STREAMCL/COLLECT"
  static const char *const ID;      // "streamcl_collect"
  static Fix *creator(LAMMPS *lmp, int narg, char **arg);
  // add the fix to lmp's modify where it is missing (init_style of the styles)
  static void ensure(LAMMPS *lmp);
  // remove it where present (the pair style's destructor)
  static void remove(LAMMPS *lmp);

  FixStreamclCollect(LAMMPS *lmp, int narg, char **arg);
  int setmask() override;
  void setup(int vflag) override;
  void min_setup(int vflag) override;
  void pre_force(int vflag) override;
  void setup_pre_reverse(int eflag, int vflag) override;
  void pre_reverse(int eflag, int vflag) override;
  void min_pre_reverse(int eflag, int vflag) override;
  void post_run() override;

 private:
  class StreamclCollected *pair();
  class StreamclCollected *kspace();
};

}    // namespace LAMMPS_NS

#endif
