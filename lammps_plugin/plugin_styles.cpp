/* The styles' side of `plugin load`: libstreamcl_lammps_styles.so, opened by
 * the gate (plugin.cpp) once it has checked that this LAMMPS is the one the
 * styles were built against. Registers every style of register_ocl.cpp's
 * table through LAMMPS's PLUGIN (so `plugin list` shows them) where this
 * LAMMPS's PLUGIN takes that kind, and keeps them across `clear` as
 * register_ocl.h describes (this .so is linked -z nodelete: the wrapped
 * commands stay callable after LAMMPS unloads plugins). */
#include "register_ocl.h"

#include "lammps.h"
#include "lammpsplugin.h"

#include <cstring>

using namespace LAMMPS_NS;

extern "C" void streamcl_lammps_register(void *lmp, void *handle, void *regfunc)
{
  auto register_plugin = (lammpsplugin_regfunc) regfunc;
  for (int i = 0; i < streamcl_nstyles; i++) {
    const StreamclStyle &s = streamcl_styles[i];
    // 29Sep2021's PLUGIN takes no kspace styles: those go into the table
    // directly below (with -sf ocl and `clear` handled the same way)
    if (!STREAMCL_LAMMPS_PLUGIN_KSPACE && !strcmp(s.kind, "kspace")) continue;
    // no LAMMPS's PLUGIN takes run styles (verlet/ocl): the table only
    if (!strcmp(s.kind, "integrate")) continue;
    if (!streamcl_style_enabled(s)) continue;
    lammpsplugin_t plugin;
    memset(&plugin, 0, sizeof plugin);
    plugin.version = STREAMCL_LAMMPS_VERSION_STR;
    plugin.style = s.kind;
    plugin.name = s.name;
    plugin.info = s.info;
    plugin.author = "streamcl";
    if (s.factory2)
      plugin.creator.v2 = (lammpsplugin_factory2 *) s.factory2;
    else
      plugin.creator.v1 = (lammpsplugin_factory1 *) s.factory1;
    plugin.handle = handle;
    (*register_plugin)(&plugin, lmp);
  }
  streamcl_register_styles(static_cast<LAMMPS *>(lmp));
}
