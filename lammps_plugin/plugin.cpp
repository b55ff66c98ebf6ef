/* LAMMPS plugin entry (PLUGIN package): plugin load libstreamcl_lammps.so
 * registers pair_style lj/charmm/coul/long/ocl and kspace_style pppm/ocl
 * (and with them -sf ocl), kept
 * across `clear` as register_ocl.h describes (the .so is linked -z nodelete:
 * the wrapped commands stay callable after LAMMPS unloads plugins). */
#include "pair_lj_charmm_coul_long_ocl.h"
#include "register_ocl.h"

#include "lammpsplugin.h"
#include "version.h"

using namespace LAMMPS_NS;

static void *create_pair(void *lmp)
{
  return PairLJCharmmCoulLongOCL::creator(static_cast<LAMMPS *>(lmp));
}

extern "C" void lammpsplugin_init(void *lmp, void *handle, void *regfunc)
{
  lammpsplugin_t plugin;
  auto register_plugin = (lammpsplugin_regfunc) regfunc;
  plugin.version = LAMMPS_VERSION;
  plugin.style = "pair";
  plugin.name = PairLJCharmmCoulLongOCL::STYLE;
  plugin.info = "CHARMM LJ + long-range Coulomb on OpenCL (libstreamcl)";
  plugin.author = "streamcl";
  plugin.creator.v1 = (lammpsplugin_factory1 *) &create_pair;
  plugin.handle = handle;
  (*register_plugin)(&plugin, lmp);
  streamcl_register_styles(static_cast<LAMMPS *>(lmp));
}
