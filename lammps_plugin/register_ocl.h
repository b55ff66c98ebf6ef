/* -*- c++ -*- Registration of the streamcl styles into a LAMMPS instance,
 * shared by the lmp_ocl launcher and the plugin (plugin_styles.cpp). The
 * styles are listed once, in the table `streamcl_styles` of register_ocl.cpp:
 * a new style is one line there. */
#ifndef STREAMCL_REGISTER_OCL_H
#define STREAMCL_REGISTER_OCL_H

namespace LAMMPS_NS {
class LAMMPS;
}

// One style: its kind ("pair", "bond", "angle", "dihedral", "improper",
// "kspace", "fix", "integrate": a run style), its name, a line for `plugin list`, how to put it into a
// LAMMPS's style table directly, and its creator as a PLUGIN factory
// (lammpsplugin_factory1 for all kinds but fix, lammpsplugin_factory2 for fix).
struct StreamclStyle {
  const char *kind;
  const char *name;
  const char *info;
  void (*add)(LAMMPS_NS::LAMMPS *lmp);
  void *factory1;   // void *(*)(void *lmp), or null
  void *factory2;   // void *(*)(void *lmp, int narg, char **arg), or null
};
extern const StreamclStyle streamcl_styles[];
extern const int streamcl_nstyles;
// false for a style the environment switched off (STREAMCL_BONDED=0: the bonded ones)
bool streamcl_style_enabled(const StreamclStyle &s);

// Adds every style of the table (pair lj/charmm/coul/long/ocl, kspace
// pppm/ocl, ...; also reached by -sf ocl from the CPU styles) to lmp's style
// tables, and keeps them there across the input command `clear`: `clear`
// re-creates LAMMPS's Force (and with PLUGIN unloads plugins), losing the
// styles, but keeps the input's command table.
// The commands that make a simulation box or read a restart (read_data,
// read_restart, create_box) are wrapped there to add the styles again first,
// so `clear; ...; read_data; pair_style .../ocl` and `write_restart; clear;
// read_restart` work, and -sf ocl maps to the device styles again. A pair
// style defined after `clear` but before the box is refused with an error
// under -sf ocl (it would silently be the CPU style); a kspace style defined
// there stays LAMMPS's CPU pppm (correct, only slower: inputs may turn the
// suffix off for kspace on purpose). Idempotent.
void streamcl_register_styles(LAMMPS_NS::LAMMPS *lmp);

// Only the style tables (what streamcl_register_styles does first).
void streamcl_add_styles(LAMMPS_NS::LAMMPS *lmp);

#endif
