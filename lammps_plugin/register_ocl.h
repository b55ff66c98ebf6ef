/* -*- c++ -*- Registration of the streamcl styles into a LAMMPS instance,
 * shared by the lmp_ocl launcher and the plugin entry point. */
#ifndef STREAMCL_REGISTER_OCL_H
#define STREAMCL_REGISTER_OCL_H

namespace LAMMPS_NS {
class LAMMPS;
}

// Adds pair_style lj/charmm/coul/long/ocl and kspace_style pppm/ocl (also
// reached by -sf ocl from lj/charmm/coul/long and pppm) to lmp's style
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

// Only the styles (the pair style is what the plugin also registers through LAMMPS).
void streamcl_register_pair(LAMMPS_NS::LAMMPS *lmp);

#endif
