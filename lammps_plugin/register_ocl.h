/* -*- c++ -*- Registration of the streamcl styles into a LAMMPS instance,
 * shared by the lmp_ocl launcher and the plugin entry point. */
#ifndef STREAMCL_REGISTER_OCL_H
#define STREAMCL_REGISTER_OCL_H

namespace LAMMPS_NS {
class LAMMPS;
}

// Adds pair_style lj/charmm/coul/long/ocl (also reached by -sf ocl from
// lj/charmm/coul/long) to lmp's style table.
void streamcl_register_styles(LAMMPS_NS::LAMMPS *lmp);

#endif
