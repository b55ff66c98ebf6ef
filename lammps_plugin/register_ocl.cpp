#include "register_ocl.h"

#include "pair_lj_charmm_coul_long_ocl.h"

#include "force.h"
#include "lammps.h"

using namespace LAMMPS_NS;

void streamcl_register_styles(LAMMPS *lmp)
{
  (*lmp->force->pair_map)[PairLJCharmmCoulLongOCL::STYLE] = &PairLJCharmmCoulLongOCL::creator;
}
