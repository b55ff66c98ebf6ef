#include "register_ocl.h"

#include "bonded_ocl.h"
#if STREAMCL_LAMMPS_SHAKE_OCL
#include "fix_shake_ocl.h"
#endif
#include "fix_streamcl_collect.h"
#include "pair_lj_charmm_coul_long_ocl.h"
#include "pppm_ocl.h"
#include "streamcl_context.h"
#include "verlet_ocl.h"

#include "command.h"
#include "error.h"
#include "force.h"
#include "input.h"
#include "lammps.h"
#include "modify.h"
#include "update.h"

#include <cstdlib>
#include <cstring>

using namespace LAMMPS_NS;

namespace {

// direct insertion into the style table of each kind
template <class S> void into_pair_map(LAMMPS *lmp)
{
  (*lmp->force->pair_map)[S::STYLE] = &S::creator;
}
template <class S> void into_bond_map(LAMMPS *lmp)
{
  (*lmp->force->bond_map)[S::STYLE] = &S::creator;
}
template <class S> void into_angle_map(LAMMPS *lmp)
{
  (*lmp->force->angle_map)[S::STYLE] = &S::creator;
}
template <class S> void into_dihedral_map(LAMMPS *lmp)
{
  (*lmp->force->dihedral_map)[S::STYLE] = &S::creator;
}
template <class S> void into_improper_map(LAMMPS *lmp)
{
  (*lmp->force->improper_map)[S::STYLE] = &S::creator;
}
template <class S> void into_kspace_map(LAMMPS *lmp)
{
  (*lmp->force->kspace_map)[S::STYLE] = &S::creator;
}
template <class S> void into_fix_map(LAMMPS *lmp)
{
  (*lmp->modify->fix_map)[S::STYLE] = &S::creator;
}
// (no PLUGIN of LAMMPS takes run styles: only this way)
template <class S> void into_integrate_map(LAMMPS *lmp)
{
  (*lmp->update->integrate_map)[S::STYLE] = &S::creator;
}

// the creators as PLUGIN factories
template <class S> void *factory1(void *lmp) { return S::creator(static_cast<LAMMPS *>(lmp)); }
template <class S> void *factory2(void *lmp, int narg, char **arg)
{
  return S::creator(static_cast<LAMMPS *>(lmp), narg, arg);
}

template <class S> StreamclStyle entry(const char *kind, void (*add)(LAMMPS *), const char *info)
{
  return {kind, S::STYLE, info, add, reinterpret_cast<void *>(&factory1<S>), nullptr};
}
template <class S> StreamclStyle pair_style(const char *info) { return entry<S>("pair", &into_pair_map<S>, info); }
template <class S> StreamclStyle bond_style(const char *info) { return entry<S>("bond", &into_bond_map<S>, info); }
template <class S> StreamclStyle angle_style(const char *info) { return entry<S>("angle", &into_angle_map<S>, info); }
template <class S> StreamclStyle dihedral_style(const char *info)
{
  return entry<S>("dihedral", &into_dihedral_map<S>, info);
}
template <class S> StreamclStyle improper_style(const char *info)
{
  return entry<S>("improper", &into_improper_map<S>, info);
}
template <class S> StreamclStyle kspace_style(const char *info)
{
  return entry<S>("kspace", &into_kspace_map<S>, info);
}
template <class S> StreamclStyle fix_style(const char *info)
{
  return {"fix", S::STYLE, info, &into_fix_map<S>, nullptr, reinterpret_cast<void *>(&factory2<S>)};
}

template <class S> StreamclStyle integrate_style(const char *info)
{
  return {"integrate", S::STYLE, info, &into_integrate_map<S>, nullptr, nullptr};
}

}    // namespace

// Every style of the plugin and of lmp_ocl, one line each (the pair style
// first: its info line is what `plugin load` prints first). A style class S
// needs `static const char *const STYLE` and `static Bond *creator(LAMMPS *)`
// (Pair, Angle, ..., KSpace; `Fix *creator(LAMMPS *, int, char **)` for fixes).
const StreamclStyle streamcl_styles[] = {
    pair_style<PairLJCharmmCoulLongOCL>("CHARMM LJ + long-range Coulomb on OpenCL (libstreamcl)"),
    kspace_style<PPPMOCL>("PPPM on OpenCL (libstreamcl)"),
    fix_style<FixStreamclCollect>("collects the streamcl styles' device forces (internal)"),
    bond_style<BondHarmonicOCL>("harmonic bonds on OpenCL (libstreamcl)"),
    angle_style<AngleCharmmOCL>("CHARMM angles + Urey-Bradley on OpenCL (libstreamcl)"),
    dihedral_style<DihedralCharmmOCL>("CHARMM dihedrals + weighted 1-4 pairs on OpenCL (libstreamcl)"),
    improper_style<ImproperHarmonicOCL>("harmonic impropers on OpenCL (libstreamcl)"),
    integrate_style<VerletOCL>("Verlet loop that skips the host work the device styles replace"),
#if STREAMCL_LAMMPS_SHAKE_OCL   // lammps_plugin/CMakeLists.txt says when it is left out
    fix_style<FixShakeOCL>("SHAKE constraints solved on OpenCL (libstreamcl)"),
#endif
};
const int streamcl_nstyles = sizeof streamcl_styles / sizeof streamcl_styles[0];

// STREAMCL_BONDED=0 (or host) leaves the bonded styles out, so -sf ocl keeps
// LAMMPS's CPU bonded styles (the A/B switch of bench/bonded and
// bench/rhodo/step-gpu.sh); auto, the default, registers them and they pick
// the host code on a CPU device themselves (bonded_ocl.cpp)
bool streamcl_style_enabled(const StreamclStyle &s)
{
  static const char *const bonded[] = {"bond", "angle", "dihedral", "improper"};
  if (StreamclContext::bonded_mode() != StreamclContext::BONDED_OFF) return true;
  for (const char *k : bonded)
    if (!strcmp(s.kind, k)) return false;
  return true;
}

void streamcl_add_styles(LAMMPS *lmp)
{
  for (int i = 0; i < streamcl_nstyles; i++)
    if (streamcl_style_enabled(streamcl_styles[i])) streamcl_styles[i].add(lmp);
  // -sf ocl: LAMMPS made its default run style before the styles were
  // registered, so the suffix could not map it; do it now (an explicit
  // `run_style verlet` made with the suffix already is verlet/ocl)
  Update *update = lmp->update;
  if (update && lmp->suffix_enable && lmp->suffix && !strcmp(lmp->suffix, "ocl") &&
      update->integrate_style && !strcmp(update->integrate_style, "verlet") &&
      update->whichflag == 0) {
    char verlet[] = "verlet";
    char *arg = verlet;
    update->create_integrate(1, &arg, 1);
  }
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
  streamcl_add_styles(lmp);
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
  streamcl_add_styles(lmp);
  auto &commands = *lmp->input->command_map;
  for (int k = 0; k < nwrapped; k++) {
    auto it = commands.find(wrapped[k]);
    if (it == commands.end() || it->second == wrapper(k)) continue;    // absent or done
    original[k] = it->second;
    it->second = wrapper(k);
  }
}
