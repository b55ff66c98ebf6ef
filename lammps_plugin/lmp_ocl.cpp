/* lmp_ocl: LAMMPS (the shared liblammps it is linked to) with
 * pair_style lj/charmm/coul/long/ocl registered before the input is read.
 * Same command line as lmp: -in, -sf ocl, -var, -log, -screen, mpirun, ...
 * Mirrors LAMMPS's src/main.cpp (29Sep2021, built without LAMMPS_EXCEPTIONS). */
#include "register_ocl.h"

#include "accelerator_kokkos.h"
#include "input.h"
#include "lammps.h"
#include "lmppython.h"

#include <mpi.h>

using namespace LAMMPS_NS;

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;

  // the constructor parses the command line and opens -in/-log/-screen;
  // the input is read only by input->file(), after the style is registered
  LAMMPS *lmp = new LAMMPS(argc, argv, comm);
  streamcl_register_styles(lmp);
  lmp->input->file();
  delete lmp;

  KokkosLMP::finalize();
  Python::finalize();
  MPI_Barrier(comm);
  MPI_Finalize();
  return 0;
}
