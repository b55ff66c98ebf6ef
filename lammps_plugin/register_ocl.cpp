#include "register_ocl.h"

#include "bonded_ocl.h"
#include "fix_shake_ocl.h"
#include "pair_lj_charmm_coul_long_ocl.h"
#include "pppm_ocl.h"

#include "command.h"
#include "error.h"
#include "force.h"
#include "input.h"
#include "lammps.h"
#include "modify.h"

#include <cstring>

using namespace LAMMPS_NS;

void streamcl_register_pair(LAMMPS *lmp)
{
  (*lmp->force->pair_map)[PairLJCharmmCoulLongOCL::STYLE] = &PairLJCharmmCoulLongOCL::creator;
  (*lmp->force->kspace_map)[PPPMOCL::STYLE] = &PPPMOCL::creator;
  (*lmp->modify->fix_map)[FixShakeOCL::STYLE] = &FixShakeOCL::creator;
  streamcl_register_bonded(lmp);
}

namespace {

// the commands after which a box exists (pair_coeff needs one) or a restart's
// pair style is created; the slot index is the template argument below
const char *const wrapped[] = {"read_data", "read_restart", "create_box"};
const int nwrapped = sizeof wrapped / sizeof wrapped[0];
Input::CommandCreator original[nwrapped];  // LAMMPS's own creators (process-wide)

// Runs the original command, then refuses a CPU pair style that -sf ocl
// should have mapped to the device style (defined after `clear` but before
// the style was restored).
class RestoringCommand : public Command {
 public:
  RestoringCommand(LAMMPS *lmp, Command *inner) : Command(lmp), inner(inner) {}
  ~RestoringCommand() override { delete inner; }
  void command(int narg, char **arg) override
  {
    inner->command(narg, arg);
    const char *ps = force->pair_style;
    if (lmp->suffix_enable && lmp->suffix && !strcmp(lmp->suffix, "ocl") && ps &&
        !strcmp(ps, "lj/charmm/coul/long"))
      error->all(FLERR, "pair_style lj/charmm/coul/long was defined after 'clear' but before the "
                        "box, so -sf ocl could not map it to lj/charmm/coul/long/ocl: define the "
                        "pair style after read_data, read_restart or create_box");
  }

 private:
  Command *inner;
};

template <int K> Command *restore_then(LAMMPS *lmp)
{
  streamcl_register_pair(lmp);
  return new RestoringCommand(lmp, original[K](lmp));
}

Input::CommandCreator wrapper(int k)
{
  static const Input::CommandCreator w[nwrapped] = {&restore_then<0>, &restore_then<1>,
                                                    &restore_then<2>};
  return w[k];
}

}    // namespace

void streamcl_register_styles(LAMMPS *lmp)
{
  streamcl_register_pair(lmp);
  auto &commands = *lmp->input->command_map;
  for (int k = 0; k < nwrapped; k++) {
    auto it = commands.find(wrapped[k]);
    if (it == commands.end() || it->second == wrapper(k)) continue;    // absent or done
    original[k] = it->second;
    it->second = wrapper(k);
  }
}
